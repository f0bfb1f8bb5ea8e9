package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.tm.TmOptions;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runtime settings (P4Runtime registers, QoS map entries) applied with {@link TableBatch#setKnob} on a running switch
 * of in-memory ports: the same traffic before and after, expected numbers from reference §7 (WRED: p = 100 % at and
 * above Kmax on the instantaneous queue at dequeue) and §1.2/§6.3 (PG reserved → shared → xoff headroom).
 * <p>
 * Bursts of N frames are injected at one instant: the agent admits the whole RX batch before its first dequeue, so
 * the k-th frame (0-based) leaves a queue holding (N − k) frames of C charged bytes, C = frame length rounded up to
 * whole cells.
 */
@Timeout(60)
class RuntimeKnobsTest {
    private static final int PAYLOAD = 1000;
    private static final int N = 20;
    /** Ethernet + IPv4 + UDP headers + payload. */
    private static final int LENGTH = 14 + 20 + 8 + PAYLOAD;

    private static final int CELL = TmOptions.defaults().cellBytes();
    private static final long C = (LENGTH + CELL - 1) / CELL * (long) CELL;

    private static String config(final String extra) {
        return """
            {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
             "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                      "Ethernet4": {"speed": "10000", "admin_status": "up"}},
             "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {},
                           "Ethernet4|10.0.2.1/24": {}},
             "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
             "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}}""" + extra + "}";
    }

    private static void burst(final SwitchFixture sw, final int dscp) {
        for (int i = 0; i < N; i++) {
            sw.send(
                    "Ethernet0",
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                                    .dscp(dscp)
                                    .ecn(2),
                            PAYLOAD));
        }
        sw.run();
    }

    private static long ce(final List<byte[]> frames) {
        return frames.stream().filter(f -> (f[15] & 3) == 3).count();
    }

    private static TmCountersSnapshot tm(final SwitchFixture sw) throws Exception {
        final var future = sw.pipeline.control().trafficManagerCounters();
        sw.pipeline.agent().doWork();
        return future.get();
    }

    /** Marked frames of a burst when Kmin = Kmax = k·C and Pmax = 100 %: the first N − k + 1 frames. */
    private static long expectedMarks(final long kmaxCells) {
        long marked = 0;
        for (int i = 0; i < N; i++) {
            if ((N - i) * C >= kmaxCells * C) {
                marked++;
            }
        }
        return marked;
    }

    @Test
    void shouldMarkPerWredFormulaWhenEcnThresholdsOfTheQueueAreLowered() throws Exception {
        final String wred = String.format("""
             ,
             "WRED_PROFILE": {"W": {"wred_green_enable": "true", "green_min_threshold": "%d",
                 "green_max_threshold": "%d", "green_drop_probability": "100", "ecn": "ecn_all"}},
             "QUEUE": {"Ethernet4|0": {"wred_profile": "W"}}""", 19 * C, 19 * C);
        try (SwitchFixture sw = new SwitchFixture(config(wred))) {
            final PipelineControl control = sw.pipeline.control();
            final int port = control.portIndex("Ethernet4");
            assertThat(control.runtimeKnobs().value(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, port * 8))
                    .isEqualTo(19 * C);
            assertThat(control.runtimeKnobs().value(RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT, port * 8))
                    .isEqualTo(100);

            burst(sw, 0);
            assertThat(ce(sw.take("Ethernet4")))
                    .as("Kmax 19 cells-of-C: depths 20C, 19C")
                    .isEqualTo(2)
                    .isEqualTo(expectedMarks(19));

            control.batch().setWred(port, 0, 10 * C, 10 * C, 100).commit();
            burst(sw, 0);
            final List<byte[]> out = sw.take("Ethernet4");
            assertThat(out).hasSize(N);
            assertThat(ce(out)).as("Kmax 10C: depths 20C .. 10C").isEqualTo(11).isEqualTo(expectedMarks(10));
            for (int i = 0; i < N; i++) {
                assertThat(out.get(i)[15] & 3).as("frame %d", i).isEqualTo((N - i) * C >= 10 * C ? 3 : 2);
            }
            assertThat(tm(sw).queue(port, 0, QueueStat.WRED_ECN_MARKED_PACKETS)).isEqualTo(2 + 11);
            assertThat(control.runtimeKnobs().value(RuntimeKnob.ECN_MAX_THRESHOLD_BYTES, port * 8))
                    .isEqualTo(10 * C);
        }
    }

    @Test
    void shouldMarkOnAQueueWithoutProfileWhenThresholdsAreWritten() {
        try (SwitchFixture sw = new SwitchFixture(config(""))) {
            final PipelineControl control = sw.pipeline.control();
            final int port = control.portIndex("Ethernet4");
            burst(sw, 0);
            assertThat(ce(sw.take("Ethernet4"))).isZero();
            control.batch()
                    .setKnob(RuntimeKnob.ECN_MAX_THRESHOLD_BYTES, port * 8, 15 * C)
                    .setKnob(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, port * 8, 15 * C)
                    .setKnob(RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT, port * 8, 100)
                    .commit();
            burst(sw, 0);
            assertThat(ce(sw.take("Ethernet4"))).isEqualTo(6).isEqualTo(expectedMarks(15));
        }
    }

    private static final String LOSSLESS = String.format("""
             ,
         "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "10000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "%d",
                                         "xoff": "%d", "xon": "%d"}},
         "BUFFER_PG": {"Ethernet0|3": {"profile": "lossless"}},
         "DSCP_TO_TC_MAP": {"AZ": {"3": "3"}},
         "TC_TO_PRIORITY_GROUP_MAP": {"AZ": {"3": "3"}},
         "TC_TO_QUEUE_MAP": {"AZ": {"3": "3"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZ", "tc_to_pg_map": "AZ", "tc_to_queue_map": "AZ",
                                        "pfc_enable": "3"}}""", 10 * C, 5 * C, 2 * C);

    private static List<int[]> pfcFrames(final List<byte[]> frames) {
        return frames.stream()
                .filter(f -> (f[12] & 0xff) == 0x88 && (f[13] & 0xff) == 0x08)
                .map(f -> new int[] {f[17] & 0xff, (f[14 + 4 + 2 * 3] & 0xff) << 8 | f[14 + 4 + 2 * 3 + 1] & 0xff})
                .toList();
    }

    @Test
    void shouldSendXoffAndDropAtTheNewHeadroomCrossingWhenPfcXoffIsWritten() {
        try (SwitchFixture sw = new SwitchFixture(config(LOSSLESS))) {
            final PipelineControl control = sw.pipeline.control();
            final int in = control.portIndex("Ethernet0");
            assertThat(control.runtimeKnobs().value(RuntimeKnob.PFC_XOFF_BYTES, in * 8 + 3))
                    .isEqualTo(5 * C);

            // static_th 10C: frames 0..9 fit shared; frame 10 spills (XOFF), 10..14 fill the 5C headroom, 15..19 drop.
            burst(sw, 3);
            assertThat(sw.take("Ethernet4")).hasSize(15);
            List<int[]> pfc = pfcFrames(sw.take("Ethernet0"));
            assertThat(pfc).hasSize(2);
            assertThat(pfc.get(0)).containsExactly(1 << 3, 0xFFFF);
            assertThat(pfc.get(1)).containsExactly(1 << 3, 0);

            control.batch().setPfcThresholds(in, 3, 2 * C, 2 * C).commit();
            burst(sw, 3);
            assertThat(sw.take("Ethernet4")).as("10 shared + 2 headroom").hasSize(12);
            pfc = pfcFrames(sw.take("Ethernet0"));
            assertThat(pfc).hasSize(2);
            assertThat(pfc.get(0)).containsExactly(1 << 3, 0xFFFF);
        }
    }

    @Test
    void shouldMoveAFlowToAnotherQueueWhenDscpToTcAndTcToQueueEntriesAreWritten() throws Exception {
        try (SwitchFixture sw = new SwitchFixture(config(""))) {
            final PipelineControl control = sw.pipeline.control();
            final int port = control.portIndex("Ethernet4");
            burst(sw, 46);
            TmCountersSnapshot s = tm(sw);
            assertThat(s.queue(port, 0, QueueStat.PACKETS)).isEqualTo(N);
            assertThat(s.queue(port, 6, QueueStat.PACKETS)).isZero();

            control.batch()
                    .setKnob(RuntimeKnob.DSCP_TO_TC, 46, 5)
                    .setKnob(RuntimeKnob.TC_TO_QUEUE, 5, 6)
                    .commit();
            burst(sw, 46);
            burst(sw, 10);
            s = tm(sw);
            assertThat(s.queue(port, 6, QueueStat.PACKETS))
                    .as("DSCP 46 → TC 5 → queue 6")
                    .isEqualTo(N);
            assertThat(s.queue(port, 0, QueueStat.PACKETS))
                    .as("DSCP 10 has no entry: TC 0")
                    .isEqualTo(2 * N);

            control.batch().setKnob(RuntimeKnob.DSCP_TO_TC, 46, -1).commit();
            burst(sw, 46);
            s = tm(sw);
            assertThat(s.queue(port, 0, QueueStat.PACKETS))
                    .as("entry deleted: configured maps again")
                    .isEqualTo(3 * N);
            assertThat(s.queue(port, 6, QueueStat.PACKETS)).isEqualTo(N);
            sw.take("Ethernet4");
        }
    }

    @Test
    void shouldRefuseOutOfRangeIndexOrValueAndApplyNothingOfTheBatch() {
        try (SwitchFixture sw = new SwitchFixture(config(LOSSLESS))) {
            final PipelineControl control = sw.pipeline.control();
            final int port = control.portIndex("Ethernet4");
            final int ports = control.portNames().size();
            final TableBatch batch = control.batch().setKnob(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, port * 8, 5);
            assertThatThrownBy(() -> batch.setKnob(RuntimeKnob.ECN_MAX_THRESHOLD_BYTES, ports * 8, 100))
                    .isInstanceOfSatisfying(TableException.class, e -> {
                        assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT);
                        assertThat(e.index()).isEqualTo(1);
                    });
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT, 0, 101))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT));
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.FLOWLET_IDLE_TIME_NS, 0, 15_999))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT));
            assertThatThrownBy(() -> control.batch()
                            .setKnob(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, 0, 10)
                            .setKnob(RuntimeKnob.ECN_MAX_THRESHOLD_BYTES, 0, 9))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT));
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.PFC_XOFF_BYTES, port * 8 + 3, 100))
                    .as("Ethernet4 PG 3 has no BUFFER_PG profile")
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION));
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, 0, 200))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION));
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.TC_TO_QUEUE, 8, 1))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT));
            // The refused batch was never committed: the model and the data path are unchanged.
            assertThat(control.runtimeKnobs().value(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, port * 8))
                    .isZero();
            burst(sw, 0);
            assertThat(ce(sw.take("Ethernet4"))).isZero();
        }
    }

    private static final String FLOWLET_CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"},
                  "Ethernet12": {"speed": "100000", "admin_status": "up"},
                  "Ethernet16": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}, "Ethernet12": {}, "Ethernet12|10.0.4.1/24": {},
                       "Ethernet16": {}, "Ethernet16|10.0.5.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"},
                   "Ethernet12|10.0.4.2": {"neigh": "02:00:00:00:04:02"},
                   "Ethernet16|10.0.5.2": {"neigh": "02:00:00:00:05:02"}},
         "STATIC_ROUTE": {"172.16.0.0/12": {"nexthop": "10.0.2.2,10.0.3.2,10.0.4.2,10.0.5.2",
                                            "ifname": "Ethernet4,Ethernet8,Ethernet12,Ethernet16"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_lb_mode": "flowlet_random"}}}
        """;

    /** 8 flows, 10 packets each 100 µs apart; how many packets left on another uplink than the flow's previous one. */
    private static int moves(final SwitchFixture sw) {
        final Map<Integer, String> last = new HashMap<>();
        int moves = 0;
        for (int round = 0; round < 10; round++) {
            for (int flow = 0; flow < 8; flow++) {
                sw.send(
                        "Ethernet0",
                        Frames.udp4(
                                Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), ip(172, 16, 0, flow + 1)),
                                100));
                sw.run();
                for (final String up : List.of("Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16")) {
                    if (!sw.take(up).isEmpty()) {
                        final String before = last.put(flow, up);
                        moves += before != null && !before.equals(up) ? 1 : 0;
                    }
                }
            }
            sw.clock.advanceNs(100_000);
        }
        return moves;
    }

    @Test
    void shouldRerouteAfterTheGapOnlyWhenFlowletIdleTimeIsBelowIt() {
        try (SwitchFixture sw = new SwitchFixture(FLOWLET_CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(control.runtimeKnobs().value(RuntimeKnob.FLOWLET_IDLE_TIME_NS, 0))
                    .isEqualTo(256_000);
            // Gaps of 100 µs (less a few ns of the 8 flows) are inside the 256 µs SAI default idle time: no move.
            assertThat(moves(sw)).isZero();

            control.batch().setKnob(RuntimeKnob.FLOWLET_IDLE_TIME_NS, 0, 50_000).commit();
            // Now every gap ends a flowlet: each of the 72 later packets is placed at random over 4 members.
            assertThat(moves(sw)).isPositive();

            control.batch()
                    .setKnob(RuntimeKnob.FLOWLET_IDLE_TIME_NS, 0, 150_000)
                    .commit();
            assertThat(moves(sw)).isZero();
        }
    }

    @Test
    void shouldSwitchAGroupFromHashToFlowletWhenSelectionModeIsWritten() {
        try (SwitchFixture sw = new SwitchFixture(FLOWLET_CONFIG.replace("flowlet_random", "enhanced_ecmp"))) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(control.runtimeKnobs().value(RuntimeKnob.GROUP_SELECTION_MODE, 0))
                    .as("hash")
                    .isZero();
            control.batch().setKnob(RuntimeKnob.FLOWLET_IDLE_TIME_NS, 0, 50_000).commit();
            assertThat(moves(sw)).as("hashing never moves a flow").isZero();

            control.batch().setKnob(RuntimeKnob.GROUP_SELECTION_MODE, 0, 2).commit();
            assertThat(control.runtimeKnobs().value(RuntimeKnob.GROUP_SELECTION_MODE, 0))
                    .isEqualTo(2);
            assertThat(moves(sw))
                    .as("flowlet_random: every 100 µs gap exceeds 50 µs")
                    .isPositive();

            control.batch().setKnob(RuntimeKnob.GROUP_SELECTION_MODE, 0, 0).commit();
            assertThat(moves(sw)).isZero();

            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.GROUP_SELECTION_MODE, 7, 1))
                    .isInstanceOfSatisfying(
                            TableException.class, e -> assertThat(e.code()).isEqualTo(TableException.Code.NOT_FOUND));
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.GROUP_SELECTION_MODE, 0, 4))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT));
        }
    }

    /** XON end time minus the end of the first egress frame of a lossless burst (both ports' TX timestamps). */
    private static long xonAfterFirstFrameNs(final SwitchFixture sw) {
        burst(sw, 3);
        final var eth0 = sw.port("Ethernet0");
        long xon = -1;
        for (int i = 0; i < eth0.transmittedCount(); i++) {
            final byte[] f = eth0.transmitted(i);
            if ((f[12] & 0xff) == 0x88 && (f[13] & 0xff) == 0x08 && f[24] == 0 && f[25] == 0) {
                xon = eth0.transmittedTimestampNs(i);
            }
        }
        assertThat(xon).as("an XON frame").isPositive();
        final long first = sw.port("Ethernet4").transmittedTimestampNs(0);
        sw.take("Ethernet0");
        sw.take("Ethernet4");
        return xon - first;
    }

    @Test
    void shouldSendXonAtTheNewCrossingWhenPfcXonIsWritten() {
        try (SwitchFixture sw = new SwitchFixture(config(LOSSLESS))) {
            final PipelineControl control = sw.pipeline.control();
            final int in = control.portIndex("Ethernet0");
            // 15 frames admitted; a dequeue releases one (C); XON when the PG holds <= xon, i.e. at the release
            // of frame A - xon/C (1-based): 15 - 2 = 13 with xon 2C, 15 - 9 = 6 with xon 9C.
            final long before = xonAfterFirstFrameNs(sw);
            control.batch().setPfcThresholds(in, 3, 5 * C, 9 * C).commit();
            final long after = xonAfterFirstFrameNs(sw);
            // Dequeues start one 10G frame time apart: (1042 + 24) B * 8 / 10 Gb/s = 852.8 ns.
            final double frameNs = (LENGTH + 24) * 8 / 10.0;
            assertThat((double) (before - after))
                    .isCloseTo((13 - 6) * frameNs, org.assertj.core.data.Offset.offset(1.0));
        }
    }
}
