package io.asicemu.switchd.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.control.TableException;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.routing.NextHop;
import io.asicemu.routing.Route;
import io.asicemu.routing.RoutePrefix;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The FPM listener's sink into the control model: routes zebra selected become the protocol writer's routes (ECMP
 * as a group, blackholes as drops, withdrawals giving the prefix back), queued changes reach the model in few
 * batches, and what the model cannot hold is refused route by route, counted by reason, the rest forwarded.
 */
@Timeout(60)
class ProtocolRouteWriterTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet4": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}, "Ethernet4": {}, "Ethernet4|10.0.0.3/31": {}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.0.0"}}}""";

    /** Room for the config's routes (2 connected, 2 local, 1 static) and 100 more. */
    private static final PipelineSizing SIZING = new PipelineSizing(8, 16, 64, 32, 256, 256, 64, 9_728, 64, 64, 105);

    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), SIZING, Map.of());
    private final ControlAgent control;
    private final ProtocolRouteWriter writer;

    ProtocolRouteWriterTest() {
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        control = ControlAgent.start(pipeline.control(), "test-control");
        writer = new ProtocolRouteWriter(control);
    }

    @AfterEach
    void stop() {
        control.close();
        pipeline.close();
    }

    private static Route unicast(final String prefix, final NextHop... hops) {
        return new Route(RoutePrefix.parse(prefix), Route.Type.UNICAST, 186, 20, List.of(hops));
    }

    private static NextHop via(final String gateway, final String interfaceName) throws Exception {
        return new NextHop(InetAddress.ofLiteral(gateway), interfaceName, 1);
    }

    private ForwardingTables tables() {
        writer.awaitWritten();
        // a duty cycle applies a bounded number of commands: cycle until one finds nothing to do
        for (int cycles = 0; cycles < 10_000 && pipeline.agent().doWork() > 0; cycles++) {
            // applying
        }
        return pipeline.agent().tables();
    }

    private int kind(final String address) {
        final IpPrefix a = IpPrefix.address(address);
        return RouteTarget.kind(tables().routeTargetFor(a.v6(), a.high(), a.low()));
    }

    @Test
    void shouldForwardWhatZebraSelectedAndGiveThePrefixBackWhenItIsWithdrawn() throws Exception {
        writer.replace(unicast("172.16.0.0/16", via("10.0.0.0", "Ethernet0"), via("10.0.0.2", "Ethernet4")));
        writer.replace(unicast("172.17.0.0/16", via("10.0.0.2", "Ethernet4")));
        writer.replace(new Route(RoutePrefix.parse("172.18.0.0/16"), Route.Type.BLACKHOLE, 196, 0, List.of()));
        writer.replace(unicast("192.168.0.0/16", via("10.0.0.2", "Ethernet4")));
        assertThat(kind("172.16.9.9")).isEqualTo(RouteTarget.GROUP);
        final IpPrefix hop = IpPrefix.address("172.17.9.9");
        final int target = tables().routeTargetFor(false, 0, hop.low());
        assertThat(tables().nextHopLow(RouteTarget.id(target)))
                .isEqualTo(IpPrefix.address("10.0.0.2").low());
        assertThat(kind("172.18.9.9")).isEqualTo(RouteTarget.DROP);
        final int bgp = tables().routeTargetFor(
                        false, 0, IpPrefix.address("192.168.1.1").low());
        assertThat(tables().nextHopLow(RouteTarget.id(bgp)))
                .as("BGP's route hides the static one")
                .isEqualTo(IpPrefix.address("10.0.0.2").low());

        writer.withdraw(RoutePrefix.parse("192.168.0.0/16"));
        writer.withdraw(RoutePrefix.parse("172.16.0.0/16"));
        final int restored = tables().routeTargetFor(
                        false, 0, IpPrefix.address("192.168.1.1").low());
        assertThat(tables().nextHopLow(RouteTarget.id(restored)))
                .as("the static route is in force again")
                .isEqualTo(IpPrefix.address("10.0.0.0").low());
        assertThat(kind("172.16.9.9")).isZero();
        assertThat(writer.written()).isEqualTo(4);
        assertThat(writer.withdrawn()).isEqualTo(2);
        assertThat(writer.refused()).isEmpty();
    }

    @Test
    void shouldCountWhatTheTablesCannotHoldAndForwardTheRest() throws Exception {
        for (int i = 0; i < 150; i++) {
            writer.replace(unicast("10.100." + i + ".0/24", via("10.0.0.0", "Ethernet0")));
        }
        writer.replace(unicast("10.200.0.0/16", via("10.9.9.9", NextHop.UNKNOWN_INTERFACE)));
        writer.awaitWritten();
        assertThat(writer.written()).isEqualTo(100);
        assertThat(writer.refused())
                .containsEntry(TableException.Code.RESOURCE_EXHAUSTED, 50L)
                .containsEntry(TableException.Code.NOT_FOUND, 1L);
        assertThat(kind("10.100.0.9")).isEqualTo(RouteTarget.NEXT_HOP);
        assertThat(kind("10.100.99.9")).isEqualTo(RouteTarget.NEXT_HOP);
        assertThat(kind("10.100.149.9")).as("refused: not forwarded").isZero();

        // zebra withdraws everything, the refused routes included: nothing is left, nothing counted as an error
        for (int i = 0; i < 150; i++) {
            writer.withdraw(RoutePrefix.parse("10.100." + i + ".0/24"));
        }
        writer.awaitWritten();
        assertThat(writer.withdrawn()).isEqualTo(100);
        assertThat(writer.withdrawnUnrouted()).isEqualTo(50);
        assertThat(writer.refused())
                .containsOnlyKeys(TableException.Code.RESOURCE_EXHAUSTED, TableException.Code.NOT_FOUND)
                .containsEntry(TableException.Code.NOT_FOUND, 1L);
        assertThat(kind("10.100.0.9")).isZero();
    }

    @Test
    void shouldLeaveTheSwitchsOwnAddressesToTheConfigurationAsOrchagentDoes() throws Exception {
        // zebra sends the loopback's connected route (10.1.0.1/32 dev Loopback0): the switch's own address
        writer.replace(unicast("10.1.0.1/32", new NextHop(null, "Loopback0", 1)));
        writer.replace(unicast("10.9.0.0/16", via("10.0.0.0", "Ethernet0")));
        writer.replace(unicast("10.9.0.0/16", new NextHop(null, "lo", 1)));
        writer.awaitWritten();
        assertThat(writer.skippedOwn()).isEqualTo(2);
        assertThat(writer.refused()).as("not an error").isEmpty();
        assertThat(kind("10.9.0.1"))
                .as("a prefix that moved onto the loopback leaves the table")
                .isZero();
    }

    @Test
    void shouldTakeAPeersFullTableInFewBatches() throws Exception {
        final NextHop spine1 = via("10.0.0.0", "Ethernet0");
        final NextHop spine2 = via("10.0.0.2", "Ethernet4");
        for (int i = 0; i < 100; i++) {
            writer.replace(unicast("10.50." + i + ".0/24", spine1, spine2));
        }
        writer.awaitWritten();
        assertThat(writer.written()).isEqualTo(100);
        assertThat(writer.batches()).as("queued changes share batches").isLessThan(100);
        assertThat(kind("10.50.77.1")).isEqualTo(RouteTarget.GROUP);
    }
}
