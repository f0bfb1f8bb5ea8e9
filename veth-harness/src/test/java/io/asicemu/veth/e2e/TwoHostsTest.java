package io.asicemu.veth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Two hosts in namespaces ping each other and move TCP data through asic-emu routing between two subnets. */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TwoHostsTest {
    static final String ROUTER_MAC = "02:aa:00:00:00:01";

    static ConfigDb routedConfig(final int ports) {
        final StringBuilder port = new StringBuilder();
        final StringBuilder iface = new StringBuilder();
        for (int i = 0; i < ports; i++) {
            final String name = "Ethernet" + (4 * i);
            port.append(i == 0 ? "" : ",")
                    .append('"')
                    .append(name)
                    .append("\": {\"speed\": \"100000\", \"admin_status\": \"up\", \"mtu\": \"9100\"}");
            iface.append(i == 0 ? "" : ",")
                    .append('"')
                    .append(name)
                    .append("\": {}, \"")
                    .append(name)
                    .append("|10.0.")
                    .append(i + 1)
                    .append(".254/24\": {}");
        }
        return ConfigDb.parse("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"" + ROUTER_MAC
                + "\", \"standalone\": \"true\"}}, \"PORT\": {" + port + "}, \"INTERFACE\": {" + iface + "}}");
    }

    @ParameterizedTest
    @EnumSource(Offloads.class)
    void shouldPingAndMoveTcpDataBetweenHostsThroughTheSwitch(final Offloads offloads) throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h1.disableIpv6();
            h2.disableIpv6();
            final String sw1 = lab.switchLink("sw1", h1, "eth1", offloads, 1500);
            final String sw2 = lab.switchLink("sw2", h2, "eth1", offloads, 1500);
            h1.addAddress("eth1", "10.0.1.1/24");
            h2.addAddress("eth1", "10.0.2.1/24");
            h1.route("10.0.0.0/16", "10.0.1.254");
            h2.route("10.0.0.0/16", "10.0.2.254");
            try (LinuxSwitch sw = LinuxSwitch.start(
                    routedConfig(2), Map.of("Ethernet0", sw1, "Ethernet4", sw2), AfPacketConfig.defaults(), 1.0)) {
                sw.awaitPorts(2, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                final var capture = h2.capture("eth1", "tcp and src host 10.0.1.1", 100_000, Duration.ofSeconds(60));

                assertThat(h1.ping("10.0.2.1", 5)).as("ping replies").isGreaterThanOrEqualTo(4);
                final var sink = h2.tcpSink(5001, Duration.ofSeconds(40));
                Thread.sleep(300);
                final String sent = h1.tcpSend("10.0.2.1", 5001, 3_000_000, Duration.ofSeconds(40));
                final String received = sink.await(20_000).trim();
                final Path pcap = capture.stop();

                assertThat(received).isEqualTo(sent);
                final List<List<String>> frames =
                        Tshark.fields(pcap, null, "frame.len", "ip.ttl", "tcp.checksum.status", "eth.src");
                assertThat(frames).hasSizeGreaterThan(100).allSatisfy(row -> {
                    assertThat(Integer.parseInt(row.get(0))).isLessThanOrEqualTo(1514);
                    assertThat(row.get(1)).as("routed: TTL decremented").isEqualTo("63");
                    assertThat(row.get(2)).as("valid TCP checksum").isEqualTo("1");
                    assertThat(row.get(3))
                            .as("routed: source MAC is the router's")
                            .isEqualTo(ROUTER_MAC);
                });
                if (offloads == Offloads.KERNEL_DEFAULT) {
                    assertThat(sw.ports().get(sw1).rxGsoFrameCount())
                            .as("GSO super-frames segmented")
                            .isPositive();
                }
                assertThat(sw.loop().failure()).isNull();
            }
        }
    }
}
