package io.asicemu.veth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Capture;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RoCEv2 frames of one 5-tuple (same IPs, UDP source port 49152) but 32 destination QPs, routed to a prefix with four
 * ECMP next hops with SWITCH_HASH ecmp_lb_mode enhanced_ecmp: the RDMA hash object includes the BTH destination QP, so the QPs spread over the next hops while each QP
 * sticks to one. Counts per next hop come from tshark at the four receivers.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RoceEcmpTest {
    private static final int QPS = 32;
    private static final int ROUNDS = 3;

    @Test
    void shouldSplitRoceFramesOverFourNextHopsByDestinationQp() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final Map<String, String> naming = new HashMap<>();
            naming.put("Ethernet0", lab.switchLink("sw0", h1, "eth1", Offloads.CONTAINERLAB, 1500));
            final List<Netns> hops = new ArrayList<>();
            final StringBuilder neigh = new StringBuilder();
            final StringBuilder nexthops = new StringBuilder();
            final StringBuilder ifnames = new StringBuilder();
            for (int i = 1; i <= 4; i++) {
                final Netns hop = lab.namespace("n" + i);
                hop.disableIpv6();
                naming.put("Ethernet" + (4 * i), lab.switchLink("sw" + i, hop, "eth1", Offloads.CONTAINERLAB, 1500));
                hops.add(hop);
                final String ip = "10.0." + (i + 1) + ".1";
                neigh.append(i == 1 ? "" : ",")
                        .append("\"Ethernet")
                        .append(4 * i)
                        .append('|')
                        .append(ip)
                        .append("\": {\"neigh\": \"")
                        .append(hop.mac("eth1"))
                        .append("\"}");
                nexthops.append(i == 1 ? "" : ",").append(ip);
                ifnames.append(i == 1 ? "" : ",").append("Ethernet").append(4 * i);
            }
            final ConfigDb config = withTables(
                    TwoHostsTest.routedConfig(5),
                    "{\"NEIGH\": {" + neigh + "},"
                            + " \"STATIC_ROUTE\": {\"10.99.0.0/16\": {\"nexthop\": \"" + nexthops + "\", \"ifname\": \""
                            + ifnames + "\"}}, \"SWITCH_HASH\": {\"GLOBAL\": {\"ecmp_lb_mode\": \"enhanced_ecmp\"}}}");
            try (LinuxSwitch sw = LinuxSwitch.start(config, naming, AfPacketConfig.defaults(), 1.0)) {
                sw.awaitPorts(5, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                final List<Capture> captures = new ArrayList<>();
                for (final Netns hop : hops) {
                    captures.add(hop.capture("eth1", "udp port 4791", QPS * ROUNDS, Duration.ofSeconds(40)));
                }
                final StringBuilder qps = new StringBuilder();
                for (int qp = 1; qp <= QPS; qp++) {
                    qps.append(qp == 1 ? "" : ",").append(0x100 + qp);
                }
                h1.scapySend(
                        "roce",
                        "--iface",
                        "eth1",
                        "--smac",
                        h1.mac("eth1"),
                        "--dmac",
                        TwoHostsTest.ROUTER_MAC,
                        "--sip",
                        "10.0.1.1",
                        "--dip",
                        "10.99.0.7",
                        "--qps",
                        qps.toString(),
                        "--dscp",
                        "26",
                        "--ecn",
                        "2",
                        "--count",
                        Integer.toString(ROUNDS));

                final Map<String, Integer> hopOfQp = new HashMap<>();
                final int[] perHop = new int[4];
                int total = 0;
                for (int i = 0; i < 4; i++) {
                    final Path pcap = captures.get(i).stop(Duration.ofMillis(500));
                    for (final List<String> row : Tshark.fields(
                            pcap, "udp.dstport == 4791", "infiniband.bth.destqp", "ip.ttl", "udp.srcport")) {
                        final Integer before = hopOfQp.put(row.get(0), i);
                        assertThat(before)
                                .as("QP %s seen at two next hops", row.get(0))
                                .isIn(null, i);
                        assertThat(row.get(1)).isEqualTo("63");
                        assertThat(row.get(2)).isEqualTo("49152");
                        perHop[i]++;
                        total++;
                    }
                }
                System.out.printf(
                        "RoCEv2 frames per next hop (%d QPs x %d): %d %d %d %d%n",
                        QPS, ROUNDS, perHop[0], perHop[1], perHop[2], perHop[3]);
                assertThat(total).isEqualTo(QPS * ROUNDS);
                assertThat(hopOfQp).hasSize(QPS);
                assertThat(perHop).as("every next hop used").doesNotContain(0);
            }
        }
    }

    private static ConfigDb withTables(final ConfigDb base, final String extraJson) {
        final Map<String, Map<String, Map<String, String>>> tables = new HashMap<>(base.tables());
        tables.putAll(ConfigDb.parse(extraJson).tables());
        return new ConfigDb(tables);
    }
}
