package io.asicemu.tm.scheduler;

import io.asicemu.tm.buffer.QueueStore;

/**
 * Picks the next egress queue of a port among the eligible ones (non-empty, not paused). STRICT queues go first,
 * higher queue index first. The others share what is left by deficit round robin: a DWRR queue earns
 * {@code weight × quantumBytesPerWeight} bytes per round and spends frame bytes; a WRR queue earns {@code weight}
 * packets per round and spends one per frame. A queue that is not eligible when its turn comes loses its deficit.
 * Not thread safe: data-plane thread only; no allocation.
 */
public final class PortScheduler
{
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

    /**
     * @param portCount number of ports.
     * @param queues    the queue store (for head-of-line sizes).
     */
    public PortScheduler(final int portCount, final QueueStore queues)
    {
        this.queues = queues;
        type = new int[portCount * 8];
        quantum = new long[portCount * 8];
        deficit = new long[portCount * 8];
        granted = new boolean[portCount * 8];
        strictMask = new int[portCount];
        cursor = new int[portCount];
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
    public void configure(final int port, final int q, final int schedulerType, final int weight,
        final long quantumBytesPerWeight)
    {
        final int i = port * 8 + q;
        type[i] = schedulerType;
        quantum[i] = schedulerType == DWRR ? weight * quantumBytesPerWeight : weight;
        if (schedulerType == STRICT)
        {
            strictMask[port] |= 1 << q;
        }
        else
        {
            strictMask[port] &= ~(1 << q);
        }
    }

    /**
     * @param port         port.
     * @param eligibleMask bit q: queue q holds packets and may transmit.
     * @return the queue to serve, or -1 when none is eligible.
     */
    public int select(final int port, final int eligibleMask)
    {
        final int strict = eligibleMask & strictMask[port];
        if (strict != 0)
        {
            return 31 - Integer.numberOfLeadingZeros(strict);
        }
        final int rr = eligibleMask & ~strictMask[port];
        if (rr == 0)
        {
            return -1;
        }
        int q = cursor[port];
        for (int visit = 0; visit < MAX_VISITS; visit++)
        {
            final int i = port * 8 + q;
            if ((rr & (1 << q)) != 0)
            {
                final long cost = type[i] == DWRR ? queues.headBytes(i) : 1;
                if (deficit[i] >= cost)
                {
                    cursor[port] = q;
                    return q;
                }
                if (!granted[i])
                {
                    deficit[i] += quantum[i];
                    granted[i] = true;
                    continue;
                }
            }
            else
            {
                deficit[i] = 0;
            }
            granted[i] = false;
            q = (q + 1) & 7;
        }
        // Unreachable with sane quanta: every round adds a quantum to each eligible queue.
        cursor[port] = q;
        return 31 - Integer.numberOfLeadingZeros(rr);
    }

    /**
     * Account a served frame.
     *
     * @param port  port.
     * @param q     queue returned by {@link #select}.
     * @param bytes frame bytes.
     */
    public void onServed(final int port, final int q, final int bytes)
    {
        final int i = port * 8 + q;
        if (type[i] == DWRR)
        {
            deficit[i] = Math.max(0, deficit[i] - bytes);
        }
        else if (type[i] == WRR)
        {
            deficit[i] = Math.max(0, deficit[i] - 1);
        }
    }
}
