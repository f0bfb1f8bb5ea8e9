package io.asicemu.switchd.routing;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.routing.FpmServer;
import io.asicemu.testsupport.netns.NetnsLab;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * A measurement, not a test (docs/modules/routing.md has its command and results; root, Debian's FRR): spine1 of
 * {@link BgpFabric} announces N more /24s over BGP ({@code network} statements with no import check in
 * its bgpd.conf, which bgpd reads itself: loading them is timed apart), its session to the leaf shut down while the
 * leaf starts (spine2 is not started). Then the session is opened and the leaf takes the table: the time from the
 * first route at the FPM listener to the last one in the data path, the heap used after; then the session shut again:
 * the time until the data path holds none of them, the heap after.
 */
final class BgpLoadMeasurement {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration BOUND = Duration.ofMinutes(5);

    private BgpLoadMeasurement() {}

    public static void main(final String[] args) throws Exception {
        final int routes = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final String[] networks = new String[routes];
        for (int i = 0; i < routes; i++) {
            networks[i] = prefixText(i);
        }
        final String spineConf = BgpFabric.spineBgpd(1, networks)
                .replace(
                        " neighbor 10.0.0.1 remote-as 65101\n",
                        " neighbor 10.0.0.1 remote-as 65101\n" + " neighbor 10.0.0.1 shutdown\n");
        try (BgpFabric fabric = new BgpFabric(BgpFabric.LEAF, 2)) {
            final Duration lifetime = Duration.ofMinutes(15);
            final long loadStartNs = System.nanoTime();
            fabric.startSpine(1, spineConf, lifetime);
            final Duration loaded = fabric.await(
                    "spine1's " + routes + " networks loaded",
                    () -> ribCount(BgpFabric.vtysh(fabric.spine(1), "show bgp summary json")) >= routes,
                    BOUND);
            System.out.printf(
                    "spine1: bgpd up with %d networks in its BGP table %d ms after its start (%d ms after the"
                            + " first check)%n",
                    routes, (System.nanoTime() - loadStartNs) / 1_000_000, loaded.toMillis());

            final FpmServer server = fabric.startLeaf(lifetime);
            // the leaf's connected routes come first: let them pass, so the clock starts at BGP's first route
            fabric.await(
                    "the leaf's connected routes at the listener",
                    () -> fabric.arrivals().routes() >= 4,
                    BOUND);
            Thread.sleep(2_000);
            final long heapBefore = usedHeapAfterGc();
            fabric.arrivals().restartClock();
            BgpFabric.vtysh(fabric.spine(1), "configure terminal", "router bgp 65000", "no neighbor 10.0.0.1 shutdown");
            final long openNs = System.nanoTime();
            final long base = fabric.writer().written();
            fabric.awaitDataPath(
                    "all " + routes + " routes",
                    () -> fabric.writer().written() - base >= routes && forwarded(fabric, routes) == routes,
                    BOUND);
            final long doneNs = System.nanoTime();
            final long firstNs = fabric.arrivals().firstRouteNs();
            final long lastAtListenerNs = fabric.arrivals().lastChangeNs();
            final long heapHeld = usedHeapAfterGc();
            System.out.printf(
                    "leaf: session opened -> first route at the listener %d ms -> all %d in the data path %d ms later"
                            + " (%.0f routes/s; the last at the listener %d ms after the first); %d batches; heap %.1f MB before, %.1f MB with the routes (%.0f B a"
                            + " route); refused %s%n",
                    (firstNs - openNs) / 1_000_000,
                    routes,
                    (doneNs - firstNs) / 1_000_000,
                    routes / ((doneNs - firstNs) / 1e9),
                    (lastAtListenerNs - firstNs) / 1_000_000,
                    fabric.writer().batches(),
                    heapBefore / 1e6,
                    heapHeld / 1e6,
                    (double) (heapHeld - heapBefore) / routes,
                    fabric.writer().refused());

            final long shutNs = System.nanoTime();
            BgpFabric.vtysh(fabric.spine(1), "configure terminal", "router bgp 65000", "neighbor 10.0.0.1 shutdown");
            fabric.awaitDataPath("none of the routes", () -> forwarded(fabric, routes) == 0, BOUND);
            final long emptyNs = System.nanoTime();
            final long lastWithdrawalNs = fabric.arrivals().lastChangeNs();
            fabric.writer().awaitWritten();
            final long heapAfter = usedHeapAfterGc();
            System.out.printf(
                    "leaf: session shut -> none of the %d in the data path %d ms later (%.0f withdrawals/s; the last"
                            + " withdrawal at the listener %d ms after the shutdown); heap"
                            + " %.1f MB after; listener holds %d routes; %s%n",
                    routes,
                    (emptyNs - shutNs) / 1_000_000,
                    routes / ((emptyNs - shutNs) / 1e9),
                    (lastWithdrawalNs - shutNs) / 1_000_000,
                    heapAfter / 1e6,
                    server.routesHeld(),
                    server.snapshot());
        } finally {
            NetnsLab.closeAll();
        }
    }

    /** The i-th announced prefix: /24s from 20.0.0.0 up. */
    private static String prefixText(final int i) {
        return (20 + (i >>> 16)) + "." + ((i >>> 8) & 0xff) + "." + (i & 0xff) + ".0/24";
    }

    /** @return how many of the announced prefixes the data path forwards (to any next hop). */
    private static int forwarded(final BgpFabric fabric, final int routes) {
        final ForwardingTables t = fabric.dataPath();
        int forwarded = 0;
        for (int i = 0; i < routes; i++) {
            final long address = (20L + (i >>> 16)) << 24 | ((i >>> 8) & 0xffL) << 16 | (i & 0xffL) << 8 | 1;
            if (RouteTarget.kind(t.routeTargetFor(false, 0, address)) == RouteTarget.NEXT_HOP) {
                forwarded++;
            }
        }
        return forwarded;
    }

    private static long ribCount(final String summaryJson) throws Exception {
        return JSON.readTree(summaryJson).path("ipv4Unicast").path("ribCount").asLong();
    }

    private static long usedHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
