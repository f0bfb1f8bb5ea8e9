package io.asicemu.pipeline.cpu;

import java.util.concurrent.locks.LockSupport;

/**
 * How the data plane wakes the one thread that drains the CPU port's rings (punts, learn events) when that thread
 * blocks while idle. The consumer announces it waits, then re-checks the rings; a producer publishes with a volatile
 * store, then reads the announcement: the two volatile pairs order like Dekker's, so a wake-up is never lost.
 * <p>
 * Threading: {@link #wakeIfWaiting} on the data-plane thread (no allocation; one unpark only while the consumer
 * waits); the rest on the consumer thread.
 */
final class ConsumerWakeup {
    private volatile Thread consumer;
    private volatile boolean waiting;

    void consumer(final Thread thread) {
        consumer = thread;
    }

    void waiting(final boolean value) {
        waiting = value;
    }

    /** Producer: call after publishing an item with a volatile store. */
    void wakeIfWaiting() {
        if (waiting) {
            final Thread c = consumer;
            if (c != null) {
                LockSupport.unpark(c);
            }
        }
    }
}
