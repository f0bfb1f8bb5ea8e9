package io.asicemu.switchd;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.asicemu.veth.LiveLoop;
import io.asicemu.veth.ThreadPriorities;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * What {@code run --busy-poll-us N} changes besides the loop's polling, once the switch is up: the data-plane thread
 * spins on its CPU, so everything else the process runs on that CPU delays frames. These sources are removed or
 * made to yield (issue 12 item 3, docs/PERFORMANCE.md "Session 11"):
 * <ul>
 *   <li>every other thread of the JVM (GC workers, service threads, gRPC/HTTP) is lowered to nice 19
 *       ({@link LiveLoop#yieldOtherThreads(java.util.function.Predicate)}); threads started later inherit it from
 *       their creators. The JIT compiler threads are not: at nice 19 behind a spinning thread a compiler gets 1.5 % of
 *       the CPU, so the hot path's C2 compiles dribbled on for tens of seconds after the traffic started, each one
 *       preempting the loop in 4 ms slices all the while — the p99 of the 5 kpps runs (docs/PERFORMANCE.md
 *       "Session 12"). At their own priority they compile the hot path in the first second of traffic and then
 *       sleep;</li>
 *   <li>G1's periodic collection ({@code G1PeriodicGCInterval}) is turned off, should a user's flags have turned it
 *       back on: it runs when no collection happened for its interval, which is exactly a busy data plane that
 *       allocates nothing, and each one is a pause of every Java thread, the data plane's included. jvm.options has
 *       it off in both modes since session 12: {@link IdleHeapCollector} asks for that collection only while the data
 *       plane is quiet. The same goes for glibc's heap trim (session 16): the JVM's periodic trimmer is not used, the
 *       collector trims only at a quiet look, so no trim preempts a forwarding data plane.</li>
 *   <li>the command queue's drain ({@value #COMMAND_DRAIN}) is compiled on its own, not inlined into the duty
 *       cycle (a compiler directive, {@code Compiler.directives_add}): its {@code command.apply} call site meets a
 *       new command class whenever the control plane first does something new (the first counters read after the
 *       warm-up), and a class-check trap there threw away the whole compiled cycle and recompiled it — a C2 job of
 *       the inlined pipeline on the data plane's CPU in the middle of the traffic. Out of line, only the small drain
 *       is recompiled; the cycle calls it twice, a few ns.</li>
 * </ul>
 * The default mode changes none of this: an idle switch sleeps and competes with nobody.
 */
final class LowLatencyMode {
    /** The manageable JVM flag (JDK 12+) of G1's periodic collection; 0 turns it off. */
    static final String PERIODIC_GC_FLAG = "G1PeriodicGCInterval";

    /** The data-plane method the low-latency mode keeps out of line (class/method as compiler directives name it). */
    static final String COMMAND_DRAIN = "io/asicemu/pipeline/dataplane/DataPlaneAgent.drainCommands";

    private LowLatencyMode() {}

    /**
     * Applies the low-latency mode if {@code loop} busy-polls; does nothing in the default mode.
     *
     * @return what was changed, for the log ("" in the default mode).
     */
    static String apply(final LiveLoop loop) {
        if (loop.busyPollNs() == 0) {
            return "";
        }
        // Either step may be refused where the switch runs (a seccomp profile without setpriority, a JVM without
        // G1): the switch still forwards, only with more jitter, so say so rather than fail the start.
        String threads;
        try {
            threads = loop.yieldOtherThreads(ThreadPriorities::isJitCompiler)
                    + " other threads lowered to nice 19 (the JIT compilers kept)";
        } catch (final RuntimeException e) {
            threads = "other threads NOT lowered (" + e.getMessage() + ")";
        }
        String gc;
        try {
            final HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            final String periodic = vm.getVMOption(PERIODIC_GC_FLAG).getValue();
            if (!"0".equals(periodic)) {
                vm.setVMOption(PERIODIC_GC_FLAG, "0");
            }
            gc = "periodic GC off (was " + periodic + " ms)";
        } catch (final RuntimeException e) {
            gc = "periodic GC left as it is (" + e.getMessage() + ")";
        }
        String drain;
        try {
            drain = keepOutOfLine(COMMAND_DRAIN);
        } catch (final IOException | JMException | RuntimeException e) {
            drain = "command drain left to the JIT (" + e.getMessage() + ")";
        }
        return threads + ", " + gc + ", " + drain;
    }

    /** Adds a compiler directive (for every compilation from now on) that does not inline {@code method}. */
    private static String keepOutOfLine(final String method) throws IOException, JMException {
        final Path directives = Files.createTempFile("asic-emu-directives", ".json");
        try {
            Files.writeString(directives, "[{match: \"*.*\", inline: \"-" + method + "\"}]");
            final Object added = ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "compilerDirectivesAdd",
                            new Object[] {new String[] {directives.toString()}},
                            new String[] {String[].class.getName()});
            final String reply = String.valueOf(added).strip();
            if (!reply.startsWith("1 compiler directives added")) {
                throw new IllegalStateException(reply);
            }
            return "command drain compiled out of line";
        } finally {
            Files.deleteIfExists(directives);
        }
    }
}
