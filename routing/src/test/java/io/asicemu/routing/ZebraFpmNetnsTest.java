package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.NetnsLabExtension;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
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
 * {@link io.asicemu.testsupport.netns.NamespacedThread}), so zebra connects to 127.0.0.1 of its own namespace as it does in the appliance's
 * container; nothing of the host's addresses or routes is touched, and no forwarding process sits between them.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZebraFpmNetnsTest {
    private static final Duration GRACE = Duration.ofSeconds(8);
    private static final long ROUTES_WAIT_MS = 30_000;
    private static final String STATIC_ROUTES = """
            ip route 10.10.0.0/24 10.0.1.2
            ip route 10.20.0.0/24 10.0.1.2
            ip route 10.20.0.0/24 10.0.2.2
            ip route 10.30.0.0/24 blackhole
            ipv6 route 2001:db8:9::/48 2001:db8:1::2
            """;

    private final RecordingSink sink = new RecordingSink();
    private ZebraNamespace zebra;
    private FpmServer server;

    @BeforeEach
    void setUp() throws Exception {
        zebra = new ZebraNamespace();
        server = zebra.startListener(GRACE, sink);
    }

    @AfterEach
    void tearDown() {
        if (zebra != null) {
            zebra.close(); // the daemons, the listener, both namespaces, the daemons' directory
        }
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
        zebra.startDaemons(STATIC_ROUTES, Duration.ofSeconds(170));
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
        zebra.vtysh("configure terminal", "no ip route 10.10.0.0/24 10.0.1.2");
        assertThat(sink.await(ROUTES_WAIT_MS, s -> s.route("10.10.0.0/24") == null))
                .isTrue();
        assertThat(sink.calls()).contains("withdraw 10.10.0.0/24");

        // zebra (and staticd) crash; while they are down the blackhole leaves the configuration
        final int before = sink.calls().size();
        zebra.killDaemons();
        assertThat(sink.await(ROUTES_WAIT_MS, s -> s.calls().contains("disconnected")))
                .isTrue();
        assertThat(sink.route("10.30.0.0/24"))
                .as("routes stay while zebra is away")
                .isNotNull();
        // The killed zebra's routes stay in the namespace's kernel table; a restarted zebra would read them back and
        // delete the blackhole itself. Flushing them makes the restart one after which zebra knows nothing of the
        // removed route (as after a container restart), so only the listener's reconciliation can remove it.
        zebra.router().execOk("ip", "nexthop", "flush"); // zebra's kernel next-hop objects, and the routes through them
        for (final String family : List.of("-4", "-6")) {
            zebra.router()
                    .exec(Duration.ofSeconds(10), "ip", family, "route", "flush", "proto", "196"); // exit 2: none left
            assertThat(zebra.router()
                            .execOk("ip", family, "route", "show", "proto", "196")
                            .stdout())
                    .isBlank();
        }
        zebra.startDaemons(
                STATIC_ROUTES
                        .replace("ip route 10.30.0.0/24 blackhole\n", "")
                        .replace("ip route 10.10.0.0/24 10.0.1.2\n", ""),
                Duration.ofSeconds(170));

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
}
