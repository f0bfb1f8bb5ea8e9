package io.asicemu.veth;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.time.MonotonicClock;
import org.agrona.concurrent.Agent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The low-latency mode polls for a bounded window after the last cycle with work, then sleeps in epoll like the
 * default mode: idle still costs nothing. Counts duty cycles of an agent that works while told to.
 */
@Timeout(30)
class LiveLoopBusyPollTest {

    /** Does one unit of work per cycle while {@link #busy} is set. */
    static final class SwitchedAgent implements Agent {
        volatile boolean busy;

        @Override
        public int doWork() {
            return busy ? 1 : 0;
        }

        @Override
        public String roleName() {
            return "switched-agent";
        }
    }

    private static long cyclesWhileIdle(final long busyPollNs, final long[] duringWindow) throws Exception {
        final SwitchedAgent agent = new SwitchedAgent();
        // Busy before the loop starts: nothing wakes a loop asleep in epoll when the flag flips (no fd event), so a
        // loop whose first cycle ran before the flag was set would sleep through the whole test.
        agent.busy = true;
        final LiveLoop loop = new LiveLoop(agent, new MonotonicClock(), () -> Long.MAX_VALUE, 1, busyPollNs).start();
        try {
            Thread.sleep(50);
            agent.busy = false;
            final long atStop = loop.cycles();
            Thread.sleep(busyPollNs / 1_000_000 / 2); // inside the window
            duringWindow[0] = loop.cycles() - atStop;
            Thread.sleep(busyPollNs / 1_000_000 + 300); // well past it: the loop sleeps in epoll
            final long settled = loop.cycles();
            Thread.sleep(500);
            return loop.cycles() - settled;
        } finally {
            loop.close();
        }
    }

    @Test
    void shouldPollForTheWindowAfterTheLastWorkThenSleep() throws Exception {
        final long[] window = new long[1];
        final long idleCycles = cyclesWhileIdle(200_000_000L, window);
        assertThat(window[0])
                .as("cycles in the first 100 ms of a 200 ms busy-poll window")
                .isGreaterThan(1_000);
        assertThat(idleCycles)
                .as("cycles in 500 ms after the window: asleep in epoll")
                .isZero();
    }

    @Test
    void shouldSleepAtOnceInTheDefaultMode() throws Exception {
        final long[] window = new long[1];
        final long idleCycles = cyclesWhileIdle(0, window);
        // the cycle in flight when the work stopped, and the one that found none before sleeping
        assertThat(window[0]).as("cycles right after the work stopped").isLessThanOrEqualTo(2);
        assertThat(idleCycles).isZero();
    }
}
