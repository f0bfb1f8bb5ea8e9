package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The APPL_DB form against what fpmsyncd writes (sonic-swss fpmsyncd/routesync.cpp, its mock tests'
 * {@code "1.1.0.0/24"} keys and {@code weight} values, and libnl's formats).
 */
class ApplDbRoutesTest {
    private final ApplDbRoutes appl = new ApplDbRoutes(ProtocolNames.debianBookworm());

    private static NextHop hop(final String gateway, final String ifname, final int weight) throws Exception {
        return new NextHop(gateway == null ? null : InetAddress.getByName(gateway), ifname, weight);
    }

    @Test
    void shouldWriteEcmpAsCommaSeparatedListsWithFpmsyncdsWeights() throws Exception {
        final Route route = new Route(
                RoutePrefix.parse("10.1.0.0/24"),
                Route.Type.UNICAST,
                186,
                20,
                List.of(hop("10.0.1.2", "Ethernet0", 1), hop("10.0.2.2", "Ethernet4", 5)));
        final ApplDbRoutes.Write write = appl.forReplace(route);
        assertThat(write.key()).isEqualTo("ROUTE_TABLE:10.1.0.0/24");
        assertThat(write.delete()).isFalse();
        assertThat(List.copyOf(write.fields().entrySet()))
                .containsExactly(
                        Map.entry("protocol", "bgp"),
                        Map.entry("nexthop", "10.0.1.2,10.0.2.2"),
                        Map.entry("ifname", "Ethernet0,Ethernet4"),
                        Map.entry("weight", "1,4"));
    }

    @Test
    void shouldWriteConnectedNextHopsAsZeroAddressesAndHostPrefixesWithoutLength() throws Exception {
        final Route v4 = new Route(
                RoutePrefix.parse("10.9.9.9/32"), Route.Type.UNICAST, 196, 0, List.of(hop(null, "Ethernet8", 1)));
        assertThat(appl.forReplace(v4).key()).isEqualTo("ROUTE_TABLE:10.9.9.9");
        assertThat(List.copyOf(appl.forReplace(v4).fields().entrySet()))
                .containsExactly(
                        Map.entry("protocol", "0xc4"),
                        Map.entry("nexthop", "0.0.0.0"),
                        Map.entry("ifname", "Ethernet8"),
                        Map.entry("weight", "1"));
        final Route v6 = new Route(
                RoutePrefix.parse("2001:db8:0:0:1::/80"),
                Route.Type.UNICAST,
                186,
                0,
                List.of(hop(null, "Ethernet8", 1), hop("fe80::1", "unknown", 1)));
        assertThat(appl.forReplace(v6).key()).isEqualTo("ROUTE_TABLE:2001:db8:0:0:1::/80");
        assertThat(appl.forReplace(v6).fields())
                .containsEntry("nexthop", "::,fe80::1")
                .containsEntry("ifname", "Ethernet8,unknown");
    }

    @Test
    void shouldWriteBlackholesAndNothingForUnreachableOrProhibit() {
        final Route blackhole = new Route(RoutePrefix.parse("0.0.0.0/0"), Route.Type.BLACKHOLE, 196, 0, List.of());
        final ApplDbRoutes.Write write = appl.forReplace(blackhole);
        assertThat(write.key()).isEqualTo("ROUTE_TABLE:0.0.0.0/0");
        assertThat(List.copyOf(write.fields().entrySet()))
                .containsExactly(Map.entry("protocol", "0xc4"), Map.entry("blackhole", "true"));
        assertThat(appl.forReplace(
                        new Route(RoutePrefix.parse("10.0.0.0/8"), Route.Type.UNREACHABLE, 196, 0, List.of())))
                .isNull();
        assertThat(appl.forReplace(new Route(RoutePrefix.parse("10.0.0.0/8"), Route.Type.PROHIBIT, 196, 0, List.of())))
                .isNull();
    }

    @Test
    void shouldDeleteARouteWhoseOneNextHopIsAManagementInterface() throws Exception {
        final Route route = new Route(
                RoutePrefix.parse("0.0.0.0/0"), Route.Type.UNICAST, 186, 0, List.of(hop("172.17.0.1", "eth0", 1)));
        assertThat(appl.forReplace(route)).isEqualTo(appl.forWithdraw(route.prefix()));
        assertThat(appl.forWithdraw(route.prefix()).delete()).isTrue();
    }

    @Test
    void shouldNameProtocolsFromAnRtProtosFileAndOthersInHex() {
        final ProtocolNames names = ProtocolNames.parse("# comment\n186 bgp\n0x10\tdhcp # trailing\nbogus line\n");
        assertThat(names.nameOf(186)).isEqualTo("bgp");
        assertThat(names.nameOf(16)).isEqualTo("dhcp");
        assertThat(names.nameOf(196)).isEqualTo("0xc4");
        assertThat(ProtocolNames.debianBookworm().nameOf(2)).isEqualTo("kernel");
    }
}
