package io.asicemu.p4rt.service;

import com.google.rpc.Code;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.Role;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;

/**
 * Primary election per (device, role) with the P4Runtime v1.1+ rule: the primary is the live controller whose
 * election id is at least the highest ever seen for that role; when it leaves, nobody is promoted until a controller
 * arbitrates with an id at least that high. Thread safe: every method holds the instance's monitor.
 */
final class Arbitration {
    /** Controller streams one device accepts. */
    static final int MAX_STREAMS = 16;

    private final long deviceId;
    private final Map<String, RoleState> roles = new HashMap<>();

    private static final class RoleState {
        final List<Controller> controllers = new ArrayList<>();
        BigInteger highest;
        Controller primary;
    }

    Arbitration(final long deviceId) {
        this.deviceId = deviceId;
    }

    /**
     * Joins or updates a controller. @return null when accepted, else the error code and message ending the stream.
     */
    synchronized String[] update(
            final Controller c,
            final String role,
            final com.google.protobuf.Any config,
            final BigInteger electionId,
            final boolean first) {
        if (!first && !c.role.equals(role)) {
            return new String[] {"FAILED_PRECONDITION", "a stream cannot change its role"};
        }
        if (first && controllerCount() >= MAX_STREAMS) {
            return new String[] {
                "RESOURCE_EXHAUSTED", "device " + deviceId + " already has " + MAX_STREAMS + " controller streams"
            };
        }
        final RoleState rs = roles.computeIfAbsent(role, k -> new RoleState());
        if (electionId != null) {
            for (final Controller other : rs.controllers) {
                if (other != c && electionId.equals(other.electionId)) {
                    return new String[] {
                        "INVALID_ARGUMENT",
                        "election id " + electionId + " is already used by another controller of role '" + role + "'"
                    };
                }
            }
        }
        if (first) {
            rs.controllers.add(c);
            c.role = role;
        }
        final boolean configChanged = c == rs.primary && !java.util.Objects.equals(c.roleConfig, config);
        c.roleConfig = config;
        c.electionId = electionId;
        final Controller before = rs.primary;
        if (electionId != null && (rs.highest == null || electionId.compareTo(rs.highest) >= 0)) {
            rs.highest = electionId;
            rs.primary = c;
        } else if (rs.primary == c) {
            rs.primary = null;
        }
        if (before != rs.primary || configChanged) {
            notifyAll(rs, role);
        } else {
            c.send(notification(rs, role, c));
        }
        return null;
    }

    private int controllerCount() {
        int n = 0;
        for (final RoleState rs : roles.values()) {
            n += rs.controllers.size();
        }
        return n;
    }

    synchronized void leave(final Controller c) {
        final RoleState rs = roles.get(c.role);
        if (rs == null || !rs.controllers.remove(c)) {
            return;
        }
        if (rs.primary == c) {
            rs.primary = null;
            notifyAll(rs, c.role);
        }
    }

    /** @return true when {@code electionId} is the id of the live primary of {@code role}. */
    synchronized boolean isPrimary(final String role, final BigInteger electionId) {
        final RoleState rs = roles.get(role);
        return rs != null && rs.primary != null && electionId != null && electionId.equals(rs.primary.electionId);
    }

    /** @return true when some controller has arbitrated for this role (the default role always exists). */
    synchronized boolean knows(final String role) {
        return role.isEmpty() || roles.containsKey(role);
    }

    /** @return true when this controller is the primary of its role. */
    synchronized boolean isPrimary(final Controller c) {
        final RoleState rs = roles.get(c.role);
        return rs != null && rs.primary == c;
    }

    /** @return the primary controllers of every role. */
    synchronized List<Controller> primaries() {
        final List<Controller> out = new ArrayList<>();
        for (final RoleState rs : roles.values()) {
            if (rs.primary != null) {
                out.add(rs.primary);
            }
        }
        return out;
    }

    /** @return the primary controller of the role, or null. */
    synchronized Controller primary(final String role) {
        final RoleState rs = roles.get(role);
        return rs == null ? null : rs.primary;
    }

    private void notifyAll(final RoleState rs, final String role) {
        for (final Controller x : rs.controllers) {
            x.send(notification(rs, role, x));
        }
    }

    private StreamMessageResponse notification(final RoleState rs, final String role, final Controller to) {
        final MasterArbitrationUpdate.Builder b =
                MasterArbitrationUpdate.newBuilder().setDeviceId(deviceId);
        final Role.Builder rb = Role.newBuilder().setName(role);
        if (rs.primary != null && rs.primary.roleConfig != null) {
            rb.setConfig(rs.primary.roleConfig);
        }
        if (!role.isEmpty() || rb.hasConfig()) {
            b.setRole(rb);
        }
        if (rs.highest != null) {
            b.setElectionId(ElectionId.toProto(rs.highest));
        }
        final Code code;
        final String message;
        if (rs.primary == to) {
            code = Code.OK;
            message = "you are the primary";
        } else if (rs.primary != null) {
            code = Code.ALREADY_EXISTS;
            message = "another controller is the primary";
        } else {
            code = Code.NOT_FOUND;
            message = "there is no primary";
        }
        b.setStatus(com.google.rpc.Status.newBuilder().setCode(code.getNumber()).setMessage(message));
        return StreamMessageResponse.newBuilder().setArbitration(b).build();
    }
}
