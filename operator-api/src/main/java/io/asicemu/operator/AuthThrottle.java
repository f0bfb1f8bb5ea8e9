package io.asicemu.operator;

import java.util.concurrent.TimeUnit;

/**
 * The Redis front's server-wide AUTH throttle: failed AUTHs beyond a rate (with a burst of one second's worth) make
 * every AUTH check wait its turn, whichever connection sends it. The per-connection delay and close bound what one
 * connection tries; this bounds what many connections try at once (an unauthenticated connection gives way to a new
 * one at the cap, so the cap alone would not). A correct password waits too while the throttle is engaged, at most
 * the cap's worth of checks (64 at 10 a second: about 6 s); when nobody fails, nobody waits.
 * <p>
 * Threading: thread safe (in practice the one I/O thread).
 */
final class AuthThrottle {
    private final long intervalNs;
    private final long burstNs;
    private long nextNs;

    /** @param failuresPerSecond the failed AUTHs a second taken without waiting (also the burst). */
    AuthThrottle(final int failuresPerSecond) {
        this.intervalNs = TimeUnit.SECONDS.toNanos(1) / failuresPerSecond;
        this.burstNs = TimeUnit.SECONDS.toNanos(1);
        this.nextNs = System.nanoTime() - burstNs; // not engaged
    }

    /**
     * @param nowNs the monotonic time.
     * @return how long an AUTH check must wait before it runs (0: now).
     */
    synchronized long waitNs(final long nowNs) {
        return Math.max(0, nextNs - burstNs - nowNs);
    }

    /** @param nowNs the monotonic time of a failed AUTH. */
    synchronized void failed(final long nowNs) {
        nextNs = Math.max(nowNs, nextNs) + intervalNs;
    }
}
