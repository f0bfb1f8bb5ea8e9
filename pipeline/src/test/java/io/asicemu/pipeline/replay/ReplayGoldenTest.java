package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.testsupport.Scapy;
import io.asicemu.testsupport.Tshark;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay golden tests: scapy builds the inputs, the switch replays them, tshark checks the outputs. Expected values
 * come from the configuration (MACs, next hops), from IP semantics (TTL - 1, valid checksums) and from the
 * serialization formula of the traffic manager's port clock: end = arrival + (max(len, 60) + 24) * 8 / speed.
 */
@Timeout(120)
class ReplayGoldenTest {
    private static final String ROUTER = "02:aa:bb:cc:dd:ee";
    private static final String NEXT_HOP = "02:00:00:00:02:02";
    private static final String HOST = "02:00:00:00:01:02";

    @TempDir
    Path dir;

    static ConfigDb config() throws IOException {
        try (InputStream in = ReplayGoldenTest.class.getResourceAsStream("routed_config_db.json")) {
            return ConfigDb.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private Path inputs(final String scenario) {
        final Path in = dir.resolve("in-" + scenario);
        try {
            Files.createDirectories(in);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
        assertThat(Scapy.runResource(ReplayGoldenTest.class, "build_inputs.py", scenario, in.toString()))
                .contains("ok");
        return in;
    }

    private static long serializationNs(final int length, final long speedMbps) {
        return (Math.max(length, 60) + 24L) * 8_000L / speedMbps;
    }

    private static BigDecimal seconds(final String epoch) {
        return new BigDecimal(epoch);
    }

    @Test
    void shouldRouteIpv4AndIpv6RewritingMacsAndTtlWhenReplayingRoutedTraffic() throws IOException {
        final Path in = inputs("routed");
        final Replay.Result result = Replay.run(
                config(),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("out"),
                PipelineSizing.defaults());
        final Path out = result.outputs().get("Ethernet4");

        final List<List<String>> inputTimes =
                Tshark.fields(in.resolve("Ethernet0.pcap"), "ip.ttl == 64 || ipv6", "frame.time_epoch");
        final List<List<String>> v4 = Tshark.fields(
                out,
                "ip",
                "eth.dst",
                "eth.src",
                "ip.ttl",
                "ip.checksum.status",
                "udp.checksum.status",
                "ip.dst",
                "frame.len",
                "frame.time_epoch");
        assertThat(v4).hasSize(3);
        for (int i = 0; i < v4.size(); i++) {
            final List<String> row = v4.get(i);
            assertThat(row.subList(0, 7)).containsExactly(NEXT_HOP, ROUTER, "63", "1", "1", "192.168.7.9", "60");
            final long expectedNs = serializationNs(Integer.parseInt(row.get(6)), 10_000);
            assertThat(seconds(row.get(7)).subtract(seconds(inputTimes.get(i).get(0))))
                    .isEqualByComparingTo(BigDecimal.valueOf(expectedNs, 9));
        }
        final List<List<String>> v6 =
                Tshark.fields(out, "ipv6", "eth.dst", "eth.src", "ipv6.hlim", "udp.checksum.status", "ipv6.dst");
        assertThat(v6)
                .hasSize(3)
                .allSatisfy(row -> assertThat(row).containsExactly(NEXT_HOP, ROUTER, "63", "1", "2001:db8:100::9"));
        assertThat(Tshark.fields(result.outputs().get("Ethernet0"), null, "frame.len"))
                .isEmpty();
        assertThat(result.counters().port("Ethernet0", "SAI_IN_DROP_REASON_TTL"))
                .isEqualTo(1);
        assertThat(result.counters().port("Ethernet4", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                .isEqualTo(6);
        assertThat(result.counters().port("Ethernet0", "SAI_PORT_STAT_IF_IN_UCAST_PKTS"))
                .isEqualTo(7);
        assertThat(Files.readString(result.countersFile())).contains("Ethernet0 SAI_IN_DROP_REASON_TTL 1");
    }

    @Test
    void shouldSpreadRoceFlowsOverFourWayEcmpKeepingEachFlowOnOneMemberWhenReplaying() throws IOException {
        final Path in = inputs("roce");
        final Replay.Result result = Replay.run(
                config(),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("out"),
                PipelineSizing.defaults());
        final Map<String, String> member = Map.of(
                "Ethernet4",
                "02:00:00:00:02:02",
                "Ethernet8",
                "02:00:00:00:03:02",
                "Ethernet12",
                "02:00:00:00:04:02",
                "Ethernet16",
                "02:00:00:00:05:02");
        final Map<String, String> portOfFlow = new HashMap<>();
        final Map<String, Integer> perPort = new LinkedHashMap<>();
        int total = 0;
        for (final Map.Entry<String, String> m : member.entrySet()) {
            final List<List<String>> rows = Tshark.fields(
                    result.outputs().get(m.getKey()),
                    null,
                    "eth.dst",
                    "eth.src",
                    "ip.ttl",
                    "ip.dsfield.dscp",
                    "ip.checksum.status",
                    "udp.dstport",
                    "udp.srcport");
            perPort.put(m.getKey(), rows.size());
            total += rows.size();
            for (final List<String> row : rows) {
                assertThat(row.subList(0, 6)).containsExactly(m.getValue(), ROUTER, "63", "26", "1", "4791");
                final String previous = portOfFlow.put(row.get(6), m.getKey());
                assertThat(previous)
                        .as("flow %s stays on one member", row.get(6))
                        .isIn(null, m.getKey());
            }
        }
        assertThat(total).isEqualTo(256);
        assertThat(Scapy.runResource(
                        ReplayGoldenTest.class,
                        "check_icrc.py",
                        in.resolve("Ethernet0.pcap").toString()))
                .as("inputs carry scapy-computed ICRCs")
                .contains("valid 256 invalid 0");
        for (final String port : member.keySet()) {
            assertThat(Scapy.runResource(
                            ReplayGoldenTest.class,
                            "check_icrc.py",
                            result.outputs().get(port).toString()))
                    .as("ICRC still valid after TTL and MAC rewrite on %s", port)
                    .contains("valid " + perPort.get(port) + " invalid 0");
        }
        assertThat(portOfFlow).hasSize(64);
        assertThat(perPort.values())
                .as("4-way spread of 64 flows: %s", perPort)
                .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(4 * 4));
        // Per-entry counters: each member's neighbor counted what tshark saw leave its port, the route all 256.
        final String counters = Files.readString(result.countersFile());
        assertThat(counters).containsPattern("ROUTE 172\\.16\\.0\\.0/12 Packets 256 Bytes \\d+");
        for (final Map.Entry<String, String> m : member.entrySet()) {
            final String neighbor = "10.0." + (Integer.parseInt(m.getKey().substring(8)) / 4 + 1) + ".2/32";
            assertThat(result.tableEntries()
                            .neighbors()
                            .get(IpPrefix.parse(neighbor))
                            .packets())
                    .as("neighbor %s behind %s", neighbor, m.getKey())
                    .isEqualTo((long) perPort.get(m.getKey()));
        }
        assertThat(result.tableEntries().nextHops().values().stream()
                        .mapToLong(h -> h.packets())
                        .sum())
                .isEqualTo(256);
    }

    @Test
    void shouldAnswerArpAndNeighborSolicitationForSwitchAddressesWhenStandalone() throws IOException {
        final Path in = inputs("arp");
        final Replay.Result result = Replay.run(
                config(),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("out"),
                PipelineSizing.defaults());
        final Path out = result.outputs().get("Ethernet0");
        assertThat(Tshark.fields(
                        out,
                        "arp",
                        "eth.dst",
                        "eth.src",
                        "arp.opcode",
                        "arp.src.hw_mac",
                        "arp.src.proto_ipv4",
                        "arp.dst.hw_mac",
                        "arp.dst.proto_ipv4"))
                .containsExactly(List.of(HOST, ROUTER, "2", ROUTER, "10.0.1.1", HOST, "10.0.1.2"));
        assertThat(Tshark.fields(
                        out,
                        "icmpv6",
                        "eth.dst",
                        "eth.src",
                        "ipv6.src",
                        "ipv6.dst",
                        "ipv6.hlim",
                        "icmpv6.type",
                        "icmpv6.nd.na.target_address",
                        "icmpv6.opt.linkaddr",
                        "icmpv6.checksum.status",
                        "icmpv6.nd.na.flag.s"))
                .containsExactly(List.of(
                        HOST,
                        ROUTER,
                        "2001:db8:1::1",
                        "2001:db8:1::2",
                        "255",
                        "136",
                        "2001:db8:1::1",
                        ROUTER,
                        "1",
                        "1"));
        assertThat(Tshark.fields(result.cpuPcap(), null, "frame.len")).isEmpty();
    }

    @Test
    void shouldAnswerPingToGatewayAddressesWhenStandalone() throws IOException {
        final Path in = inputs("ping");
        final Replay.Result result = Replay.run(
                config(),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("out"),
                PipelineSizing.defaults());
        final Path out = result.outputs().get("Ethernet0");
        assertThat(Tshark.fields(
                        out,
                        "icmp",
                        "eth.dst",
                        "eth.src",
                        "ip.src",
                        "ip.dst",
                        "ip.checksum.status",
                        "icmp.type",
                        "icmp.checksum.status",
                        "icmp.ident",
                        "icmp.seq",
                        "data.data"))
                .containsExactly(List.of(
                        HOST, ROUTER, "10.0.1.1", "10.0.1.2", "1", "0", "1", "7", "1", "70696e672d67617465776179"));
        assertThat(Tshark.fields(
                        out,
                        "icmpv6",
                        "eth.dst",
                        "ipv6.src",
                        "ipv6.dst",
                        "icmpv6.type",
                        "icmpv6.checksum.status",
                        "icmpv6.echo.sequence_number"))
                .containsExactly(List.of(HOST, "2001:db8:1::1", "2001:db8:1::2", "129", "1", "2"));
    }

    @Test
    void shouldPuntArpWithIngressPortAndReasonWhenNotStandalone() throws IOException {
        final Path in = inputs("arp");
        final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>(config().tables());
        final Map<String, String> device =
                new LinkedHashMap<>(tables.get("DEVICE_METADATA").get("localhost"));
        device.put("standalone", "false");
        tables.put("DEVICE_METADATA", Map.of("localhost", device));
        final Replay.Result result = Replay.run(
                new ConfigDb(tables),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("out"),
                PipelineSizing.defaults());
        assertThat(Tshark.fields(result.cpuPcap(), null, "arp.opcode", "arp.dst.proto_ipv4", "icmpv6.type"))
                .containsExactly(List.of("1", "10.0.1.1", ""), List.of("", "", "135"));
        assertThat(result.counters().port("Ethernet0", "SAI_HOSTIF_TRAP_TYPE_ARP_REQUEST"))
                .isEqualTo(1);
        assertThat(result.counters().port("Ethernet0", "SAI_HOSTIF_TRAP_TYPE_IPV6_NEIGHBOR_DISCOVERY"))
                .isEqualTo(1);
        assertThat(Tshark.fields(result.outputs().get("Ethernet0"), null, "frame.len"))
                .isEmpty();
    }

    @Test
    void shouldWriteByteIdenticalOutputsWhenReplayingTheSameInputsTwice() throws IOException {
        final Path in = inputs("roce");
        final Replay.Result first = Replay.run(
                config(),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("a"),
                PipelineSizing.defaults());
        final Replay.Result second = Replay.run(
                config(),
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap")),
                dir.resolve("b"),
                PipelineSizing.defaults());
        final Set<String> names = new TreeSet<>(first.outputs().keySet());
        for (final String name : names) {
            assertThat(Files.readAllBytes(second.outputs().get(name)))
                    .isEqualTo(Files.readAllBytes(first.outputs().get(name)));
        }
        assertThat(Files.readString(second.countersFile())).isEqualTo(Files.readString(first.countersFile()));
        assertThat(Files.size(first.outputs().get("Ethernet4"))).isGreaterThan(24);
    }
}
