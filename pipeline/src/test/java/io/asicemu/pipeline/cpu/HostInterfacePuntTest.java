package io.asicemu.pipeline.cpu;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.counter.PuntReason;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a standalone switch punts when host interfaces drain its CPU port: echo requests to its addresses go to the
 * kernel instead of being answered by the data path; ARP replies to it are learned by the data path and copied to
 * the kernel; ARP requests stay answered by the data path alone.
 */
@Timeout(30)
class HostInterfacePuntTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up", "mtu": "1500"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up", "mtu": "1500"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}}}
        """;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);
    private final List<Integer> reasons = new ArrayList<>();
    private final List<Integer> ingressPorts = new ArrayList<>();

    @AfterEach
    void close() {
        sw.close();
    }

    private void drain() {
        sw.pipeline.agent().cpuPort().poll(this::onPunt, 100);
    }

    private void onPunt(
            final MemorySegment segment,
            final long offset,
            final int length,
            final int ingressPort,
            final int reason,
            final long timestampNs) {
        reasons.add(reason);
        ingressPorts.add(ingressPort);
    }

    private static byte[] echoToSwitch() {
        final byte[] buf = new byte[256];
        final int n = Frames.builder()
                .macs(ROUTER, HOST_A)
                .ipv4(ip(10, 0, 1, 2), ip(10, 0, 1, 1))
                .buildIcmpEcho(MemorySegment.ofArray(buf), 0, 7, 1, 32);
        return java.util.Arrays.copyOf(buf, n);
    }

    @Test
    void shouldAnswerEchoInTheDataPathWhenNoHostInterfaces() {
        sw.send("Ethernet0", echoToSwitch());
        sw.run();
        drain();
        assertThat(reasons).isEmpty();
        assertThat(sw.take("Ethernet0")).as("the data path's echo reply").hasSize(1);
    }

    @Test
    void shouldPuntEchoToTheKernelWhenHostInterfacesAreOn() {
        sw.pipeline.agent().cpuPort().hostInterfaces(true);
        sw.send("Ethernet0", echoToSwitch());
        sw.run();
        drain();
        assertThat(reasons).containsExactly(PuntReason.IP2ME.index());
        assertThat(ingressPorts).containsExactly(sw.pipeline.control().portIndex("Ethernet0"));
        assertThat(sw.take("Ethernet0")).as("no answer from the data path").isEmpty();
    }

    private static byte[] echoTo(final int dst) {
        final byte[] buf = new byte[256];
        final int n = Frames.builder()
                .macs(ROUTER, HOST_A)
                .ipv4(ip(10, 0, 1, 2), dst)
                .buildIcmpEcho(MemorySegment.ofArray(buf), 0, 7, 1, 32);
        return java.util.Arrays.copyOf(buf, n);
    }

    @Test
    void shouldTreatALoopbackAddressAsTheSwitchsOwnWhenConfiguredOrAddedAtRunTime() {
        sw.pipeline.agent().cpuPort().hostInterfaces(true);
        sw.send("Ethernet0", echoTo(ip(10, 1, 0, 1)));
        sw.run();
        drain();
        assertThat(reasons).as("no route to it yet").isEmpty();
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_LPM4_MISS")).isEqualTo(1);

        io.asicemu.pipeline.config.SwitchConfig.of(sw.pipeline.control())
                .reconfigure(io.asicemu.pipeline.config.ConfigDb.parse(CONFIG.replace(
                        "\"INTERFACE\"",
                        "\"LOOPBACK_INTERFACE\": {\"Loopback0\": {}, \"Loopback0|10.1.0.1/32\": {}}, \"INTERFACE\"")));
        sw.run();
        sw.send("Ethernet0", echoTo(ip(10, 1, 0, 1)));
        sw.run();
        drain();
        assertThat(reasons).as("to the switch's kernel, through any port").containsExactly(PuntReason.IP2ME.index());

        io.asicemu.pipeline.config.SwitchConfig.of(sw.pipeline.control())
                .reconfigure(io.asicemu.pipeline.config.ConfigDb.parse(CONFIG));
        sw.run();
        reasons.clear();
        sw.send("Ethernet0", echoTo(ip(10, 1, 0, 1)));
        sw.run();
        drain();
        assertThat(reasons).as("removed again").isEmpty();
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_LPM4_MISS")).isEqualTo(2);
    }

    @Test
    void shouldRefuseALoopbackKeyThatIsNotLoopbackN() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.asicemu.pipeline.config.ConfigCompiler.compile(
                        io.asicemu.pipeline.config.ConfigDb.parse(CONFIG.replace(
                                "\"INTERFACE\"", "\"LOOPBACK_INTERFACE\": {\"lo|10.1.0.1/32\": {}}, \"INTERFACE\"")),
                        io.asicemu.pipeline.table.PipelineSizing.defaults(),
                        java.util.Map.of()))
                .hasMessageStartingWith("LOOPBACK_INTERFACE|lo|10.1.0.1/32|: keys are Loopback<n>");
    }

    @Test
    void shouldLearnAndCopyArpRepliesButAnswerArpRequestsAloneWhenHostInterfacesAreOn() {
        sw.pipeline.agent().cpuPort().hostInterfaces(true);
        final long neighbor = 0x0200_0000_0107L;
        // the kernel asked (its request left through packet-out); the neighbor's reply comes in
        sw.send("Ethernet0", Frames.arp(ROUTER, neighbor, 2, neighbor, ip(10, 0, 1, 7), ROUTER, ip(10, 0, 1, 1)));
        sw.run();
        drain();
        assertThat(reasons).as("a copy for the kernel").containsExactly(PuntReason.ARP_RESPONSE.index());
        assertThat(sw.counter("Ethernet0", "SAI_HOSTIF_TRAP_TYPE_ARP_RESPONSE")).isEqualTo(1);
        // the data path learned it too: traffic to the neighbor is forwarded without an ARP request of its own
        sw.send("Ethernet4", Frames.udp4(ROUTER, HOST_A, ip(10, 0, 2, 2), ip(10, 0, 1, 7), 64, 100));
        sw.run();
        final List<byte[]> out = sw.take("Ethernet0");
        assertThat(out).hasSize(1);
        assertThat(Frames.mac(out.get(0), 0)).isEqualTo(neighbor);

        reasons.clear();
        sw.send("Ethernet0", Frames.arp(0xffff_ffff_ffffL, neighbor, 1, neighbor, ip(10, 0, 1, 7), 0, ip(10, 0, 1, 1)));
        sw.run();
        drain();
        assertThat(reasons)
                .as("requests are not shown to the kernel: one answer")
                .isEmpty();
        final List<byte[]> answers = sw.take("Ethernet0");
        assertThat(answers).hasSize(1);
        assertThat(Frames.u16(answers.get(0), 20))
                .as("the data path's ARP reply")
                .isEqualTo(2);
    }
}
