package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Per-entry counters of routes, next hops and neighbors, and the route slots behind them. */
@Timeout(60)
class TableEntryCountersTest {
    private static final long ROUTER = 0x02_00_00_00_00_01L;
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}}}
        """;

    private static PipelineSizing sizingWithRoutes(final int maxRoutes) {
        final PipelineSizing d = PipelineSizing.defaults();
        return new PipelineSizing(
                d.maxPorts(),
                d.maxRouterInterfaces(),
                d.maxNextHops(),
                d.maxGroups(),
                d.fdbEntries(),
                d.neighbors(),
                d.aclRules(),
                d.maxFrameBytes(),
                d.batchSize(),
                d.cpuQueueSlots(),
                maxRoutes);
    }

    /** Two controller interfaces on Ethernet4/8 with one neighbor and one next hop each (ids 1 and 2). */
    private static void programTwoUplinks(final PipelineControl control) {
        final int rif4 = control.configRouterInterfaceCount();
        control.batch()
                .writeRouterInterface(rif4, "Ethernet4", 0x02_00_00_00_aa_04L, true)
                .writeRouterInterface(rif4 + 1, "Ethernet8", 0x02_00_00_00_aa_08L, true)
                .addNeighbor(rif4, IpPrefix.address("10.0.2.2"), 0x0200_0000_0202L)
                .addNeighbor(rif4 + 1, IpPrefix.address("10.0.3.2"), 0x0200_0000_0302L)
                .writeNextHop(1, rif4, IpPrefix.address("10.0.2.2"), true)
                .writeNextHop(2, rif4 + 1, IpPrefix.address("10.0.3.2"), true)
                .commit();
    }

    private static TableEntryCounters read(final SwitchFixture sw) throws Exception {
        final var future = sw.pipeline.control().tableEntryCounters();
        sw.pipeline.agent().doWork();
        return future.get(5, TimeUnit.SECONDS);
    }

    /** Sends {@code count} UDP frames from Ethernet0 to addresses 172.16.i.1 / 192.168.i.1; returns the bytes sent. */
    private static long send(final SwitchFixture sw, final int firstOctet, final int secondOctet, final int count) {
        long bytes = 0;
        for (int i = 0; i < count; i++) {
            final byte[] f = Frames.udp4(
                    Frames.builder()
                            .macs(ROUTER, HOST_A)
                            .ipv4(ip(10, 0, 1, 2), ip(firstOctet, secondOctet, i, 1))
                            .udpPorts(1000 + i, 2000),
                    10 + i % 7);
            bytes += f.length;
            sw.send("Ethernet0", f);
        }
        sw.run();
        return bytes;
    }

    @Test
    void shouldCountEachRouteNextHopAndNeighborByThePacketsForwardedThroughIt() throws Exception {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            programTwoUplinks(control);
            control.batch()
                    .addGroup(7, "g7", new int[] {1, 2}, new int[] {1, 1})
                    .writeRouteToGroup(IpPrefix.parse("172.16.0.0/12"), 7, true)
                    .writeRoute(IpPrefix.parse("192.168.0.0/16"), 2, false, true)
                    .commit();
            final long groupBytes = send(sw, 172, 16, 40);
            final long directBytes = send(sw, 192, 168, 9);
            final int out4 = sw.take("Ethernet4").size();
            final int out8 = sw.take("Ethernet8").size();
            assertThat(out4 + out8).isEqualTo(49);
            assertThat(out4).as("the group spreads over both members").isPositive();

            final TableEntryCounters c = read(sw);
            assertThat(c.routes().get(IpPrefix.parse("172.16.0.0/12")))
                    .isEqualTo(new TableEntryCounters.Hits(40, groupBytes));
            assertThat(c.routes().get(IpPrefix.parse("192.168.0.0/16")))
                    .isEqualTo(new TableEntryCounters.Hits(9, directBytes));
            assertThat(c.routes().get(IpPrefix.parse("10.0.1.0/24")))
                    .as("connected, unused")
                    .isEqualTo(new TableEntryCounters.Hits(0, 0));
            assertThat(c.nextHops().get(1).packets())
                    .as("frames out of Ethernet4")
                    .isEqualTo(out4);
            assertThat(c.nextHops().get(2).packets())
                    .as("frames out of Ethernet8")
                    .isEqualTo(out8);
            assertThat(c.nextHops().get(1).bytes() + c.nextHops().get(2).bytes())
                    .isEqualTo(groupBytes + directBytes);
            assertThat(c.neighbors().get(IpPrefix.parse("10.0.2.2/32")).packets())
                    .isEqualTo(out4);
            assertThat(c.neighbors().get(IpPrefix.parse("10.0.3.2/32")).packets())
                    .isEqualTo(out8);
            assertThat(c.render())
                    .contains("ROUTE 172.16.0.0/12 Packets 40 Bytes " + groupBytes)
                    .doesNotContain("10.0.1.0/24");
        }
    }

    @Test
    void shouldStartAgainAtZeroWhenAnEntryIsDeletedAndAddedAgainAndFallBackToTheCoveringRoute() throws Exception {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            programTwoUplinks(control);
            final IpPrefix cover = IpPrefix.parse("192.168.0.0/16");
            final IpPrefix specific = IpPrefix.parse("192.168.0.0/20");
            control.batch()
                    .writeRoute(cover, 1, false, true)
                    .writeRoute(specific, 2, false, true)
                    .commit();
            send(sw, 192, 168, 10);
            assertThat(read(sw).routes().get(specific).packets()).isEqualTo(10);
            assertThat(read(sw).routes().get(cover).packets()).isZero();

            control.batch().deleteRoute(specific).commit();
            send(sw, 192, 168, 10);
            assertThat(sw.take("Ethernet4")).as("now via the /16's next hop 1").hasSize(10);
            TableEntryCounters c = read(sw);
            assertThat(c.routes()).doesNotContainKey(specific);
            assertThat(c.routes().get(cover).packets()).isEqualTo(10);

            control.batch().writeRoute(specific, 2, false, true).commit();
            assertThat(read(sw).routes().get(specific).packets())
                    .as("a re-added route starts at zero")
                    .isZero();
            // Delete and re-add in one batch, and add-then-delete another route in the same batch.
            send(sw, 192, 168, 3);
            control.batch()
                    .deleteRoute(specific)
                    .writeRoute(specific, 1, false, true)
                    .writeRoute(IpPrefix.parse("10.99.0.0/16"), 1, false, true)
                    .deleteRoute(IpPrefix.parse("10.99.0.0/16"))
                    .commit();
            send(sw, 192, 168, 4);
            c = read(sw);
            assertThat(c.routes().get(specific).packets()).isEqualTo(4);
            assertThat(c.routes()).doesNotContainKey(IpPrefix.parse("10.99.0.0/16"));
            assertThat(c.nextHops().get(1).packets())
                    .as("10 via the cover, then 4")
                    .isEqualTo(14);
            assertThat(c.nextHops().get(2).packets())
                    .as("10, then 3, then removed from it")
                    .isEqualTo(13);
        }
    }

    @Test
    void shouldRefuseTheWholeBatchWhenTheRouteTableIsFull() throws Exception {
        // The configuration itself takes 2 routes (the connected /24 and the local /32).
        try (SwitchFixture sw = new SwitchFixture(CONFIG, sizingWithRoutes(4))) {
            final PipelineControl control = sw.pipeline.control();
            programTwoUplinks(control);
            control.batch()
                    .writeRoute(IpPrefix.parse("192.168.0.0/16"), 1, false, true)
                    .commit();
            final TableBatch tooMany = control.batch().writeRoute(IpPrefix.parse("192.169.0.0/16"), 1, false, true);
            assertThatThrownBy(() -> tooMany.writeRoute(IpPrefix.parse("192.170.0.0/16"), 1, false, true))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.RESOURCE_EXHAUSTED));
            send(sw, 192, 169, 2);
            assertThat(sw.take("Ethernet4"))
                    .as("nothing of the refused batch applied")
                    .isEmpty();
            control.batch()
                    .deleteRoute(IpPrefix.parse("192.168.0.0/16"))
                    .writeRoute(IpPrefix.parse("192.169.0.0/16"), 1, false, true)
                    .writeRoute(IpPrefix.parse("192.170.0.0/16"), 1, false, true)
                    .commit();
            send(sw, 192, 170, 2);
            assertThat(sw.take("Ethernet4")).as("a freed slot is reused").hasSize(2);
        }
        assertThatThrownBy(() -> new SwitchFixture(CONFIG, sizingWithRoutes(1)))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.getMessage()).contains("STATIC_ROUTE"));
    }

    /**
     * Random batches of inserts, modifies and deletes (some deleting what they inserted): the data path's route for
     * every probed address equals a brute-force longest match over the control model's routes.
     */
    @Property(tries = 40)
    void shouldForwardByTheLongestMatchAfterAnyMixOfRouteEditsAndSlotReuse(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) final long seed) {
        try (SwitchFixture sw = new SwitchFixture(CONFIG, sizingWithRoutes(64))) {
            final PipelineControl control = sw.pipeline.control();
            programTwoUplinks(control);
            final SplittableRandom random = new SplittableRandom(seed);
            final Map<IpPrefix, Integer> model = new HashMap<>(control.routes());
            for (int round = 0; round < 12; round++) {
                final TableBatch batch = control.batch();
                final Map<IpPrefix, Integer> next = new HashMap<>(model);
                for (int u = 0; u < 1 + random.nextInt(8); u++) {
                    final IpPrefix p =
                            new IpPrefix(false, 0, 0xc0a8_0000L | random.nextInt(1 << 16), 16 + random.nextInt(9));
                    if (next.containsKey(p) && random.nextBoolean()) {
                        batch.deleteRoute(p);
                        next.remove(p);
                    } else if (next.size() < 60) {
                        final int hop = 1 + random.nextInt(2);
                        batch.writeRoute(p, hop, false, !next.containsKey(p));
                        next.put(p, RouteTarget.encode(RouteTarget.NEXT_HOP, hop));
                    }
                }
                batch.commit();
                sw.pipeline.agent().doWork();
                model.clear();
                model.putAll(next);
                final var tables = SwitchConfig.of(control).compiled().setup().tables();
                for (int probe = 0; probe < 64; probe++) {
                    final long address = 0xc0a8_0000L | random.nextInt(1 << 16);
                    assertThat(tables.routeTargetFor(false, 0, address))
                            .as("address %08x", address)
                            .isEqualTo(longestMatch(model, address));
                }
            }
            assertThat(control.routeSlots().size()).isEqualTo(model.size());
        }
    }

    private static int longestMatch(final Map<IpPrefix, Integer> routes, final long address) {
        final List<IpPrefix> covering = new ArrayList<>();
        for (final IpPrefix p : routes.keySet()) {
            if (!p.v6() && new IpPrefix(false, 0, address, p.length()).equals(p)) {
                covering.add(p);
            }
        }
        return covering.stream()
                .max(java.util.Comparator.comparingInt(IpPrefix::length))
                .map(routes::get)
                .orElse(0);
    }
}
