package io.asicemu.flowlet.ecmp;

import java.util.Arrays;

/**
 * The members of one ECMP/WCMP group and the bucket table that maps a hash to a member.
 * <p>
 * Without resilience the table holds {@code weight} buckets per live member and a hash picks
 * {@code buckets[hash mod count]} (unsigned): any change of the live set re-maps flows everywhere, as plain ECMP
 * does. With resilient hashing the table has a fixed number of buckets; when a member fails only its buckets move
 * (each to the live member furthest below its weighted share), and when it returns it takes back buckets only from
 * members above their share. Members whose port is down leave the selection.
 * <p>
 * Arrays are sized at construction; state changes allocate nothing. Not thread safe: the data-plane thread owns it
 * (port-state events reach it there).
 */
public final class EcmpMembers {
    /** Returned when no member is live. */
    public static final int NO_MEMBER = -1;

    private final int[] ports;
    private final int[] weights;
    private final boolean[] up;
    private final boolean resilient;
    private final int[] buckets;
    private final int[] bucketsPerMember;
    private final int[] targetPerMember;
    private int bucketCount;
    /** ceil(2^64 / bucketCount), for {@link #remainder}: the member pick without a division per packet. */
    private long bucketMagic;

    private int liveCount;

    /**
     * @param ports           port index of each member (the pipeline maps member index to next hop).
     * @param weights         weight of each member, 1 or more (all 1 for ECMP).
     * @param resilient       whether to use resilient hashing.
     * @param resilientBuckets bucket count when resilient (at least the member count); ignored otherwise.
     */
    public EcmpMembers(final int[] ports, final int[] weights, final boolean resilient, final int resilientBuckets) {
        if (ports.length == 0 || ports.length != weights.length) {
            throw new IllegalArgumentException("need one weight per member and at least one member");
        }
        long weightSum = 0;
        for (final int weight : weights) {
            if (weight < 1) {
                throw new IllegalArgumentException("weights must be >= 1");
            }
            weightSum += weight;
        }
        if (resilient && resilientBuckets < ports.length) {
            throw new IllegalArgumentException("resilient bucket count below member count");
        }
        this.ports = ports.clone();
        this.weights = weights.clone();
        this.up = new boolean[ports.length];
        Arrays.fill(up, true);
        this.liveCount = ports.length;
        this.resilient = resilient;
        this.buckets = new int[resilient ? resilientBuckets : Math.toIntExact(weightSum)];
        this.bucketsPerMember = new int[ports.length];
        this.targetPerMember = new int[ports.length];
        if (resilient) {
            bucketCount(resilientBuckets);
            initialResilientFill();
        } else {
            rebuildPlain();
        }
    }

    /**
     * @param hash a flow hash.
     * @return the member index for the hash, or {@link #NO_MEMBER} when no member is live.
     */
    public int select(final int hash) {
        if (liveCount == 0) {
            return NO_MEMBER;
        }
        // Modulo, as ASICs index the member table: it works for 16-bit (CRC_CCITT, CRC_32LO/HI) and 32-bit outputs.
        return buckets[remainder(hash, bucketCount, bucketMagic)];
    }

    /**
     * Weighted pick by a uniform random 32-bit value (per-packet spray, random flowlet placement).
     *
     * @param random32 uniform random bits.
     * @return a live member index or {@link #NO_MEMBER}.
     */
    public int selectRandom(final int random32) {
        if (liveCount == 0) {
            return NO_MEMBER;
        }
        if (resilient) {
            return buckets[(int) (((random32 & 0xFFFF_FFFFL) * bucketCount) >>> 32)];
        }
        return select(random32);
    }

    /**
     * Set a member live or failed.
     *
     * @param member member index.
     * @param isUp   new state.
     */
    public void memberUp(final int member, final boolean isUp) {
        if (up[member] == isUp) {
            return;
        }
        up[member] = isUp;
        liveCount += isUp ? 1 : -1;
        if (!resilient) {
            rebuildPlain();
        } else if (isUp) {
            resilientReclaim(member);
        } else {
            resilientRelease(member);
        }
    }

    /**
     * Set every member on a port live or failed.
     *
     * @param port port index.
     * @param isUp new state.
     */
    public void portUp(final int port, final boolean isUp) {
        for (int m = 0; m < ports.length; m++) {
            if (ports[m] == port) {
                memberUp(m, isUp);
            }
        }
    }

    /**
     * @return number of members (live or not).
     */
    public int memberCount() {
        return ports.length;
    }

    /**
     * @return number of live members.
     */
    public int liveCount() {
        return liveCount;
    }

    /**
     * @param member member index.
     * @return whether it is live.
     */
    public boolean isUp(final int member) {
        return up[member];
    }

    /**
     * @param member member index.
     * @return its port index.
     */
    public int port(final int member) {
        return ports[member];
    }

    /**
     * @param member member index.
     * @return its weight.
     */
    public int weight(final int member) {
        return weights[member];
    }

    /**
     * @return whether resilient hashing is on.
     */
    public boolean resilient() {
        return resilient;
    }

    /**
     * @return number of buckets in use.
     */
    public int bucketCount() {
        return bucketCount;
    }

    /**
     * @param bucket bucket index.
     * @return the member the bucket maps to.
     */
    public int bucketMember(final int bucket) {
        return buckets[bucket];
    }

    private void rebuildPlain() {
        int b = 0;
        for (int m = 0; m < ports.length; m++) {
            if (up[m]) {
                for (int w = 0; w < weights[m]; w++) {
                    buckets[b++] = m;
                }
            }
        }
        bucketCount(b);
    }

    private void bucketCount(final int count) {
        bucketCount = count;
        bucketMagic = count == 0 ? 0 : magic(count); // no bucket: select never divides (no member is live)
    }

    /**
     * @param divisor a divisor ≥ 1.
     * @return ceil(2^64 / divisor) as an unsigned 64-bit value (0 for 1: 2^64 wraps, and {@link #remainder} of
     *     anything by 1 is then 0, as it must be).
     */
    static long magic(final int divisor) {
        return Long.divideUnsigned(-1L, divisor) + 1;
    }

    /**
     * {@code Integer.remainderUnsigned(value, divisor)} with two multiplications instead of a division (Lemire,
     * Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for every 32-bit value and divisor,
     * checked against the division by {@code EcmpMembersTest}).
     *
     * @param value   any 32 bits, unsigned.
     * @param divisor the divisor ≥ 1.
     * @param magic   {@link #magic}(divisor).
     * @return value mod divisor.
     */
    static int remainder(final int value, final int divisor, final long magic) {
        final long lowBits = magic * (value & 0xFFFF_FFFFL);
        return (int) Math.unsignedMultiplyHigh(lowBits, divisor);
    }

    private void computeTargets() {
        long liveWeight = 0;
        for (int m = 0; m < ports.length; m++) {
            liveWeight += up[m] ? weights[m] : 0;
        }
        int assigned = 0;
        for (int m = 0; m < ports.length; m++) {
            targetPerMember[m] = up[m] ? (int) (bucketCount * (long) weights[m] / liveWeight) : 0;
            assigned += targetPerMember[m];
        }
        // Hand the remainder out one bucket each, in member order, so the targets sum to the bucket count.
        for (int m = 0; assigned < bucketCount; m = (m + 1) % ports.length) {
            if (up[m]) {
                targetPerMember[m]++;
                assigned++;
            }
        }
    }

    private void initialResilientFill() {
        computeTargets();
        Arrays.fill(bucketsPerMember, 0);
        for (int b = 0; b < bucketCount; b++) {
            final int m = neediestMember();
            buckets[b] = m;
            bucketsPerMember[m]++;
        }
    }

    private void resilientRelease(final int failed) {
        if (liveCount == 0) {
            return;
        }
        computeTargets();
        for (int b = 0; b < bucketCount; b++) {
            if (buckets[b] == failed) {
                final int m = neediestMember();
                buckets[b] = m;
                bucketsPerMember[m]++;
                bucketsPerMember[failed]--;
            }
        }
    }

    private void resilientReclaim(final int returning) {
        computeTargets();
        if (liveCount == 1) {
            Arrays.fill(buckets, 0, bucketCount, returning);
            Arrays.fill(bucketsPerMember, 0);
            bucketsPerMember[returning] = bucketCount;
            return;
        }
        for (int b = 0; b < bucketCount && bucketsPerMember[returning] < targetPerMember[returning]; b++) {
            final int owner = buckets[b];
            if (owner != returning && bucketsPerMember[owner] > targetPerMember[owner]) {
                buckets[b] = returning;
                bucketsPerMember[owner]--;
                bucketsPerMember[returning]++;
            }
        }
    }

    private int neediestMember() {
        int best = NO_MEMBER;
        int bestDeficit = Integer.MIN_VALUE;
        for (int m = 0; m < ports.length; m++) {
            if (up[m]) {
                final int deficit = targetPerMember[m] - bucketsPerMember[m];
                if (deficit > bestDeficit) {
                    bestDeficit = deficit;
                    best = m;
                }
            }
        }
        return best;
    }
}
