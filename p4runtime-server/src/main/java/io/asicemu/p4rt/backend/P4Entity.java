package io.asicemu.p4rt.backend;

import java.math.BigInteger;
import java.util.List;

/**
 * The typed P4Runtime entities a {@link P4Backend} stores: validated against the P4Info by the codec, free of
 * protobuf. All are immutable records.
 */
public sealed interface P4Entity {
    /**
     * A table entry (or the default entry of a table when {@code isDefault}; its key has no matches).
     *
     * @param counter the direct counter value to set, or null to leave it (reads: null unless asked for).
     * @param meter   the direct meter settings, or null for the default (always green) meter.
     * @param sinceLastHitNs reads: time since the entry was last hit, -1 when not asked for or not tracked.
     */
    record TableEntry(
            EntryKey key,
            EntryAction action,
            boolean isDefault,
            long idleTimeoutNs,
            byte[] metadata,
            MeterSettings meter,
            CounterValue counter,
            long sinceLastHitNs)
            implements P4Entity {
        public TableEntry(
                final EntryKey key,
                final EntryAction action,
                final boolean isDefault,
                final long idleTimeoutNs,
                final byte[] metadata,
                final MeterSettings meter,
                final CounterValue counter) {
            this(key, action, isDefault, idleTimeoutNs, metadata, meter, counter, -1);
        }
    }

    /** A member of an action profile. */
    record ProfileMember(int profileId, int memberId, ActionCall action) implements P4Entity {}

    /** A group of an action profile (selector); {@code maxSize} 0 means the profile's max group size. */
    record ProfileGroup(int profileId, int groupId, List<GroupMember> members, int maxSize) implements P4Entity {
        public ProfileGroup {
            members = List.copyOf(members);
        }
    }

    /** One member of a group; {@code watchPort} is -1 when no port is watched. */
    record GroupMember(int memberId, int weight, int watchPort) {}

    /** One cell of an indirect counter. */
    record CounterCell(int counterId, long index, CounterValue value) implements P4Entity {}

    /** One cell of an indirect meter; {@code settings} null means the default configuration. */
    record MeterCell(int meterId, long index, MeterSettings settings) implements P4Entity {}

    /** The direct counter of one table entry. */
    record DirectCounterCell(EntryKey key, CounterValue value) implements P4Entity {}

    /** The direct meter of one table entry; {@code settings} null means the default configuration. */
    record DirectMeterCell(EntryKey key, MeterSettings settings) implements P4Entity {}

    /** One cell of a register array. */
    record RegisterCell(int registerId, long index, BigInteger value) implements P4Entity {}

    /** A multicast group of the packet replication engine. */
    record MulticastGroup(int groupId, List<Replica> replicas, byte[] metadata) implements P4Entity {
        public MulticastGroup {
            replicas = List.copyOf(replicas);
        }
    }

    /** A clone (mirror) session; {@code truncateBytes} 0 means no truncation. */
    record CloneSession(int sessionId, List<Replica> replicas, int classOfService, int truncateBytes)
            implements P4Entity {
        public CloneSession {
            replicas = List.copyOf(replicas);
        }
    }

    /** One copy made by the replication engine. */
    record Replica(int port, int instance) {}

    /** Digest delivery settings. */
    record DigestConfig(int digestId, long maxTimeoutNs, int maxListSize, long ackTimeoutNs) implements P4Entity {}
}
