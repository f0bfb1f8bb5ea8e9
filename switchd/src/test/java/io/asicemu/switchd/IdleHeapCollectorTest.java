package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdleHeapCollectorTest {
    private static final long MIB = 1L << 20;

    private final AtomicLong frames = new AtomicLong();
    private final AtomicLong used = new AtomicLong(30 * MIB);
    private final AtomicInteger asked = new AtomicInteger();
    /** What a collection leaves in use. */
    private long live = 15 * MIB;

    private IdleHeapCollector collector() {
        return new IdleHeapCollector(
                frames::get,
                used::get,
                () -> {
                    asked.incrementAndGet();
                    used.set(live);
                },
                Duration.ZERO);
    }

    @Test
    void shouldCollectTheStartsGarbageAtTheFirstIdleLookThenLeaveAnIdleHeapThatDoesNotGrowAlone() {
        final IdleHeapCollector c = collector();
        assertThat(c.check()).as("idle, 30 MiB in use, never collected").isTrue();
        assertThat(used.get()).isEqualTo(15 * MIB);
        assertThat(c.check()).as("idle, nothing allocated since").isFalse();
        used.addAndGet(3 * MIB);
        assertThat(c.check()).as("grown by less than GROWTH_BYTES").isFalse();
        used.addAndGet(1 * MIB);
        assertThat(c.check()).as("grown by GROWTH_BYTES in all").isTrue();
        assertThat(asked).hasValue(2);
        assertThat(c.collections()).isEqualTo(2);
    }

    @Test
    void shouldNeverCollectWhileTrafficFlows() {
        final IdleHeapCollector c = collector();
        final long quietInterval = IdleHeapCollector.QUIET_FRAMES_PER_SECOND * IdleHeapCollector.INTERVAL.toSeconds();
        for (int i = 0; i < 10; i++) {
            frames.addAndGet(quietInterval + 1);
            used.addAndGet(10 * MIB);
            assertThat(c.check())
                    .as("look %d: frames arrived since the last", i)
                    .isFalse();
        }
        assertThat(asked).hasValue(0);
        assertThat(c.check()).as("the first look after the traffic stopped").isTrue();
        assertThat(asked).hasValue(1);
    }

    @Test
    void shouldCollectDespiteALabsBackgroundTraffic() {
        final IdleHeapCollector c = collector();
        frames.addAndGet(IdleHeapCollector.QUIET_FRAMES_PER_SECOND * IdleHeapCollector.INTERVAL.toSeconds());
        assertThat(c.check())
                .as("a quiet rate of frames: router solicitations, LLDP, pings")
                .isTrue();
    }

    @Test
    void shouldNotCollectWhenTrafficStartsJustBeforeTheCollection() {
        final AtomicLong arriving = new AtomicLong();
        final IdleHeapCollector c = new IdleHeapCollector(
                () -> arriving.addAndGet(500), used::get, asked::incrementAndGet, Duration.ofMillis(100));
        assertThat(c.check())
                .as("500 frames within the last 100 ms: 5,000 a second")
                .isFalse();
        assertThat(asked).hasValue(0);
    }

    @Test
    void shouldWaitAWholeIntervalAfterACollectionItDidNotAskFor() {
        final IdleHeapCollector c = collector();
        frames.addAndGet(IdleHeapCollector.QUIET_FRAMES_PER_SECOND * IdleHeapCollector.INTERVAL.toSeconds() + 1);
        used.addAndGet(20 * MIB);
        assertThat(c.check()).as("traffic").isFalse();
        used.set(12 * MIB); // a young collection (eden full) ran meanwhile
        assertThat(c.check()).as("a collection ran within the interval").isFalse();
        used.addAndGet(2 * MIB);
        assertThat(c.check()).as("2 MiB since that collection").isFalse();
        used.addAndGet(2 * MIB);
        assertThat(c.check())
                .as("4 MiB since that collection, idle for a whole interval")
                .isTrue();
    }

    @Test
    void shouldCollectTheRealHeapWithSystemGc() {
        final Runtime runtime = Runtime.getRuntime();
        final IdleHeapCollector c = new IdleHeapCollector(
                () -> 0, () -> runtime.totalMemory() - runtime.freeMemory(), System::gc, Duration.ZERO);
        final long before = collections();
        assertThat(c.check()).as("a test JVM has more than 4 MiB in use").isTrue();
        assertThat(collections()).as("collections the JVM ran").isGreaterThan(before);
    }

    private static long collections() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionCount)
                .sum();
    }

    @Test
    void shouldTrimTheNativeHeapAtEveryQuietLookAndNeverWhileTrafficFlows() {
        final AtomicInteger trimmed = new AtomicInteger();
        final IdleHeapCollector c = new IdleHeapCollector(
                frames::get, used::get, asked::incrementAndGet, trimmed::incrementAndGet, Duration.ZERO);
        final long quietInterval = IdleHeapCollector.QUIET_FRAMES_PER_SECOND * IdleHeapCollector.INTERVAL.toSeconds();
        c.check();
        c.check();
        assertThat(trimmed)
                .as("two quiet looks, one of them without a collection")
                .hasValue(2);
        for (int i = 0; i < 5; i++) {
            frames.addAndGet(quietInterval + 1);
            c.check();
        }
        assertThat(trimmed).as("looks while traffic flowed").hasValue(2);
        c.check();
        assertThat(trimmed).as("the first look after the traffic stopped").hasValue(3);
        assertThat(c.trims()).isEqualTo(3);
    }

    @Test
    void shouldNotTrimWhenTrafficStartsJustBeforeTheTrim() {
        final AtomicLong arriving = new AtomicLong();
        final AtomicInteger trimmed = new AtomicInteger();
        final IdleHeapCollector c = new IdleHeapCollector(
                () -> arriving.addAndGet(500),
                used::get,
                asked::incrementAndGet,
                trimmed::incrementAndGet,
                Duration.ofMillis(100));
        c.check();
        assertThat(trimmed).as("500 frames within the last 100 ms").hasValue(0);
    }

    @Test
    void shouldTrimTheRealNativeHeapWithGlibc() {
        assertThat(IdleHeapCollector.trimGlibcHeap()).startsWith("malloc_trim: ");
    }

    @Test
    void shouldStopItsThreadOnClose() throws Exception {
        final IdleHeapCollector c = IdleHeapCollector.start(frames::get);
        final Thread thread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("asicemu-idle-gc"))
                .findFirst()
                .orElseThrow();
        assertThat(thread.isDaemon()).isTrue();
        c.close();
        assertThat(thread.isAlive()).isFalse();
        assertThat(c.collections())
                .as("nothing collected before its first interval")
                .isZero();
    }
}
