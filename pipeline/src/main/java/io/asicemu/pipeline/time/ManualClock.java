package io.asicemu.pipeline.time;

/**
 * A clock that moves only when told: for tests and for virtual-time replay, where time jumps from one event (a packet
 * timestamp or a timer deadline) to the next.
 * <p>
 * Owned by whoever steps the data-plane agent; written by that thread. Reads are plain: set and read on one thread.
 */
public final class ManualClock implements Clock {
    private long nowNs;

    /** A clock at time 0. */
    public ManualClock() {
        this(0L);
    }

    /**
     * A clock at {@code startNs}.
     *
     * @param startNs the initial time in ns.
     */
    public ManualClock(final long startNs) {
        this.nowNs = startNs;
    }

    @Override
    public long nowNs() {
        return nowNs;
    }

    /**
     * Sets the time; time may not go backwards.
     *
     * @param timeNs the new time in ns, not before the current one.
     * @throws IllegalArgumentException if {@code timeNs} lies before the current time.
     */
    public void nowNs(final long timeNs) {
        if (timeNs - nowNs < 0) {
            throw new IllegalArgumentException("time may not go backwards: " + timeNs + " < " + nowNs);
        }
        this.nowNs = timeNs;
    }

    /**
     * Advances the time.
     *
     * @param deltaNs how far, in ns, at least 0.
     */
    public void advanceNs(final long deltaNs) {
        if (deltaNs < 0) {
            throw new IllegalArgumentException("negative advance: " + deltaNs);
        }
        this.nowNs += deltaNs;
    }
}
