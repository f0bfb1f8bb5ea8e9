package io.asicemu.switchd;

import static io.asicemu.switchd.P4RuntimeClient.ipv4;
import static io.asicemu.switchd.P4RuntimeClient.mac;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.Code;
import io.asicemu.testsupport.LoopbackPorts;
import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Capture;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import p4.v1.P4RuntimeOuterClass.Update;
import picocli.CommandLine;

/**
 * {@code asic-emu run} end to end: the run command's switch on two veth links into namespaces h1 and h2, its P4Runtime
 * server on a free loopback port; a controller (generated grpc-java client) becomes primary and programs router
 * interfaces, neighbors, next hops and routes; ping and UDP then cross the switch (routed: TTL 63, router MACs, as
 * tshark reads them); and a route deleted/re-inserted by a Write takes effect for the very next datagram.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunCommandNetnsTest {
    private static final String RIF1_MAC = "02:aa:00:00:01:fe";
    private static final String RIF2_MAC = "02:aa:00:00:02:fe";
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "9100"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up", "mtu": "9100"}}}
        """;
    private static final String UDP_SEND = """
        import socket, sys
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for tag in sys.argv[3:]:
            s.sendto(tag.encode(), (sys.argv[1], int(sys.argv[2])))
        """;

    @Test
    void shouldRouteBetweenNamespacesWhenAControllerProgramsTheRunningSwitchOverP4Runtime() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final TwoHosts hosts = TwoHosts.wire(lab).routedVia(RIF1_MAC, RIF2_MAC);
            final Netns h1 = hosts.h1();
            final Netns h2 = hosts.h2();
            final String sw1 = hosts.sw1();
            final String sw2 = hosts.sw2();
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);
            final int p4rtPort = LoopbackPorts.free();
            final RunCommand run = new RunCommand();
            new CommandLine(run)
                    .parseArgs(
                            "--config",
                            config.toString(),
                            "--port-map",
                            "Ethernet0=" + sw1,
                            "--port-map",
                            "Ethernet4=" + sw2,
                            "--p4runtime-port",
                            Integer.toString(p4rtPort),
                            "--p4runtime-address",
                            "127.0.0.1",
                            "--device-id",
                            "7");
            try (LiveSwitch sw = run.start();
                    P4RuntimeClient controller = new P4RuntimeClient("127.0.0.1", p4rtPort, 7)) {
                assertThat(sw.p4runtimePort()).isEqualTo(p4rtPort);
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(5));
                sw.dataPlane().awaitIdleControl();
                assertThat(controller.arbitrate(1)).as("primary").isEqualTo(Code.OK.getNumber());
                final int port0 = sw.dataPlane().portIndex("Ethernet0");
                final int port4 = sw.dataPlane().portIndex("Ethernet4");
                controller.write(
                        P4RuntimeClient.routerInterface(1, port0, mac(RIF1_MAC)),
                        P4RuntimeClient.routerInterface(2, port4, mac(RIF2_MAC)),
                        P4RuntimeClient.neighbor(1, ipv4("10.0.1.1"), mac(h1.mac("eth1"))),
                        P4RuntimeClient.neighbor(2, ipv4("10.0.2.1"), mac(h2.mac("eth1"))),
                        P4RuntimeClient.nextHop(11, 1, ipv4("10.0.1.1")),
                        P4RuntimeClient.nextHop(12, 2, ipv4("10.0.2.1")),
                        P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.1.0"), 24, 11),
                        P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.2.0"), 24, 12));

                assertThat(h1.ping("10.0.2.1", 5)).as("h1 → h2 ping replies").isGreaterThanOrEqualTo(4);
                assertThat(h2.ping("10.0.1.1", 5)).as("h2 → h1 ping replies").isGreaterThanOrEqualTo(4);

                final Capture capture = h2.capture("eth1", "udp and dst port 7777", 1000, Duration.ofSeconds(60));
                final List<String> tags = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    tags.add("bulk" + i);
                }
                h1.python(UDP_SEND, Duration.ofSeconds(20), prepend("10.0.2.1", "7777", tags));
                // The Write returns only once the data plane applied it: the very next datagram sees it.
                final List<String> expected = new ArrayList<>(tags);
                for (int round = 0; round < 5; round++) {
                    controller.write(P4RuntimeClient.route(Update.Type.DELETE, ipv4("10.0.2.0"), 24, 0));
                    h1.python(UDP_SEND, Duration.ofSeconds(20), "10.0.2.1", "7777", "gone" + round);
                    controller.write(P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.2.0"), 24, 12));
                    h1.python(UDP_SEND, Duration.ofSeconds(20), "10.0.2.1", "7777", "back" + round);
                    expected.add("back" + round);
                }
                Thread.sleep(500);
                final Path pcap = capture.stop();
                final List<List<String>> frames = Tshark.fields(pcap, null, "ip.ttl", "eth.src", "data.data");
                assertThat(frames).allSatisfy(row -> {
                    assertThat(row.get(0)).as("routed: TTL decremented").isEqualTo("63");
                    assertThat(row.get(1))
                            .as("source MAC of router interface 2")
                            .isEqualTo(RIF2_MAC);
                });
                assertThat(frames.stream().map(row -> text(row.get(2))).toList())
                        .as("datagrams that crossed the switch")
                        .containsExactlyElementsOf(expected);
                assertThat(sw.dataPlane().loop().failure()).isNull();
            }
        }
    }

    private static String text(final String hex) {
        return new String(
                java.util.HexFormat.of().parseHex(hex.replace(":", "")), java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static String[] prepend(final String a, final String b, final List<String> rest) {
        final List<String> all = new ArrayList<>(List.of(a, b));
        all.addAll(rest);
        return all.toArray(String[]::new);
    }
}
