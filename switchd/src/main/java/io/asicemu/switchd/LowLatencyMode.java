package io.asicemu.switchd;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.asicemu.veth.LiveLoop;
import java.lang.management.ManagementFactory;

/**
 * What {@code run --busy-poll-us N} changes besides the loop's polling, once the switch is up: the data-plane thread
 * spins on its CPU, so everything else the process runs on that CPU delays frames. Two sources are removed or made
 * to yield (issue 12 item 3, docs/PERFORMANCE.md "Session 11"):
 * <ul>
 *   <li>every other thread of the JVM (JIT compilers, GC workers, service threads, gRPC/HTTP) is lowered to nice 19
 *       ({@link LiveLoop#yieldOtherThreads()}); threads started later inherit it from their creators;</li>
 *   <li>G1's periodic collection (jvm.options' {@code G1PeriodicGCInterval}, which gives an idle switch's heap back)
 *       is turned off: it runs when no collection happened for its interval, which is exactly a busy data plane that
 *       allocates nothing, and each one is a pause of every Java thread, the data plane's included. A switch that
 *       spins holds a core for good; the heap it does not give back is the lesser cost.</li>
 * </ul>
 * The default mode changes none of this: an idle switch sleeps and competes with nobody.
 */
final class LowLatencyMode {
    /** The manageable JVM flag (JDK 12+) of G1's periodic collection; 0 turns it off. */
    static final String PERIODIC_GC_FLAG = "G1PeriodicGCInterval";

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
            threads = loop.yieldOtherThreads() + " other threads lowered to nice 19";
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
        return threads + ", " + gc;
    }
}
