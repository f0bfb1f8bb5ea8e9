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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The routing protocol's writer ({@link TableBatch#protocolRoute}, {@link TableBatch#withdrawProtocolRoute}), the API
 * the FPM listener feeds: its routes forward frames, hide the configuration's route for the same prefix until
 * withdrawn, share one pipeline next hop per distinct next hop and one group per distinct weighted set, and go with
 * their last route; a refused batch changes nothing.
 */
@Timeout(60)
class ProtocolRoutesTest {
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

    /** Few next hops and groups, so the tables fill. */
    private static final PipelineSizing SIZING = new PipelineSizing(8, 16, 12, 6, 256, 256, 64, 9_728, 64, 64, 1_024);

    private static final ProtocolNextHop VIA_E4 = ProtocolNextHop.via(host(10, 0, 2, 2), "Ethernet4");
    private static final ProtocolNextHop VIA_E8 = ProtocolNextHop.via(host(10, 0, 3, 2), "Ethernet8");

    private static IpPrefix host(final int a, final int b, final int c, final int d) {
        return new IpPrefix(false, 0, ip(a, b, c, d) & 0xffff_ffffL, 32);
    }

    private static IpPrefix prefix(final int a, final int b, final int c, final int d, final int length) {
        return new IpPrefix(false, 0, ip(a, b, c, d) & 0xffff_ffffL, length);
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

    private static void commit(final SwitchFixture sw, final java.util.function.Consumer<TableBatch> changes) {
        final TableBatch batch = sw.pipeline.control().batch();
        changes.accept(batch);
        batch.commit();
        sw.run();
    }

    /** Next hops and groups the data path holds. */
    private static int[] objects(final SwitchFixture sw) {
        final ForwardingTables t = sw.pipeline.agent().tables();
        int hops = 0;
        int groups = 0;
        for (int id = 0; id < SIZING.maxNextHops(); id++) {
            hops += t.nextHopDefined(id) ? 1 : 0;
        }
        for (int id = 0; id < SIZING.maxGroups(); id++) {
            groups += t.groupDefined(id) ? 1 : 0;
        }
        return new int[] {hops, groups};
    }

    @Test
    void shouldForwardOverTheProtocolsRouteAndGiveThePrefixBackToTheStaticRouteWhenItIsWithdrawn() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("Ethernet4 020000000202");

            commit(sw, b -> b.protocolRoute(prefix(192, 168, 0, 0, 16), List.of(VIA_E8)));
            assertThat(forward(sw, ip(192, 168, 1, 1)))
                    .as("the protocol's route hides the static one")
                    .isEqualTo("Ethernet8 020000000302");

            // A config edit of the hidden static route is kept for when the protocol lets go.
            final SwitchConfig config = SwitchConfig.of(sw.pipeline.control());
            final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(config.config());
            t.get("STATIC_ROUTE").put("192.168.0.0/16", Map.of("nexthop", "10.0.3.2"));
            config.reconfigure(new ConfigDb(t));
            sw.run();
            commit(sw, b -> b.protocolRoute(prefix(192, 168, 0, 0, 16), List.of(VIA_E4)));
            assertThat(forward(sw, ip(192, 168, 1, 1))).isEqualTo("Ethernet4 020000000202");

            commit(sw, b -> b.withdrawProtocolRoute(prefix(192, 168, 0, 0, 16)));
            assertThat(forward(sw, ip(192, 168, 1, 1)))
                    .as("the static route, as last edited, is in force again")
                    .isEqualTo("Ethernet8 020000000302");
        }
    }

    @Test
    void shouldShareNextHopsAndGroupsAcrossRoutesAndRemoveThemWithTheLastRoute() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final int[] before = objects(sw);
            commit(sw, b -> {
                for (int i = 0; i < 40; i++) {
                    b.protocolRoute(prefix(172, 16, i, 0, 24), List.of(VIA_E4, VIA_E8));
                    b.protocolRoute(prefix(172, 17, i, 0, 24), List.of(VIA_E8));
                }
            });
            assertThat(objects(sw))
                    .as("two next hops and one group for eighty routes")
                    .containsExactly(before[0] + 2, before[1] + 1);
            assertThat(forward(sw, ip(172, 17, 39, 9))).isEqualTo("Ethernet8 020000000302");
            assertThat(forward(sw, ip(172, 16, 7, 9))).startsWith("Ethernet");

            // The same routes again (a replay after the routing stack reconnects) change nothing.
            commit(sw, b -> b.protocolRoute(prefix(172, 16, 0, 0, 24), List.of(VIA_E4, VIA_E8)));
            assertThat(objects(sw)).containsExactly(before[0] + 2, before[1] + 1);

            commit(sw, b -> {
                for (int i = 0; i < 40; i++) {
                    b.withdrawProtocolRoute(prefix(172, 16, i, 0, 24));
                }
            });
            assertThat(objects(sw))
                    .as("the group went with its last route; its members stay for 172.17/16's routes")
                    .containsExactly(before[0] + 1, before[1]);
            commit(sw, b -> {
                for (int i = 0; i < 40; i++) {
                    b.withdrawProtocolRoute(prefix(172, 17, i, 0, 24));
                }
            });
            assertThat(objects(sw)).containsExactly(before[0], before[1]);
            assertThat(forward(sw, ip(172, 17, 39, 9))).isEqualTo("none");
        }
    }

    @Test
    void shouldRefuseABatchThatOverflowsTheGroupTableAndLeaveTheRoutesAsTheyWere() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final int free = SIZING.maxGroups() - objects(sw)[1];
            commit(sw, b -> b.protocolRoute(prefix(172, 16, 0, 0, 24), List.of(VIA_E8)));
            final int[] before = objects(sw);
            final TableBatch batch = sw.pipeline.control().batch();
            // Each weight pair is a distinct weighted set, so a group of its own.
            assertThatThrownBy(() -> {
                        for (int w = 1; w <= free + 1; w++) {
                            batch.protocolRoute(
                                    prefix(10, 100, w, 0, 24),
                                    List.of(VIA_E4, new ProtocolNextHop(host(10, 0, 3, 2), "Ethernet8", w)));
                        }
                    })
                    .isInstanceOf(TableException.class)
                    .hasMessageContaining("group table")
                    .extracting(e -> ((TableException) e).code())
                    .isEqualTo(TableException.Code.RESOURCE_EXHAUSTED);
            // Nothing of the refused batch reached the model: the next batch starts from the committed state.
            commit(sw, b -> b.protocolRoute(prefix(172, 16, 0, 0, 24), List.of(VIA_E4)));
            assertThat(objects(sw)).containsExactly(before[0], before[1]);
            assertThat(forward(sw, ip(172, 16, 0, 9))).isEqualTo("Ethernet4 020000000202");
            assertThat(forward(sw, ip(10, 100, 1, 9))).isEqualTo("none");
        }
    }

    @Test
    void shouldRefuseNextHopsOnUnknownInterfacesConnectedMembersOfEcmpAndWithdrawalsOfUnknownRoutes() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            final PipelineControl control = sw.pipeline.control();
            assertThatThrownBy(() -> control.batch()
                            .protocolRoute(
                                    prefix(172, 16, 0, 0, 24),
                                    List.of(ProtocolNextHop.via(host(10, 0, 9, 2), "Ethernet12"))))
                    .isInstanceOf(TableException.class)
                    .hasMessageContaining("no router interface Ethernet12");
            assertThatThrownBy(() -> control.batch()
                            .protocolRoute(
                                    prefix(172, 16, 0, 0, 24),
                                    List.of(VIA_E4, new ProtocolNextHop(null, "Ethernet8", 1))))
                    .isInstanceOf(TableException.class)
                    .extracting(e -> ((TableException) e).code())
                    .isEqualTo(TableException.Code.INVALID_ARGUMENT);
            assertThatThrownBy(() -> control.batch().withdrawProtocolRoute(prefix(172, 16, 0, 0, 24)))
                    .isInstanceOf(TableException.class)
                    .extracting(e -> ((TableException) e).code())
                    .isEqualTo(TableException.Code.NOT_FOUND);
        }
    }

    @Test
    void shouldRefuseRemovingAnInterfaceWhileTheProtocolsNextHopsUseIt() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, SIZING)) {
            commit(sw, b -> b.protocolRoute(prefix(172, 16, 0, 0, 24), List.of(VIA_E8)));
            final SwitchConfig config = SwitchConfig.of(sw.pipeline.control());
            final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(config.config());
            t.get("INTERFACE").remove("Ethernet8|10.0.3.1/24");
            t.get("INTERFACE").remove("Ethernet8");
            t.get("NEIGH").remove("Ethernet8|10.0.3.2");
            assertThatThrownBy(() -> config.reconfigure(new ConfigDb(t)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("Ethernet8");
            sw.run();
            assertThat(forward(sw, ip(172, 16, 0, 9))).isEqualTo("Ethernet8 020000000302");
        }
    }
}
