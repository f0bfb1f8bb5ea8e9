package io.asicemu.pipeline.time;

/**
 * The one source of emulated time, in nanoseconds, for the data path and every timed behaviour of the switch.
 * <p>
 * The data-plane agent reads it once per duty cycle and passes the value down; no stage reads a clock itself.
 * Implementations say whether they are thread safe; readers never block.
 */
public interface Clock {
    /**
     * The current emulated time in nanoseconds. Only differences are meaningful; compare deadlines by subtraction
     * ({@code nowNs - deadlineNs >= 0}).
     *
     * @return the emulated time in ns.
     */
    long nowNs();
}
