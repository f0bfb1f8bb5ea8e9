package io.asicemu.veth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.testsupport.Concurrently;
import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Background;
import io.asicemu.testsupport.netns.Capture;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.tm.TrafficManager;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 2→1 incasts through the switch whose egress port toward the receiver is modeled at 1 Mb/s (scapy senders reach
 * only a few hundred frames/s here; a speed the machine
 * carries easily, so the queue builds in the traffic manager, not in the kernel): WRED/ECN marks CE seen by tshark at
 * the receiver; a lossless priority makes the switch send PFC XOFF to the senders with no drops; a receiver storming
 * PFC XOFF on the lossless priority makes the PFC watchdog detect the deadlock and drop (read from the traffic
 * manager's PFC_WD queue counters on the data-plane thread).
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CongestionTest {
    private static final int FRAMES_PER_SENDER = 150;
    private static final String EGRESS_SPEED_MBPS = System.getProperty("incast.speed", "1");
    private static final String ROUTER = TwoHostsTest.ROUTER_MAC;
    /** Priority 3 lossless on the senders' ports: PFC XOFF once a PG holds 20 kB, 400 kB headroom. */
    private static final String LOSSLESS_BUFFERS = ", \"BUFFER_POOL\": {\"ing\": {\"type\": \"ingress\", \"mode\":"
            + " \"static\", \"size\": \"20000000\"}}, \"BUFFER_PROFILE\": {\"lossless\": {\"pool\": \"ing\","
            + " \"size\": \"0\", \"static_th\": \"20000\", \"xoff\": \"400000\", \"xon\": \"2000\"},"
            + " \"lossy\": {\"pool\": \"ing\", \"size\": \"0\", \"static_th\": \"400000\"}}, \"BUFFER_PG\": {"
            + "\"Ethernet0|3\": {\"profile\": \"lossless\"}, \"Ethernet4|3\": {\"profile\": \"lossless\"},"
            + " \"Ethernet0|0\": {\"profile\": \"lossy\"}, \"Ethernet4|0\": {\"profile\": \"lossy\"}}";

    /** The lab: senders h1, h2 on Ethernet0/4, receiver r on Ethernet8 (10 Mb/s modeled). */
    private record Incast(NetnsLab lab, Netns h1, Netns h2, Netns r, Map<String, String> naming) {}

    private static Incast lab(final NetnsLab lab) {
        final Netns h1 = lab.namespace("h1");
        final Netns h2 = lab.namespace("h2");
        final Netns r = lab.namespace("r");
        final Map<String, String> naming = new HashMap<>();
        int i = 0;
        for (final Netns host : List.of(h1, h2, r)) {
            host.disableIpv6();
            naming.put("Ethernet" + (4 * i), lab.switchLink("sw" + i, host, "eth1", Offloads.CONTAINERLAB, 1500));
            i++;
        }
        return new Incast(lab, h1, h2, r, naming);
    }

    private static ConfigDb config(final Incast incast, final String extraTables) {
        final StringBuilder json =
                new StringBuilder("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"" + ROUTER + "\"}}, \"PORT\": {");
        for (int i = 0; i < 3; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("\"Ethernet")
                    .append(4 * i)
                    .append("\": {\"speed\": \"")
                    .append(i == 2 ? EGRESS_SPEED_MBPS : "100000")
                    .append("\", \"admin_status\": \"up\", \"mtu\": \"9100\"}");
        }
        json.append("}, \"INTERFACE\": {");
        for (int i = 0; i < 3; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("\"Ethernet")
                    .append(4 * i)
                    .append("\": {}, \"Ethernet")
                    .append(4 * i)
                    .append("|10.0.")
                    .append(i + 1)
                    .append(".254/24\": {}");
        }
        json.append("}, \"NEIGH\": {\"Ethernet8|10.0.3.1\": {\"neigh\": \"")
                .append(incast.r().mac("eth1"))
                .append("\"}}, \"DSCP_TO_TC_MAP\": {\"AZURE\": {\"26\": \"3\", \"0\": \"0\"}},")
                .append(" \"TC_TO_QUEUE_MAP\": {\"AZURE\": {\"3\": \"3\", \"0\": \"0\"}},")
                .append(" \"TC_TO_PRIORITY_GROUP_MAP\": {\"AZURE\": {\"3\": \"3\", \"0\": \"0\"}},")
                .append(" \"PORT_QOS_MAP\": {");
        for (int i = 0; i < 3; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("\"Ethernet")
                    .append(4 * i)
                    .append("\": {\"dscp_to_tc_map\": \"AZURE\", \"tc_to_queue_map\": \"AZURE\",")
                    .append(" \"tc_to_pg_map\": \"AZURE\"")
                    .append(extraTables.contains("BUFFER_PG") ? ", \"pfc_enable\": \"3\"" : "")
                    .append(extraTables.contains("PFC_WD") ? ", \"pfcwd_sw_enable\": \"3\"" : "")
                    .append('}');
        }
        json.append('}').append(extraTables).append('}');
        return ConfigDb.parse(json.toString());
    }

    private static void incast(final Incast incast) {
        final long start = System.nanoTime();
        final CompletableFuture<String> a = Concurrently.supply(() -> send(incast.h1(), "10.0.1.1"));
        final CompletableFuture<String> b = Concurrently.supply(() -> send(incast.h2(), "10.0.2.1"));
        System.out.println(
                a.join().trim() + " / " + b.join().trim() + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    private static String send(final Netns host, final String ip) {
        return host.scapySend(
                "roce",
                "--iface",
                "eth1",
                "--smac",
                host.mac("eth1"),
                "--dmac",
                ROUTER,
                "--sip",
                ip,
                "--dip",
                "10.0.3.1",
                "--qps",
                "0x77",
                "--dscp",
                "26",
                "--ecn",
                "2",
                "--payload",
                "1000",
                "--count",
                Integer.toString(FRAMES_PER_SENDER));
    }

    @Test
    void shouldMarkCongestionExperiencedWhenTwoSendersIncastIntoOneSlowPort() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Incast incast = lab(lab);
            final ConfigDb config = config(
                    incast,
                    ", \"WRED_PROFILE\": {\"W\": {\"wred_green_enable\": \"true\","
                            + " \"green_min_threshold\": \"8000\", \"green_max_threshold\": \"30000\","
                            + " \"green_drop_probability\": \"100\", \"ecn\": \"ecn_all\"}},"
                            + " \"QUEUE\": {\"Ethernet8|3\": {\"wred_profile\": \"W\"}}");
            try (LinuxSwitch sw = LinuxSwitch.start(config, incast.naming(), AfPacketConfig.defaults(), 1.0)) {
                sw.awaitPorts(3, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                final Capture capture =
                        incast.r().capture("eth1", "udp port 4791", 2 * FRAMES_PER_SENDER, Duration.ofSeconds(60));
                incast(incast);
                final Path pcap = capture.stop(Duration.ofSeconds(4));

                final List<List<String>> rows =
                        Tshark.fields(pcap, null, "ip.dsfield.ecn", "ip.dsfield.dscp", "infiniband.bth.destqp");
                final long ce =
                        rows.stream().filter(row -> row.get(0).equals("3")).count();
                System.out.printf(
                        "ECN incast: %d frames at the receiver, %d CE%n%s",
                        rows.size(), ce, sw.counters().render());
                assertThat(rows).isNotEmpty();
                assertThat(rows.getFirst().get(0))
                        .as("first frame met an empty queue: ECT(0) unmarked")
                        .isEqualTo("2");
                assertThat(ce)
                        .as("CE-marked frames seen by tshark at the receiver")
                        .isPositive();
                assertThat(rows).allSatisfy(row -> assertThat(row.subList(1, 3)).containsExactly("26", "0x000077"));
            }
        }
    }

    @Test
    void shouldSendPfcToSendersWithoutDropsWhenLosslessPriorityIsCongested() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Incast incast = lab(lab);
            final ConfigDb config = config(incast, LOSSLESS_BUFFERS);
            try (LinuxSwitch sw = LinuxSwitch.start(config, incast.naming(), AfPacketConfig.defaults(), 1.0)) {
                sw.awaitPorts(3, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                final Capture atReceiver =
                        incast.r().capture("eth1", "udp port 4791", 2 * FRAMES_PER_SENDER, Duration.ofSeconds(90));
                final Capture atSender =
                        incast.h1().capture("eth1", "ether proto 0x8808", 10_000, Duration.ofSeconds(90));
                incast(incast);
                final Path receiverPcap = atReceiver.stop(Duration.ofSeconds(4));
                final Path senderPcap = atSender.stop();

                final List<List<String>> pfc = Tshark.fields(
                        senderPcap, "macc.opcode == 0x0101", "eth.dst", "macc.cbfc.enbv.c3", "macc.cbfc.pause_time.c3");
                final List<List<String>> received = Tshark.fields(receiverPcap, null, "infiniband.bth.destqp");
                final String counters = sw.counters().render();
                System.out.printf(
                        "lossless incast: %d PFC frames at h1, %d of %d frames at the receiver%n%s",
                        pfc.size(), received.size(), 2 * FRAMES_PER_SENDER, counters);
                assertThat(pfc)
                        .as("PFC frames for priority 3 on the wire toward the sender")
                        .isNotEmpty()
                        .allSatisfy(row -> assertThat(row.subList(0, 2)).containsExactly("01:80:c2:00:00:01", "1"));
                assertThat(pfc.stream().anyMatch(row -> Integer.parseInt(row.get(2)) > 0))
                        .as("an XOFF")
                        .isTrue();
                assertThat(received).as("no drops: every frame arrived").hasSize(2 * FRAMES_PER_SENDER);
                assertThat(counters).doesNotContain("DISCARDS").doesNotContain("DROP");
            }
        }
    }

    @Test
    void shouldMakeWatchdogActWhenReceiverStormsPfc() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Incast incast = lab(lab);
            final ConfigDb config = config(
                    incast,
                    LOSSLESS_BUFFERS + ", \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\":"
                            + " \"100\"}, \"Ethernet8\": {\"action\": \"drop\", \"detection_time\": \"200\","
                            + " \"restoration_time\": \"5000\"}}");
            try (LinuxSwitch sw = LinuxSwitch.start(config, incast.naming(), AfPacketConfig.defaults(), 1.0)) {
                sw.awaitPorts(3, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                final int port = sw.portIndex("Ethernet8");
                final long[] during;
                // the storm runs until the counters are read (at most 60 s): as a task of the common fork-join pool
                // (one
                // thread on 2 CPUs) it held the incast's senders back until it ended, and on a loaded machine the queue
                // was restored (after 5 s) before the counters were read
                try (Background storm = incast.r()
                        .scapySendInBackground(
                                Duration.ofSeconds(90),
                                "pfc",
                                "--iface",
                                "eth1",
                                "--smac",
                                incast.r().mac("eth1"),
                                "--enable",
                                "0x08",
                                "--quanta",
                                "65535",
                                "--count",
                                "3000",
                                "--interval",
                                "0.02")) {
                    Thread.sleep(300);
                    incast(incast);
                    during = watchdogCounters(sw, port);
                    assertThat(storm.alive())
                            .as("the storm still ran when the counters were read")
                            .isTrue();
                }
                final String counters = sw.counters().render();
                System.out.printf(
                        "PFC storm: deadlock detected %d, watchdog tx drops %d, stormed %d%n%s",
                        during[0], during[1], during[2], counters);
                assertThat(counters).contains("Ethernet8 SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS");
                assertThat(during[0])
                        .as("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED on Ethernet8 queue 3")
                        .isPositive();
                assertThat(during[1])
                        .as("PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS (action drop)")
                        .isPositive();
                assertThat(during[2])
                        .as("queue 3 stormed while the storm lasts")
                        .isEqualTo(1);
            }
        }
    }

    /** Reads the watchdog's queue counters of {@code port} queue 3 on the data-plane thread. */
    private static long[] watchdogCounters(final LinuxSwitch sw, final int port) {
        final long[] values = new long[3];
        sw.control()
                .run(control -> control.submit(agent -> {
                    final TrafficManager tm = agent.trafficManager();
                    final TmCountersSnapshot snapshot = tm.newSnapshot();
                    tm.snapshot(Long.MAX_VALUE / 4, snapshot);
                    values[0] = snapshot.queue(port, 3, QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED);
                    values[1] = snapshot.queue(port, 3, QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS);
                    values[2] = tm.isStormed(port, 3) ? 1 : 0;
                }));
        sw.awaitIdleControl();
        return values;
    }
}
