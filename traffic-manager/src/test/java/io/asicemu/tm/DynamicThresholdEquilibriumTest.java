package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.PoolStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The dynamic-threshold equilibrium (reference §1.2: a queue may use alpha × the free pool, alpha = 2^dynamic_th, so
 * one congested queue settles at alpha / (1 + alpha) of the pool), measured in 208-byte cells: 1 KB frames arrive at
 * 12 Gb/s for a 10G port, whose lossy queue has a dynamic_th profile in a 2 MB egress pool; the queue's shared
 * watermark after the congestion is compared with alpha / (1 + alpha) × pool. Bounds from the admission rule itself:
 * the last admitted frame fit (W ≤ alpha (P + c) / (1 + alpha)) and the first refused one did not
 * (W &gt; (alpha P − c) / (1 + alpha)), c = 1040 B (1024 B in five 208-byte cells).
 */
class DynamicThresholdEquilibriumTest {
    private static final long POOL = 2_000_000;
    private static final int FRAME = 1024;
    private static final long CHARGED = 5 * 208;

    @ParameterizedTest(name = "dynamic_th {0} (alpha {1})")
    @CsvSource({"-1, 0.5", "0, 1", "3, 8"})
    void shouldSettleAtAlphaOverOnePlusAlphaOfThePoolWhenOneQueueIsCongested(final int dynamicTh, final double alpha) {
        final Db db = Db.ports(2)
                .put("PORT", Db.port(1), "speed", "10000")
                .put(
                        "BUFFER_POOL",
                        "egress_lossy_pool",
                        "type",
                        "egress",
                        "mode",
                        "dynamic",
                        "size",
                        Long.toString(POOL))
                .put(
                        "BUFFER_PROFILE",
                        "egress_lossy_profile",
                        "pool",
                        "egress_lossy_pool",
                        "size",
                        "0",
                        "dynamic_th",
                        Integer.toString(dynamicTh))
                .put("BUFFER_QUEUE", Db.port(1) + "|0-7", "profile", "egress_lossy_profile");
        final TrafficManager tm =
                new TrafficManager(db.parse(), TmOptions.defaults(), (n, p, v, q) -> {}, (n, h, p, q, r) -> {}, 0);
        assertThat(tm.cellBytes()).isEqualTo(208);
        long dropped = 0;
        long t = 0;
        for (int i = 0; i < 40_000; i++) {
            t = i * 683L; // 1024 B every 683 ns = 12 Gb/s
            while (tm.nextTransmitNs(t, 1) <= t) {
                if (tm.dequeue(tm.nextTransmitNs(t, 1), 1) == TrafficManager.NO_PACKET) {
                    break;
                }
            }
            if (tm.admit(t, 0, 0, 1, 0, FRAME, 0, i) != TrafficManager.ADMITTED) {
                dropped++;
            }
        }
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(t, s);
        final long watermark = s.queue(1, 0, QueueStat.SHARED_WATERMARK_BYTES);
        final double ratio = (double) watermark / POOL;
        final double expected = alpha / (1 + alpha);
        System.out.printf(
                "alpha %.1f: queue shared watermark %d B = %.5f of the pool (alpha/(1+alpha) = %.5f), "
                        + "%d frames dropped%n",
                alpha, watermark, ratio, expected, dropped);
        assertThat(dropped).as("the queue was congested").isPositive();
        assertThat(s.queue(1, 0, QueueStat.DROPPED_PACKETS)).isEqualTo(dropped);
        assertThat((double) watermark)
                .isLessThanOrEqualTo(alpha * (POOL + CHARGED) / (1 + alpha))
                .isGreaterThan((alpha * POOL - CHARGED) / (1 + alpha));
        assertThat(watermark % 208).as("whole cells, shown in bytes").isZero();
        assertThat(s.pool(tm.poolIndex("egress_lossy_pool"), PoolStat.WATERMARK_BYTES))
                .isEqualTo(watermark);
    }
}
