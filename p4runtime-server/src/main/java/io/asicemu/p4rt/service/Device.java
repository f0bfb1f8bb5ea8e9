package io.asicemu.p4rt.service;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.codec.ByteStrings;
import io.asicemu.p4rt.codec.EntityCodec;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.info.P4InfoModel;
import io.asicemu.p4rt.info.PacketMetadataInfo;
import java.math.BigInteger;
import java.util.List;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.IdleTimeoutNotification;
import p4.v1.P4RuntimeOuterClass.PacketIn;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;

/**
 * One emulated switch as P4Runtime sees it: its backend, the committed and saved pipeline configs, arbitration and
 * the digest engine. Starts with the fixed pipeline committed. Thread safe: config changes hold the device's
 * monitor; arbitration has its own lock.
 */
public final class Device implements CpuPortListener {
    private final long deviceId;
    private final P4Backend backend;
    private final Arbitration arbitration;
    private final DigestEngine digests;
    private ForwardingPipelineConfig committed;
    private ForwardingPipelineConfig saved;
    private EntityCodec codec;

    public Device(final long deviceId, final P4Backend backend) {
        if (deviceId == 0) {
            throw new IllegalArgumentException("device_id 0 is invalid");
        }
        this.deviceId = deviceId;
        this.backend = backend;
        this.arbitration = new Arbitration(deviceId);
        this.committed = ForwardingPipelineConfig.newBuilder()
                .setP4Info(FixedPipelineInfo.p4info())
                .build();
        this.codec = new EntityCodec(FixedPipelineInfo.model());
        this.digests = new DigestEngine(this);
        backend.cpuPortListener(this);
    }

    public long deviceId() {
        return deviceId;
    }

    public P4Backend backend() {
        return backend;
    }

    Arbitration arbitration() {
        return arbitration;
    }

    DigestEngine digests() {
        return digests;
    }

    /** @return the codec of the config Read and Write use: the saved one if any, else the committed one. */
    synchronized EntityCodec codec() {
        return codec;
    }

    synchronized ForwardingPipelineConfig committed() {
        return committed;
    }

    synchronized ForwardingPipelineConfig saved() {
        return saved;
    }

    synchronized void save(final ForwardingPipelineConfig config, final P4InfoModel model) {
        saved = config;
        codec = new EntityCodec(model);
    }

    synchronized void commit(final ForwardingPipelineConfig config, final P4InfoModel model, final boolean clearState) {
        committed = config;
        saved = null;
        codec = new EntityCodec(model);
        if (clearState) {
            backend.reset();
        }
    }

    @Override
    public boolean readyForPacketIns() {
        for (final Controller c : arbitration.primaries()) {
            if (RoleConfigs.receivesPacketIns(c.roleConfig) && !c.ready()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean hasPacketInReceiver() {
        for (final Controller c : arbitration.primaries()) {
            if (RoleConfigs.receivesPacketIns(c.roleConfig)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void onPacketIn(
            final byte[] payload, final int ingressPort, final int targetEgressPort, final int puntReason) {
        final PacketIn.Builder b = PacketIn.newBuilder().setPayload(ByteString.copyFrom(payload));
        final int[] values = {ingressPort, targetEgressPort, puntReason};
        final List<PacketMetadataInfo> fields = codec().model().packetIn();
        for (int i = 0; i < fields.size() && i < values.length; i++) {
            b.addMetadataBuilder().setMetadataId(fields.get(i).id()).setValue(ByteStrings.encode(values[i]));
        }
        final StreamMessageResponse message =
                StreamMessageResponse.newBuilder().setPacket(b).build();
        for (final Controller c : arbitration.primaries()) {
            if (RoleConfigs.receivesPacketIns(c.roleConfig)) {
                c.send(message);
            }
        }
    }

    @Override
    public void onIdleTimeout(final List<P4Entity.TableEntry> entries) {
        final EntityCodec c = codec();
        final IdleTimeoutNotification.Builder b =
                IdleTimeoutNotification.newBuilder().setTimestamp(System.currentTimeMillis() * 1_000_000L);
        for (final P4Entity.TableEntry e : entries) {
            final var te = c.encodeKey(e.key()).setIdleTimeoutNs(e.idleTimeoutNs());
            if (e.metadata() != null) {
                te.setMetadata(ByteString.copyFrom(e.metadata()));
            }
            b.addTableEntry(te);
        }
        final StreamMessageResponse message =
                StreamMessageResponse.newBuilder().setIdleTimeoutNotification(b).build();
        for (final Controller ctl : arbitration.primaries()) {
            if (RoleConfigs.receivesPacketIns(ctl.roleConfig)) {
                ctl.send(message);
            }
        }
    }

    @Override
    public void onDigest(final int digestId, final List<BigInteger> members) {
        digests.offer(digestId, members);
    }
}
