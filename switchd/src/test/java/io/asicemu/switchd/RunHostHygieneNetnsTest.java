package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
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
import picocli.CommandLine;

/**
 * Host hygiene of {@code asic-emu run} (issue 14), on veth links the test creates: an interface that carries an
 * address is not taken unless {@code --take-addressed-ports} says so, and every interface the switch took is given
 * back as it was (administratively down again, its IPv6 settings restored) when the switch closes.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunHostHygieneNetnsTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "9100"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up", "mtu": "9100"}}}
        """;

    private static String sysctl(final String ifName, final String key) throws Exception {
        return Files.readString(Path.of("/proc/sys/net/ipv6/conf", ifName, key)).trim();
    }

    private static boolean adminUp(final String ifName) throws Exception {
        final int flags = Integer.decode(
                Files.readString(Path.of("/sys/class/net", ifName, "flags")).trim());
        return (flags & 1) != 0;
    }

    private static LiveSwitch start(final Path config, final String sw1, final String sw2, final String... extra) {
        final RunCommand run = new RunCommand();
        final List<String> args = new ArrayList<>(List.of(
                "--config",
                config.toString(),
                "--port-map",
                "Ethernet0=" + sw1,
                "--port-map",
                "Ethernet4=" + sw2,
                "--p4runtime-port",
                "0"));
        args.addAll(List.of(extra));
        new CommandLine(run).parseArgs(args.toArray(String[]::new));
        try {
            return run.start();
        } catch (final java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void shouldLeaveAnAddressedInterfaceAloneAndRestoreTheOthersOnClose() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
            // sw1 as a host would leave it: down, IPv6 on with EUI-64 addresses; sw2 carries an address
            Commands.runOrFail("ip", "link", "set", sw1, "down");
            Files.writeString(Path.of("/proc/sys/net/ipv6/conf", sw1, "disable_ipv6"), "0");
            Files.writeString(Path.of("/proc/sys/net/ipv6/conf", sw1, "addr_gen_mode"), "0");
            Commands.runOrFail("ip", "addr", "add", "10.99.0.1/24", "dev", sw2);
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);

            try (LiveSwitch sw = start(config, sw1, sw2)) {
                sw.dataPlane().awaitPorts(1, Duration.ofSeconds(10));
                assertThat(sw.dataPlane().ports()).as("ports taken").containsOnlyKeys(sw1);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!sw.dataPlane().portStates().get("Ethernet4").contains("carries")
                        && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(sw.dataPlane().portStates().get("Ethernet4"))
                        .as("the addressed one's state")
                        .contains("carries addresses [10.99.0.1]")
                        .contains("--take-addressed-ports");
                assertThat(adminUp(sw1)).as("sw1 up while taken").isTrue();
                assertThat(sysctl(sw1, "disable_ipv6")).isEqualTo("1");
                assertThat(sysctl(sw1, "addr_gen_mode")).isEqualTo("1");
                assertThat(Files.readString(Path.of("/proc/sys/net/ipv4/conf", sw1, "arp_ignore"))
                                .trim())
                        .as("the port's netdev answers no ARP: only the data plane does")
                        .isEqualTo("8");
            }
            assertThat(adminUp(sw1))
                    .as("sw1 down again after the switch closed")
                    .isFalse();
            assertThat(sysctl(sw1, "disable_ipv6")).as("disable_ipv6 restored").isEqualTo("0");
            assertThat(sysctl(sw1, "addr_gen_mode"))
                    .as("addr_gen_mode restored")
                    .isEqualTo("0");
            assertThat(Files.readString(Path.of("/proc/sys/net/ipv4/conf", sw1, "arp_ignore"))
                            .trim())
                    .as("arp_ignore restored")
                    .isEqualTo("0");

            try (LiveSwitch sw = start(config, sw1, sw2, "--take-addressed-ports")) {
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(10));
                assertThat(sw.dataPlane().ports())
                        .as("ports taken when told to")
                        .containsOnlyKeys(sw1, sw2);
            }
            assertThat(adminUp(sw2)).as("sw2 was up before, stays up").isTrue();
        }
    }
}
