package io.asicemu.switchd;

import io.asicemu.veth.ffm.Libc;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the heap back while the data plane is quiet, and never stops the data plane while traffic flows.
 * <p>
 * G1's own periodic collection ({@code G1PeriodicGCInterval}) runs whenever no collection happened for its interval:
 * on a forwarding switch, whose data plane allocates nothing, that is every interval, in the middle of the traffic.
 * Each one is a pause of every Java thread, the data plane's included: 12–48 ms for the young pause here, then a remark,
 * and at 160 kpps a 1,024-slot RX ring is full after 6 ms, so frames were lost to it (docs/PERFORMANCE.md "Session
 * 12"). jvm.options turns it off; this thread asks for the same collection ({@code System.gc()} under
 * {@code -XX:+ExplicitGCInvokesConcurrent}: a young pause, concurrent marking, the heap shrunk at its remark) only
 * when the data plane is quiet, no collection ran for a whole interval, and the heap grew by at least
 * {@link #GROWTH_BYTES} since the last one (so an idle switch that allocates nothing is left alone). Quiet means at most
 * {@link #QUIET_FRAMES_PER_SECOND} on average over the interval and over the moment just before: a lab's background
 * traffic (router solicitations, LLDP, a ping) does not keep the heap from being given back, and at that rate a pause
 * of 50 ms leaves 50 frames in a ring of hundreds, delayed, not lost. A switch that forwards more keeps what its heap
 * grew to (at most {@code -Xmx}) until its traffic calms down.
 * <p>
 * glibc's heap is trimmed on the same terms: at every look that finds the data plane quiet ({@code malloc_trim}),
 * never while traffic flows. The JVM's own periodic trimmer
 * ({@code -XX:TrimNativeHeapInterval}) ran regardless of traffic, and a trim takes milliseconds of CPU: on a switch
 * confined to one CPU it preempted the busy-polling data plane for 2.4–4.3 ms slices in a 5 kpps latency run
 * (docs/PERFORMANCE.md "Session 16"), and in the default mode it competes with the data plane just the same.
 */
final class IdleHeapCollector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IdleHeapCollector.class);

    /** How often the data plane's activity and the heap are looked at (G1's periodic interval in jvm.options was 30 s). */
    static final Duration INTERVAL = Duration.ofSeconds(30);

    /** Growth since the last collection that makes an idle switch collect: a few regions' worth. */
    static final long GROWTH_BYTES = 4L << 20;

    /** The most frames per second a data plane receives and still counts as quiet. */
    static final long QUIET_FRAMES_PER_SECOND = 1_000;

    /** The moment just before a collection that must be quiet too (the interval's average may hide a burst's start). */
    static final Duration RECENT = Duration.ofMillis(100);

    private final LongSupplier framesReceived;
    private final LongSupplier usedHeap;
    private final Runnable collect;
    private final Runnable trimNativeHeap;
    private final Duration recent;

    private long lastFrames;
    private long lastUsed;
    /** Heap in use after the last collection seen; 0 at first, so that an idle switch collects its start-up garbage. */
    private long usedAfterCollection;

    private long collections;
    private long trims;
    private volatile boolean running = true;
    private Thread thread;

    /**
     * @param framesReceived frames the data plane has received so far.
     * @param usedHeap bytes of heap in use now.
     * @param collect asks for a collection (returns once it is done or under way).
     * @param recent how long just before a collection the data plane must be quiet too ({@link #RECENT}).
     */
    IdleHeapCollector(
            final LongSupplier framesReceived,
            final LongSupplier usedHeap,
            final Runnable collect,
            final Duration recent) {
        this(framesReceived, usedHeap, collect, () -> {}, recent);
    }

    /**
     * @param framesReceived frames the data plane has received so far.
     * @param usedHeap bytes of heap in use now.
     * @param collect asks for a collection (returns once it is done or under way).
     * @param trimNativeHeap gives the native heap's free memory back to the system.
     * @param recent how long just before a collection the data plane must be quiet too ({@link #RECENT}).
     */
    IdleHeapCollector(
            final LongSupplier framesReceived,
            final LongSupplier usedHeap,
            final Runnable collect,
            final Runnable trimNativeHeap,
            final Duration recent) {
        this.framesReceived = framesReceived;
        this.usedHeap = usedHeap;
        this.collect = collect;
        this.trimNativeHeap = trimNativeHeap;
        this.recent = recent;
        this.lastFrames = framesReceived.getAsLong();
        this.lastUsed = usedHeap.getAsLong();
    }

    /**
     * Starts the thread that checks every {@link #INTERVAL}.
     *
     * @param framesReceived frames the data plane has received so far (any thread).
     * @return the running collector; {@link #close()} stops it.
     */
    static IdleHeapCollector start(final LongSupplier framesReceived) {
        final Runtime runtime = Runtime.getRuntime();
        final IdleHeapCollector collector = new IdleHeapCollector(
                framesReceived,
                () -> runtime.totalMemory() - runtime.freeMemory(),
                System::gc,
                IdleHeapCollector::trimGlibcHeap,
                RECENT);
        collector.thread = Thread.ofPlatform().name("asicemu-idle-gc").daemon().start(collector::run);
        return collector;
    }

    /**
     * One look, once an {@link #INTERVAL} after the last. If the data plane was quiet over the interval and is quiet
     * {@link #RECENT}ly: collects when nothing was collected since the last look and the heap grew by
     * {@link #GROWTH_BYTES} since the last collection, then trims the native heap.
     *
     * @return whether it asked for a collection.
     */
    boolean check() {
        final long frames = framesReceived.getAsLong();
        long used = usedHeap.getAsLong();
        // between collections the heap in use only grows: less than at the last look means one ran meanwhile
        final boolean collectedMeanwhile = used < lastUsed;
        if (collectedMeanwhile) {
            usedAfterCollection = used;
        }
        boolean collected = false;
        if (quiet(frames - lastFrames, INTERVAL) && quietNow(frames)) {
            if (!collectedMeanwhile && used - usedAfterCollection >= GROWTH_BYTES) {
                collect.run();
                collections++;
                used = usedHeap.getAsLong();
                usedAfterCollection = used;
                collected = true;
                LOG.debug("data plane quiet for {} s: heap collected, {} MiB in use", INTERVAL.toSeconds(), used >> 20);
            }
            trimNativeHeap.run();
            trims++;
        }
        lastFrames = framesReceived.getAsLong();
        lastUsed = used;
        return collected;
    }

    private static boolean quiet(final long frames, final Duration over) {
        return frames * 1_000 <= QUIET_FRAMES_PER_SECOND * over.toMillis();
    }

    /** Whether the data plane receives no more than a quiet rate over the next {@link #recent} (waits for it). */
    private boolean quietNow(final long frames) {
        if (recent.isZero()) {
            return true;
        }
        LockSupport.parkNanos(this, recent.toNanos());
        return quiet(framesReceived.getAsLong() - frames, recent);
    }

    /** @return collections this collector asked for so far. */
    long collections() {
        return collections;
    }

    /** @return native-heap trims this collector asked for so far. */
    long trims() {
        return trims;
    }

    /**
     * glibc's {@code malloc_trim(0)}, called directly (FFM): the memory the JIT's and the control plane's mallocs freed
     * goes back to the system. Not through {@code System.trim_native_heap}: the management beans that call needs cost
     * an idle switch tens of ms of CPU and a few MB the first time (CI on 272ee32: the idle fabric's JVMs 1.23 / 1.41 %
     * of a core, against 0.47–0.61 % with the JVM's own trimmer).
     *
     * @return what happened, for the debug log and the tests.
     */
    static String trimGlibcHeap() {
        String result;
        try {
            result = Libc.mallocTrim() == 1 ? "malloc_trim: memory given back" : "malloc_trim: nothing to give back";
        } catch (final RuntimeException | LinkageError e) {
            result = "native heap not trimmed: " + e;
        }
        LOG.debug("{}", result);
        return result;
    }

    private void run() {
        final long intervalNs = INTERVAL.toNanos();
        while (running) {
            final long deadline = System.nanoTime() + intervalNs;
            long left;
            while (running && (left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, left);
            }
            if (running) {
                check();
            }
        }
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            try {
                thread.join(1_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
