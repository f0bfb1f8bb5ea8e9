package io.asicemu.switchd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the start of {@code asic-emu run} went, logged once when it is live: per step, the wall-clock time since the
 * process started (in the container, since the container started: the entrypoint execs the JVM) and the CPU time the
 * main thread had used, which tells work from waiting for a core (on a small machine the JIT threads compete with
 * main). One line such as {@code start-up (ms since the process started / main thread's CPU): JVM 310/190, command
 * line 520/330, ...}; lab tests read it.
 * <p>
 * Steps are marked only in a process whose {@link Main#main} began the timeline, so tests that start switches in their
 * own JVM record nothing. Marks cost a read of {@code /proc/thread-self/schedstat}. Threading: marked and read by
 * the main thread.
 */
final class StartupTimeline {
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

    private record Mark(String step, long sinceStartMs, long cpuMs) {}

    private static volatile StartupTimeline current;

    /** Released when the data plane of this process's switch is up (or its start failed). */
    private static final java.util.concurrent.CountDownLatch DATA_PLANE = new java.util.concurrent.CountDownLatch(1);

    /** How long start-up work that waits for the data plane waits at most (a start stuck elsewhere must not stop it). */
    private static final long DATA_PLANE_WAIT_SECONDS = 10;

    /** {@link System#nanoTime()} at the process's start (exec of the entrypoint in the container). */
    private final long processStartNanos;

    private final List<Mark> marks = new ArrayList<>();
    /** The warm-up thread's steps with its CPU time at each, written by that thread. */
    private final List<Mark> warmUp = java.util.Collections.synchronizedList(new ArrayList<>());

    private StartupTimeline(final long processStartNanos) {
        this.processStartNanos = processStartNanos;
    }

    /** Begins the timeline of this process (from {@link Main#main}); the JVM's own start is the first step. */
    static void begin() {
        final long sinceStartNanos = sinceProcessStartNanos();
        if (sinceStartNanos >= 0) {
            current = new StartupTimeline(System.nanoTime() - sinceStartNanos);
            mark("JVM");
        }
    }

    /**
     * @return how long this process has existed, to 10 ms, or -1 where /proc cannot tell: the system's uptime minus the
     *     process's start in ticks since boot (/proc/self/stat's starttime; USER_HZ is 100 on Linux). Not {@code
     *     ProcessHandle.Info.startInstant()}: it adds the boot time, which Linux gives in whole seconds.
     */
    private static long sinceProcessStartNanos() {
        try {
            final String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            final long startTicks = Long.parseLong(fields[19]);
            final String uptime = Files.readString(Path.of("/proc/uptime"), StandardCharsets.US_ASCII);
            final double uptimeSeconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
            return Math.max(0, (long) (uptimeSeconds * 1e9) - startTicks * 10_000_000L);
        } catch (final IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Marks the end of a step, if this process keeps a timeline.
     *
     * @param step what has just been done, e.g. {@code "config"}.
     */
    static void mark(final String step) {
        final StartupTimeline timeline = current;
        if (timeline != null) {
            timeline.marks.add(
                    new Mark(step, (System.nanoTime() - timeline.processStartNanos) / 1_000_000, threadCpuMs()));
        }
    }

    /**
     * Marks the end of a step of the warm-up thread ({@link Main}), with that thread's CPU time.
     *
     * @param step what it has just done.
     */
    static void markWarmUp(final String step) {
        final StartupTimeline timeline = current;
        if (timeline != null) {
            timeline.warmUp.add(
                    new Mark(step, (System.nanoTime() - timeline.processStartNanos) / 1_000_000, threadCpuMs()));
        }
    }

    /**
     * Marks the data plane up: the step {@code "data plane"}, and start-up work waiting in {@link #awaitDataPlane} may
     * run now. Called whether or not this process keeps a timeline.
     */
    static void dataPlaneUp() {
        mark("data plane");
        DATA_PLANE.countDown();
    }

    /**
     * Waits until {@link #dataPlaneUp} or at most {@value #DATA_PLANE_WAIT_SECONDS} s: for start-up work that the first
     * forwarded frame does not need.
     *
     * @return false if interrupted (the process is ending).
     */
    static boolean awaitDataPlane() {
        try {
            DATA_PLANE.await(DATA_PLANE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            return true;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Ends the timeline.
     *
     * @return the steps as one line, or null if this process keeps none.
     */
    static String end() {
        final StartupTimeline timeline = current;
        current = null;
        if (timeline == null) {
            return null;
        }
        final StringBuilder line = new StringBuilder("start-up (ms since the process started / main thread's CPU): ");
        for (int i = 0; i < timeline.marks.size(); i++) {
            final Mark m = timeline.marks.get(i);
            line.append(i == 0 ? "" : ", ")
                    .append(m.step())
                    .append(' ')
                    .append(m.sinceStartMs())
                    .append('/')
                    .append(m.cpuMs() < 0 ? "?" : Long.toString(m.cpuMs()));
        }
        synchronized (timeline.warmUp) {
            String separator = "; warm-up thread: ";
            for (final Mark m : timeline.warmUp) {
                line.append(separator)
                        .append(m.step())
                        .append(' ')
                        .append(m.sinceStartMs())
                        .append('/')
                        .append(m.cpuMs() < 0 ? "?" : Long.toString(m.cpuMs()));
                separator = ", ";
            }
        }
        return line.toString();
    }

    /** @return the calling thread's time on a CPU (schedstat's first field, ns) in ms, or -1 where unavailable. */
    private static long threadCpuMs() {
        try {
            final String text = new String(Files.readAllBytes(SCHEDSTAT), StandardCharsets.US_ASCII);
            final int space = text.indexOf(' ');
            return Long.parseLong(space < 0 ? text.strip() : text.substring(0, space)) / 1_000_000;
        } catch (final IOException | NumberFormatException e) {
            return -1;
        }
    }
}
