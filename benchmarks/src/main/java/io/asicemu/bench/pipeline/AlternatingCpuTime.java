package io.asicemu.bench.pipeline;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Two builds of {@link PipelineBenchmark} side by side in one JVM, each from its own benchmarks jar in its own class
 * loader (so each has its own classes and JIT-compiled code), timed in round after round that alternate between
 * them (A B A B ...): on a machine shared with other work a neighbour's burst lands on both builds alike, where
 * separate JVMs minutes apart see different neighbours. Not JMH: run it as
 * {@code java -cp benchmarks.jar io.asicemu.bench.pipeline.AlternatingCpuTime A.jar B.jar [rounds] [batchesPerRound]
 * [features]}, with features one of {@link AclPipelineBenchmark}'s cases to run that benchmark instead.
 * Prints per round the benchmark thread's CPU ns per packet of each, then the medians and the median of the
 * per-round ratios B / A.
 */
public final class AlternatingCpuTime {
    private AlternatingCpuTime() {}

    private record Build(String name, Object benchmark, MethodHandle forward) {}

    private static Build load(final String jar, final String features) throws Throwable {
        final URLClassLoader loader =
                new URLClassLoader(new URL[] {Path.of(jar).toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        final Class<?> type = loader.loadClass(
                "io.asicemu.bench.pipeline." + (features == null ? "PipelineBenchmark" : "AclPipelineBenchmark"));
        final Object benchmark = type.getConstructor().newInstance();
        if (features != null) {
            type.getField("features").set(benchmark, features);
        }
        type.getMethod("setUp").invoke(benchmark);
        final MethodHandle forward = MethodHandles.publicLookup()
                .findVirtual(type, "forwardRoceBatch", MethodType.methodType(long.class))
                .asType(MethodType.methodType(long.class, Object.class));
        return new Build(jar, benchmark, forward);
    }

    private static long run(final Build build, final int batches) throws Throwable {
        long sent = 0;
        for (int b = 0; b < batches; b++) {
            sent += (long) build.forward().invokeExact(build.benchmark());
        }
        return sent;
    }

    /**
     * @param args jar A, jar B, rounds (default 15), 32-frame batches per round (default 50,000), and optionally an
     *     {@link AclPipelineBenchmark} case (none, acl, acl1000) to time that benchmark instead of
     *     {@link PipelineBenchmark}.
     * @throws Throwable if a jar does not load.
     */
    public static void main(final String[] args) throws Throwable {
        final int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        final int batches = args.length > 3 ? Integer.parseInt(args[3]) : 50_000;
        final String features = args.length > 4 ? args[4] : null;
        final Build a = load(args[0], features);
        final Build b = load(args[1], features);
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int warm = 0; warm < 3; warm++) {
            run(a, batches);
            run(b, batches);
        }
        final double[] nsA = new double[rounds];
        final double[] nsB = new double[rounds];
        final double[] ratio = new double[rounds];
        final double packets = (double) batches * RoceForwardingRig.BATCH;
        long sent = 0;
        for (int r = 0; r < rounds; r++) {
            final long t0 = threads.getCurrentThreadCpuTime();
            sent += run(a, batches);
            final long t1 = threads.getCurrentThreadCpuTime();
            sent += run(b, batches);
            final long t2 = threads.getCurrentThreadCpuTime();
            nsA[r] = (t1 - t0) / packets;
            nsB[r] = (t2 - t1) / packets;
            ratio[r] = nsB[r] / nsA[r];
            System.out.printf("round %2d: A %6.1f  B %6.1f CPU ns/packet  B/A %.3f%n", r + 1, nsA[r], nsB[r], ratio[r]);
        }
        Arrays.sort(nsA);
        Arrays.sort(nsB);
        Arrays.sort(ratio);
        System.out.printf(
                "median A %.1f (best %.1f) = %s, B %.1f (best %.1f) = %s CPU ns/packet; median B/A %.3f (%d packets)%n",
                nsA[rounds / 2], nsA[0], a.name(), nsB[rounds / 2], nsB[0], b.name(), ratio[rounds / 2], sent);
    }
}
