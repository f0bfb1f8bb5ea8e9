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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * A port the switch reopens while it runs (its link's MTU grew past what its rings were sized for) is still given back
 * as the switch first found it when the switch closes (issue 43): the reopen used to forget the state captured at the
 * first attach and capture the switch's own settings instead (up, IPv6 off), which the close then "restored".
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PortReopenRestoreNetnsTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "9100"}}}
        """;

    private static String sysctl(final String ifName, final String key) throws Exception {
        return Files.readString(Path.of("/proc/sys/net/ipv6/conf", ifName, key)).trim();
    }

    private static boolean adminUp(final String ifName) throws Exception {
        final int flags = Integer.decode(
                Files.readString(Path.of("/sys/class/net", ifName, "flags")).trim());
        return (flags & 1) != 0;
    }

    @Test
    void shouldRestoreAReopenedPortAsItWasBeforeTheSwitchFirstTookIt() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            Commands.runOrFail("ip", "link", "set", sw1, "down");
            Files.writeString(Path.of("/proc/sys/net/ipv6/conf", sw1, "disable_ipv6"), "0");
            Files.writeString(Path.of("/proc/sys/net/ipv6/conf", sw1, "addr_gen_mode"), "0");
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);
            final RunCommand run = new RunCommand();
            new CommandLine(run)
                    .parseArgs(
                            "--config", config.toString(), "--port-map", "Ethernet0=" + sw1, "--p4runtime-port", "0");
            try (LiveSwitch sw = run.start()) {
                sw.dataPlane().awaitPorts(1, Duration.ofSeconds(10));
                final Object first = sw.dataPlane().ports().get(sw1);
                // past the 1500 the rings were sized for: the port is closed and opened again
                Commands.runOrFail("ip", "link", "set", sw1, "mtu", "9000");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while ((sw.dataPlane().ports().get(sw1) == null
                                || sw.dataPlane().ports().get(sw1) == first)
                        && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(sw.dataPlane().ports().get(sw1))
                        .as("the port reopened")
                        .isNotNull()
                        .isNotSameAs(first);
                assertThat(adminUp(sw1)).as("up while taken").isTrue();
                assertThat(sysctl(sw1, "disable_ipv6")).isEqualTo("1");
            }
            assertThat(adminUp(sw1))
                    .as("down again, as before the switch took it")
                    .isFalse();
            assertThat(sysctl(sw1, "disable_ipv6")).as("disable_ipv6 as before").isEqualTo("0");
            assertThat(sysctl(sw1, "addr_gen_mode"))
                    .as("addr_gen_mode as before")
                    .isEqualTo("0");
        }
    }
}
