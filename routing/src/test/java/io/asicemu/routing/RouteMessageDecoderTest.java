package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.ProcessRunner;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decoder against rtnetlink messages pyroute2 encoded (rtnetlink_routes.py, Debian's python3-pyroute2: the oracle
 * of the encoding), and against next-hop object messages our test builder makes (pyroute2 0.7 lacks nhmsg).
 */
class RouteMessageDecoderTest {
    private static final Map<Integer, String> INTERFACES = Map.of(3, "Ethernet0", 4, "Ethernet4");
    private static final Map<String, byte[]> CASES = new HashMap<>();

    @BeforeAll
    static void encodeWithPyroute2(@TempDir final Path dir) throws Exception {
        final Path script = dir.resolve("rtnetlink_routes.py");
        try (var in = RouteMessageDecoderTest.class.getResourceAsStream("rtnetlink_routes.py")) {
            Files.write(script, in.readAllBytes());
        }
        final String out = ProcessRunner.run(
                        null, Duration.ofSeconds(60), List.of("/usr/bin/python3", script.toString()))
                .requireSuccess()
                .stdout();
        for (final String line : out.split("\n")) {
            final String[] parts = line.trim().split(" ");
            CASES.put(parts[0], RouteFrames.hex(parts[1]));
        }
    }

    private static List<Object> decode(final byte[] payload) {
        final RecordingHandler handler = new RecordingHandler();
        new RouteMessageDecoder(INTERFACES::get).decode(Unpooled.wrappedBuffer(payload), handler);
        return handler.events;
    }

    private static List<Object> decodeCase(final String name) {
        assertThat(CASES).as("pyroute2 encoded case " + name).containsKey(name);
        return decode(CASES.get(name));
    }

    private static InetAddress ip(final String text) throws Exception {
        return InetAddress.getByName(text);
    }

    @Test
    void shouldDecodeAnIpv4RouteWithOneNextHop() throws Exception {
        assertThat(decodeCase("v4_single"))
                .containsExactly(new Route(
                        RoutePrefix.parse("10.2.0.0/24"),
                        Route.Type.UNICAST,
                        196,
                        20,
                        List.of(new NextHop(ip("10.0.1.2"), "Ethernet0", 1))));
    }

    @Test
    void shouldDecodeEcmpWithWeightsFromRtnhHops() throws Exception {
        assertThat(decodeCase("v4_ecmp"))
                .containsExactly(new Route(
                        RoutePrefix.parse("10.1.0.0/24"),
                        Route.Type.UNICAST,
                        186,
                        0,
                        List.of(
                                new NextHop(ip("10.0.1.2"), "Ethernet0", 1),
                                new NextHop(ip("10.0.2.2"), "Ethernet4", 5))));
    }

    @Test
    void shouldDecodeBlackholeUnreachableAndProhibitWithoutNextHops() {
        assertThat(decodeCase("v4_blackhole"))
                .containsExactly(new Route(RoutePrefix.parse("10.3.0.0/16"), Route.Type.BLACKHOLE, 196, 0, List.of()));
        assertThat(decodeCase("v4_unreachable"))
                .containsExactly(
                        new Route(RoutePrefix.parse("10.4.0.0/16"), Route.Type.UNREACHABLE, 196, 0, List.of()));
        assertThat(decodeCase("v4_prohibit"))
                .containsExactly(new Route(RoutePrefix.parse("10.5.0.0/16"), Route.Type.PROHIBIT, 196, 0, List.of()));
    }

    @Test
    void shouldDecodeTheDefaultRouteWithOrWithoutRtaDst() throws Exception {
        final Route expected = new Route(
                RoutePrefix.parse("0.0.0.0/0"),
                Route.Type.UNICAST,
                186,
                0,
                List.of(new NextHop(ip("10.0.1.2"), "Ethernet0", 1)));
        assertThat(decodeCase("v4_default")).containsExactly(expected);
        assertThat(decodeCase("v4_default_no_dst")).containsExactly(expected);
    }

    @Test
    void shouldDecodeADirectlyConnectedHostRoute() {
        assertThat(decodeCase("v4_host_connected"))
                .containsExactly(new Route(
                        RoutePrefix.parse("10.9.9.9/32"),
                        Route.Type.UNICAST,
                        196,
                        0,
                        List.of(new NextHop(null, "Ethernet4", 1))));
    }

    @Test
    void shouldDecodeIpv6RoutesAndNameUnknownInterfacesAsFpmsyncdDoes() throws Exception {
        assertThat(decodeCase("v6_single"))
                .containsExactly(new Route(
                        RoutePrefix.parse("2001:db8:1::/48"),
                        Route.Type.UNICAST,
                        186,
                        1024,
                        List.of(new NextHop(ip("fe80::1"), "Ethernet0", 1))));
        assertThat(decodeCase("v6_ecmp_connected"))
                .containsExactly(new Route(
                        RoutePrefix.parse("2001:db8:2::/64"),
                        Route.Type.UNICAST,
                        196,
                        0,
                        List.of(new NextHop(null, "Ethernet0", 2), new NextHop(ip("fe80::2"), "unknown", 1))));
    }

    @Test
    void shouldDecodeDeletesAsWithdrawsOfTheirPrefix() {
        assertThat(decodeCase("v4_delete")).containsExactly(RoutePrefix.parse("10.2.0.0/24"));
        assertThat(decodeCase("v6_delete")).containsExactly(RoutePrefix.parse("2001:db8:1::/48"));
    }

    @Test
    void shouldDecodeEveryMessageOfAFrame() {
        assertThat(decodeCase("two_messages")).hasSize(2).element(1).isEqualTo(RoutePrefix.parse("10.2.0.0/24"));
    }

    @Test
    void shouldSkipOtherTablesButTakeTheMainTableFromRtaTable() {
        assertThat(decodeCase("other_table")).containsExactly(SkipReason.OTHER_TABLE);
        assertThat(decodeCase("other_table_attr")).containsExactly(SkipReason.OTHER_TABLE);
        assertThat(decodeCase("main_table_attr")).singleElement().isInstanceOf(Route.class);
    }

    @Test
    void shouldSkipWhatFpmsyncdSkips() {
        assertThat(decodeCase("local")).containsExactly(SkipReason.UNSUPPORTED_ROUTE_TYPE);
        assertThat(decodeCase("mpls_family")).containsExactly(SkipReason.UNSUPPORTED_FAMILY);
        assertThat(decodeCase("no_nexthop")).containsExactly(SkipReason.NO_NEXTHOP);
    }

    @Test
    void shouldSkipNextHopObjectsAndRoutesThatOnlyNameOne() throws Exception {
        assertThat(decode(RouteFrames.nextHopObject(104, 7))).containsExactly(SkipReason.NEXTHOP_OBJECT);
        assertThat(decode(RouteFrames.nextHopObject(105, 7))).containsExactly(SkipReason.NEXTHOP_OBJECT);
        final byte[] onlyId = RouteFrames.newRoute(2, 24, 186, 1)
                .attribute(1, ip("10.1.0.0").getAddress())
                .u32(30, 7)
                .bytes();
        assertThat(decode(onlyId)).containsExactly(SkipReason.UNRESOLVED_NEXTHOP_GROUP);
        final byte[] idAndHop = RouteFrames.newRoute(2, 24, 186, 1)
                .attribute(1, ip("10.1.0.0").getAddress())
                .u32(30, 7)
                .u32(4, 3)
                .attribute(5, ip("10.0.1.2").getAddress())
                .bytes();
        assertThat(decode(idAndHop)).singleElement().isInstanceOf(Route.class);
    }

    @Test
    void shouldCountBrokenLengthsAsMalformedAndKeepTheMessagesBefore() {
        final byte[] good = CASES.get("v4_single");
        final byte[] truncated = java.util.Arrays.copyOf(CASES.get("v4_ecmp"), CASES.get("v4_ecmp").length - 6);
        final byte[] both = new byte[good.length + truncated.length];
        System.arraycopy(good, 0, both, 0, good.length);
        System.arraycopy(truncated, 0, both, good.length, truncated.length);
        assertThat(decode(both)).hasSize(2).element(1).isEqualTo(SkipReason.MALFORMED);
        final byte[] badAddress = CASES.get("v4_blackhole").clone();
        badAddress[28] = 7; // RTA_DST's rta_len: 3 address bytes
        assertThat(decode(badAddress)).containsExactly(SkipReason.MALFORMED);
        assertThat(decode("garbage".getBytes(StandardCharsets.US_ASCII))).containsExactly(SkipReason.MALFORMED);
    }

    @Test
    void shouldSkipOtherNetlinkMessageTypes() {
        final byte[] done = CASES.get("v4_delete").clone();
        done[4] = 3; // NLMSG_DONE
        assertThat(decode(done)).containsExactly(SkipReason.UNKNOWN_MESSAGE);
    }
}
