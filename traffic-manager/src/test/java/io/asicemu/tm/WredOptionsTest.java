package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import org.junit.jupiter.api.Test;

class WredOptionsTest {
    private final DequeueVerdict verdict = new DequeueVerdict();

    private final RecordingSinks sinks = new RecordingSinks();

    private TrafficManager tm(final long kmin, final long kmax, final boolean atEnqueue, final int weight) {
        final Db db = Db.ports(2)
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "green_min_threshold",
                        Long.toString(kmin),
                        "green_max_threshold",
                        Long.toString(kmax),
                        "green_drop_probability",
                        "100",
                        "ecn",
                        "ecn_green")
                .put("QUEUE", Db.port(1) + "|3", "wred_profile", "W");
        return new TrafficManager(db.parse(), TmOptions.defaults().withWred(atEnqueue, weight), sinks, sinks, 0);
    }

    @Test
    void shouldMarkAndDropAtAdmitWhenDecidedAtEnqueue() {
        // 1000-byte frames take 1024 bytes; depth counted with the arriving packet: 1024 * k.
        final TrafficManager tm = tm(10_240, 10_240, true, 0);
        for (int k = 1; k <= 9; k++) {
            assertThat(tm.admit(0, 0, 3, 1, 3, 1000, 2, k)).isEqualTo(TrafficManager.ADMITTED);
        }
        // k = 10 reaches Kmax: ECT marked at admit, not-ECT dropped at admit, CE passes unchanged.
        assertThat(tm.admit(0, 0, 3, 1, 3, 1000, 2, 10)).isEqualTo(TrafficManager.ADMITTED);
        assertThat(tm.admit(0, 0, 3, 1, 3, 1000, 0, 11)).isEqualTo(TrafficManager.DROP_WRED);
        assertThat(tm.admit(0, 0, 3, 1, 3, 1000, 3, 12)).isEqualTo(TrafficManager.ADMITTED);
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(0, s);
        assertThat(s.queue(1, 3, QueueStat.WRED_ECN_MARKED_PACKETS)).isEqualTo(1);
        assertThat(s.queue(1, 3, QueueStat.WRED_DROPPED_PACKETS)).isEqualTo(1);
        long t = 0;
        for (int k = 1; k <= 9; k++) {
            assertThat(tm.dequeue(t, 1, verdict)).isEqualTo(k);
            assertThat(verdict.marked()).isFalse();
            assertThat(verdict.ecn()).isEqualTo(2);
            t = verdict.txEndNs();
        }
        assertThat(tm.dequeue(t, 1, verdict)).isEqualTo(10);
        assertThat(verdict.marked()).isTrue();
        assertThat(verdict.ecn()).isEqualTo(3);
        assertThat(tm.dequeue(verdict.txEndNs(), 1, verdict)).isEqualTo(12);
        assertThat(verdict.marked()).isFalse();
        assertThat(verdict.ecn()).isEqualTo(3);
        assertThat(sinks.drops).isEmpty();
    }

    @Test
    void shouldDecideOnEwmaWhenWeightIsSet() {
        final int weight = 2;
        final long k = 8_000;
        // The instantaneous depth crosses 8000 at packet 8; the average (gain 1/4) only at packet 11.
        final TrafficManager instant = tm(k, k, true, 0);
        final TrafficManager ewma = tm(k, k, true, weight);
        int firstInstant = -1;
        int firstEwma = -1;
        for (int n = 1; n <= 40; n++) {
            instant.admit(0, 0, 3, 1, 3, 1000, 2, n);
            ewma.admit(0, 0, 3, 1, 3, 1000, 2, n);
            final TmCountersSnapshot a = instant.newSnapshot();
            instant.snapshot(0, a);
            final TmCountersSnapshot b = ewma.newSnapshot();
            ewma.snapshot(0, b);
            if (firstInstant < 0 && a.queue(1, 3, QueueStat.WRED_ECN_MARKED_PACKETS) > 0) {
                firstInstant = n;
            }
            if (firstEwma < 0 && b.queue(1, 3, QueueStat.WRED_ECN_MARKED_PACKETS) > 0) {
                firstEwma = n;
            }
        }
        assertThat(firstInstant).isEqualTo(8);
        assertThat(firstEwma).isEqualTo(firstEwmaCrossing(k, weight));
        assertThat(firstEwma).isGreaterThan(firstInstant);
    }

    private static int firstEwmaCrossing(final long k, final int weight) {
        double avg = 0;
        for (int n = 1; ; n++) {
            avg += (1024.0 * n - avg) / (1 << weight);
            if ((long) avg >= k) {
                return n;
            }
        }
    }
}
