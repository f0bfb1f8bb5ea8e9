package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.tm.wred.SplitMix64;
import org.junit.jupiter.api.Test;

class SchedulerTest {
    private final DequeueVerdict verdict = new DequeueVerdict();

    private static final int OUT = 1;
    private final RecordingSinks sinks = new RecordingSinks();

    private TrafficManager tm(final Db db) {
        return new TrafficManager(db.parse(), TmOptions.defaults(), sinks, sinks, 0);
    }

    /** Keeps every listed queue backlogged with mixed 64..1500-byte frames and returns bytes sent per queue. */
    private static long[] saturate(final TrafficManager tm, final int[] queues, final int transmissions) {
        final DequeueVerdict verdict = new DequeueVerdict();
        final SplitMix64 sizes = new SplitMix64(99);
        long t = 0;
        int handle = 0;
        for (int i = 0; i < transmissions; i++) {
            for (final int q : queues) {
                while (tm.queuedPackets(OUT, q) < 64) {
                    tm.admit(t, 0, 0, OUT, q, 64 + (int) ((sizes.nextLong() >>> 1) % 1437), 0, handle++);
                }
            }
            t = tm.nextTransmitNs(t, OUT);
            assertThat(tm.dequeue(t, OUT, verdict)).isNotEqualTo(TrafficManager.NO_PACKET);
        }
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(t, s);
        final long[] bytes = new long[8];
        for (int q = 0; q < 8; q++) {
            bytes[q] = s.queue(OUT, q, QueueStat.BYTES);
        }
        return bytes;
    }

    private static void assertShares(final long[] bytes, final int[] queues, final int[] weights) {
        long total = 0;
        int weightSum = 0;
        for (int i = 0; i < queues.length; i++) {
            total += bytes[queues[i]];
            weightSum += weights[i];
        }
        for (int i = 0; i < queues.length; i++) {
            final double expected = (double) weights[i] / weightSum;
            final double share = (double) bytes[queues[i]] / total;
            assertThat(share).as("queue %d", queues[i]).isBetween(expected * 0.98, expected * 1.02);
        }
    }

    @Test
    void shouldShareBytes14To15WhenSonicDwrrDefaultsSaturated() {
        final Db db = Db.ports(2)
                .put("SCHEDULER", "scheduler.0", "type", "DWRR", "weight", "14")
                .put("SCHEDULER", "scheduler.1", "type", "DWRR", "weight", "15")
                .put("QUEUE", Db.port(OUT) + "|0-2", "scheduler", "scheduler.0")
                .put("QUEUE", Db.port(OUT) + "|3-4", "scheduler", "scheduler.1");
        final int[] queues = {0, 3};
        assertShares(saturate(tm(db), queues, 200_000), queues, new int[] {14, 15});
    }

    @Test
    void shouldShareBytes40_30_25_5WhenFourDwrrQueuesSaturated() {
        final Db db = Db.ports(2);
        final int[] weights = {40, 30, 25, 5};
        for (int q = 0; q < 4; q++) {
            db.put("SCHEDULER", "s" + q, "type", "DWRR", "weight", Integer.toString(weights[q]))
                    .put("QUEUE", Db.port(OUT) + "|" + q, "scheduler", "s" + q);
        }
        final int[] queues = {0, 1, 2, 3};
        assertShares(saturate(tm(db), queues, 200_000), queues, weights);
    }

    @Test
    void shouldStarveLowerQueuesWhileStrictQueueHasPackets() {
        final Db db = Db.ports(2)
                .put("SCHEDULER", "sp", "type", "STRICT")
                .put("SCHEDULER", "w", "type", "DWRR", "weight", "50")
                .put("QUEUE", Db.port(OUT) + "|6", "scheduler", "sp")
                .put("QUEUE", Db.port(OUT) + "|0-1", "scheduler", "w");
        final TrafficManager tm = tm(db);
        final long[] bytes = saturate(tm, new int[] {0, 1, 6}, 50_000);
        assertThat(bytes[6]).isPositive();
        assertThat(bytes[0]).isZero();
        assertThat(bytes[1]).isZero();
        // Once the strict queue is empty the others run.
        long t = 0;
        while (tm.queuedPackets(OUT, 6) > 0) {
            t = tm.nextTransmitNs(t, OUT);
            tm.dequeue(t, OUT, verdict);
            assertThat(verdict.queue()).isEqualTo(6);
        }
        t = tm.nextTransmitNs(t, OUT);
        tm.dequeue(t, OUT, verdict);
        assertThat(verdict.queue()).isIn(0, 1);
    }

    @Test
    void shouldSharePacketsByWeightWhenWrr() {
        final Db db = Db.ports(2)
                .put("SCHEDULER", "a", "type", "WRR", "weight", "1")
                .put("SCHEDULER", "b", "type", "WRR", "weight", "3")
                .put("QUEUE", Db.port(OUT) + "|0", "scheduler", "a")
                .put("QUEUE", Db.port(OUT) + "|1", "scheduler", "b");
        final TrafficManager tm = tm(db);
        saturate(tm, new int[] {0, 1}, 40_000);
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(0, s);
        assertThat(s.queue(OUT, 0, QueueStat.PACKETS)).isEqualTo(10_000);
        assertThat(s.queue(OUT, 1, QueueStat.PACKETS)).isEqualTo(30_000);
    }

    @Test
    void shouldLimitPortToPirWhenPortShaperConfigured() {
        // 10 Gb/s = 1.25e9 B/s shaper with a 9216-byte burst on a 100G port.
        final Db db = Db.ports(2)
                .put("SCHEDULER", "shaper", "pir", "1250000000", "pbs", "9216")
                .put("PORT_QOS_MAP", Db.port(OUT), "scheduler", "shaper");
        final TrafficManager tm = tm(db);
        long t = 0;
        long bytes = 0;
        for (int i = 0; i < 20_000; i++) {
            if (tm.queuedPackets(OUT, 0) == 0) {
                for (int k = 0; k < 16; k++) {
                    tm.admit(t, 0, 0, OUT, 0, 1000, 0, k);
                }
            }
            final long next = tm.nextTransmitNs(t, OUT);
            assertThat(tm.dequeue(next - 1, OUT, verdict)).isEqualTo(TrafficManager.NO_PACKET);
            t = next;
            assertThat(tm.dequeue(t, OUT, verdict)).isNotEqualTo(TrafficManager.NO_PACKET);
            bytes += 1000;
        }
        // 20 MB at 1.25 B/ns ≈ 16 ms (minus the initial burst); ±0.1 %.
        final double rate = (double) (bytes - 9216) / t;
        assertThat(rate).isBetween(1.25 * 0.999, 1.25 * 1.001);
    }
}
