package io.asicemu.veth;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.time.MonotonicClock;
import io.asicemu.veth.ffm.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
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
            final int lowered = loop.yieldOtherThreads(name -> false);
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
            assertThat(loop.yieldOtherThreads(name -> false))
                    .as("nothing left to lower")
                    .isZero();
        } finally {
            loop.close();
            restore(before);
        }
    }

    private static String nameOf(final int tid) throws IOException {
        return Files.readString(Path.of("/proc/self/task", Integer.toString(tid), "comm"))
                .strip();
    }

    @Test
    void shouldRecogniseHotSpotsCompilerThreadsByTheirName() {
        assertThat(ThreadPriorities.isJitCompiler("C2 CompilerThre")).isTrue();
        assertThat(ThreadPriorities.isJitCompiler("C1 CompilerThre")).isTrue();
        assertThat(ThreadPriorities.isJitCompiler("G1 Service")).isFalse();
        assertThat(ThreadPriorities.isJitCompiler("asicemu-datapla")).isFalse();
        assertThat(ThreadPriorities.isJitCompiler("java")).isFalse();
    }

    @Test
    void shouldLeaveTheThreadsANameFilterKeepsAtTheirPriority() throws Exception {
        final Map<Integer, Integer> before = ThreadPriorities.niceValues();
        final LiveLoop loop =
                new LiveLoop(new BusyAgent(), new MonotonicClock(), () -> Long.MAX_VALUE, 1, 1_000_000L).start();
        try {
            final int lowered = loop.yieldOtherThreads(ThreadPriorities::isJitCompiler);
            final Map<Integer, Integer> after = ThreadPriorities.niceValues();
            after.remove(loop.threadId());
            int compilers = 0;
            for (final Map.Entry<Integer, Integer> thread : after.entrySet()) {
                if (ThreadPriorities.isJitCompiler(nameOf(thread.getKey()))) {
                    compilers++;
                    assertThat(thread.getValue())
                            .as("JIT compiler thread %s keeps its priority", thread.getKey())
                            .isEqualTo(before.get(thread.getKey()))
                            .isNotEqualTo(ThreadPriorities.LOWEST);
                } else {
                    assertThat(thread.getValue())
                            .as("thread %s (%s) lowered", thread.getKey(), nameOf(thread.getKey()))
                            .isEqualTo(ThreadPriorities.LOWEST);
                }
            }
            assertThat(compilers).as("HotSpot's C1 and C2 threads").isGreaterThanOrEqualTo(2);
            assertThat(lowered).isGreaterThanOrEqualTo(2);
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
            assertThat(loop.yieldOtherThreads(name -> false)).isZero();
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
