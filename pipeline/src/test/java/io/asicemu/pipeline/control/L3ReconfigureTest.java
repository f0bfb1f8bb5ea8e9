package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
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
import io.asicemu.pipeline.table.RouteTarget;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * STATIC_ROUTE and NEIGH changes on a running switch ({@link io.asicemu.pipeline.config.SwitchConfig#reconfigure}, L3ConfigChanges):
 * they become the control model's next-hop, group, route and neighbor updates, the configuration never replaces an
 * entry a controller wrote (refused naming the key), and config objects made at run time take ids controllers do not
 * allocate.
 */
@Timeout(60)
class L3ReconfigureTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}}}""";

    private static final PipelineSizing SIZING = new PipelineSizing(8, 16, 64, 32, 256, 256, 64, 9_728, 64, 64, 1_024);

    private static ConfigDb with(
            final ConfigDb db, final String table, final String key, final Map<String, String> fields) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.computeIfAbsent(table, x -> new LinkedHashMap<>()).put(key, new LinkedHashMap<>(fields));
        return new ConfigDb(t);
    }

    private static ConfigDb without(final ConfigDb db, final String table, final String key) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.get(table).remove(key);
        return new ConfigDb(t);
    }

    /** The port a frame from Ethernet0 to {@code destination} leaves by, with its destination MAC, or "none". */
    private static String forward(final SwitchFixture sw, final int destination) {
        sw.send("Ethernet0", Frames.udp4(Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), destination), 64));
        sw.run();
        for (final String port : List.of("Ethernet4", "Ethernet8")) {
            final List<byte[]> frames = sw.take(port);
            if (!frames.isEmpty()) {
                return port + " " + String.format("%012x", Frames.mac(frames.get(0), 0));
            }
        }
        return "none";
    }

    private static int rif(final PipelineControl control, final String name) {
        return SwitchConfig.of(control).compiled().setup().routerInterfaces().get(name);
    }

    @Test
    void shouldForwardARouteAndAGroupAddedToTheRunningConfigAndDropThemWhenRemoved() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(forward(sw, ip(10, 9, 0, 1))).isEqualTo("none");
            ConfigDb next = with(
                    SwitchConfig.of(control).runningConfig(),
                    "STATIC_ROUTE",
                    "10.9.0.0/16",
                    Map.of("nexthop", "10.0.3.2"));
            next = with(next, "STATIC_ROUTE", "10.8.0.0/16", Map.of("nexthop", "10.0.2.2,10.0.3.2", "weight", "1,3"));
            SwitchConfig.of(control).reconfigure(next);
            sw.run();
            assertThat(forward(sw, ip(10, 9, 0, 1))).isEqualTo("Ethernet8 020000000302");
            assertThat(forward(sw, ip(10, 8, 0, 1))).matches("Ethernet(4 020000000202|8 020000000302)");
            assertThat(SwitchConfig.of(control).runningConfig().table("STATIC_ROUTE"))
                    .containsKeys("10.9.0.0/16", "10.8.0.0/16");

            SwitchConfig.of(control)
                    .reconfigure(without(
                            without(SwitchConfig.of(control).runningConfig(), "STATIC_ROUTE", "10.9.0.0/16"),
                            "STATIC_ROUTE",
                            "10.8.0.0/16"));
            sw.run();
            assertThat(forward(sw, ip(10, 9, 0, 1))).isEqualTo("none");
            assertThat(forward(sw, ip(10, 8, 0, 1))).isEqualTo("none");
            final ForwardingTables t = sw.pipeline.agent().tables();
            int groups = 0;
            for (int id = 0; id < SIZING.maxGroups(); id++) {
                groups += t.groupDefined(id) ? 1 : 0;
            }
            assertThat(groups).as("the group went with its last route").isZero();
            assertThat(control.l3().nextHops)
                    .as("the next hop 10.0.3.2 went too")
                    .hasSize(1);
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("Ethernet4 020000000202");
        }
    }

    @Test
    void shouldChangeANeighborsMacAndARoutesNextHopInPlaceKeepingTheRouteCounters() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("Ethernet4 020000000202");
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "NEIGH",
                            "Ethernet4|10.0.2.2",
                            Map.of("neigh", "02:00:00:00:02:99")));
            sw.run();
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("Ethernet4 020000000299");
            final int slot = control.routeSlots().slot(IpPrefix.parse("192.168.0.0/16"));
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "STATIC_ROUTE",
                            "192.168.0.0/16",
                            Map.of("nexthop", "10.0.3.2")));
            sw.run();
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("Ethernet8 020000000302");
            assertThat(control.routeSlots().slot(IpPrefix.parse("192.168.0.0/16")))
                    .as("a changed route keeps its slot (and so its hit counters)")
                    .isEqualTo(slot);
            assertThat(sw.pipeline.agent().tables().routePackets(slot)).isEqualTo(3);
        }
    }

    @Test
    void shouldRefuseAConfigRouteOrNeighborWhereAControllerWroteOneNamingTheKeyAndChangeNothing() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            final int hop = SwitchConfig.of(control).compiled().setup().nextHopCount();
            control.batch()
                    .writeNextHop(hop, rif(control, "Ethernet8"), IpPrefix.address("10.0.3.9"), true)
                    .addNeighbor(rif(control, "Ethernet8"), IpPrefix.address("10.0.3.9"), 0x0200_0000_0309L)
                    .writeRoute(IpPrefix.parse("10.7.0.0/16"), hop, false, true)
                    .commit();
            sw.run();
            final ConfigDb before = SwitchConfig.of(control).runningConfig();
            final Map<IpPrefix, Integer> routesBefore = Map.copyOf(control.routes());
            // also a valid edit in the same change: all or nothing
            final ConfigDb routeOverController = with(
                    with(before, "STATIC_ROUTE", "10.9.0.0/16", Map.of("nexthop", "10.0.3.2")),
                    "STATIC_ROUTE",
                    "10.7.0.0/16",
                    Map.of("nexthop", "10.0.2.2"));
            assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(routeOverController))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("STATIC_ROUTE|10.7.0.0/16|: refused by the control model: FAILED_PRECONDITION: route"
                            + " 10.7.0.0/16 was written by a controller (P4Runtime); delete it there first");
            assertThatThrownBy(() -> SwitchConfig.of(control)
                            .reconfigure(
                                    with(before, "NEIGH", "Ethernet8|10.0.3.9", Map.of("neigh", "02:00:00:00:03:99"))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("NEIGH|Ethernet8|10.0.3.9|neigh: refused by the control model: FAILED_PRECONDITION:"
                            + " neighbor 10.0.3.9/32 was written by a controller (P4Runtime); delete it there first");
            sw.run();
            assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(before);
            assertThat(control.routes()).isEqualTo(routesBefore);
            assertThat(forward(sw, ip(10, 7, 0, 1))).isEqualTo("Ethernet8 020000000309");
            assertThat(forward(sw, ip(10, 9, 0, 1)))
                    .as("the valid edit went with the refused one")
                    .isEqualTo("none");
        }
    }

    @Test
    void shouldRefuseAControllersInsertOnARouteTheConfigAddedAtRunTime() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "STATIC_ROUTE",
                            "10.9.0.0/16",
                            Map.of("nexthop", "10.0.3.2")));
            final int hop = SwitchConfig.of(control).compiled().setup().nextHopCount();
            control.batch()
                    .writeNextHop(hop, rif(control, "Ethernet8"), IpPrefix.address("10.0.3.9"), true)
                    .commit();
            assertThatThrownBy(() -> control.batch()
                            .writeRoute(IpPrefix.parse("10.9.0.0/16"), hop, false, true)
                            .commit())
                    .isInstanceOf(TableException.class)
                    .hasMessageContaining("FAILED_PRECONDITION: route 10.9.0.0/16 comes from config_db");
        }
    }

    @Test
    void shouldGiveConfigObjectsMadeAtRunTimeIdsThatControllersDoNotAllocate() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(SwitchConfig.of(control).compiled().setup().nextHopCount())
                    .isEqualTo(1);
            assertThat(SwitchConfig.of(control).compiled().setup().groupCount()).isZero();
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "STATIC_ROUTE",
                            "10.8.0.0/16",
                            Map.of("nexthop", "10.0.2.2,10.0.3.2")));
            sw.run();
            final int route = control.routes().get(IpPrefix.parse("10.8.0.0/16"));
            assertThat(RouteTarget.kind(route)).isEqualTo(RouteTarget.GROUP);
            assertThat(RouteTarget.id(route))
                    .as("a new config group takes the highest free id")
                    .isEqualTo(SIZING.maxGroups() - 1);
            assertThat(control.l3().configNextHopIds)
                    .as("the new config next hop takes the highest free id, the start-up one keeps 0")
                    .containsOnly(
                            Map.entry("10.0.2.2/32@Ethernet4", 0),
                            Map.entry("10.0.3.2/32@Ethernet8", SIZING.maxNextHops() - 1));
            // A controller allocates as the P4Runtime adapter does: upward from the start-up configuration's count.
            control.batch()
                    .writeNextHop(1, rif(control, "Ethernet8"), IpPrefix.address("10.0.3.9"), true)
                    .addNeighbor(rif(control, "Ethernet8"), IpPrefix.address("10.0.3.9"), 0x0200_0000_0309L)
                    .addGroup(0, "g", new int[] {1}, new int[] {1})
                    .writeRouteToGroup(IpPrefix.parse("10.7.0.0/16"), 0, true)
                    .commit();
            sw.run();
            assertThat(forward(sw, ip(10, 7, 0, 1))).isEqualTo("Ethernet8 020000000309");
            assertThat(forward(sw, ip(10, 8, 0, 1))).matches("Ethernet(4 020000000202|8 020000000302)");
        }
    }

    @Test
    void shouldReuseAnIdTheStartUpConfigurationFreedAndLeaveARouteAControllerTookOver() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            // The start-up route and its next hop (id 0) go; a later route's next hop takes id 0 back. (Within one
            // change a new next hop is defined before the routes move to it and the old one goes, so it cannot.)
            SwitchConfig.of(control)
                    .reconfigure(without(SwitchConfig.of(control).runningConfig(), "STATIC_ROUTE", "192.168.0.0/16"));
            assertThat(control.l3().configNextHopIds).isEmpty();
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "STATIC_ROUTE",
                            "10.9.0.0/16",
                            Map.of("nexthop", "10.0.3.2")));
            sw.run();
            assertThat(control.l3().configNextHopIds).containsOnly(Map.entry("10.0.3.2/32@Ethernet8", 0));
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("none");
            // A controller deletes the config's route and writes its own on that prefix: it is the controller's now.
            final int hop = SwitchConfig.of(control).compiled().setup().nextHopCount();
            control.batch()
                    .deleteRoute(IpPrefix.parse("10.9.0.0/16"))
                    .writeNextHop(hop, rif(control, "Ethernet4"), IpPrefix.address("10.0.2.2"), true)
                    .writeRoute(IpPrefix.parse("10.9.0.0/16"), hop, false, true)
                    .commit();
            sw.run();
            SwitchConfig.of(control)
                    .reconfigure(without(SwitchConfig.of(control).runningConfig(), "STATIC_ROUTE", "10.9.0.0/16"));
            sw.run();
            assertThat(forward(sw, ip(10, 9, 0, 1)))
                    .as("dropping the route from the config leaves the controller's")
                    .isEqualTo("Ethernet4 020000000202");
            assertThat(control.l3().configNextHopIds).isEmpty();
        }
    }
}
