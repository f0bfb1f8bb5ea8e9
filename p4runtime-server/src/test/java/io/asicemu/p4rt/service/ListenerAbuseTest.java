package io.asicemu.p4rt.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;

/**
 * The P4Runtime listener under abuse on 127.0.0.1 (issue 43; operator-api's {@code ListenerAbuseTest} does gNMI, Redis
 * and HTTP): its cap (the default 64) held by silent connections and a controller still served within 1 s (the
 * oldest silent one gives way); one byte then silence closed within the handshake deadline; a 1 MB line instead of
 * the preface closed without a call; descriptors back to their idle count.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ListenerAbuseTest {
    private static final Duration HANDSHAKE = Duration.ofSeconds(1);

    private static P4RuntimeServer start() throws Exception {
        return new P4RuntimeServer(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                        new P4RuntimeService(),
                        ServerOptions.defaults().withHandshakeTimeout(HANDSHAKE))
                .start();
    }

    private static String capabilities(final P4RuntimeServer server, final int deadlineS) throws Exception {
        final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
        try {
            return P4RuntimeGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(deadlineS, TimeUnit.SECONDS)
                    .capabilities(CapabilitiesRequest.getDefaultInstance())
                    .getP4RuntimeApiVersion();
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aControllerIsServedWithinASecondWhileTheCapIsHeldBySilentConnections() throws Exception {
        try (P4RuntimeServer server = start()) {
            assertThat(capabilities(server, 20)).isEqualTo("1.5.0"); // warm: the first call loads classes
            final int idleFds = openFds();
            final List<Socket> silent = new ArrayList<>();
            try {
                for (int i = 0; i < ServerOptions.defaults().maxConnections(); i++) {
                    silent.add(new Socket("127.0.0.1", server.port()));
                }
                Thread.sleep(100);
                final long t0 = System.nanoTime();
                assertThat(capabilities(server, 1)).isEqualTo("1.5.0");
                final double ms = (System.nanoTime() - t0) / 1e6;
                System.out.printf("P4Runtime: served in %.1f ms beside %d silent connections%n", ms, silent.size());
                assertThat(ms).as("ms until the controller was served").isLessThan(1_000);
                assertThat(server.evictedConnections())
                        .as("silent connections that gave way")
                        .isEqualTo(1);
                assertThat(server.refusedConnections()).isZero();
            } finally {
                for (final Socket s : silent) {
                    s.close();
                }
            }
            assertFdsBackTo(server, idleFds);
        }
    }

    @Test
    void oneByteThenSilenceIsClosedWithinTheHandshakeDeadlineAndAMegabyteLineIsRefused() throws Exception {
        try (P4RuntimeServer server = start()) {
            final int idleFds = openFds();
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(10_000);
                final long t0 = System.nanoTime();
                s.getOutputStream().write('P');
                drain(s);
                final double seconds = (System.nanoTime() - t0) / 1e9;
                System.out.printf("P4Runtime: one byte, closed after %.2f s%n", seconds);
                assertThat(seconds)
                        .as("seconds until closed (handshake deadline 1 s)")
                        .isBetween(0.9, 2.5);
            }
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(10_000);
                try {
                    s.getOutputStream()
                            .write(("PING " + "x".repeat(1 << 20) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                } catch (final IOException e) {
                    // closed while writing: refused
                }
                final long t0 = System.nanoTime();
                drain(s);
                assertThat((System.nanoTime() - t0) / 1e9)
                        .as("seconds until a 1 MB line instead of the preface is closed")
                        .isLessThan(2.5);
            }
            assertThat(capabilities(server, 10)).isEqualTo("1.5.0");
            assertFdsBackTo(server, idleFds);
        }
    }

    /** Reads until the end of the stream (the server's SETTINGS or GOAWAY first) or a reset. */
    private static void drain(final Socket s) throws IOException {
        try {
            final byte[] buffer = new byte[8192];
            while (s.getInputStream().read(buffer) >= 0) {
                continue;
            }
        } catch (final SocketTimeoutException e) {
            throw new AssertionError("the server did not close the connection within 10 s", e);
        } catch (final SocketException e) {
            // reset: closed as well
        }
    }

    private static int openFds() throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return (int) fds.count();
        }
    }

    private static void assertFdsBackTo(final P4RuntimeServer server, final int idle) throws Exception {
        final long deadline = System.nanoTime() + HANDSHAKE.toNanos() + TimeUnit.SECONDS.toNanos(2);
        int now = openFds();
        while ((now > idle + 2 || server.openConnections() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            now = openFds();
        }
        System.out.printf("P4Runtime descriptors: idle %d, after the abuse %d%n", idle, now);
        assertThat(now)
                .as("open descriptors after the abuse (idle " + idle + ")")
                .isLessThanOrEqualTo(idle + 2);
        assertThat(server.openConnections()).isZero();
    }
}
