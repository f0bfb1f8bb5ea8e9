package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.HOST_B;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.mac;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.MacControlFrames;
import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.counter.PuntReason;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Virtual-time scenarios across stages and the traffic manager: PFC pause honoured, VLAN interfaces, IP2ME. */
@Timeout(30)
class VirtualTimeScenarioTest {
    static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "VLAN": {"Vlan200": {"vlanid": "200"}},
         "VLAN_MEMBER": {"Vlan200|Ethernet8": {"tagging_mode": "tagged"}},
         "VLAN_INTERFACE": {"Vlan200": {}, "Vlan200|10.0.200.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Vlan200|10.0.200.5": {"neigh": "02:00:00:00:20:05"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "DSCP_TO_TC_MAP": {"AZURE": {"3": "3"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE"},
                          "Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}}}
        """;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);

    @AfterEach
    void close() {
        sw.close();
    }

    @Test
    void shouldHoldQueueThreeForPauseQuantaTimes512BitTimesWhenPfcArrives() {
        final byte[] pfc = new byte[60];
        final int[] quanta = {0, 0, 0, 1000, 0, 0, 0, 0};
        MacControlFrames.writePfc(MemorySegment.ofArray(pfc), 0, 0x0200_0000_0202L, 1 << 3, quanta, false);
        final long pausedAt = sw.clock.nowNs();
        sw.send("Ethernet4", pfc);
        sw.pipeline.agent().doWork();
        final byte[] lossless = Frames.udp4(
                Frames.builder()
                        .macs(ROUTER, HOST_A)
                        .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                        .dscp(3),
                100);
        final byte[] lossy = Frames.udp4(
                Frames.builder()
                        .macs(ROUTER, HOST_A)
                        .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 2))
                        .dscp(0),
                100);
        sw.send("Ethernet0", lossless);
        sw.send("Ethernet0", lossy);
        sw.run();
        final var out = sw.port("Ethernet4");
        assertThat(out.transmittedCount()).isEqualTo(2);
        // Reference §6.1/§6.2: one quantum = 512 bit times; 1000 quanta at 10 Gb/s = 51 200 ns.
        final long pauseEndNs = pausedAt + 1000L * 512 * 1000 / 10_000;
        assertThat(Frames.u32(out.transmitted(0), 30))
                .as("lossy queue 0 goes first")
                .isEqualTo(ip(192, 168, 1, 2));
        assertThat(out.transmittedTimestampNs(0)).isLessThan(pauseEndNs);
        assertThat(Frames.u32(out.transmitted(1), 30)).isEqualTo(ip(192, 168, 1, 1));
        assertThat(out.transmittedTimestampNs(1)).isGreaterThanOrEqualTo(pauseEndNs);
    }

    @Test
    void shouldRouteIntoVlanInterfaceTaggingFrameTowardsLearnedPort() {
        sw.send(
                "Ethernet8",
                Frames.udp4(
                        Frames.builder()
                                .macs(0xffff_ffff_ffffL, 0x0200_0000_2005L)
                                .vlan(200, 0)
                                .ipv4(ip(10, 0, 200, 5), ip(10, 0, 200, 255)),
                        10));
        sw.run();
        sw.take("Ethernet8");
        sw.send("Ethernet0", Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(10, 0, 200, 5), 64, 40));
        sw.run();
        final List<byte[]> out = sw.take("Ethernet8");
        assertThat(out).hasSize(1);
        assertThat(mac(out.get(0), 0)).isEqualTo(0x0200_0000_2005L);
        assertThat(mac(out.get(0), 6)).isEqualTo(ROUTER);
        assertThat(Frames.u16(out.get(0), 12)).isEqualTo(0x8100);
        assertThat(Frames.u16(out.get(0), 14) & 0xfff).isEqualTo(200);
        assertThat(out.get(0)[18 + 8] & 0xff).isEqualTo(63);
    }

    @Test
    void shouldPuntPacketsForSwitchAddressesAsIp2me() {
        sw.send("Ethernet0", Frames.udp4(ROUTER, HOST_B, ip(10, 0, 1, 2), ip(10, 0, 2, 1), 64, 10));
        sw.run();
        final int[] reason = {-1, -1};
        sw.pipeline
                .control()
                .cpuPort()
                .poll(
                        (s, o, l, port, r, ts) -> {
                            reason[0] = port;
                            reason[1] = r;
                        },
                        1);
        assertThat(reason).containsExactly(0, PuntReason.IP2ME.index());
    }
}
