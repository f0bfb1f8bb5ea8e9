package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.HOST_B;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.mac;
import static io.asicemu.pipeline.Frames.u16;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class L2SwitchingTest {
    static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"},
                  "Ethernet12": {"speed": "10000", "admin_status": "up"}},
         "SWITCH": {"switch": {"fdb_aging_time": "10"}},
         "VLAN": {"Vlan100": {"vlanid": "100"}},
         "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"},
                         "Vlan100|Ethernet4": {"tagging_mode": "tagged"},
                         "Vlan100|Ethernet8": {"tagging_mode": "untagged"}}}
        """;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);

    @AfterEach
    void close() {
        sw.close();
    }

    private static byte[] aToB() {
        return Frames.udp4(HOST_B, HOST_A, ip(10, 0, 0, 1), ip(10, 0, 0, 2), 64, 100);
    }

    @Test
    void shouldFloodToVlanMembersTaggingPerPortWhenDestinationIsUnknown() {
        sw.send("Ethernet0", aToB());
        sw.run();
        final List<byte[]> tagged = sw.take("Ethernet4");
        final List<byte[]> untagged = sw.take("Ethernet8");
        assertThat(tagged).hasSize(1);
        assertThat(u16(tagged.get(0), 12)).isEqualTo(0x8100);
        assertThat(u16(tagged.get(0), 14) & 0xfff).isEqualTo(100);
        assertThat(u16(tagged.get(0), 16)).isEqualTo(0x0800);
        assertThat(tagged.get(0)).hasSize(aToB().length + 4);
        assertThat(untagged).hasSize(1);
        assertThat(untagged.get(0)).isEqualTo(aToB());
        assertThat(sw.take("Ethernet12")).isEmpty();
        assertThat(sw.take("Ethernet0")).isEmpty();
    }

    @Test
    void shouldUnicastToLearnedPortWhenSourceWasSeenBefore() {
        sw.send("Ethernet0", aToB());
        sw.run();
        sw.take("Ethernet4");
        sw.take("Ethernet8");
        sw.send("Ethernet8", Frames.udp4(HOST_A, HOST_B, ip(10, 0, 0, 2), ip(10, 0, 0, 1), 64, 100));
        sw.run();
        assertThat(sw.take("Ethernet0")).hasSize(1);
        assertThat(sw.take("Ethernet4")).isEmpty();
        sw.send("Ethernet0", aToB());
        sw.run();
        assertThat(sw.take("Ethernet8")).hasSize(1);
        assertThat(sw.take("Ethernet4")).isEmpty();
    }

    @Test
    void shouldPopTagAndPadWhenForwardingTaggedFrameToUntaggedMember() {
        sw.send("Ethernet0", aToB());
        sw.run();
        sw.take("Ethernet4");
        sw.take("Ethernet8");
        final byte[] tagged = Frames.udp4(
                Frames.builder().macs(HOST_A, HOST_B).vlan(100, 5).ipv4(ip(10, 0, 0, 2), ip(10, 0, 0, 1)), 4);
        sw.send("Ethernet4", tagged);
        sw.run();
        final List<byte[]> out = sw.take("Ethernet0");
        assertThat(out).hasSize(1);
        assertThat(u16(out.get(0), 12)).isEqualTo(0x0800);
        assertThat(out.get(0)).hasSize(60);
        assertThat(mac(out.get(0), 0)).isEqualTo(HOST_A);
    }

    @Test
    void shouldDropTaggedFrameWhenPortIsNotMemberOfItsVlan() {
        sw.send(
                "Ethernet4",
                Frames.udp4(
                        Frames.builder().macs(HOST_A, HOST_B).vlan(200, 0).ipv4(ip(10, 0, 0, 2), ip(10, 0, 0, 1)), 10));
        sw.send("Ethernet12", aToB());
        sw.run();
        assertThat(sw.counter("Ethernet4", "SAI_IN_DROP_REASON_INGRESS_VLAN_FILTER"))
                .isEqualTo(1);
        assertThat(sw.counter("Ethernet12", "SAI_IN_DROP_REASON_VLAN_TAG_NOT_ALLOWED"))
                .isEqualTo(1);
        assertThat(sw.counter("Ethernet4", "SAI_PORT_STAT_IF_IN_DISCARDS")).isEqualTo(1);
    }

    @Test
    void shouldFloodAgainWhenLearnedEntryAgedOut() {
        sw.send("Ethernet8", Frames.udp4(HOST_A, HOST_B, ip(10, 0, 0, 2), ip(10, 0, 0, 1), 64, 10));
        sw.run();
        sw.take("Ethernet0");
        sw.take("Ethernet4");
        sw.clock.advanceNs(9_000_000_000L);
        sw.send("Ethernet0", aToB());
        sw.run();
        assertThat(sw.take("Ethernet4")).as("still learned at 9 s").isEmpty();
        sw.take("Ethernet8");
        sw.clock.advanceNs(11_000_000_000L);
        sw.pipeline.agent().doWork();
        sw.send(
                "Ethernet4",
                Frames.udp4(
                        Frames.builder()
                                .macs(HOST_B, 0x0200_0000_0999L)
                                .vlan(100, 0)
                                .ipv4(ip(10, 0, 0, 9), ip(10, 0, 0, 2)),
                        10));
        sw.run();
        assertThat(sw.take("Ethernet0")).as("aged out after 10 s: flooded").hasSize(1);
        assertThat(sw.take("Ethernet8")).hasSize(1);
    }
}
