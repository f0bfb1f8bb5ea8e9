package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.Background;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real zebra (Debian's FRR, {@code -M dplane_fpm_nl}, configured as SONiC's templates do: {@code no fpm
 * use-next-hop-groups}) and staticd, in a network namespace of their own with two veth ports named as SONiC's, streaming
 * to the FPM listener. The listener's socket is opened in that namespace by the test thread (setns,
 * {@link NamespacedThread}), so zebra connects to 127.0.0.1 of its own namespace as it does in the appliance's
 * container; nothing of the host's addresses or routes is touched, and no forwarding process sits between them.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZebraFpmNetnsTest {
    private static final Duration GRACE = Duration.ofSeconds(8);
    private static final long ROUTES_WAIT_MS = 30_000;
    private static final Path ZEBRA = Path.of("/usr/lib/frr/zebra");
    private static final Path STATICD = Path.of("/usr/lib/frr/staticd");
    private static final String STATIC_ROUTES = """
            ip route 10.10.0.0/24 10.0.1.2
            ip route 10.20.0.0/24 10.0.1.2
            ip route 10.20.0.0/24 10.0.2.2
            ip route 10.30.0.0/24 blackhole
            ipv6 route 2001:db8:9::/48 2001:db8:1::2
            """;

    private final RecordingSink sink = new RecordingSink();
    private NetnsLab lab;
    private Netns router;
    private Path frrDir;
    private FpmServer server;
    private final java.util.List<Background> daemons = new java.util.ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        assertThat(ZEBRA).as("Debian's frr (.ci/run installs it)").isExecutable();
        lab = NetnsLab.create();
        router = lab.namespace("rt");
        final Netns neighbors = lab.namespace("nb");
        // no link-local addresses on the ports: zebra would announce fe80::/64 through whichever port it saw last,
        // a different one after each restart (a real change from zebra, but one this test's assertions would chase)
        router.execOk("sysctl", "-q", "-w", "net.ipv6.conf.default.addr_gen_mode=1");
        lab.link(router, "Ethernet0", neighbors, "n0", Offloads.KERNEL_DEFAULT, 1500);
        lab.link(router, "Ethernet4", neighbors, "n4", Offloads.KERNEL_DEFAULT, 1500);
        router.addAddress("Ethernet0", "10.0.1.1/24");
        router.addAddress("Ethernet4", "10.0.2.1/24");
        router.execOk("ip", "addr", "add", "2001:db8:1::1/64", "dev", "Ethernet0", "nodad");
        neighbors.addAddress("n0", "10.0.1.2/24");
        neighbors.addAddress("n4", "10.0.2.2/24");
        neighbors.execOk("ip", "addr", "add", "2001:db8:1::2/64", "dev", "n0", "nodad");
        // zebra drops to user frr: its pid files and sockets live in a directory frr owns
        frrDir = Files.createTempDirectory(
                "asicemu-fpm-frr-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Commands.runOrFail("chown", "frr:frr", frrDir.toString());
        final String namespace = router.name();
        server = NamespacedThread.callIn(
                namespace,
                () -> FpmServer.start(
                        FpmServer.Settings.defaults()
                                .withAddress(new InetSocketAddress("127.0.0.1", 0))
                                .withGracePeriod(GRACE)
                                .withInterfaceNames(new IpLinkNames(namespace)),
                        sink));
    }

    @AfterEach
    void tearDown() throws Exception {
        for (final Background daemon : daemons) {
            daemon.close();
        }
        if (server != null) {
            server.close();
        }
        if (lab != null) {
            lab.close();
        }
        if (frrDir != null) {
            Commands.runQuietly("rm", "-rf", frrDir.toString());
        }
    }

    /** Starts zebra and staticd with {@code staticRoutes}; both are killed (SIGKILL) by {@link #killDaemons()}. */
    private void startDaemons(final String staticRoutes) throws Exception {
        final Path zebraConf = Files.writeString(
                frrDir.resolve("zebra.conf"),
                "hostname fpm-test\nno fpm use-next-hop-groups\nfpm address 127.0.0.1 port " + server.port() + "\n");
        final Path staticdConf = Files.writeString(frrDir.resolve("staticd.conf"), staticRoutes);
        final Path zserv = frrDir.resolve("zserv.api");
        Files.deleteIfExists(zserv); // a killed zebra's socket file
        daemons.add(router.start(Duration.ofSeconds(170), daemon(ZEBRA, zebraConf, "-M", "dplane_fpm_nl")));
        // staticd started before zebra listens retries only after its reconnect delay
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(zserv) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(zserv).as("zebra's API socket").exists();
        daemons.add(router.start(Duration.ofSeconds(170), daemon(STATICD, staticdConf)));
    }

    private String[] daemon(final Path binary, final Path conf, final String... extra) {
        final String name = binary.getFileName().toString();
        final List<String> command = new java.util.ArrayList<>(List.of(
                binary.toString(),
                "-f",
                conf.toString(),
                "-i",
                frrDir.resolve(name + ".pid").toString(),
                "-z",
                frrDir.resolve("zserv.api").toString(),
                "--vty_socket",
                frrDir.toString(),
                "-P",
                "0"));
        command.addAll(List.of(extra));
        return command.toArray(String[]::new);
    }

    private void killDaemons() {
        for (final Background daemon : daemons) {
            daemon.close(); // SIGKILL: zebra crashes, it does not say goodbye
        }
        daemons.clear();
    }

    private void vtysh(final String... commands) {
        final List<String> command = new java.util.ArrayList<>(List.of("vtysh", "--vty_socket", frrDir.toString()));
        for (final String line : commands) {
            command.add("-c");
            command.add(line);
        }
        Commands.run(Duration.ofSeconds(30), command).requireSuccess();
    }

    private static NextHop hop(final String gateway, final String ifname) throws Exception {
        return new NextHop(gateway == null ? null : InetAddress.getByName(gateway), ifname, 1);
    }

    private boolean holdsAll(final RecordingSink s, final String... prefixes) {
        for (final String prefix : prefixes) {
            if (s.route(prefix) == null) {
                return false;
            }
        }
        return true;
    }

    @Test
    void shouldReceiveStaticRoutesWithdrawOneAndReconcileAfterZebraRestarts() throws Exception {
        startDaemons(STATIC_ROUTES);
        assertThat(sink.await(
                        ROUTES_WAIT_MS,
                        s -> holdsAll(
                                        s,
                                        "10.10.0.0/24",
                                        "10.20.0.0/24",
                                        "10.30.0.0/24",
                                        "2001:db8:9::/48",
                                        "10.0.1.0/24")
                                && s.route("10.20.0.0/24").nextHops().size() == 2))
                .as("routes from zebra; sink saw %s", sink.calls())
                .isTrue();

        assertThat(sink.route("10.10.0.0/24"))
                .isEqualTo(new Route(
                        RoutePrefix.parse("10.10.0.0/24"),
                        Route.Type.UNICAST,
                        196,
                        20,
                        List.of(hop("10.0.1.2", "Ethernet0"))));
        final Route ecmp = sink.route("10.20.0.0/24");
        assertThat(ecmp.nextHops())
                .containsExactlyInAnyOrder(hop("10.0.1.2", "Ethernet0"), hop("10.0.2.2", "Ethernet4"));
        assertThat(sink.route("10.30.0.0/24"))
                .isEqualTo(new Route(RoutePrefix.parse("10.30.0.0/24"), Route.Type.BLACKHOLE, 196, 20, List.of()));
        assertThat(sink.route("2001:db8:9::/48").nextHops()).containsExactly(hop("2001:db8:1::2", "Ethernet0"));
        assertThat(sink.route("10.0.1.0/24").nextHops()).containsExactly(hop(null, "Ethernet0"));

        final ApplDbRoutes appl = new ApplDbRoutes(ProtocolNames.debianBookworm());
        final ApplDbRoutes.Write write = appl.forReplace(ecmp);
        final String gateways =
                ecmp.nextHops().getFirst().gateway().getHostAddress().equals("10.0.1.2")
                        ? "10.0.1.2,10.0.2.2"
                        : "10.0.2.2,10.0.1.2";
        assertThat(write.key()).isEqualTo("ROUTE_TABLE:10.20.0.0/24");
        assertThat(write.fields())
                .containsEntry("protocol", "0xc4")
                .containsEntry("nexthop", gateways)
                .containsEntry("ifname", gateways.startsWith("10.0.1") ? "Ethernet0,Ethernet4" : "Ethernet4,Ethernet0")
                .containsEntry("weight", "1,1");

        // staticd drops one: zebra withdraws it
        vtysh("configure terminal", "no ip route 10.10.0.0/24 10.0.1.2");
        assertThat(sink.await(ROUTES_WAIT_MS, s -> s.route("10.10.0.0/24") == null))
                .isTrue();
        assertThat(sink.calls()).contains("withdraw 10.10.0.0/24");

        // zebra (and staticd) crash; while they are down the blackhole leaves the configuration
        final int before = sink.calls().size();
        killDaemons();
        assertThat(sink.await(ROUTES_WAIT_MS, s -> s.calls().contains("disconnected")))
                .isTrue();
        assertThat(sink.route("10.30.0.0/24"))
                .as("routes stay while zebra is away")
                .isNotNull();
        // The killed zebra's routes stay in the namespace's kernel table; a restarted zebra would read them back and
        // delete the blackhole itself. Flushing them makes the restart one after which zebra knows nothing of the
        // removed route (as after a container restart), so only the listener's reconciliation can remove it.
        router.execOk("ip", "nexthop", "flush"); // zebra's kernel next-hop objects, and the routes through them
        for (final String family : List.of("-4", "-6")) {
            router.exec(Duration.ofSeconds(10), "ip", family, "route", "flush", "proto", "196"); // exit 2: none left
            assertThat(router.execOk("ip", family, "route", "show", "proto", "196")
                            .stdout())
                    .isBlank();
        }
        startDaemons(STATIC_ROUTES
                .replace("ip route 10.30.0.0/24 blackhole\n", "")
                .replace("ip route 10.10.0.0/24 10.0.1.2\n", ""));

        assertThat(sink.await(
                        GRACE.toMillis() + ROUTES_WAIT_MS,
                        s -> s.calls().size() > before + 2
                                && s.calls().getLast().equals("reconciled")))
                .as("reconciled; sink saw %s", sink.calls())
                .isTrue();
        final List<String> after = sink.calls().subList(before, sink.calls().size());
        final long reconnectNs = sink.nanosOf(before + 1);
        final StringBuilder timeline = new StringBuilder();
        for (int i = before; i < sink.calls().size(); i++) {
            timeline.append(String.format(
                    "%+.3f s %s%n",
                    (sink.nanosOf(i) - reconnectNs) / 1e9, sink.calls().get(i)));
        }
        System.out.println("after zebra's restart (from its reconnect):\n" + timeline);
        assertThat(after)
                .as(timeline.toString())
                .containsExactly("disconnected", "connected", "withdraw 10.30.0.0/24", "reconciled");
        assertThat(sink.nanosOf(before + 2) - reconnectNs)
                .as("withdrawn after the grace period")
                .isGreaterThanOrEqualTo(GRACE.toNanos() - TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(sink.route("10.20.0.0/24")).isEqualTo(ecmp);
        assertThat(server.counters().get(FpmCounters.Event.ROUTES_WITHDRAWN_STALE))
                .isEqualTo(1);
        assertThat(server.counters().get(FpmCounters.Event.ROUTES_UNCHANGED)).isPositive();
        assertThat(server.counters().get(FpmCounters.Event.DECODE_ERRORS)).isZero();
        assertThat(server.counters().get(FpmCounters.Event.CONNECTIONS_ACCEPTED))
                .isEqualTo(2);
    }

    /** Interface names of a namespace, from {@code ip -n <ns> -o link} (this JVM's /sys shows the host's). */
    private static final class IpLinkNames implements InterfaceNames {
        private final String namespace;
        private Map<Integer, String> names = Map.of();

        IpLinkNames(final String namespace) {
            this.namespace = namespace;
        }

        @Override
        public String nameOf(final int ifindex) {
            if (!names.containsKey(ifindex)) {
                final Map<Integer, String> read = new HashMap<>();
                for (final String line : Commands.run(
                                Duration.ofSeconds(10), List.of("ip", "-n", namespace, "-o", "link"))
                        .requireSuccess()
                        .stdout()
                        .split("\n")) {
                    final String[] parts = line.split(": ");
                    if (parts.length >= 2) {
                        read.put(Integer.parseInt(parts[0].trim()), parts[1].split("@")[0].trim());
                    }
                }
                names = read;
            }
            return names.get(ifindex);
        }
    }
}
