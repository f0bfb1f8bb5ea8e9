package io.asicemu.bench.pipeline;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The {@link PipelineBenchmark} workload timed in the benchmark thread's own CPU time instead of wall-clock time,
 * for a machine shared with other work: a thread waiting for a CPU accrues no CPU time, so descheduling (which
 * dominates JMH's wall-clock score under load) drops out; cache and frequency effects of neighbours remain. Not JMH:
 * run it as {@code java -cp benchmarks.jar io.asicemu.bench.pipeline.PipelineCpuTime [rounds] [batchesPerRound] [split]}.
 * Prints, per round, CPU ns per packet and the equivalent Mpps of one core, then the median and best round.
 */
public final class PipelineCpuTime {
    private PipelineCpuTime() {}

    /**
     * The batch's steps timed apart with {@link System#nanoTime} around each (wall clock, but per 32-frame batch: the
     * median over many batches leaves out the batches a descheduling hit; the back-to-back cost of a read is
     * subtracted): inject, cycle 1 (receive: parse, ingress, egress copy, TM admit; then the first frame per port
     * starts), cycle 2 (1 µs later: the other frames dequeued and copied to the TX rings), collect.
     */
    private static void split(final PipelineBenchmark benchmark, final int batches) {
        final RoceForwardingRig rig = benchmark.rig();
        final long[][] ns = new long[5][batches];
        long sink = 0;
        for (int b = 0; b < batches; b++) {
            final long t0 = System.nanoTime();
            rig.injectBatch();
            final long t1 = System.nanoTime();
            rig.pipeline.agent().doWork();
            final long t2 = System.nanoTime();
            rig.clock.advanceNs(1_000);
            rig.pipeline.agent().doWork();
            final long t3 = System.nanoTime();
            sink += rig.collectTransmitted();
            final long t4 = System.nanoTime();
            final long t5 = System.nanoTime();
            ns[0][b] = t1 - t0;
            ns[1][b] = t2 - t1;
            ns[2][b] = t3 - t2;
            ns[3][b] = t4 - t3;
            ns[4][b] = t5 - t4;
        }
        final double[] median = new double[5];
        for (int i = 0; i < 5; i++) {
            Arrays.sort(ns[i]);
            median[i] = ns[i][batches / 2];
        }
        final double per = RoceForwardingRig.BATCH;
        final double read = median[4];
        System.out.printf(
                "split (median ns per packet of a batch, %.0f ns per clock read subtracted): inject %.1f,"
                        + " cycle 1 (RX, parse, ingress, egress, admit, first TX) %.1f, cycle 2 (dequeue, TX) %.1f,"
                        + " collect %.1f (%d packets)%n",
                read,
                (median[0] - read) / per,
                (median[1] - read) / per,
                (median[2] - read) / per,
                (median[3] - read) / per,
                sink);
    }

    /**
     * @param args rounds (default 15), 32-frame batches per round (default 100,000), and "split" to time the
     *     batch's steps apart as well.
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
            System.out.printf(
                    "round %2d: %6.1f CPU ns/packet = %5.2f Mpps per core (wall %6.1f ns/packet)%n",
                    r + 1, nsPerPacket[r], 1_000.0 / nsPerPacket[r], wall / packets);
        }
        if (args.length > 2 && "split".equals(args[2])) {
            split(benchmark, batches);
        }
        final double[] sorted = nsPerPacket.clone();
        Arrays.sort(sorted);
        final double median = sorted[rounds / 2];
        System.out.printf(
                "median %.1f CPU ns/packet = %.2f Mpps per core; best %.1f = %.2f Mpps (%d packets)%n",
                median, 1_000.0 / median, sorted[0], 1_000.0 / sorted[0], sink);
        benchmark.tearDown();
    }
}
