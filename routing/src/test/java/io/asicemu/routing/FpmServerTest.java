package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The listener over real loopback TCP: framing, the one-connection policy, counted skips and reconciliation. */
@Timeout(30)
class FpmServerTest {
    private static final long WAIT_MS = 5_000;

    private final RecordingSink sink = new RecordingSink();
    private FpmServer server;

    private FpmServer start(final Duration grace) throws Exception {
        server = FpmServer.start(
                FpmServer.Settings.defaults()
                        .withAddress(new InetSocketAddress("127.0.0.1", 0))
                        .withGracePeriod(grace)
                        .withInterfaceNames(Map.of(3, "Ethernet0")::get),
                sink);
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Socket connect() throws IOException {
        final Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static byte[] route(final String dst, final int length) throws Exception {
        return RouteFrames.fpm(RouteFrames.newRoute(2, length, 186, 1)
                .attribute(1, InetAddress.getByName(dst).getAddress())
                .u32(4, 3)
                .attribute(5, InetAddress.getByName("10.0.0.2").getAddress())
                .bytes());
    }

    private static byte[] delete(final String dst, final int length) throws Exception {
        return RouteFrames.fpm(RouteFrames.deleteRoute(2, length)
                .attribute(1, InetAddress.getByName(dst).getAddress())
                .bytes());
    }

    private void awaitCounter(final FpmCounters.Event event, final long value) throws InterruptedException {
        final long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (server.counters().get(event) < value && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(server.counters().get(event)).as(event.name()).isEqualTo(value);
    }

    private static boolean closedByPeer(final Socket socket) throws IOException {
        final InputStream in = socket.getInputStream();
        try {
            return in.read() == -1;
        } catch (final SocketTimeoutException e) {
            return false;
        } catch (final IOException e) {
            return true; // reset
        }
    }

    @Test
    void shouldDecodeRoutesSplitAcrossWritesAndWithdrawThem() throws Exception {
        start(Duration.ofSeconds(60));
        try (Socket zebra = connect()) {
            final OutputStream out = zebra.getOutputStream();
            final byte[] one = route("10.1.0.0", 24);
            final byte[] two = route("10.2.0.0", 24);
            final byte[] both = java.util.Arrays.copyOf(one, one.length + two.length);
            System.arraycopy(two, 0, both, one.length, two.length);
            out.write(both, 0, 7); // a header split across writes
            out.flush();
            Thread.sleep(20);
            out.write(both, 7, both.length - 7);
            out.flush();
            assertThat(sink.await(WAIT_MS, s -> s.routes().size() == 2)).isTrue();
            assertThat(sink.route("10.1.0.0/24").nextHops().getFirst().interfaceName())
                    .isEqualTo("Ethernet0");
            out.write(delete("10.1.0.0", 24));
            out.flush();
            assertThat(sink.await(WAIT_MS, s -> s.routes().size() == 1)).isTrue();
        }
        awaitCounter(FpmCounters.Event.CONNECTIONS_CLOSED, 1);
        assertThat(sink.routes()).hasSize(1); // kept while zebra is away
        assertThat(server.snapshot().routesHeld()).isEqualTo(1);
        assertThat(server.counters().get(FpmCounters.Event.FRAMES)).isEqualTo(3);
        assertThat(server.counters().get(FpmCounters.Event.ROUTES_WITHDRAWN)).isEqualTo(1);
    }

    @Test
    void shouldCountAndSkipUnknownFramesAndMessagesWithoutClosing() throws Exception {
        start(Duration.ofSeconds(60));
        try (Socket zebra = connect()) {
            final OutputStream out = zebra.getOutputStream();
            out.write(RouteFrames.fpm(2, 1, new byte[8])); // FPM version 2
            out.write(RouteFrames.fpm(1, 2, new byte[8])); // protobuf
            out.write(RouteFrames.fpm(new byte[] {1, 2, 3})); // not netlink
            out.write(RouteFrames.fpm(RouteFrames.nextHopObject(104, 9)));
            out.write(route("10.3.0.0", 16));
            out.flush();
            assertThat(sink.await(WAIT_MS, s -> s.routes().size() == 1)).isTrue();
            assertThat(server.counters().skipped(SkipReason.FPM_VERSION)).isEqualTo(1);
            assertThat(server.counters().skipped(SkipReason.FPM_NOT_NETLINK)).isEqualTo(1);
            assertThat(server.counters().skipped(SkipReason.MALFORMED)).isEqualTo(1);
            assertThat(server.counters().get(FpmCounters.Event.DECODE_ERRORS)).isEqualTo(1);
            assertThat(server.counters().skipped(SkipReason.NEXTHOP_OBJECT)).isEqualTo(1);
            zebra.setSoTimeout(300);
            assertThat(closedByPeer(zebra)).isFalse();
        }
    }

    @Test
    void shouldCountASinkThatThrowsAndGoOnWithTheNextMessages() throws Exception {
        final RecordingSink recorded = new RecordingSink();
        final java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean(true);
        server = FpmServer.start(
                FpmServer.Settings.defaults().withAddress(new InetSocketAddress("127.0.0.1", 0)), new RouteSink() {
                    @Override
                    public void replace(final Route route) {
                        if (route.prefix().equals(RoutePrefix.parse("10.6.0.0/16")) && refuse.getAndSet(false)) {
                            throw new IllegalStateException("the consumer refused it");
                        }
                        recorded.replace(route);
                    }

                    @Override
                    public void withdraw(final RoutePrefix prefix) {
                        recorded.withdraw(prefix);
                    }
                });
        try (Socket zebra = connect()) {
            zebra.getOutputStream().write(route("10.6.0.0", 16));
            zebra.getOutputStream().write(route("10.7.0.0", 16));
            zebra.getOutputStream().flush();
            assertThat(recorded.await(WAIT_MS, s -> s.route("10.7.0.0/16") != null))
                    .isTrue();
            assertThat(server.counters().get(FpmCounters.Event.SINK_ERRORS)).isEqualTo(1);
            zebra.getOutputStream().write(route("10.6.0.0", 16)); // not held, so the re-send reaches the sink
            zebra.getOutputStream().flush();
            assertThat(recorded.await(WAIT_MS, s -> s.route("10.6.0.0/16") != null))
                    .isTrue();
            zebra.setSoTimeout(300);
            assertThat(closedByPeer(zebra)).isFalse();
        }
    }

    @Test
    void shouldCloseOnBrokenFramingWithACountedReason() throws Exception {
        start(Duration.ofSeconds(60));
        try (Socket zebra = connect()) {
            zebra.getOutputStream().write(new byte[] {1, 1, 0, 2}); // length below the header's own 4 bytes
            zebra.getOutputStream().flush();
            assertThat(closedByPeer(zebra)).isTrue();
        }
        awaitCounter(FpmCounters.Event.FRAMING_ERRORS, 1);
    }

    @Test
    void shouldRefuseASecondConnectionWhileZebrasIsOpenAndLetASilentOneGiveWay() throws Exception {
        start(Duration.ofSeconds(60));
        try (Socket silent = connect();
                Socket zebra = connect()) {
            awaitCounter(FpmCounters.Event.CONNECTIONS_EVICTED, 1);
            assertThat(closedByPeer(silent)).isTrue();
            zebra.getOutputStream().write(route("10.4.0.0", 16));
            zebra.getOutputStream().flush();
            assertThat(sink.await(WAIT_MS, s -> s.routes().size() == 1)).isTrue();
            try (Socket second = connect()) {
                assertThat(closedByPeer(second)).isTrue();
            }
            awaitCounter(FpmCounters.Event.CONNECTIONS_REFUSED, 1);
            zebra.getOutputStream().write(route("10.5.0.0", 16));
            zebra.getOutputStream().flush();
            assertThat(sink.await(WAIT_MS, s -> s.routes().size() == 2)).isTrue();
        }
    }

    @Test
    void shouldWithdrawRoutesNotResentAfterAReconnectWhenTheGraceEnds() throws Exception {
        start(Duration.ofMillis(500));
        try (Socket zebra = connect()) {
            zebra.getOutputStream().write(route("10.1.0.0", 24));
            zebra.getOutputStream().write(route("10.2.0.0", 24));
            zebra.getOutputStream().flush();
            assertThat(sink.await(WAIT_MS, s -> s.routes().size() == 2)).isTrue();
        }
        awaitCounter(FpmCounters.Event.CONNECTIONS_CLOSED, 1);
        try (Socket zebra = connect()) {
            zebra.getOutputStream().write(route("10.1.0.0", 24));
            zebra.getOutputStream().flush();
            assertThat(sink.await(WAIT_MS, s -> s.calls().contains("withdraw 10.2.0.0/24")))
                    .isTrue();
            assertThat(sink.routes().keySet()).containsExactly(RoutePrefix.parse("10.1.0.0/24"));
            assertThat(sink.calls().stream().filter(c -> c.equals("replace 10.1.0.0/24")))
                    .hasSize(1);
        }
    }
}
