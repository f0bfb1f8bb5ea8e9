package io.asicemu.bench.pipeline;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The {@link AclPipelineBenchmark} workload timed in the thread's own CPU time, as {@link PipelineCpuTime} does for
 * the plain path: on a shared machine a thread waiting for a CPU accrues none, so descheduling drops out of the
 * ratio "path with 1,000 ACL rules / path without". Not JMH: run it as {@code java -cp benchmarks.jar
 * io.asicemu.bench.pipeline.AclPipelineCpuTime <none|acl|acl1000> [rounds] [batchesPerRound]}, one JVM per case
 * (each JIT profile its own, as JMH's forks). Prints CPU ns per packet per round, then the median and best round.
 */
public final class AclPipelineCpuTime {
    private AclPipelineCpuTime() {}

    /**
     * @param args the case (AclPipelineBenchmark's {@code features}), rounds (default 9), 32-frame batches per
     *     round (default 50,000).
     */
    public static void main(final String[] args) {
        final String features = args.length > 0 ? args[0] : "acl1000";
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        final int batches = args.length > 2 ? Integer.parseInt(args[2]) : 50_000;
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final AclPipelineBenchmark benchmark = new AclPipelineBenchmark();
        benchmark.features = features;
        benchmark.setUp();
        long sink = 0;
        for (int warm = 0; warm < 3 * batches; warm++) {
            sink += benchmark.forwardRoceBatch();
        }
        final double[] nsPerPacket = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            final long cpu0 = threads.getCurrentThreadCpuTime();
            for (int b = 0; b < batches; b++) {
                sink += benchmark.forwardRoceBatch();
            }
            nsPerPacket[r] = (threads.getCurrentThreadCpuTime() - cpu0) / (double) batches / RoceForwardingRig.BATCH;
        }
        benchmark.tearDown();
        final double[] sorted = nsPerPacket.clone();
        Arrays.sort(sorted);
        System.out.printf(
                "%s: CPU ns per packet by round %s; median %.1f (%.2f Mpps per core), best %.1f (%d packets)%n",
                features,
                Arrays.toString(Arrays.stream(nsPerPacket)
                        .map(x -> Math.round(x * 10) / 10.0)
                        .toArray()),
                sorted[rounds / 2],
                1_000.0 / sorted[rounds / 2],
                sorted[0],
                sink);
    }
}
