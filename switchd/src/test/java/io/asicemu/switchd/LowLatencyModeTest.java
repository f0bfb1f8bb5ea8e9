package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.asicemu.pipeline.time.MonotonicClock;
import io.asicemu.veth.LiveLoop;
import io.asicemu.veth.ThreadPriorities;
import io.asicemu.veth.ffm.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.management.ObjectName;
import org.agrona.concurrent.Agent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code run --busy-poll-us}: the low-latency mode lowers the JVM's other threads and turns G1's periodic collection
 * off; the default mode touches neither. Raising nice values back afterwards needs root (CAP_SYS_NICE).
 */
@Timeout(30)
class LowLatencyModeTest {
    private static final HotSpotDiagnosticMXBean VM =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

    private String periodicBefore;
    private Map<Integer, Integer> niceBefore;

    /** Spins: works on every cycle. */
    private static final Agent SPINNING = new Agent() {
        @Override
        public int doWork() {
            return 1;
        }

        @Override
        public String roleName() {
            return "spinning";
        }
    };

    @BeforeEach
    void setUp() throws IOException {
        periodicBefore = VM.getVMOption(LowLatencyMode.PERIODIC_GC_FLAG).getValue();
        VM.setVMOption(LowLatencyMode.PERIODIC_GC_FLAG, "30000"); // as jvm.options sets it
        niceBefore = ThreadPriorities.niceValues();
    }

    @AfterEach
    void tearDown() throws IOException {
        VM.setVMOption(LowLatencyMode.PERIODIC_GC_FLAG, periodicBefore);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = Libc.newErrnoSegment(arena);
            for (final int tid : ThreadPriorities.niceValues().keySet()) {
                Libc.setpriority(errno, 0, tid, niceBefore.getOrDefault(tid, 0));
            }
        }
    }

    @Test
    void shouldLowerTheOtherThreadsAndStopThePeriodicCollectionWhenBusyPolling() throws Exception {
        try (LiveLoop loop =
                new LiveLoop(SPINNING, new MonotonicClock(), () -> Long.MAX_VALUE, 1, 1_000_000L).start()) {
            final String done = LowLatencyMode.apply(loop);
            assertThat(done).contains("nice 19").contains("periodic GC off (was 30000 ms)");
            assertThat(VM.getVMOption(LowLatencyMode.PERIODIC_GC_FLAG).getValue())
                    .isEqualTo("0");
            assertThat(ThreadPriorities.niceOf(ThreadPriorities.currentThreadId()))
                    .isEqualTo(ThreadPriorities.LOWEST);
            assertThat(ThreadPriorities.niceOf(loop.threadId()))
                    .as("the data-plane thread keeps its priority")
                    .isEqualTo(niceBefore.get(ThreadPriorities.currentThreadId()));
        }
    }

    @Test
    void shouldKeepTheJitCompilersPriorityAndTheCommandDrainOutOfLineWhenBusyPolling() throws Exception {
        try (LiveLoop loop =
                new LiveLoop(SPINNING, new MonotonicClock(), () -> Long.MAX_VALUE, 1, 1_000_000L).start()) {
            final String done = LowLatencyMode.apply(loop);
            assertThat(done).contains("(the JIT compilers kept)").contains("command drain compiled out of line");
            int compilers = 0;
            for (final Map.Entry<Integer, Integer> thread :
                    ThreadPriorities.niceValues().entrySet()) {
                final Path comm = Path.of("/proc/self/task", Integer.toString(thread.getKey()), "comm");
                if (Files.exists(comm) && ThreadPriorities.isJitCompiler(Files.readString(comm))) {
                    compilers++;
                    assertThat(thread.getValue()).isEqualTo(niceBefore.get(thread.getKey()));
                }
            }
            assertThat(compilers).as("HotSpot's C1 and C2 threads").isGreaterThanOrEqualTo(2);
            final Object directives = ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "compilerDirectivesPrint",
                            new Object[] {new String[0]},
                            new String[] {String[].class.getName()});
            assertThat(String.valueOf(directives)).contains("inline: -" + LowLatencyMode.COMMAND_DRAIN);
        }
    }

    @Test
    void shouldChangeNothingInTheDefaultMode() throws Exception {
        try (LiveLoop loop = new LiveLoop(SPINNING, new MonotonicClock(), () -> Long.MAX_VALUE, 1, 0).start()) {
            assertThat(LowLatencyMode.apply(loop)).isEmpty();
            assertThat(VM.getVMOption(LowLatencyMode.PERIODIC_GC_FLAG).getValue())
                    .isEqualTo("30000");
            assertThat(ThreadPriorities.niceOf(ThreadPriorities.currentThreadId()))
                    .isEqualTo(niceBefore.get(ThreadPriorities.currentThreadId()));
        }
    }
}
