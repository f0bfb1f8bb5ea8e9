package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.u16;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lossless incast through the whole pipeline: the traffic manager's ingress PG 3 spills past its shared limit, so
 * the switch sends 802.1Qbb XOFF on the ingress port (reference §6.1: 01:80:C2:00:00:01, EtherType 0x8808, opcode
 * 0x0101, class-enable bit 3), and XON (quanta 0) once the egress queue drained.
 */
@Timeout(30)
class PfcGenerationTest {
    static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "DSCP_TO_TC_MAP": {"AZURE": {"3": "3"}},
         "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
         "BUFFER_POOL": {"ing": {"type": "ingress", "mode": "static", "size": "1000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ing", "size": "0", "static_th": "20000", "xoff": "100000",
                                         "xon": "2048"}},
         "BUFFER_PG": {"Ethernet0|3": {"profile": "lossless"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "pfc_enable": "3"}}}
        """;

    @Test
    void shouldSendXoffThenXonOnIngressPortWhenLosslessPgSpillsAndDrains() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            for (int i = 0; i < 40; i++) {
                sw.send(
                        "Ethernet0",
                        Frames.udp4(
                                Frames.builder()
                                        .macs(ROUTER, HOST_A)
                                        .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                                        .dscp(3),
                                1000));
            }
            sw.run();
            final List<byte[]> back = sw.take("Ethernet0");
            assertThat(back).isNotEmpty();
            final byte[] xoff = back.get(0);
            assertThat(Frames.mac(xoff, 0)).isEqualTo(0x0180_c200_0001L);
            assertThat(Frames.mac(xoff, 6)).isEqualTo(ROUTER);
            assertThat(u16(xoff, 12)).isEqualTo(0x8808);
            assertThat(u16(xoff, 14)).isEqualTo(0x0101);
            assertThat(u16(xoff, 16) & (1 << 3)).isNotZero();
            assertThat(u16(xoff, 18 + 2 * 3)).as("XOFF quanta").isPositive();
            final byte[] last = back.get(back.size() - 1);
            assertThat(u16(last, 18 + 2 * 3)).as("XON: quanta 0").isZero();
            assertThat(sw.take("Ethernet4")).as("lossless: nothing dropped").hasSize(40);
        }
    }
}
