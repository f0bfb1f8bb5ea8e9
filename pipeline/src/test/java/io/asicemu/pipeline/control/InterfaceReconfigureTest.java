package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.mac;
import static io.asicemu.pipeline.Frames.u16;
import static io.asicemu.pipeline.Frames.u32;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.config.RunningConfig;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * INTERFACE and VLAN_INTERFACE changes on a running switch ({@link io.asicemu.pipeline.config.SwitchConfig#reconfigure},
 * {@link RouterInterfaceConfigChanges}): a new interface address answers ARP, announces itself on a live port and
 * routes (its connected subnet, next hops and neighbors on it in the same change); a removed one stops; a port turns
 * from VLAN member into routed port and back in one change; the configuration never takes a controller's interface,
 * and an interface a controller's next hop uses stays (refused, naming the key).
 */
@Timeout(60)
class InterfaceReconfigureTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}}}""";

    private static final PipelineSizing SIZING = new PipelineSizing(8, 16, 64, 32, 256, 256, 64, 9_728, 64, 64, 1_024);
    private static final long HOST_C = 0x0200_0000_0302L;

    private static ConfigDb with(final ConfigDb db, final String table, final String key, final Map<String, String> f) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.computeIfAbsent(table, x -> new LinkedHashMap<>()).put(key, new LinkedHashMap<>(f));
        return new ConfigDb(t);
    }

    private static ConfigDb without(final ConfigDb db, final String table, final String key) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.get(table).remove(key);
        if (t.get(table).isEmpty()) {
            t.remove(table);
        }
        return new ConfigDb(t);
    }

    /** Ethernet8 routed: 10.0.3.1/24, a neighbor 10.0.3.2 and a route over it, all in one change. */
    private static ConfigDb withEthernet8(final ConfigDb db) {
        ConfigDb next = with(db, "INTERFACE", "Ethernet8", Map.of());
        next = with(next, "INTERFACE", "Ethernet8|10.0.3.1/24", Map.of());
        next = with(next, "NEIGH", "Ethernet8|10.0.3.2", Map.of("neigh", "02:00:00:00:03:02"));
        return with(next, "STATIC_ROUTE", "10.9.0.0/16", Map.of("nexthop", "10.0.3.2"));
    }

    /** Whether the switch answers an ARP request for {@code target} sent on {@code port} (its reply's sender IP). */
    private static boolean answersArp(final SwitchFixture sw, final String port, final int hostIp, final int target) {
        sw.take(port);
        sw.send(port, Frames.arp(0xffff_ffff_ffffL, HOST_C, 1, HOST_C, hostIp, 0, target));
        sw.run();
        for (final byte[] f : sw.take(port)) {
            if (u16(f, 12) == 0x0806 && u16(f, 20) == 2 && mac(f, 22) == ROUTER && u32(f, 28) == target) {
                assertThat(mac(f, 0)).as("the reply goes to the asker").isEqualTo(HOST_C);
                return true;
            }
        }
        return false;
    }

    /** The port a frame from Ethernet0 to {@code destination} leaves by, with its destination MAC, or "none". */
    private static String forward(final SwitchFixture sw, final int destination) {
        sw.send("Ethernet0", Frames.udp4(Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), destination), 64));
        sw.run();
        for (final String port : List.of("Ethernet4", "Ethernet8")) {
            for (final byte[] f : sw.take(port)) {
                if (u16(f, 12) == 0x0800) {
                    return port + " " + String.format("%012x", mac(f, 0));
                }
            }
        }
        return "none";
    }

    @Test
    void shouldAnswerAnnounceAndRouteOnAnInterfaceAddedAtRunTimeAndStopWhenItIsRemoved() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            sw.pipeline.agent().announceOnLinkUp(true);
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 3, 2), ip(10, 0, 3, 1)))
                    .isFalse();
            assertThat(forward(sw, ip(10, 9, 0, 1))).isEqualTo("none");

            SwitchConfig.of(control)
                    .reconfigure(withEthernet8(SwitchConfig.of(control).runningConfig()));
            sw.run();
            final List<byte[]> announced = sw.take("Ethernet8");
            assertThat(announced)
                    .as("the new address is announced on the live port, as a port coming up announces its own")
                    .hasSize(1);
            final byte[] garp = announced.get(0);
            assertThat(mac(garp, 0)).isEqualTo(0xffff_ffff_ffffL);
            assertThat(u16(garp, 20)).as("a request").isEqualTo(1);
            assertThat(u32(garp, 28)).as("sender IP").isEqualTo(ip(10, 0, 3, 1));
            assertThat(u32(garp, 38)).as("target IP = sender IP").isEqualTo(ip(10, 0, 3, 1));
            assertThat(sw.take("Ethernet4")).as("only that port announces").isEmpty();

            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 3, 2), ip(10, 0, 3, 1)))
                    .isTrue();
            assertThat(forward(sw, ip(10, 9, 0, 1)))
                    .as("a route over a neighbor on the new interface, in the same change")
                    .isEqualTo("Ethernet8 020000000302");
            assertThat(forward(sw, ip(10, 0, 3, 2))).as("the connected subnet").isEqualTo("Ethernet8 020000000302");
            final int rif = control.configRouterInterfaces().get("Ethernet8");
            assertThat(rif)
                    .as("a new config interface takes the highest free id (controllers allocate upward)")
                    .isEqualTo(SIZING.maxRouterInterfaces() - 1);
            assertThat(sw.pipeline.agent().tables().portRouterInterface(2)).isEqualTo(rif);

            ConfigDb next = without(SwitchConfig.of(control).runningConfig(), "STATIC_ROUTE", "10.9.0.0/16");
            next = without(next, "NEIGH", "Ethernet8|10.0.3.2");
            next = without(next, "INTERFACE", "Ethernet8|10.0.3.1/24");
            SwitchConfig.of(control).reconfigure(without(next, "INTERFACE", "Ethernet8"));
            sw.run();
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 3, 2), ip(10, 0, 3, 1)))
                    .as("a removed address stops answering")
                    .isFalse();
            assertThat(forward(sw, ip(10, 9, 0, 1))).isEqualTo("none");
            assertThat(forward(sw, ip(10, 0, 3, 2))).isEqualTo("none");
            assertThat(sw.pipeline.agent().tables().portRouterInterface(2)).isEqualTo(ForwardingTables.NONE);
            assertThat(control.configRouterInterfaces()).containsOnlyKeys("Ethernet0", "Ethernet4");
            assertThat(SwitchConfig.of(control).runningConfig().tables())
                    .isEqualTo(ConfigDb.parse(CONFIG).tables());
        }
    }

    @Test
    void shouldMoveAnInterfacesAddressKeepingItsId() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            final int rif = control.configRouterInterfaces().get("Ethernet4");
            final ConfigDb next = with(
                    without(SwitchConfig.of(control).runningConfig(), "INTERFACE", "Ethernet4|10.0.2.1/24"),
                    "INTERFACE",
                    "Ethernet4|10.0.5.1/24",
                    Map.of());
            SwitchConfig.of(control).reconfigure(next);
            sw.run();
            assertThat(answersArp(sw, "Ethernet4", ip(10, 0, 5, 2), ip(10, 0, 5, 1)))
                    .isTrue();
            assertThat(answersArp(sw, "Ethernet4", ip(10, 0, 2, 2), ip(10, 0, 2, 1)))
                    .isFalse();
            assertThat(control.configRouterInterfaces()).containsEntry("Ethernet4", rif);
            assertThat(control.routes()).containsKey(IpPrefix.parse("10.0.5.0/24"));
            assertThat(control.routes()).doesNotContainKey(IpPrefix.parse("10.0.2.0/24"));
        }
    }

    @Test
    void shouldTurnAVlanMemberIntoARoutedPortAndAVlanInterfaceOnAndOffInOneChangeEach() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            ConfigDb vlan = with(SwitchConfig.of(control).runningConfig(), "VLAN", "Vlan100", Map.of("vlanid", "100"));
            vlan = with(vlan, "VLAN_MEMBER", "Vlan100|Ethernet8", Map.of("tagging_mode", "untagged"));
            vlan = with(vlan, "VLAN_INTERFACE", "Vlan100", Map.of());
            vlan = with(vlan, "VLAN_INTERFACE", "Vlan100|10.0.100.1/24", Map.of());
            SwitchConfig.of(control).reconfigure(vlan);
            sw.run();
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 100, 2), ip(10, 0, 100, 1)))
                    .as("the VLAN interface answers on its member port")
                    .isTrue();

            // One change: Ethernet8 leaves the VLAN (which goes, with its interface) and becomes a routed port.
            ConfigDb routed =
                    without(SwitchConfig.of(control).runningConfig(), "VLAN_INTERFACE", "Vlan100|10.0.100.1/24");
            routed = without(routed, "VLAN_INTERFACE", "Vlan100");
            routed = without(routed, "VLAN_MEMBER", "Vlan100|Ethernet8");
            routed = without(routed, "VLAN", "Vlan100");
            SwitchConfig.of(control).reconfigure(withEthernet8(routed));
            sw.run();
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 100, 2), ip(10, 0, 100, 1)))
                    .isFalse();
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 3, 2), ip(10, 0, 3, 1)))
                    .isTrue();
            assertThat(sw.pipeline.agent().tables().vlanRouterInterface(100)).isEqualTo(ForwardingTables.NONE);
            assertThat(control.configRouterInterfaces()).containsOnlyKeys("Ethernet0", "Ethernet4", "Ethernet8");

            // And back in one change: routed port → VLAN member with a VLAN interface.
            ConfigDb back = without(SwitchConfig.of(control).runningConfig(), "STATIC_ROUTE", "10.9.0.0/16");
            back = without(back, "NEIGH", "Ethernet8|10.0.3.2");
            back = without(back, "INTERFACE", "Ethernet8|10.0.3.1/24");
            back = without(back, "INTERFACE", "Ethernet8");
            back = with(back, "VLAN", "Vlan100", Map.of("vlanid", "100"));
            back = with(back, "VLAN_MEMBER", "Vlan100|Ethernet8", Map.of("tagging_mode", "untagged"));
            back = with(back, "VLAN_INTERFACE", "Vlan100|10.0.100.1/24", Map.of());
            SwitchConfig.of(control).reconfigure(back);
            sw.run();
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 100, 2), ip(10, 0, 100, 1)))
                    .isTrue();
            assertThat(answersArp(sw, "Ethernet8", ip(10, 0, 3, 2), ip(10, 0, 3, 1)))
                    .isFalse();
            assertThat(sw.pipeline.agent().tables().portRouterInterface(2)).isEqualTo(ForwardingTables.NONE);
        }
    }

    @Test
    void shouldRefuseAnInterfaceWhereAControllerRoutesThePortOrItsSubnetAndChangeNothing() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            final int controllerRif = control.configRouterInterfaceCount();
            control.batch()
                    .writeRouterInterface(controllerRif, "Ethernet8", ROUTER, true)
                    .commit();
            final int hop = SwitchConfig.of(control).compiled().setup().nextHopCount();
            control.batch()
                    .writeNextHop(
                            hop, control.configRouterInterfaces().get("Ethernet4"), IpPrefix.address("10.0.2.9"), true)
                    .writeRoute(IpPrefix.parse("10.0.7.0/24"), hop, false, true)
                    .commit();
            sw.run();
            final ConfigDb before = SwitchConfig.of(control).runningConfig();
            final Map<IpPrefix, Integer> routesBefore = Map.copyOf(control.routes());

            assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(withEthernet8(before)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("INTERFACE|Ethernet8|: refused by the control model: FAILED_PRECONDITION: Ethernet8 has"
                            + " router interface " + controllerRif
                            + " written by a controller (P4Runtime); delete it there first");
            assertThatThrownBy(() -> SwitchConfig.of(control)
                            .reconfigure(with(before, "INTERFACE", "Ethernet0|10.0.7.1/24", Map.of())))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("INTERFACE|Ethernet0|10.0.7.1/24|: refused by the control model: FAILED_PRECONDITION:"
                            + " route 10.0.7.0/24 was written by a controller (P4Runtime); delete it there first");
            assertThatThrownBy(() -> SwitchConfig.of(control)
                            .reconfigure(without(
                                    without(before, "INTERFACE", "Ethernet4|10.0.2.1/24"), "INTERFACE", "Ethernet4")))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("INTERFACE|Ethernet4|: refused by the control model: FAILED_PRECONDITION: next hop "
                            + hop + " (10.0.2.9/32) uses router interface Ethernet4");
            sw.run();
            assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(before);
            assertThat(control.routes()).isEqualTo(routesBefore);
            assertThat(control.configRouterInterfaces()).containsOnlyKeys("Ethernet0", "Ethernet4");
            assertThat(answersArp(sw, "Ethernet4", ip(10, 0, 2, 2), ip(10, 0, 2, 1)))
                    .isTrue();
        }
    }

    @Test
    void shouldRefuseAControllersRouterInterfaceAtAnIdOrOnAPortTheConfigurationAddedAtRunTime() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            SwitchConfig.of(control)
                    .reconfigure(withEthernet8(SwitchConfig.of(control).runningConfig()));
            final int rif = control.configRouterInterfaces().get("Ethernet8");
            assertThatThrownBy(() -> control.batch()
                            .writeRouterInterface(rif, "Ethernet8", ROUTER, true)
                            .commit())
                    .isInstanceOf(TableException.class)
                    .hasMessageContaining("FAILED_PRECONDITION: router interface " + rif + " comes from config_db");
            assertThatThrownBy(() -> control.batch()
                            .writeRouterInterface(control.configRouterInterfaceCount(), "Ethernet8", ROUTER, true)
                            .commit())
                    .isInstanceOf(TableException.class)
                    .hasMessageContaining("FAILED_PRECONDITION: Ethernet8 has a router interface from config_db");
        }
    }
}
