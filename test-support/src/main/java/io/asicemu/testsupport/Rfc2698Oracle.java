package io.asicemu.testsupport;

import java.math.BigDecimal;

/**
 * The test's own reading of RFC 2698 §3 (colour-blind trTCM), in exact decimal arithmetic: both buckets start full;
 * between packets Tc grows by CIR × dt (up to CBS) and Tp by PIR × dt (up to PBS); a packet of size B is red if
 * Tp - B &lt; 0, else yellow if Tc - B &lt; 0 (Tp -= B), else green (Tp -= B, Tc -= B).
 */
public final class Rfc2698Oracle {
    public static final int GREEN = 0;
    public static final int YELLOW = 1;
    public static final int RED = 2;
    private static final BigDecimal NS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);
    private final BigDecimal cir;
    private final BigDecimal cbs;
    private final BigDecimal pir;
    private final BigDecimal pbs;
    private BigDecimal tc;
    private BigDecimal tp;
    private long lastNs = Long.MIN_VALUE;

    public Rfc2698Oracle(final long cir, final long cbs, final long pir, final long pbs) {
        this.cir = BigDecimal.valueOf(cir);
        this.cbs = BigDecimal.valueOf(cbs);
        this.pir = BigDecimal.valueOf(pir);
        this.pbs = BigDecimal.valueOf(pbs);
        tc = this.cbs;
        tp = this.pbs;
    }

    public int color(final long size, final long nowNs) {
        if (lastNs != Long.MIN_VALUE) {
            final BigDecimal seconds = BigDecimal.valueOf(nowNs - lastNs).divide(NS_PER_SECOND);
            tc = tc.add(cir.multiply(seconds)).min(cbs);
            tp = tp.add(pir.multiply(seconds)).min(pbs);
        }
        lastNs = nowNs;
        final BigDecimal b = BigDecimal.valueOf(size);
        if (tp.subtract(b).signum() < 0) {
            return RED;
        }
        tp = tp.subtract(b);
        if (tc.subtract(b).signum() < 0) {
            return YELLOW;
        }
        tc = tc.subtract(b);
        return GREEN;
    }
}
