package io.asicemu.switchd.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.switchd.Main;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code asic-emu run} as a BGP router, end to end, in namespaces the test makes: the switch process runs in {@code
 * leaf} (ports eth1 → spine, eth2 → host h1), its config has BGP_NEIGHBOR, so it starts its host interfaces, Debian's
 * FRR configured from its CONFIG_DB, and the FPM listener; a plain FRR router in {@code spine} (another vendor's node)
 * peers with it. The spine's loopback, learned over BGP and streamed by zebra over FPM, is in the emulated ASIC's
 * route table: h1's ping to it crosses the switch's data path both ways (the spine routes back over the host subnet
 * the leaf announces with its loopback, never the peering link); APPL_DB shows the route as fpmsyncd writes it;
 * stopping the switch stops FRR.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BgpLeafNetnsTest {
    private static final String LEAF = """
        {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "mac": "02:aa:00:00:00:01", "bgp_asn": "65101"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "1500"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up", "mtu": "1500"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}, "Ethernet4": {}, "Ethernet4|192.168.1.1/24": {}},
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
    void shouldForwardOverRoutesLearnedByBgpAndStreamedByZebra() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns leaf = lab.namespace("leaf");
            final Netns spine = lab.namespace("spine");
            final Netns h1 = lab.namespace("h1");
            lab.link(leaf, "eth1", spine, "eth1", Offloads.CONTAINERLAB, 1500);
            lab.link(leaf, "eth2", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            leaf.execOk("ip", "link", "set", "lo", "up");
            spine.execOk("ip", "link", "set", "lo", "up");
            spine.execOk("ip", "addr", "add", "10.2.0.1/32", "dev", "lo");
            spine.addAddress("eth1", "10.0.0.0/31");
            h1.addAddress("eth1", "192.168.1.2/24");
            h1.execOk("ip", "route", "add", "default", "via", "192.168.1.1");
            final Path config = lab.newFile(".json");
            Files.writeString(config, LEAF);
            final Path leafRun = Files.createTempDirectory("asicemu-frr-leaf-");
            final Path spineRun = Files.createTempDirectory("asicemu-frr-spine-");
            final int redisPort = 6379;
            final String javaBinary = ProcessHandle.current().info().command().orElseThrow();
            final long started = System.nanoTime();
            final Process sw = new ProcessBuilder(
                            "ip",
                            "netns",
                            "exec",
                            leaf.name(),
                            javaBinary,
                            "--enable-native-access=ALL-UNNAMED",
                            "-cp",
                            System.getProperty("java.class.path"),
                            Main.class.getName(),
                            "run",
                            "--config",
                            config.toString(),
                            "--port-map",
                            "Ethernet0=eth1",
                            "--port-map",
                            "Ethernet4=eth2",
                            "--p4runtime-port",
                            "0",
                            "--redis-port",
                            Integer.toString(redisPort),
                            "--frr-run-dir",
                            leafRun.toString())
                    .redirectErrorStream(true)
                    .start();
            final StringBuilder log = new StringBuilder();
            final CompletableFuture<Void> live = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r =
                        new BufferedReader(new InputStreamReader(sw.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        synchronized (log) {
                            log.append(line).append('\n');
                        }
                        if (line.contains("asic-emu live:")) {
                            live.complete(null);
                        }
                    }
                } catch (final java.io.IOException e) {
                    live.completeExceptionally(e);
                }
                live.completeExceptionally(new IllegalStateException("the switch exited"));
            });
            try (FrrDaemons spineFrr =
                    FrrDaemons.start(spineRun, SPINE, List.of("ip", "netns", "exec", spine.name()), spineRun)) {
                try {
                    live.get(60, TimeUnit.SECONDS);
                } catch (final java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                    synchronized (log) {
                        throw new AssertionError("the switch did not start:\n" + log, e);
                    }
                }
                final String leafRoutes =
                        awaitVtysh(leaf, leafRun, "show ip route bgp", "10.2.0.1/32", Duration.ofSeconds(60), log);
                final double bgpUpS = (System.nanoTime() - started) / 1e9;
                assertThat(leafRoutes).contains("via 10.0.0.0");
                final String spineRoutes =
                        awaitVtysh(spine, spineRun, "show ip route bgp", "192.168.1.0/24", Duration.ofSeconds(30), log);
                assertThat(spineRoutes)
                        .as("the leaf announces its loopback and host subnet, not the link")
                        .contains("10.1.0.1/32")
                        .doesNotContain("10.0.0.0/31");
                // the route streamed over FPM is in the data path: h1's ping to the spine's loopback crosses the switch
                int replies = 0;
                final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (replies == 0 && System.nanoTime() - deadline < 0) {
                    replies = h1.ping("10.2.0.1", 3);
                }
                final double pingS = (System.nanoTime() - started) / 1e9;
                assertThat(replies)
                        .as("h1 → spine loopback through the emulated ASIC\n" + log)
                        .isPositive();
                System.out.printf(
                        "BgpLeafNetnsTest: switch start → BGP route at the leaf %.1f s, → first ping answered %.1f s%n",
                        bgpUpS, pingS);
                final String applDb = leaf.execOk(
                                "redis-cli",
                                "-p",
                                Integer.toString(redisPort),
                                "-n",
                                "0",
                                "hgetall",
                                "ROUTE_TABLE:10.2.0.1")
                        .stdout();
                assertThat(applDb)
                        .as("APPL_DB as fpmsyncd writes it")
                        .contains("nexthop\n10.0.0.0")
                        .contains("ifname\nEthernet0")
                        .contains("protocol\nbgp");
            } finally {
                sw.destroy();
                if (!sw.waitFor(10, TimeUnit.SECONDS)) {
                    sw.destroyForcibly();
                }
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
                    .as("stopping the switch stopped its FRR")
                    .isEmpty();
        }
    }

    private static String awaitVtysh(
            final Netns ns,
            final Path runDir,
            final String command,
            final String wanted,
            final Duration timeout,
            final StringBuilder log)
            throws Exception {
        final long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() - deadline < 0) {
            last = ns.exec(Duration.ofSeconds(10), "vtysh", "--vty_socket", runDir.toString(), "-c", command)
                    .stdout();
            if (last.contains(wanted)) {
                return last;
            }
            Thread.sleep(250);
        }
        synchronized (log) {
            throw new AssertionError(ns.name() + ": '" + command + "' showed no " + wanted + " within " + timeout
                    + ":\n" + last + "\nswitch log:\n" + log);
        }
    }
}
