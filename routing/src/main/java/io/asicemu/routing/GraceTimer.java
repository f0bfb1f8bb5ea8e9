package io.asicemu.routing;

import java.time.Duration;

/**
 * Runs a task once after a delay, on the thread that owns the route table (the FPM server's I/O thread; a test's own
 * hand-stepped timer). Injected so that reconciliation can be tested without waiting.
 */
@FunctionalInterface
public interface GraceTimer {
    /** A scheduled task that can still be called off. */
    interface Scheduled {
        /** Calls the task off if it has not run. */
        void cancel();
    }

    /** @return the scheduled task; {@code task} runs after {@code delay} on the owning thread. */
    Scheduled schedule(Duration delay, Runnable task);
}
