package io.asicemu.bench.pipeline;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The {@link PipelineBenchmark} workload timed in the benchmark thread's own CPU time instead of wall-clock time,
 * for a machine shared with other work: a thread waiting for a CPU accrues no CPU time, so descheduling (which
 * dominates JMH's wall-clock score under load) drops out; cache and frequency effects of neighbours remain. Not JMH:
 * run it as {@code java -cp benchmarks.jar io.asicemu.bench.pipeline.PipelineCpuTime [rounds] [batchesPerRound]}.
 * Prints, per round, CPU ns per packet and the equivalent Mpps of one core, then the median and best round.
 */
public final class PipelineCpuTime {
    private PipelineCpuTime() {
    }

    /**
     * @param args rounds (default 15), 32-frame batches per round (default 100,000).
     */
    public static void main(final String[] args) {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        final int batches = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final PipelineBenchmark benchmark = new PipelineBenchmark();
        benchmark.setUp();
        long sink = 0;
        for (int warm = 0; warm < 3 * batches; warm++) {
            sink += benchmark.forwardRoceBatch();
        }
        final double[] nsPerPacket = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            final long cpu0 = threads.getCurrentThreadCpuTime();
            final long wall0 = System.nanoTime();
            for (int b = 0; b < batches; b++) {
                sink += benchmark.forwardRoceBatch();
            }
            final long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            final long wall = System.nanoTime() - wall0;
            final double packets = (double) batches * RoceForwardingRig.BATCH;
            nsPerPacket[r] = cpu / packets;
            System.out.printf("round %2d: %6.1f CPU ns/packet = %5.2f Mpps per core (wall %6.1f ns/packet)%n", r + 1,
                nsPerPacket[r], 1_000.0 / nsPerPacket[r], wall / packets);
        }
        final double[] sorted = nsPerPacket.clone();
        Arrays.sort(sorted);
        final double median = sorted[rounds / 2];
        System.out.printf("median %.1f CPU ns/packet = %.2f Mpps per core; best %.1f = %.2f Mpps (%d packets)%n",
            median, 1_000.0 / median, sorted[0], 1_000.0 / sorted[0], sink);
        benchmark.tearDown();
    }
}
