package io.asicemu.tm.scheduler;

import io.asicemu.tm.buffer.QueueStore;

/**
 * Picks the next egress queue of a port among the eligible ones (non-empty, not paused). STRICT queues go first,
 * higher queue index first. The others share what is left by deficit round robin: a DWRR queue earns
 * {@code weight × quantumBytesPerWeight} bytes per round and spends frame bytes; a WRR queue earns {@code weight}
 * packets per round and spends one per frame. A queue that is not eligible when its turn comes loses its deficit.
 * Not thread safe: data-plane thread only; no allocation.
 */
public final class PortScheduler {
    /** Strict priority. */
    public static final int STRICT = 0;
    /** Deficit weighted round robin, in bytes. */
    public static final int DWRR = 1;
    /** Weighted round robin, in packets. */
    public static final int WRR = 2;

    private static final int MAX_VISITS = 4096;

    private final QueueStore queues;
    private final int[] type;
    private final long[] quantum;
    private final long[] deficit;
    private final boolean[] granted;
    private final int[] strictMask;
    private final int[] cursor;
    /** Per port, bit q: queue q may hold a deficit or a grant (conservative), so resets can skip clean queues. */
    private final int[] dirty;

    /**
     * @param portCount number of ports.
     * @param queues    the queue store (for head-of-line sizes).
     */
    public PortScheduler(final int portCount, final QueueStore queues) {
        this.queues = queues;
        type = new int[portCount * 8];
        quantum = new long[portCount * 8];
        deficit = new long[portCount * 8];
        granted = new boolean[portCount * 8];
        strictMask = new int[portCount];
        cursor = new int[portCount];
        dirty = new int[portCount];
        java.util.Arrays.fill(type, WRR);
        java.util.Arrays.fill(quantum, 1);
    }

    /**
     * Configure one queue (control path).
     *
     * @param port                  port.
     * @param q                     queue.
     * @param schedulerType         {@link #STRICT}, {@link #DWRR} or {@link #WRR}.
     * @param weight                1..100.
     * @param quantumBytesPerWeight DWRR bytes per unit of weight.
     */
    public void configure(
            final int port, final int q, final int schedulerType, final int weight, final long quantumBytesPerWeight) {
        final int i = port * 8 + q;
        type[i] = schedulerType;
        quantum[i] = schedulerType == DWRR ? weight * quantumBytesPerWeight : weight;
        if (schedulerType == STRICT) {
            strictMask[port] |= 1 << q;
        } else {
            strictMask[port] &= ~(1 << q);
        }
    }

    /**
     * @param port         port.
     * @param eligibleMask bit q: queue q holds packets and may transmit.
     * @return the queue to serve, or -1 when none is eligible.
     */
    public int select(final int port, final int eligibleMask) {
        final int strict = eligibleMask & strictMask[port];
        if (strict != 0) {
            return 31 - Integer.numberOfLeadingZeros(strict);
        }
        final int rr = eligibleMask & ~strictMask[port];
        if (rr == 0) {
            return -1;
        }
        if ((rr & (rr - 1)) == 0) {
            final int only = selectOnly(port, Integer.numberOfTrailingZeros(rr));
            if (only >= 0) {
                return only;
            }
        }
        int q = cursor[port];
        for (int visit = 0; visit < MAX_VISITS; visit++) {
            final int i = port * 8 + q;
            if ((rr & (1 << q)) != 0) {
                final long cost = type[i] == DWRR ? queues.headBytes(i) : 1;
                if (deficit[i] >= cost) {
                    cursor[port] = q;
                    return q;
                }
                if (!granted[i]) {
                    deficit[i] += quantum[i];
                    granted[i] = true;
                    dirty[port] |= 1 << q;
                    continue;
                }
            } else {
                deficit[i] = 0;
                dirty[port] &= ~(1 << q);
            }
            granted[i] = false;
            q = (q + 1) & 7;
        }
        // Unreachable with sane quanta: every round adds a quantum to each eligible queue.
        cursor[port] = q;
        return 31 - Integer.numberOfLeadingZeros(rr);
    }

    /**
     * The round robin's outcome when only queue q is eligible, in closed form: exactly the state the visiting loop
     * would leave (queues it walks past lose their deficit; q earns quanta until its head fits), without walking
     * 8 queues per round. The common case (one busy queue per port) costs a few array reads.
     *
     * @return q, or -1 if the loop would hit its visit bound (then the loop runs instead).
     */
    private int selectOnly(final int port, final int q) {
        final int base = port * 8;
        final int i = base + q;
        final long cost = type[i] == DWRR ? queues.headBytes(i) : 1;
        final int start = cursor[port];
        final int walk = (q - start) & 7;
        if (deficit[i] >= cost) {
            resetRange(port, start, walk);
            cursor[port] = q;
            return q;
        }
        long earned = deficit[i];
        if (!granted[i]) {
            earned += quantum[i];
            if (earned >= cost) {
                resetRange(port, start, walk);
                deficit[i] = earned;
                granted[i] = true;
                dirty[port] |= 1 << q;
                cursor[port] = q;
                return q;
            }
        }
        // Each further round passes the 7 others (all ineligible: they are reset) and earns one quantum; the walk
        // spends 9 visits on it (q, the 7 others, q again to earn). Where the walk would give up first, let it.
        // One round is the steady state of a busy queue (WRR: one packet per quantum): no 64-bit division for it.
        final long need = cost - earned;
        final long rounds = need <= quantum[i] ? 1 : (need + quantum[i] - 1) / quantum[i];
        if (walk + 3 + rounds * 9 >= MAX_VISITS) {
            return -1;
        }
        resetRange(port, start, walk);
        resetOthers(port, q);
        deficit[i] = earned + rounds * quantum[i];
        granted[i] = true;
        dirty[port] |= 1 << q;
        cursor[port] = q;
        return q;
    }

    /** The loop walking from queue {@code from} past {@code count} ineligible queues: they lose deficit and grant. */
    private void resetRange(final int port, final int from, final int count) {
        for (int k = 0, x = from; k < count; k++, x = (x + 1) & 7) {
            deficit[port * 8 + x] = 0;
            granted[port * 8 + x] = false;
            dirty[port] &= ~(1 << x);
        }
    }

    /** A full round past every queue but q (all ineligible): they lose deficit and grant. */
    private void resetOthers(final int port, final int q) {
        int m = dirty[port] & ~(1 << q);
        while (m != 0) {
            final int x = Integer.numberOfTrailingZeros(m);
            deficit[port * 8 + x] = 0;
            granted[port * 8 + x] = false;
            m &= m - 1;
        }
        dirty[port] &= 1 << q;
    }

    /** @return queue i's (port * 8 + q) deficit and grant flag as one value, for tests comparing scheduler states. */
    long stateOf(final int i) {
        return deficit[i] * 2 + (granted[i] ? 1 : 0);
    }

    /**
     * Account a served frame.
     *
     * @param port  port.
     * @param q     queue returned by {@link #select}.
     * @param bytes frame bytes.
     */
    public void onServed(final int port, final int q, final int bytes) {
        final int i = port * 8 + q;
        if (type[i] == DWRR) {
            deficit[i] = Math.max(0, deficit[i] - bytes);
        } else if (type[i] == WRR) {
            deficit[i] = Math.max(0, deficit[i] - 1);
        }
    }
}
