package io.asicemu.p4rt.service;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.asicemu.p4rt.proto.RoleConfig;

/** Reads {@code Role.config}: unset means full access, else it must be an {@link RoleConfig}. Stateless. */
final class RoleConfigs {
    private RoleConfigs() {}

    /** @return the parsed config, null for full access. @throws InvalidProtocolBufferException when malformed. */
    static RoleConfig parse(final Any config) throws InvalidProtocolBufferException {
        if (config == null) {
            return null;
        }
        if (!config.is(RoleConfig.class)) {
            throw new InvalidProtocolBufferException(
                    "role config must be an asicemu.p4rt.v1.RoleConfig, not " + config.getTypeUrl());
        }
        return config.unpack(RoleConfig.class);
    }

    static RoleConfig parseQuietly(final Any config) {
        try {
            return parse(config);
        } catch (final InvalidProtocolBufferException ex) {
            return RoleConfig.getDefaultInstance();
        }
    }

    static boolean receivesPacketIns(final Any config) {
        final RoleConfig c = parseQuietly(config);
        return c == null || c.getReceivesPacketIns();
    }

    static boolean canPushPipeline(final Any config) {
        final RoleConfig c = parseQuietly(config);
        return c == null || c.getCanPushPipeline();
    }

    /** @return true when the role may touch the P4 object with this id (0 = no particular object). */
    static boolean allows(final Any config, final int p4Id) {
        final RoleConfig c = parseQuietly(config);
        return c == null
                || c.getP4IdsCount() == 0
                || p4Id == 0
                || c.getP4IdsList().contains(p4Id);
    }
}
