package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.tm.watchdog.StormPredicate;
import org.junit.jupiter.api.Test;

/**
 * The watchdog against reference §2.2: POLL_INTERVAL 100 ms, detection_time 250 ms (k = ceil(250/100) = 3 qualifying
 * polls), restoration_time 400 ms (ceil(400/100) = 4 storm-free polls). Polls run at 100, 200, 300 ... ms. The storm
 * is a peer sending XOFF (0xFFFF quanta, 335.54 µs at 100G) for priority 3 every 100 µs, offset 50 µs from polls.
 */
class PfcWatchdogTest {
    private final DequeueVerdict verdict = new DequeueVerdict();

    private static final long MS = 1_000_000L;
    private static final int STORMED_PORT = 0;
    private static final int OTHER_PORT = 1;
    private static final int[] XOFF = {0, 0, 0, 0xFFFF, 0, 0, 0, 0};
    private final RecordingSinks sinks = new RecordingSinks();

    private TrafficManager tm(
            final String action,
            final boolean restoration,
            final StormPredicate predicate,
            final boolean bigRedSwitch) {
        final Db db = Db.ports(2).put("PFC_WD", "GLOBAL", "POLL_INTERVAL", "100");
        if (bigRedSwitch) {
            db.put("PFC_WD", "GLOBAL", "BIG_RED_SWITCH", "enable");
        }
        db.put("PFC_WD", Db.port(STORMED_PORT), "action", action, "detection_time", "250");
        if (restoration) {
            db.put("PFC_WD", Db.port(STORMED_PORT), "restoration_time", "400");
        }
        for (int p = 0; p < 2; p++) {
            db.put("PORT_QOS_MAP", Db.port(p), "pfc_enable", "3,4", "pfcwd_sw_enable", "3");
        }
        final TrafficManager tm =
                new TrafficManager(db.parse(), TmOptions.defaults().withStormPredicate(predicate), sinks, sinks, 0);
        for (int i = 0; i < 50; i++) {
            tm.admit(0, OTHER_PORT, 3, STORMED_PORT, 3, 1000, 0, i);
        }
        return tm;
    }

    /** Storm frames at from + k*100 µs for all such times < toNs, with the watchdog polled in between. */
    private static void storm(final TrafficManager tm, final long fromNs, final long toNs) {
        for (long t = fromNs; t < toNs; t += 100_000) {
            tm.poll(t);
            tm.onPfcReceived(t, STORMED_PORT, 1 << 3, XOFF);
        }
    }

    private static long stat(final TrafficManager tm, final long nowNs, final QueueStat stat) {
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(nowNs, s);
        return s.queue(STORMED_PORT, 3, stat);
    }

    @Test
    void shouldDetectAtThirdQualifyingPollAndDropBothWaysAndRestoreAfterFourCleanPollsWhenActionDrop() {
        final TrafficManager tm = tm("drop", true, StormPredicate.BROADCOM, false);
        // 200 ms: ON2OFF moved (storm began at 150.05 ms) → miss; 300, 400, 500 ms qualify → storm at 500 ms.
        storm(tm, 150 * MS + 50_000, 500 * MS - 1);
        tm.poll(500 * MS - 1);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
        assertThat(stat(tm, 500 * MS - 1, QueueStat.PFC_WD_STATUS)).isZero();
        tm.poll(500 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        assertThat(stat(tm, 500 * MS, QueueStat.PFC_WD_STATUS)).isEqualTo(1);
        assertThat(stat(tm, 500 * MS, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED))
                .isEqualTo(1);

        // Pause no longer honoured and egress drops: the 50 queued packets are flushed as drops.
        assertThat(tm.dequeue(500 * MS, STORMED_PORT, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(sinks.drops).hasSize(50).allMatch(d -> d.reason() == TrafficManager.DROP_PFCWD);
        assertThat(tm.admit(500 * MS, OTHER_PORT, 3, STORMED_PORT, 3, 1000, 0, 100))
                .isEqualTo(TrafficManager.DROP_PFCWD);
        assertThat(tm.admit(500 * MS, STORMED_PORT, 3, OTHER_PORT, 3, 1000, 0, 101))
                .isEqualTo(TrafficManager.DROP_PFCWD);
        assertThat(tm.admit(500 * MS, OTHER_PORT, 0, STORMED_PORT, 0, 1000, 0, 102))
                .isEqualTo(TrafficManager.ADMITTED);

        // Storm continues to 700 ms; 600 and 700 see new frames, 800..1100 are clean → restore at 1100 ms.
        storm(tm, 500 * MS + 50_000, 700 * MS);
        tm.poll(1100 * MS - 1);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        tm.poll(1100 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(1100 * MS, s);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_STATUS)).isZero();
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED))
                .isEqualTo(1);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED))
                .isEqualTo(1);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_TX_PACKETS))
                .isZero();
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS))
                .isEqualTo(51);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_RX_PACKETS))
                .isEqualTo(1);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS))
                .isEqualTo(1);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST))
                .isEqualTo(51);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST))
                .isEqualTo(1);
        assertThat(s.queueFields(STORMED_PORT, 3))
                .containsEntry("PFC_WD_STATUS", "operational")
                .containsEntry("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "1")
                .containsEntry("PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS", "51")
                .containsEntry("SAI_QUEUE_STAT_DROPPED_PACKETS", "51");
        assertThat(s.portPfcFields(STORMED_PORT))
                .containsEntry("SAI_PORT_STAT_PFC_3_ON2OFF_RX_PKTS", "1")
                .containsEntry("SAI_PORT_STAT_PFC_3_RX_PKTS", Long.toString(5500))
                .hasSize(40);

        // Restored: admits again and honours pause again.
        assertThat(tm.admit(1100 * MS, OTHER_PORT, 3, STORMED_PORT, 3, 1000, 0, 103))
                .isEqualTo(TrafficManager.ADMITTED);
        tm.onPfcReceived(1100 * MS, STORMED_PORT, 1 << 3, XOFF);
        assertThat(tm.nextTransmitNs(1100 * MS, STORMED_PORT)).isEqualTo(1100 * MS);
        assertThat(tm.dequeue(1100 * MS, STORMED_PORT, verdict)).isEqualTo(102);
        assertThat(tm.dequeue(verdict.txEndNs(), STORMED_PORT, verdict)).isEqualTo(TrafficManager.NO_PACKET);
    }

    @Test
    void shouldResetDetectionWhenOnePollMisses() {
        final TrafficManager tm = tm("drop", true, StormPredicate.BROADCOM, false);
        storm(tm, 150 * MS + 50_000, 400 * MS); // 300, 400 qualify; 500 sees no frame → reset
        storm(tm, 500 * MS + 50_000, 900 * MS); // 600 sees ON2OFF → miss; 700, 800, 900 qualify
        tm.poll(900 * MS - 1);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
        tm.poll(900 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
    }

    @Test
    void shouldStopHonouringPauseButDropNothingWhenActionForward() {
        final TrafficManager tm = tm("forward", true, StormPredicate.BROADCOM, false);
        storm(tm, 150 * MS + 50_000, 500 * MS);
        tm.poll(500 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        long t = 500 * MS;
        int sent = 0;
        for (int h = tm.dequeue(t, STORMED_PORT, verdict);
                h != TrafficManager.NO_PACKET;
                h = tm.dequeue(t, STORMED_PORT, verdict)) {
            sent++;
            t = verdict.txEndNs();
        }
        assertThat(sent).isEqualTo(50);
        assertThat(sinks.drops).isEmpty();
        assertThat(tm.admit(t, STORMED_PORT, 3, OTHER_PORT, 3, 1000, 0, 200)).isEqualTo(TrafficManager.ADMITTED);
        tm.poll(1000 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse(); // frames stopped at 500: 600..900 clean → 900 ms
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(1000 * MS, s);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_TX_PACKETS))
                .isEqualTo(50);
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS))
                .isZero();
        assertThat(s.queue(STORMED_PORT, 3, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED))
                .isEqualTo(1);
    }

    @Test
    void shouldOnlyCountAndRestoreWhenConditionStopsWhenActionAlert() {
        final TrafficManager tm = tm("alert", true, StormPredicate.BROADCOM, false);
        storm(tm, 150 * MS + 50_000, 700 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        // Still paused: alert changes nothing on the data path.
        assertThat(tm.dequeue(699 * MS, STORMED_PORT, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        tm.poll(700 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue(); // 700 still qualifies
        tm.poll(800 * MS - 1);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        tm.poll(800 * MS); // first poll where the condition fails
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
        assertThat(stat(tm, 800 * MS, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED))
                .isEqualTo(1);
        assertThat(stat(tm, 800 * MS, QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS))
                .isZero();
        assertThat(sinks.drops).isEmpty();
    }

    @Test
    void shouldNeverRestoreWhenRestorationTimeAbsent() {
        final TrafficManager tm = tm("drop", false, StormPredicate.BROADCOM, false);
        storm(tm, 150 * MS + 50_000, 600 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        tm.poll(60_000 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
        assertThat(stat(tm, 60_000 * MS, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED))
                .isZero();
    }

    @Test
    void shouldDetectOnOccupancyNoTxAndPauseDurationWhenMellanoxPredicate() {
        final TrafficManager tm = tm("drop", true, StormPredicate.MELLANOX, false);
        // 200 ms: pause covered only 49.95 ms of the poll → miss; 300, 400, 500 ms: 100 ms paused each → storm.
        storm(tm, 150 * MS + 50_000, 500 * MS);
        tm.poll(500 * MS - 1);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
        tm.poll(500 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isTrue();
    }

    @Test
    void shouldNotDetectMellanoxStormWhenQueueIsEmpty() {
        final TrafficManager tm = tm("drop", true, StormPredicate.MELLANOX, false);
        long t = 0;
        for (int h = tm.dequeue(t, STORMED_PORT, verdict);
                h != TrafficManager.NO_PACKET;
                h = tm.dequeue(t, STORMED_PORT, verdict)) {
            t = verdict.txEndNs();
        }
        storm(tm, 150 * MS + 50_000, 1000 * MS);
        tm.poll(1000 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
    }

    @Test
    void shouldDropWatchedQueuesWithoutStormWhenBigRedSwitchEnabled() {
        final TrafficManager tm = tm("forward", true, StormPredicate.BROADCOM, true);
        assertThat(tm.admit(0, OTHER_PORT, 3, STORMED_PORT, 3, 1000, 0, 300)).isEqualTo(TrafficManager.DROP_PFCWD);
        assertThat(tm.admit(0, OTHER_PORT, 4, STORMED_PORT, 4, 1000, 0, 301)).isEqualTo(TrafficManager.ADMITTED);
        storm(tm, 150 * MS + 50_000, 1000 * MS);
        tm.poll(1000 * MS);
        assertThat(tm.isStormed(STORMED_PORT, 3)).isFalse();
        assertThat(stat(tm, 1000 * MS, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED))
                .isZero();
    }
}
