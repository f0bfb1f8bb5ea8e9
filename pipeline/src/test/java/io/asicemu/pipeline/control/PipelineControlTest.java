package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.mac;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.table.IpPrefix;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PipelineControlTest {
    private static final long ROUTER = 0x02_00_00_00_00_01L;
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {},
                       "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}, "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"}}}
        """;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);

    @AfterEach
    void close() {
        sw.close();
    }

    private long forwardTo(final int dst) {
        sw.send("Ethernet0", Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), dst, 64, 10));
        sw.run();
        for (final String port : new String[] {"Ethernet4", "Ethernet8"}) {
            final var out = sw.take(port);
            if (!out.isEmpty()) {
                return mac(out.get(0), 0);
            }
        }
        return -1;
    }

    @Test
    void shouldApplyWholeBatchAndRestoreCoveringRouteWhenMoreSpecificIsDeleted() {
        final PipelineControl control = sw.pipeline.control();
        control.batch()
                .addNextHop(100, "Ethernet4", IpPrefix.address("10.0.2.2"))
                .addNextHop(101, "Ethernet8", IpPrefix.address("10.0.3.2"))
                .writeRoute(IpPrefix.parse("192.168.0.0/16"), 100, false, true)
                .writeRoute(IpPrefix.parse("192.168.5.0/24"), 101, false, true)
                .commit();
        assertThat(forwardTo(ip(192, 168, 5, 1))).isEqualTo(0x0200_0000_0302L);
        assertThat(forwardTo(ip(192, 168, 6, 1))).isEqualTo(0x0200_0000_0202L);
        control.batch().deleteRoute(IpPrefix.parse("192.168.5.0/24")).commit();
        assertThat(forwardTo(ip(192, 168, 5, 1))).isEqualTo(0x0200_0000_0202L);
    }

    @Test
    void shouldApplyNothingWhenOneUpdateOfTheBatchIsInvalid() {
        final PipelineControl control = sw.pipeline.control();
        final TableBatch batch = control.batch()
                .addNextHop(7, "Ethernet4", IpPrefix.address("10.0.2.2"))
                .writeRoute(IpPrefix.parse("172.16.0.0/12"), 7, false, true);
        assertThatThrownBy(() -> batch.writeRoute(IpPrefix.parse("172.20.0.0/16"), 99, false, true))
                .isInstanceOfSatisfying(TableException.class, e -> {
                    assertThat(e.code()).isEqualTo(TableException.Code.NOT_FOUND);
                    assertThat(e.index()).isEqualTo(2);
                });
        assertThat(forwardTo(ip(172, 16, 0, 1))).as("batch never committed").isEqualTo(-1);
        assertThatThrownBy(() -> control.batch().deleteRoute(IpPrefix.parse("172.16.0.0/12")))
                .isInstanceOfSatisfying(
                        TableException.class, e -> assertThat(e.code()).isEqualTo(TableException.Code.NOT_FOUND));
    }

    @Test
    void shouldSpreadFlowsOverGroupAndDropMemberWhenItsLinkGoesDown() {
        final PipelineControl control = sw.pipeline.control();
        control.batch()
                .addNextHop(1, "Ethernet4", IpPrefix.address("10.0.2.2"))
                .addNextHop(2, "Ethernet8", IpPrefix.address("10.0.3.2"))
                .addGroup(5, "g5", new int[] {1, 2}, new int[] {1, 1})
                .writeRouteToGroup(IpPrefix.parse("172.16.0.0/12"), 5, true)
                .commit();
        int toFour = 0;
        for (int i = 0; i < 64; i++) {
            sw.send(
                    "Ethernet0",
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(172, 16, i, 1))
                                    .udpPorts(1000 + i, 2000),
                            10));
        }
        sw.run();
        toFour = sw.take("Ethernet4").size();
        assertThat(toFour + sw.take("Ethernet8").size()).isEqualTo(64);
        assertThat(toFour).isBetween(8, 56);
        sw.port("Ethernet8").linkUp(false);
        for (int i = 0; i < 64; i++) {
            sw.send(
                    "Ethernet0",
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(172, 16, i, 1))
                                    .udpPorts(1000 + i, 2000),
                            10));
        }
        sw.run();
        assertThat(sw.take("Ethernet4")).as("the live member takes every flow").hasSize(64);
    }

    @Test
    void shouldListLearnedNeighborsAndTrafficManagerCountersWhenAsked() throws Exception {
        forwardTo(ip(10, 0, 2, 2));
        final var neighbors = sw.pipeline.control().neighborEntries();
        final var tm = sw.pipeline.control().trafficManagerCounters();
        sw.pipeline.agent().doWork();
        assertThat(neighbors.get()).extracting(NeighborEntry::mac).contains(0x0200_0000_0202L, 0x0200_0000_0302L);
        assertThat(tm.get().queue(1, 0, io.asicemu.tm.counter.QueueStat.PACKETS))
                .isEqualTo(1);
    }

    @Test
    void shouldSendPacketOutOfPortOrThroughIngressWhenControllerInjects() {
        final byte[] frame = Frames.udp4(0x0200_0000_0909L, ROUTER, ip(10, 0, 3, 1), ip(10, 0, 3, 9), 64, 10);
        sw.pipeline.control().cpuPort().packetOut(frame, sw.pipeline.control().portIndex("Ethernet8"));
        sw.run();
        assertThat(sw.take("Ethernet8")).containsExactly(frame);
        sw.pipeline
                .control()
                .cpuPort()
                .packetOutThroughIngress(Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(10, 0, 2, 2), 64, 10), 0);
        sw.run();
        assertThat(sw.take("Ethernet4")).hasSize(1);
    }

    @Test
    void shouldCountPerPortWithSaiNamesWhenTrafficPasses() {
        forwardTo(ip(10, 0, 2, 2));
        final var counters = sw.pipeline.control().counters();
        assertThat(counters.port("Ethernet0", "SAI_PORT_STAT_IF_IN_UCAST_PKTS")).isEqualTo(1);
        assertThat(counters.port("Ethernet4", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                .isEqualTo(1);
        assertThat(counters.port("Ethernet4", "SAI_PORT_STAT_IF_OUT_OCTETS")).isEqualTo(60);
        assertThat(counters.ports()).containsOnlyKeys("Ethernet0", "Ethernet4", "Ethernet8");
    }
}
