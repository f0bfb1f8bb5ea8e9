package io.asicemu.pipeline.time;

/**
 * Real time for the live switch: {@link System#nanoTime()} since construction, optionally slowed by a time-dilation
 * factor so that a modeled fast port (say 400G) behaves faithfully while the host carries veth traffic at a rate it
 * can sustain. With dilation {@code d}, one emulated ns passes every {@code d} real ns; thresholds stay in bytes and
 * timers in emulated time (ARCHITECTURE.md "Time is an input").
 * <p>
 * Immutable and thread safe.
 */
public final class MonotonicClock implements Clock {
    private final long originRealNs;
    private final long originEmulatedNs;
    private final double dilation;

    /** Real time, no dilation, starting at emulated time 0. */
    public MonotonicClock() {
        this(1.0);
    }

    /**
     * Real time slowed by {@code dilation}.
     *
     * @param dilation real ns per emulated ns, at least 1.0 (1.0 = no dilation).
     */
    public MonotonicClock(final double dilation) {
        if (!(dilation >= 1.0) || Double.isInfinite(dilation)) {
            throw new IllegalArgumentException("dilation must be a finite factor >= 1.0: " + dilation);
        }
        this.originRealNs = System.nanoTime();
        this.originEmulatedNs = 0L;
        this.dilation = dilation;
    }

    /** @return real ns per emulated ns. */
    public double dilation() {
        return dilation;
    }

    @Override
    public long nowNs() {
        final long realNs = System.nanoTime() - originRealNs;
        return originEmulatedNs + (dilation == 1.0 ? realNs : (long) (realNs / dilation));
    }

    /**
     * Converts an emulated duration to the real duration a poll/epoll wait should last.
     *
     * @param emulatedNs an emulated duration in ns.
     * @return the real duration in ns.
     */
    public long toRealNs(final long emulatedNs) {
        return dilation == 1.0 ? emulatedNs : (long) (emulatedNs * dilation);
    }
}
