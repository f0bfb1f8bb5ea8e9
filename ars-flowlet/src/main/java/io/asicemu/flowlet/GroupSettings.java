package io.asicemu.flowlet;

import io.asicemu.flowlet.ecmp.LoadBalanceMode;

/**
 * Concluded settings of one next-hop group: its mode (the switch default unless the group overrides it), resilient
 * hashing, and the flowlet table of the ARS object it is bound to. Immutable.
 *
 * @param mode             how members are picked.
 * @param resilient        resilient hashing (a failed member moves only its own flows).
 * @param resilientBuckets bucket count when resilient.
 * @param flowletTableSize flow slots (SAI ARS MAX_FLOWS, default 512).
 * @param idleTimeNs       flowlet idle time (SAI default 256 µs; 16 µs..32 ms accepted).
 * @param randomSeed       seed of the group's PRNG (spray, LetFlow placement, ties between equal-quality members).
 */
public record GroupSettings(
        LoadBalanceMode mode,
        boolean resilient,
        int resilientBuckets,
        int flowletTableSize,
        long idleTimeNs,
        long randomSeed) {
    /** SAI ARS MAX_FLOWS default. */
    public static final int DEFAULT_FLOWLET_TABLE_SIZE = 512;
    /** SAI ARS IDLE_TIME default. */
    public static final long DEFAULT_IDLE_TIME_NS = 256_000;
    /** Smallest accepted idle time (16 µs, the low end of vendor ranges). */
    public static final long MIN_IDLE_TIME_NS = 16_000;
    /** Largest accepted idle time (32 ms). */
    public static final long MAX_IDLE_TIME_NS = 32_000_000;
    /** Default resilient bucket count. */
    public static final int DEFAULT_RESILIENT_BUCKETS = 256;

    /**
     * Validate.
     */
    public GroupSettings {
        if (mode == null) {
            throw new IllegalArgumentException("mode is required");
        }
        if (idleTimeNs < MIN_IDLE_TIME_NS || idleTimeNs > MAX_IDLE_TIME_NS) {
            throw new IllegalArgumentException("idle time must be 16 us..32 ms: " + idleTimeNs + " ns");
        }
        if (flowletTableSize < 1 || resilientBuckets < 1) {
            throw new IllegalArgumentException("table sizes must be positive");
        }
    }

    /**
     * @param mode the mode.
     * @return defaults (not resilient, 512 flows, 256 µs) with that mode and seed 0.
     */
    public static GroupSettings of(final LoadBalanceMode mode) {
        return new GroupSettings(
                mode, false, DEFAULT_RESILIENT_BUCKETS, DEFAULT_FLOWLET_TABLE_SIZE, DEFAULT_IDLE_TIME_NS, 0);
    }

    /**
     * @param newMode mode.
     * @return a copy with another mode.
     */
    public GroupSettings withMode(final LoadBalanceMode newMode) {
        return new GroupSettings(newMode, resilient, resilientBuckets, flowletTableSize, idleTimeNs, randomSeed);
    }

    /**
     * @param isResilient resilient hashing.
     * @param buckets     bucket count.
     * @return a copy.
     */
    public GroupSettings withResilient(final boolean isResilient, final int buckets) {
        return new GroupSettings(mode, isResilient, buckets, flowletTableSize, idleTimeNs, randomSeed);
    }

    /**
     * @param tableSize flow slots.
     * @param idleNs    idle time.
     * @return a copy.
     */
    public GroupSettings withFlowlet(final int tableSize, final long idleNs) {
        return new GroupSettings(mode, resilient, resilientBuckets, tableSize, idleNs, randomSeed);
    }

    /**
     * @param seed PRNG seed.
     * @return a copy.
     */
    public GroupSettings withRandomSeed(final long seed) {
        return new GroupSettings(mode, resilient, resilientBuckets, flowletTableSize, idleTimeNs, seed);
    }
}
