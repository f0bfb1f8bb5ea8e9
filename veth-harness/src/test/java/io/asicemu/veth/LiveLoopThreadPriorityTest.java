package io.asicemu.veth;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.time.MonotonicClock;
import io.asicemu.veth.ffm.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import org.agrona.concurrent.Agent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The low-latency mode makes the process's other threads yield to the busy-polling loop thread (nice 19), and leaves
 * the loop thread's own priority; the default mode changes no thread. Raising the values back afterwards needs root
 * (CAP_SYS_NICE), as this module's tests have.
 */
@Timeout(30)
class LiveLoopThreadPriorityTest {

    /** Works on every cycle: the loop spins, as under traffic. */
    static final class BusyAgent implements Agent {
        @Override
        public int doWork() {
            return 1;
        }

        @Override
        public String roleName() {
            return "busy-agent";
        }
    }

    /** Puts every thread back to the value it had (0 for threads started since), so later tests run as before. */
    private static void restore(final Map<Integer, Integer> before) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = Libc.newErrnoSegment(arena);
            for (final int tid : ThreadPriorities.niceValues().keySet()) {
                Libc.setpriority(errno, 0, tid, before.getOrDefault(tid, 0));
            }
        }
    }

    @Test
    void shouldLowerEveryOtherThreadButNotTheLoopThreadInTheLowLatencyMode() throws Exception {
        final Map<Integer, Integer> before = ThreadPriorities.niceValues();
        final int caller = ThreadPriorities.currentThreadId();
        final int callerNice = ThreadPriorities.niceOf(caller);
        final LiveLoop loop =
                new LiveLoop(new BusyAgent(), new MonotonicClock(), () -> Long.MAX_VALUE, 1, 1_000_000L).start();
        try {
            final int lowered = loop.yieldOtherThreads();
            final int loopThread = loop.threadId();
            assertThat(loopThread).isPositive().isNotEqualTo(caller);
            assertThat(ThreadPriorities.niceOf(loopThread))
                    .as("the loop thread keeps its priority")
                    .isEqualTo(callerNice);
            final Map<Integer, Integer> after = ThreadPriorities.niceValues();
            after.remove(loopThread);
            assertThat(after).as("every other thread (JIT, GC, this one)").isNotEmpty();
            assertThat(after.values()).containsOnly(ThreadPriorities.LOWEST);
            assertThat(lowered).isGreaterThanOrEqualTo(2); // at least this thread and the JVM's own
            // a thread started afterwards by a lowered thread inherits the value
            final int[] child = new int[1];
            final Thread t = new Thread(() -> child[0] = ThreadPriorities.niceOf(ThreadPriorities.currentThreadId()));
            t.start();
            t.join();
            assertThat(child[0]).isEqualTo(ThreadPriorities.LOWEST);
            assertThat(loop.yieldOtherThreads()).as("nothing left to lower").isZero();
        } finally {
            loop.close();
            restore(before);
        }
    }

    @Test
    void shouldChangeNoThreadInTheDefaultMode() throws Exception {
        final Map<Integer, Integer> before = ThreadPriorities.niceValues();
        final LiveLoop loop = new LiveLoop(new BusyAgent(), new MonotonicClock(), () -> Long.MAX_VALUE, 1, 0).start();
        try {
            assertThat(loop.yieldOtherThreads()).isZero();
            assertThat(loop.threadId()).isZero();
            final Map<Integer, Integer> after = ThreadPriorities.niceValues();
            after.keySet().retainAll(before.keySet());
            final Map<Integer, Integer> kept = new HashMap<>(before);
            kept.keySet().retainAll(after.keySet());
            assertThat(after).isEqualTo(kept);
        } finally {
            loop.close();
            restore(before);
        }
    }
}
