package io.asicemu.pipeline.table;

import java.util.Arrays;

/**
 * A bank of two-rate three-color meters (RFC 2698 trTCM, colour-blind mode), used as the direct meters of ingress ACL
 * rules and as the CoPP meters of the CPU queues. Each cell has two token buckets, C (size CBS, filled at CIR) and P
 * (size PBS, filled at PIR), both full when configured. A packet of B units at time t, after both buckets are
 * refilled for the time since the cell's last packet: red if {@code Tp - B < 0}; else yellow if {@code Tc - B < 0}
 * ({@code Tp -= B}); else green ({@code Tp -= B}, {@code Tc -= B}). Tokens are kept in unit·ns, so refills at
 * nanosecond times are exact integers. A cell without a configuration marks everything green.
 * <p>
 * Not thread safe: configured when built on a control thread, then owned by the data-plane thread ({@link #color}
 * writes the buckets). No allocation per packet.
 */
public final class AclMeters {
    /** Within the committed rate. */
    public static final int GREEN = 0;
    /** Above the committed, within the peak rate. */
    public static final int YELLOW = 1;
    /** Above the peak rate. */
    public static final int RED = 2;

    static final long NS_PER_SECOND = 1_000_000_000L;

    private final boolean packets;
    private final boolean[] configured;
    private final long[] cir;
    private final long[] pir;
    private final long[] cbsNs;
    private final long[] pbsNs;
    private final long[] tc;
    private final long[] tp;
    private final long[] lastNs;
    private final boolean[] seen;

    /**
     * @param configs one setting per cell (null: the cell marks everything green).
     * @param packets whether a packet costs one unit (else its length in bytes).
     */
    public AclMeters(final AclMeterConfig[] configs, final boolean packets) {
        this.packets = packets;
        final int n = configs.length;
        configured = new boolean[n];
        cir = new long[n];
        pir = new long[n];
        cbsNs = new long[n];
        pbsNs = new long[n];
        tc = new long[n];
        tp = new long[n];
        lastNs = new long[n];
        seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            final AclMeterConfig c = configs[i];
            if (c != null) {
                configured[i] = true;
                cir[i] = c.cir();
                pir[i] = c.pir();
                cbsNs[i] = c.cbs() * NS_PER_SECOND;
                pbsNs[i] = c.pbs() * NS_PER_SECOND;
            }
        }
        reset();
    }

    /** Fills every bucket (as at configuration time). */
    public void reset() {
        System.arraycopy(cbsNs, 0, tc, 0, tc.length);
        System.arraycopy(pbsNs, 0, tp, 0, tp.length);
        Arrays.fill(seen, false);
    }

    /** @return the number of cells. */
    public int size() {
        return configured.length;
    }

    /** @return whether a packet costs one unit (else its bytes). */
    public boolean packets() {
        return packets;
    }

    /**
     * @param cell a cell.
     * @return whether it meters (else everything is green).
     */
    public boolean configured(final int cell) {
        return cell >= 0 && cell < configured.length && configured[cell];
    }

    /**
     * Meters one packet (data-plane thread).
     *
     * @param cell the cell.
     * @param bytes the packet's length.
     * @param nowNs its arrival time.
     * @return {@link #GREEN}, {@link #YELLOW} or {@link #RED}.
     */
    public int color(final int cell, final int bytes, final long nowNs) {
        if (!configured(cell)) {
            return GREEN;
        }
        if (seen[cell]) {
            final long dtNs = Math.max(0, nowNs - lastNs[cell]);
            tc[cell] = refill(tc[cell], cbsNs[cell], cir[cell], dtNs);
            tp[cell] = refill(tp[cell], pbsNs[cell], pir[cell], dtNs);
        }
        seen[cell] = true;
        lastNs[cell] = nowNs;
        final long cost = (packets ? 1L : bytes) * NS_PER_SECOND;
        if (tp[cell] - cost < 0) {
            return RED;
        }
        tp[cell] -= cost;
        if (tc[cell] - cost < 0) {
            return YELLOW;
        }
        tc[cell] -= cost;
        return GREEN;
    }

    /** Adds rate × dt unit·ns to a bucket, capped at its size; never overflows. */
    private static long refill(final long tokens, final long capacity, final long rate, final long dtNs) {
        final long deficit = capacity - tokens;
        if (deficit <= 0 || rate == 0) {
            return Math.min(tokens, capacity);
        }
        // dtNs >= ceil(deficit / rate) exactly when dtNs * rate >= deficit; multiplied, not divided (a 64-bit
        // division per bucket and packet), with a product past 2^63 counted as reaching any deficit
        final long added = dtNs * rate;
        if (Math.multiplyHigh(dtNs, rate) != 0 || added < 0 || added >= deficit) {
            return capacity;
        }
        return tokens + added; // < capacity: added < deficit
    }
}
