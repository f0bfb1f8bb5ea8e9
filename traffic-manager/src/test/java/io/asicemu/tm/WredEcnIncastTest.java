package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.tm.pfc.PfcFrameSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 2:1 incast of 1086-byte RoCEv2-sized frames from two 100G ports into one 100G port, checked against the marking
 * curve of reference §7: p = 0 below Kmin, (q − Kmin)/(Kmax − Kmin) × Pmax between, 100 % at and above Kmax.
 */
class WredEcnIncastTest {
    private final DequeueVerdict verdict = new DequeueVerdict();

    private static final int IN_A = 0;
    private static final int IN_B = 1;
    private static final int OUT = 2;
    private static final int Q = 3;
    private static final int FRAME = 1086;
    private static final long KMIN = 250_000;
    private static final long KMAX = 2_097_152;
    private static final int BINS = 10;
    private static final int DECISIONS = 220_000;
    private static final int ECT0 = 2;
    private static final PfcFrameSink NO_PFC = (t, p, v, q) -> {};

    private static final class Stats {
        final long[] count = new long[BINS];
        final long[] hits = new long[BINS];
        final double[] expected = new double[BINS];
        long belowCount;
        long belowHits;
        long aboveCount;
        long aboveHits;
        long total;
        long marksSeen;
    }

    private TrafficManager tm;

    private TrafficManager build(final int pmax, final boolean dropAboveMax, final long seed, final DropSink drops) {
        final Db db = Db.ports(3)
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "green_min_threshold",
                        Long.toString(KMIN),
                        "green_max_threshold",
                        Long.toString(KMAX),
                        "green_drop_probability",
                        Integer.toString(pmax),
                        "ecn",
                        "ecn_all")
                .put("QUEUE", Db.port(OUT) + "|" + Q, "wred_profile", "W");
        return new TrafficManager(
                db.parse(),
                TmOptions.defaults().withCellBytes(256).withWredSeed(seed).withWredDropAboveMax(dropAboveMax),
                NO_PFC,
                drops,
                0);
    }

    private static void record(final Stats s, final long depth, final boolean hit, final int pmax) {
        s.total++;
        if (depth < KMIN) {
            s.belowCount++;
            s.belowHits += hit ? 1 : 0;
        } else if (depth >= KMAX) {
            s.aboveCount++;
            s.aboveHits += hit ? 1 : 0;
        } else {
            final int bin = (int) ((depth - KMIN) * BINS / (KMAX - KMIN));
            s.count[bin]++;
            s.hits[bin] += hit ? 1 : 0;
            s.expected[bin] += (double) (depth - KMIN) / (KMAX - KMIN) * pmax / 100.0;
        }
    }

    /**
     * Runs the incast; senders back off at {@code high} and resume below Kmin - 100 kB, sweeping the curve. Marking
     * does not shorten the queue, so ECT runs back off above Kmax + 200 kB; WRED drops at 100 % pin a not-ECT
     * queue at Kmax, so those runs back off at Kmax.
     */
    private Stats run(final int pmax, final int ecn, final long seed, final long high) {
        final Stats s = new Stats();
        tm = build(pmax, false, seed, (t, h, port, q, reason) -> record(s, verdict.depthBytes(), true, pmax));
        final long charged = 1280; // 1086 bytes in 256-byte cells
        final long low = KMIN - 100_000;
        final long[] next = {0, 44};
        final int[] inPort = {IN_A, IN_B};
        boolean on = true;
        long t = 0;
        int handle = 0;
        for (long step = 0; s.total < DECISIONS && step < 10_000_000L; step++) {
            final long tTx = tm.nextTransmitNs(t, OUT);
            final int sender = next[0] <= next[1] ? 0 : 1;
            final long tArr = on ? next[sender] : Long.MAX_VALUE;
            if (tArr <= tTx) {
                t = tArr;
                assertThat(tm.admit(t, inPort[sender], Q, OUT, Q, FRAME, ecn, handle++))
                        .isEqualTo(TrafficManager.ADMITTED);
                next[sender] += 89;
                if (tm.queuedPackets(OUT, Q) * charged >= high) {
                    on = false;
                }
            } else {
                t = tTx;
                final int h = tm.dequeue(t, OUT, verdict);
                if (h != TrafficManager.NO_PACKET) {
                    record(s, verdict.depthBytes(), ecn != 0 && verdict.marked(), pmax);
                    s.marksSeen += verdict.ecn() == 3 ? 1 : 0;
                }
                if (!on && tm.queuedPackets(OUT, Q) * charged <= low) {
                    on = true;
                    next[0] = Math.max(next[0], t);
                    next[1] = Math.max(next[1], t + 44);
                }
            }
        }
        return s;
    }

    @ParameterizedTest
    @ValueSource(ints = {5, 50, 100})
    @Timeout(60)
    void shouldMarkEctAlongLinearCurveWhenQueueSweepsKminToKmax(final int pmax) {
        final Stats s = run(pmax, ECT0, 42, KMAX + 200_000);
        assertThat(s.total).isGreaterThanOrEqualTo(200_000);
        assertThat(s.belowCount).isGreaterThan(10_000);
        assertThat(s.belowHits).isZero();
        assertThat(s.aboveCount).isGreaterThan(1_000);
        assertThat(s.aboveHits).isEqualTo(s.aboveCount);
        for (int b = 0; b < BINS; b++) {
            assertThat(s.count[b]).as("bin %d", b).isGreaterThan(5_000);
            final double observed = (double) s.hits[b] / s.count[b];
            final double expected = s.expected[b] / s.count[b];
            assertThat(observed).as("bin %d fraction", b).isBetween(expected - 0.02, expected + 0.02);
        }
        final TmCountersSnapshot snap = tm.newSnapshot();
        tm.snapshot(0, snap);
        long hits = s.aboveHits;
        for (final long h : s.hits) {
            hits += h;
        }
        assertThat(snap.queue(OUT, Q, QueueStat.WRED_ECN_MARKED_PACKETS)).isEqualTo(hits);
        assertThat(snap.queue(OUT, Q, QueueStat.WRED_ECN_MARKED_BYTES)).isEqualTo(hits * FRAME);
        assertThat(snap.queue(OUT, Q, QueueStat.WRED_DROPPED_PACKETS)).isZero();
        assertThat(s.marksSeen).isEqualTo(hits);
    }

    @Test
    @Timeout(60)
    void shouldDropNotEctAlongCurveAndNeverMarkWhenSameLoadWithoutEct() {
        final Stats s = run(20, 0, 42, KMAX);
        final TmCountersSnapshot snap = tm.newSnapshot();
        tm.snapshot(0, snap);
        assertThat(snap.queue(OUT, Q, QueueStat.WRED_ECN_MARKED_PACKETS)).isZero();
        final long drops = snap.queue(OUT, Q, QueueStat.WRED_DROPPED_PACKETS);
        assertThat(drops).isGreaterThan(10_000);
        assertThat(snap.queue(OUT, Q, QueueStat.DROPPED_PACKETS)).isEqualTo(drops);
        assertThat(snap.queue(OUT, Q, QueueStat.WRED_DROPPED_BYTES)).isEqualTo(drops * FRAME);
        assertThat(s.belowHits).isZero();
        assertThat(s.aboveHits).isEqualTo(s.aboveCount);
        assertThat(s.total).isGreaterThanOrEqualTo(200_000);
        assertThat(s.aboveCount).isPositive();
        for (int b = 0; b < BINS; b++) {
            assertThat(s.count[b]).as("bin %d", b).isGreaterThan(5_000);
            final double observed = (double) s.hits[b] / s.count[b];
            final double expected = s.expected[b] / s.count[b];
            assertThat(observed).as("bin %d drop fraction", b).isBetween(expected - 0.02, expected + 0.02);
        }
    }

    @Test
    void shouldReproduceExactlyWhenSeedRepeatsAndDifferWhenSeedChanges() {
        final long a = run(50, ECT0, 7, KMAX + 200_000).marksSeen;
        final long b = run(50, ECT0, 7, KMAX + 200_000).marksSeen;
        final long c = run(50, ECT0, 8, KMAX + 200_000).marksSeen;
        assertThat(a).isEqualTo(b);
        assertThat(c).isNotEqualTo(a);
    }

    @Test
    void shouldKeepCeAsCeMarkEctAndDropNotEctWhenAtOrAboveKmax() {
        final RecordingSinks sinks = new RecordingSinks();
        tm = build(5, false, 1, sinks);
        fillAboveKmax();
        int ce = 0;
        int marked = 0;
        long t = 0;
        for (int d = 0; d < 8; d++) {
            final int h = tm.dequeue(t, OUT, verdict);
            assertThat(verdict.depthBytes()).isGreaterThanOrEqualTo(KMAX);
            t = verdict.txEndNs();
            assertThat(verdict.ecn()).isEqualTo(3);
            if (h % 4 == 0) {
                assertThat(verdict.marked()).isFalse();
                ce++;
            } else {
                assertThat(verdict.marked()).isTrue();
                marked++;
            }
        }
        assertThat(ce).isPositive();
        assertThat(marked).isPositive();
        assertThat(sinks.drops)
                .isNotEmpty()
                .allMatch(x -> x.handle() % 4 == 3 && x.reason() == TrafficManager.DROP_WRED);
    }

    @Test
    void shouldDropEverythingAtOrAboveKmaxWhenDropAboveMaxConfigured() {
        final RecordingSinks sinks = new RecordingSinks();
        tm = build(5, true, 1, sinks);
        final int n = fillAboveKmax();
        final int h = tm.dequeue(0, OUT, verdict);
        assertThat(h).isNotEqualTo(TrafficManager.NO_PACKET);
        assertThat(verdict.depthBytes()).isLessThan(KMAX);
        // Every packet that saw depth >= Kmax (k * 1280 >= 2097152, i.e. k >= 1639 queued) was dropped,
        // whatever its ECN bits.
        final long aboveOrAt = n - (KMAX / 1280);
        assertThat(sinks.drops).hasSize((int) aboveOrAt).allMatch(x -> x.reason() == TrafficManager.DROP_WRED);
    }

    private int fillAboveKmax() {
        final int n = (int) (KMAX / 1280) + 40;
        for (int i = 0; i < n; i++) {
            // handle % 4: 0 = CE, 1 = ECT(0), 2 = ECT(1), 3 = not-ECT
            tm.admit(0, IN_A, Q, OUT, Q, FRAME, i % 4 == 0 ? 3 : i % 4 == 1 ? 2 : i % 4 == 2 ? 1 : 0, i);
        }
        return n;
    }
}
