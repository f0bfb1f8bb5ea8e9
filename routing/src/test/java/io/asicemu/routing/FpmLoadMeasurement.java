package io.asicemu.routing;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A measurement, not a test (docs/modules/routing.md has its command and results): N IPv4 routes with two next hops,
 * one FPM frame each as zebra sends them, over loopback TCP into the listener with a sink that only counts; the time
 * from the first byte to the last route in the sink, then the heap the held routes take, then all withdrawn.
 */
final class FpmLoadMeasurement {
    private FpmLoadMeasurement() {}

    public static void main(final String[] args) throws Exception {
        final int routes = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        final byte[] replaces = frames(routes, false);
        final byte[] withdraws = frames(routes, true);
        for (int round = 1; round <= rounds; round++) {
            final AtomicLong replaced = new AtomicLong();
            final AtomicLong withdrawn = new AtomicLong();
            final RouteSink sink = new RouteSink() {
                @Override
                public void replace(final Route route) {
                    replaced.incrementAndGet();
                }

                @Override
                public void withdraw(final RoutePrefix prefix) {
                    withdrawn.incrementAndGet();
                }
            };
            final long heapBefore = usedHeapAfterGc();
            try (FpmServer server = FpmServer.start(
                            FpmServer.Settings.defaults()
                                    .withAddress(new InetSocketAddress("127.0.0.1", 0))
                                    .withGracePeriod(Duration.ofSeconds(120))
                                    .withInterfaceNames(ifindex -> "Ethernet" + 4 * ifindex),
                            sink);
                    Socket zebra = new Socket("127.0.0.1", server.port())) {
                final OutputStream out = new BufferedOutputStream(zebra.getOutputStream(), 1 << 16);
                final long startNs = System.nanoTime();
                out.write(replaces);
                out.flush();
                while (replaced.get() < routes) {
                    Thread.onSpinWait();
                }
                final long addNs = System.nanoTime() - startNs;
                final long heapHeld = usedHeapAfterGc();
                final long withdrawStartNs = System.nanoTime();
                out.write(withdraws);
                out.flush();
                while (withdrawn.get() < routes) {
                    Thread.onSpinWait();
                }
                final long withdrawNs = System.nanoTime() - withdrawStartNs;
                final long heapAfter = usedHeapAfterGc();
                System.out.printf(
                        "round %d: %d routes added in %.1f ms (%.0f routes/s), withdrawn in %.1f ms (%.0f routes/s);"
                                + " heap %.1f MB before, %.1f MB held (%.0f B/route), %.1f MB after withdrawing%n",
                        round,
                        routes,
                        addNs / 1e6,
                        routes / (addNs / 1e9),
                        withdrawNs / 1e6,
                        routes / (withdrawNs / 1e9),
                        heapBefore / 1e6,
                        heapHeld / 1e6,
                        (double) (heapHeld - heapBefore) / routes,
                        heapAfter / 1e6);
                System.out.println("  counters: " + server.snapshot());
            }
        }
    }

    private static byte[] frames(final int routes, final boolean delete) throws Exception {
        final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        final InetAddress gatewayA = InetAddress.getByName("10.0.1.2");
        final InetAddress gatewayB = InetAddress.getByName("10.0.2.2");
        for (int i = 0; i < routes; i++) {
            final byte[] dst = {(byte) (20 + (i >>> 16)), (byte) (i >>> 8), (byte) i, 0};
            final RouteFrames.Message message = delete
                    ? RouteFrames.deleteRoute(2, 24).attribute(1, dst)
                    : RouteFrames.newRoute(2, 24, 186, 1)
                            .attribute(1, dst)
                            .u32(6, 20)
                            .multipath(
                                    List.of(new RouteFrames.Hop(gatewayA, 1, 0), new RouteFrames.Hop(gatewayB, 2, 0)));
            all.writeBytes(RouteFrames.fpm(message.bytes()));
        }
        return all.toByteArray();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
