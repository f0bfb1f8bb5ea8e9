package io.asicemu.switchd.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Debian's FRR started beside the switch from the CONFIG_DB it was given: in a namespace the test creates, the leaf's
 * zebra, bgpd, staticd and bfdd take the frr.conf {@link FrrConfig} renders (pushed with {@code vtysh -b}), peer over
 * a veth with a plain FRR router (another vendor's node) started the same way from a hand-written frr.conf, exchange
 * routes (the leaf announces its loopback and host subnet, not the peering link), and stop when closed.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrrDaemonsNetnsTest {
    private static final String LEAF = """
        {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "bgp_asn": "65101"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet8": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}, "Ethernet8": {}, "Ethernet8|192.168.1.1/24": {}},
         "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
         "BGP_NEIGHBOR": {"10.0.0.0": {"asn": "65000", "name": "spine1", "holdtime": "9", "keepalive": "3"}}}""";

    private static final String SPINE = """
        frr defaults traditional
        hostname spine1
        log stdout informational
        service integrated-vtysh-config
        !
        router bgp 65000
         bgp router-id 10.2.0.1
         no bgp ebgp-requires-policy
         no bgp default ipv4-unicast
         neighbor 10.0.0.1 remote-as 65101
         neighbor 10.0.0.1 timers 3 9
         address-family ipv4 unicast
          network 10.2.0.1/32
          neighbor 10.0.0.1 activate
         exit-address-family
        !
        """;

    @Test
    void shouldPeerWithAnotherRouterAndAnnounceTheLoopbackAndTheHostSubnet() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns leaf = lab.namespace("leaf");
            final Netns spine = lab.namespace("spine");
            lab.link(leaf, "Ethernet0", spine, "eth1", Offloads.KERNEL_DEFAULT, 1500);
            leaf.addAddress("Ethernet0", "10.0.0.1/31");
            spine.addAddress("eth1", "10.0.0.0/31");
            // what the host interfaces give the leaf's kernel: the loopback address and the hosts' subnet
            leaf.execOk("ip", "link", "set", "lo", "up");
            leaf.execOk("ip", "addr", "add", "10.1.0.1/32", "dev", "lo");
            leaf.execOk("ip", "link", "add", "Ethernet8", "type", "veth", "peer", "name", "h1");
            leaf.execOk("ip", "link", "set", "Ethernet8", "up");
            leaf.execOk("ip", "link", "set", "h1", "up");
            leaf.addAddress("Ethernet8", "192.168.1.1/24");
            spine.execOk("ip", "link", "set", "lo", "up");
            spine.execOk("ip", "addr", "add", "10.2.0.1/32", "dev", "lo");
            final Path leafRun = Files.createTempDirectory("asicemu-frr-leaf-");
            final Path spineRun = Files.createTempDirectory("asicemu-frr-spine-");
            try (FrrDaemons leafFrr = FrrDaemons.start(
                            leafRun,
                            FrrConfig.render(ConfigDb.parse(LEAF)),
                            List.of("ip", "netns", "exec", leaf.name()),
                            leafRun);
                    FrrDaemons spineFrr =
                            FrrDaemons.start(spineRun, SPINE, List.of("ip", "netns", "exec", spine.name()), spineRun)) {
                assertThat(leafFrr.running()).isTrue();
                assertThat(leafFrr.vtysh(Duration.ofSeconds(10), "-c", "show running-config"))
                        .as("the rendered configuration is what bgpd runs")
                        .contains("router bgp 65101")
                        .contains("neighbor 10.0.0.0 remote-as 65000")
                        .contains("network 192.168.1.0/24");
                final String spineRoutes = awaitContaining(
                        spineFrr,
                        "show ip route bgp",
                        List.of("10.1.0.1/32", "192.168.1.0/24"),
                        Duration.ofSeconds(60));
                assertThat(spineRoutes)
                        .as("the leaf announces its loopback and host subnet, not the link")
                        .doesNotContain("10.0.0.0/31");
                awaitContaining(leafFrr, "show ip route bgp", List.of("10.2.0.1/32"), Duration.ofSeconds(30));
            } finally {
                Files.walk(leafRun)
                        .sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
                Files.walk(spineRun)
                        .sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
            assertThat(leaf.exec(Duration.ofSeconds(5), "pgrep", "-f", leafRun.toString())
                            .stdout()
                            .strip())
                    .as("no daemon of the leaf is left")
                    .isEmpty();
        }
    }

    private static String awaitContaining(
            final FrrDaemons frr, final String command, final List<String> wanted, final Duration timeout)
            throws Exception {
        final long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() - deadline < 0) {
            last = frr.vtysh(Duration.ofSeconds(10), "-c", command);
            if (wanted.stream().allMatch(last::contains)) {
                return last;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("'" + command + "' did not show " + wanted + " within " + timeout + ":\n" + last);
    }
}
