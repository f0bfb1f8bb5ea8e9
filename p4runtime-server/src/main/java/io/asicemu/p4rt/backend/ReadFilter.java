package io.asicemu.p4rt.backend;

/**
 * What to read; 0 ids and null keys/indexes are wildcards. Immutable.
 */
public sealed interface ReadFilter {
    /**
     * Table entries: {@code tableId} 0 = all tables; {@code key} null = all entries of the table, else a pattern:
     * entries having every listed match (and its priority unless 0); {@code defaultEntry} reads the default entry.
     */
    record Tables(
            int tableId, EntryKey key, boolean defaultEntry, boolean withCounter, boolean withMeter, boolean withIdle)
            implements ReadFilter {
        public Tables(
                final int tableId,
                final EntryKey key,
                final boolean defaultEntry,
                final boolean withCounter,
                final boolean withMeter) {
            this(tableId, key, defaultEntry, withCounter, withMeter, false);
        }
    }

    /** Action profile members ({@code memberId} 0 = all). */
    record Members(int profileId, int memberId) implements ReadFilter {}

    /** Action profile groups ({@code groupId} 0 = all). */
    record Groups(int profileId, int groupId) implements ReadFilter {}

    /** Counter cells ({@code index} -1 = all). */
    record Counters(int counterId, long index) implements ReadFilter {}

    /** Meter cells ({@code index} -1 = all). */
    record Meters(int meterId, long index) implements ReadFilter {}

    /** Register cells ({@code index} -1 = all). */
    record Registers(int registerId, long index) implements ReadFilter {}

    /** Direct counters of one table ({@code key} null = all entries). */
    record DirectCounters(int tableId, EntryKey key) implements ReadFilter {}

    /** Direct meters of one table ({@code key} null = all entries). */
    record DirectMeters(int tableId, EntryKey key) implements ReadFilter {}

    /** Multicast groups ({@code groupId} 0 = all). */
    record MulticastGroups(int groupId) implements ReadFilter {}

    /** Clone sessions ({@code sessionId} 0 = all). */
    record CloneSessions(int sessionId) implements ReadFilter {}

    /** Digest configurations ({@code digestId} 0 = all). */
    record Digests(int digestId) implements ReadFilter {}
}
