package io.asicemu.tm.wred;

/**
 * WRED/ECN decisions per egress queue on the instantaneous queue depth (SONiC sets weight 0; reference §7):
 * p = 0 below Kmin, (q − Kmin)/(Kmax − Kmin) × Pmax between, 100 % at and above Kmax. When a colour's
 * {@code ecn} bit is set, ECT(0)/ECT(1) packets are marked CE, CE packets pass unchanged and not-ECT packets are
 * dropped; otherwise the packet is dropped. Above Kmax SONiC marks (the default); {@code dropAboveMax} makes
 * ECN-capable packets drop there instead (classic WRED-ECN). With a weight w &gt; 0 the depth used is an EWMA,
 * {@code avg += (q − avg) / 2^w}, updated at every decision. Not thread safe: data-plane thread only.
 */
public final class WredTable {
    /** Forward unchanged. */
    public static final int FORWARD = 0;
    /** Forward with ECN set to CE. */
    public static final int MARK = 1;
    /** Drop. */
    public static final int DROP = 2;

    /** ECN codepoint Not-ECT. */
    public static final int NOT_ECT = 0;
    /** ECN codepoint CE. */
    public static final int CE = 3;

    private final boolean[] configured;
    private final long[] min;
    private final long[] max;
    private final double[] pmax;
    private final int[] enabledMask;
    private final int[] ecnMask;
    private final boolean dropAboveMax;
    private final SplitMix64 random;
    private final double ewmaGain;
    private final double[] average;

    /**
     * @param queueCount   ports × 8.
     * @param dropAboveMax true to drop ECN-capable packets at/above Kmax instead of marking them.
     * @param random       the data thread's seeded generator.
     * @param weight       SAI WRED weight 0..15 (0 = instantaneous queue).
     */
    public WredTable(final int queueCount, final boolean dropAboveMax, final SplitMix64 random, final int weight) {
        ewmaGain = weight == 0 ? 1.0 : 1.0 / (1L << weight);
        average = new double[queueCount];
        configured = new boolean[queueCount];
        min = new long[queueCount * 3];
        max = new long[queueCount * 3];
        pmax = new double[queueCount * 3];
        enabledMask = new int[queueCount];
        ecnMask = new int[queueCount];
        this.dropAboveMax = dropAboveMax;
        this.random = random;
    }

    /**
     * Attach a profile to a queue (control path).
     *
     * @param q                port*8+queue.
     * @param minBytes         Kmin per colour.
     * @param maxBytes         Kmax per colour.
     * @param probPercent      Pmax per colour, percent.
     * @param enabled          wred_*_enable per colour.
     * @param ecnColourMask    colours that mark instead of drop.
     */
    public void configure(
            final int q,
            final long[] minBytes,
            final long[] maxBytes,
            final int[] probPercent,
            final boolean[] enabled,
            final int ecnColourMask) {
        configured[q] = true;
        int en = 0;
        for (int c = 0; c < 3; c++) {
            min[q * 3 + c] = minBytes[c];
            // SAI: a threshold of 0 means the maximum buffer size.
            max[q * 3 + c] = maxBytes[c] == 0 ? Long.MAX_VALUE : maxBytes[c];
            pmax[q * 3 + c] = probPercent[c] / 100.0;
            en |= enabled[c] ? 1 << c : 0;
        }
        enabledMask[q] = en;
        ecnMask[q] = ecnColourMask;
    }

    /**
     * Runtime change of a queue's thresholds and Pmax, the same for all three colours (P4Runtime registers;
     * data-plane thread, between packet batches; no allocation). Equivalent to re-configuring the queue with a
     * WRED_PROFILE carrying these values for green, yellow and red: a queue that had a profile keeps its
     * {@code wred_*_enable} and {@code ecn} settings, a queue without one gets all colours enabled and
     * {@code ecn_all} (the AZURE_LOSSLESS shape). The EWMA average, if any, is kept.
     *
     * @param q           port*8+queue.
     * @param minBytes    Kmin.
     * @param maxBytes    Kmax (0 = the maximum buffer size, as SAI).
     * @param probPercent Pmax 0..100.
     */
    public void setThresholds(final int q, final long minBytes, final long maxBytes, final int probPercent) {
        if (!configured[q]) {
            configured[q] = true;
            enabledMask[q] = 7;
            ecnMask[q] = 7;
        }
        for (int c = 0; c < 3; c++) {
            min[q * 3 + c] = minBytes;
            max[q * 3 + c] = maxBytes == 0 ? Long.MAX_VALUE : maxBytes;
            pmax[q * 3 + c] = probPercent / 100.0;
        }
    }

    /**
     * Runtime change of one colour's thresholds and Pmax (P4Runtime registers tm.ecn_*, the per-colour knobs;
     * data-plane thread, between packet batches; no allocation). The other colours keep theirs, so a write leaves the
     * queue as a WRED_PROFILE with these values for this colour would. A queue without a profile gets one with all
     * colours enabled and {@code ecn_all} whose other colours mark nothing (Kmin 0, Kmax the whole buffer, Pmax 0)
     * until they are written too. The EWMA average, if any, is kept.
     *
     * @param q           port*8+queue.
     * @param colour      0 green, 1 yellow, 2 red.
     * @param minBytes    Kmin.
     * @param maxBytes    Kmax (0 = the maximum buffer size, as SAI).
     * @param probPercent Pmax 0..100.
     */
    public void setColourThresholds(
            final int q, final int colour, final long minBytes, final long maxBytes, final int probPercent) {
        if (!configured[q]) {
            configured[q] = true;
            enabledMask[q] = 7;
            ecnMask[q] = 7;
            for (int c = 0; c < 3; c++) {
                min[q * 3 + c] = 0;
                max[q * 3 + c] = Long.MAX_VALUE;
                pmax[q * 3 + c] = 0;
            }
        }
        min[q * 3 + colour] = minBytes;
        max[q * 3 + colour] = maxBytes == 0 ? Long.MAX_VALUE : maxBytes;
        pmax[q * 3 + colour] = probPercent / 100.0;
    }

    /**
     * Copies one colour's settings in force (control path: a snapshot command or a test that owns the thread).
     *
     * @param q      port*8+queue.
     * @param colour 0 green, 1 yellow, 2 red.
     * @param out    receives Kmin, Kmax (0 = the maximum buffer size), Pmax percent, enabled (1/0), ECN marks (1/0).
     */
    public void settings(final int q, final int colour, final long[] out) {
        out[0] = min[q * 3 + colour];
        out[1] = max[q * 3 + colour] == Long.MAX_VALUE ? 0 : max[q * 3 + colour];
        out[2] = Math.round(pmax[q * 3 + colour] * 100);
        out[3] = configured[q] && (enabledMask[q] & 1 << colour) != 0 ? 1 : 0;
        out[4] = (ecnMask[q] & 1 << colour) != 0 ? 1 : 0;
    }

    /**
     * @param q port*8+queue.
     * @return true when the queue has a WRED profile with any colour enabled.
     */
    public boolean isActive(final int q) {
        return configured[q] && enabledMask[q] != 0;
    }

    /**
     * Decide for one packet.
     *
     * @param q          port*8+queue.
     * @param instantBytes instantaneous queue depth in bytes (averaged here when the weight is not 0).
     * @param ecn        the packet's ECN bits (0..3).
     * @param colour     0 green, 1 yellow, 2 red.
     * @return {@link #FORWARD}, {@link #MARK} or {@link #DROP}.
     */
    public int decide(final int q, final long instantBytes, final int ecn, final int colour) {
        final long depthBytes;
        if (ewmaGain == 1.0) {
            depthBytes = instantBytes;
        } else {
            average[q] += (instantBytes - average[q]) * ewmaGain;
            depthBytes = (long) average[q];
        }
        if ((enabledMask[q] & (1 << colour)) == 0) {
            return FORWARD;
        }
        final int i = q * 3 + colour;
        final long kmin = min[i];
        if (depthBytes < kmin) {
            return FORWARD;
        }
        final long kmax = max[i];
        final boolean aboveMax = depthBytes >= kmax;
        if (!aboveMax) {
            final double p = (double) (depthBytes - kmin) / (double) (kmax - kmin) * pmax[i];
            if (random.nextDouble() >= p) {
                return FORWARD;
            }
        }
        if ((ecnMask[q] & (1 << colour)) == 0 || ecn == NOT_ECT || (aboveMax && dropAboveMax)) {
            return DROP;
        }
        return ecn == CE ? FORWARD : MARK;
    }
}
