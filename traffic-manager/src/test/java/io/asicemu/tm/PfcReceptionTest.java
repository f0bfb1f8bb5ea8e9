package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import org.junit.jupiter.api.Test;

class PfcReceptionTest {
    private final DequeueVerdict verdict = new DequeueVerdict();

    private static final int FRAME = 1086;
    private static final int[] NO_QUANTA = new int[8];
    private final RecordingSinks sinks = new RecordingSinks();

    private TrafficManager tm(final String pfcAsym) {
        final Db db = Db.ports(1)
                .put("PORT", "Ethernet0", "pfc_asym", pfcAsym)
                .put("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,4");
        return new TrafficManager(db.parse(), TmOptions.defaults(), sinks, sinks, 0);
    }

    private static int[] quanta(final int prio, final int q) {
        final int[] a = new int[8];
        a[prio] = q;
        return a;
    }

    @Test
    void shouldSerializeAtPortSpeedWithPreambleIfgAndFcsWhenBackToBack() {
        final TrafficManager tm = tm("off");
        for (int i = 0; i < 3; i++) {
            assertThat(tm.admit(0, 0, 0, 0, 0, FRAME, 0, i)).isEqualTo(TrafficManager.ADMITTED);
        }
        // (1086 + 8 preamble/SFD + 12 IFG + 4 FCS) * 8 = 8880 bits = 88.8 ns at 100 Gb/s.
        assertThat(tm.dequeue(0, 0, verdict)).isEqualTo(0);
        assertThat(verdict.txEndNs()).isEqualTo(88);
        assertThat(tm.nextTransmitNs(0, 0)).isEqualTo(88);
        assertThat(tm.dequeue(87, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(tm.dequeue(88, 0, verdict)).isEqualTo(1);
        assertThat(verdict.txEndNs()).isEqualTo(177); // 177.6
        assertThat(tm.dequeue(177, 0, verdict)).isEqualTo(2);
        assertThat(verdict.txEndNs()).isEqualTo(266); // 266.4
        assertThat(tm.nextTransmitNs(266, 0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldStopQueueAfterFrameInFlightAndResumeAtQuantaTimes512OverSpeed() {
        final TrafficManager tm = tm("off");
        for (int i = 0; i < 3; i++) {
            tm.admit(0, 0, 3, 0, 3, FRAME, 0, i);
        }
        assertThat(tm.dequeue(0, 0, verdict)).isEqualTo(0);
        tm.onPfcReceived(10, 0, 1 << 3, quanta(3, 1000));
        // The frame on the wire is not cut: it still ends at 88.
        assertThat(verdict.txEndNs()).isEqualTo(88);
        // 1000 quanta * 512 bits / 100 Gb/s = 5120 ns after reception.
        final long resume = 10 + 5120;
        assertThat(tm.nextTransmitNs(88, 0)).isEqualTo(resume);
        assertThat(tm.dequeue(88, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(tm.dequeue(resume - 1, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(resume - 1, s);
        assertThat(s.queue(0, 3, QueueStat.PAUSE_STATUS)).isEqualTo(1);
        assertThat(tm.dequeue(resume, 0, verdict)).isEqualTo(1);

        tm.snapshot(10_000, s);
        assertThat(s.queue(0, 3, QueueStat.PAUSE_STATUS)).isZero();
        assertThat(s.pfc(0, 3, PfcStat.RX_PKTS)).isEqualTo(1);
        assertThat(s.pfc(0, 3, PfcStat.ON2OFF_RX_PKTS)).isEqualTo(1);
        assertThat(s.pfc(0, 3, PfcStat.RX_PAUSE_DURATION)).isEqualTo(1000);
        assertThat(s.pfc(0, 3, PfcStat.RX_PAUSE_DURATION_US)).isEqualTo(5);
        assertThat(PfcStat.RX_PAUSE_DURATION_US.counterName(3)).isEqualTo("SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US");
    }

    @Test
    void shouldPauseForMaxQuantaRoundedUpToNsWhenQuantaIsFfff() {
        final TrafficManager tm = tm("off");
        tm.admit(0, 0, 3, 0, 3, FRAME, 0, 7);
        tm.onPfcReceived(1000, 0, 1 << 3, quanta(3, 0xFFFF));
        // 65535 * 512 / 100 Gb/s = 335539.2 ns → the queue may start at the next whole ns.
        final long resume = 1000 + 335_540;
        assertThat(tm.nextTransmitNs(1000, 0)).isEqualTo(resume);
        assertThat(tm.dequeue(resume - 1, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(tm.dequeue(resume, 0, verdict)).isEqualTo(7);
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(resume + 5, s);
        assertThat(s.pfc(0, 3, PfcStat.RX_PAUSE_DURATION)).isEqualTo(0xFFFF);
        assertThat(s.pfc(0, 3, PfcStat.RX_PAUSE_DURATION_US)).isEqualTo(335);
    }

    @Test
    void shouldReplaceRemainingTimeWhenNewerFrameArrivesAndResumeAtOnceOnQuantaZero() {
        final TrafficManager tm = tm("off");
        tm.admit(0, 0, 3, 0, 3, FRAME, 0, 1);
        tm.admit(0, 0, 3, 0, 3, FRAME, 0, 2);
        tm.onPfcReceived(0, 0, 1 << 3, quanta(3, 0xFFFF));
        tm.onPfcReceived(1000, 0, 1 << 3, quanta(3, 100)); // replaces: 100 * 5.12 = 512 ns from 1000
        assertThat(tm.nextTransmitNs(1000, 0)).isEqualTo(1512);
        assertThat(tm.dequeue(1511, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(tm.dequeue(1512, 0, verdict)).isEqualTo(1);

        tm.onPfcReceived(2000, 0, 1 << 3, quanta(3, 0xFFFF));
        assertThat(tm.dequeue(2100, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        tm.onPfcReceived(2300, 0, 1 << 3, NO_QUANTA);
        assertThat(tm.nextTransmitNs(2300, 0)).isEqualTo(2300);
        assertThat(tm.dequeue(2300, 0, verdict)).isEqualTo(2);

        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(1_000_000, s);
        assertThat(s.pfc(0, 3, PfcStat.RX_PKTS)).isEqualTo(4);
        // Only transitions from running to paused count: at 0 and at 2000 (1000 replaced a running pause).
        assertThat(s.pfc(0, 3, PfcStat.ON2OFF_RX_PKTS)).isEqualTo(2);
        // Paused 0..1512 and 2000..2300: 1812 ns; quanta floor(1000*100000/512000)=195 + 100 + floor(300/5.12)=58.
        assertThat(s.pfc(0, 3, PfcStat.RX_PAUSE_DURATION_US)).isEqualTo(1);
        assertThat(s.pfc(0, 3, PfcStat.RX_PAUSE_DURATION)).isEqualTo(195 + 100 + 58);
    }

    @Test
    void shouldOnlyPauseMappedQueueAndHonourOnlyPfcEnableUnlessAsymmetric() {
        final TrafficManager sym = tm("off");
        sym.admit(0, 0, 0, 0, 0, FRAME, 0, 10);
        sym.admit(0, 0, 2, 0, 2, FRAME, 0, 12);
        sym.onPfcReceived(0, 0, 1 << 3 | 1 << 2, new int[] {0, 0, 500, 500, 0, 0, 0, 0});
        // Priority 2 is not in pfc_enable "3,4": not honoured; queue 0 is not mapped to 3.
        assertThat(sym.dequeue(0, 0, verdict)).isIn(10, 12);
        assertThat(sym.dequeue(verdict.txEndNs(), 0, verdict)).isIn(10, 12);

        final TrafficManager asym = tm("on");
        asym.admit(0, 0, 2, 0, 2, FRAME, 0, 12);
        asym.onPfcReceived(0, 0, 1 << 2, new int[] {0, 0, 500, 0, 0, 0, 0, 0});
        // pfc_asym on: RX honours all eight priorities (orchagent sets PRIORITY_FLOW_CONTROL_RX = 0xFF).
        assertThat(asym.dequeue(0, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(asym.nextTransmitNs(0, 0)).isEqualTo(2560);
    }
}
