package io.asicemu.switchd.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.routing.FpmServer;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The routing path end to end, as on a SONiC leaf: BGP (Debian's FRR, configured from CONFIG_DB by {@link
 * FrrConfig}) → zebra → FPM → the listener → {@link ProtocolRouteWriter} → the control model → the data path's route
 * table. The leaf (ASN 65101) peers with two spines that are plain FRR routers with a hand-written config (another
 * vendor's nodes, ASN 65000): both announce 10.200.0.0/24, each one prefix of its own and its loopback. Shown: both
 * sessions Established; the shared prefix forwarded as an ECMP group over both spines, each spine's own as a single
 * next hop; the leaf's loopback and host subnet reach the spines; a spine that shuts its session down loses its share
 * (the shared prefix moves to the other spine, its own prefix goes), and brought back it is ECMP again. The times are
 * printed for the notes.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BgpFpmNetnsTest {
    private static final Duration LIFETIME = Duration.ofSeconds(170);
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final List<String> BOTH_SPINES = List.of("10.0.0.0", "10.0.0.2");

    @Test
    void shouldForwardWhatBgpChoseAndFollowASpineThatGoesAndComesBack() throws Exception {
        try (BgpFabric fabric = new BgpFabric(BgpFabric.LEAF, 2)) {
            for (int spine = 1; spine <= 2; spine++) {
                fabric.spine(spine).netns().addAddress("lo", "10.2.0." + spine + "/32");
                fabric.startSpine(spine, BgpFabric.spineBgpd(spine), LIFETIME);
            }
            final long startNs = System.nanoTime();
            final FpmServer server = fabric.startLeaf(LIFETIME);
            final Duration established =
                    fabric.await("both sessions Established", () -> fabric.leafSessionsEstablished() == 2, BOUND);
            final Duration routed = fabric.awaitDataPath(
                    "10.200.0.0/24 over both spines",
                    () -> fabric.nextHopsFor("10.200.0.9").equals(BOTH_SPINES)
                            && fabric.nextHopsFor("10.201.0.9").equals(List.of("10.0.0.0"))
                            && fabric.nextHopsFor("10.202.0.9").equals(List.of("10.0.0.2")),
                    BOUND);
            assertThat(fabric.nextHopsFor("10.2.0.1")).as("spine1's loopback").containsExactly("10.0.0.0");
            assertThat(fabric.nextHopsFor("10.2.0.2")).as("spine2's loopback").containsExactly("10.0.0.2");
            assertThat(fabric.nextHopsFor("10.1.0.1"))
                    .as("the loopback's connected route zebra sends is left to the config's local route")
                    .containsExactly("local");
            assertThat(fabric.writer().skippedOwn()).isEqualTo(1);
            assertThat(fabric.writer().refused()).isEmpty();

            for (int spine = 1; spine <= 2; spine++) {
                final BgpFabric.Frr frr = fabric.spine(spine);
                fabric.await(
                        "the leaf's loopback and hosts' subnet at spine" + spine,
                        () -> {
                            final String routes = BgpFabric.vtysh(frr, "show ip route");
                            return routes.contains("B>* 10.1.0.1/32") && routes.contains("B>* 192.168.1.0/24");
                        },
                        BOUND);
            }

            final long shutNs = System.nanoTime();
            BgpFabric.vtysh(fabric.spine(1), "configure terminal", "router bgp 65000", "neighbor 10.0.0.1 shutdown");
            final Duration failover = fabric.awaitDataPath(
                    "10.200.0.0/24 over spine2 alone",
                    () -> fabric.nextHopsFor("10.200.0.9").equals(List.of("10.0.0.2"))
                            && fabric.nextHopsFor("10.201.0.9").isEmpty(),
                    BOUND);
            final Duration failoverFromShut = Duration.ofNanos(System.nanoTime() - shutNs);
            assertThat(fabric.nextHopsFor("10.202.0.9")).containsExactly("10.0.0.2");
            assertThat(fabric.leafSessionsEstablished()).isEqualTo(1);

            final long restoreNs = System.nanoTime();
            BgpFabric.vtysh(fabric.spine(1), "configure terminal", "router bgp 65000", "no neighbor 10.0.0.1 shutdown");
            fabric.awaitDataPath(
                    "10.200.0.0/24 over both spines again",
                    () -> fabric.nextHopsFor("10.200.0.9").equals(BOTH_SPINES)
                            && fabric.nextHopsFor("10.201.0.9").equals(List.of("10.0.0.0")),
                    BOUND);
            final Duration restored = Duration.ofNanos(System.nanoTime() - restoreNs);
            assertThat(fabric.writer().refused()).isEmpty();

            System.out.printf(
                    "BgpFpmNetnsTest: leaf started -> both sessions Established %d ms -> routes in the data path %d ms"
                            + " later (%d ms from start; first route at the listener %d ms from start);"
                            + " spine1 shut -> data path on spine2 alone %d ms (%d ms polling); spine1 back -> ECMP"
                            + " again %d ms; counters %s%n",
                    established.toMillis(),
                    routed.toMillis(),
                    established.plus(routed).toMillis(),
                    (fabric.arrivals().firstRouteNs() - startNs) / 1_000_000,
                    failoverFromShut.toMillis(),
                    failover.toMillis(),
                    restored.toMillis(),
                    server.snapshot());
        }
    }
}
