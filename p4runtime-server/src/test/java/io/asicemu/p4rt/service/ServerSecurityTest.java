package io.asicemu.p4rt.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;

/**
 * The management plane locked down (issue 14): TLS with real certificates (made by the JDK's keytool in the test),
 * mutual TLS refusing a client without a certificate, connections that never speak closed after the handshake
 * timeout, and the limit on concurrent calls per connection.
 */
@Timeout(120)
class ServerSecurityTest {
    @TempDir
    static Path certs;

    private static Path serverCert;
    private static Path serverKey;
    private static Path clientCert;
    private static Path clientKey;

    @BeforeAll
    static void makeCertificates() throws Exception {
        serverCert = certs.resolve("server.pem");
        serverKey = certs.resolve("server.key");
        clientCert = certs.resolve("client.pem");
        clientKey = certs.resolve("client.key");
        selfSigned("server", "CN=asic-emu-test-switch", "san=ip:127.0.0.1,dns:localhost", serverCert, serverKey);
        selfSigned("client", "CN=test-controller", "eku=clientAuth", clientCert, clientKey);
    }

    /** keytool -genkeypair (EC P-256, self-signed), then the certificate and PKCS#8 key as PEM. */
    private static void selfSigned(
            final String alias, final String dname, final String ext, final Path certPem, final Path keyPem)
            throws Exception {
        final Path store = certs.resolve(alias + ".p12");
        final String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(
                keytool,
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dname,
                "-ext",
                ext,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit");
        run(
                keytool,
                "-exportcert",
                "-rfc",
                "-alias",
                alias,
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit",
                "-file",
                certPem.toString());
        final KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        final PrivateKey key = (PrivateKey) ks.getKey(alias, "changeit".toCharArray());
        Files.writeString(
                keyPem,
                "-----BEGIN PRIVATE KEY-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
                        + "\n-----END PRIVATE KEY-----\n");
    }

    private static void run(final String... command) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
    }

    private static P4RuntimeServer start(final ServerOptions options) throws Exception {
        return new P4RuntimeServer(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), new P4RuntimeService(), options)
                .start();
    }

    private static String capabilities(final ManagedChannel channel) {
        try {
            return P4RuntimeGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .capabilities(CapabilitiesRequest.getDefaultInstance())
                    .getP4RuntimeApiVersion();
        } finally {
            channel.shutdownNow();
        }
    }

    private static NettyChannelBuilder to(final P4RuntimeServer server) {
        return NettyChannelBuilder.forAddress("127.0.0.1", server.port());
    }

    @Test
    void shouldServeOverTlsAndRefusePlaintextWhenGivenACertificate() throws Exception {
        try (P4RuntimeServer server =
                start(ServerOptions.defaults().withTls(new ServerOptions.Tls(serverCert, serverKey, null)))) {
            assertThat(capabilities(to(server)
                            .sslContext(GrpcSslContexts.forClient()
                                    .trustManager(serverCert.toFile())
                                    .build())
                            .build()))
                    .isEqualTo("1.5.0");
            assertThatThrownBy(() -> capabilities(to(server).usePlaintext().build()))
                    .isInstanceOfSatisfying(
                            StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
            assertThatThrownBy(() -> capabilities(to(server)
                            .sslContext(GrpcSslContexts.forClient()
                                    .trustManager(clientCert.toFile())
                                    .build())
                            .build()))
                    .as("a client that does not trust the server's certificate")
                    .isInstanceOf(StatusRuntimeException.class);
        }
    }

    @Test
    void shouldRequireAClientCertificateFromTheClientCaWhenMutualTlsIsOn() throws Exception {
        try (P4RuntimeServer server =
                start(ServerOptions.defaults().withTls(new ServerOptions.Tls(serverCert, serverKey, clientCert)))) {
            final SslContextBuilder trusting = GrpcSslContexts.forClient().trustManager(serverCert.toFile());
            assertThat(capabilities(to(server)
                            .sslContext(GrpcSslContexts.forClient()
                                    .trustManager(serverCert.toFile())
                                    .keyManager(clientCert.toFile(), clientKey.toFile())
                                    .build())
                            .build()))
                    .isEqualTo("1.5.0");
            assertThatThrownBy(() ->
                            capabilities(to(server).sslContext(trusting.build()).build()))
                    .as("a client without a certificate")
                    .isInstanceOf(StatusRuntimeException.class);
            assertThatThrownBy(() -> capabilities(to(server)
                            .sslContext(GrpcSslContexts.forClient()
                                    .trustManager(serverCert.toFile())
                                    .keyManager(serverCert.toFile(), serverKey.toFile())
                                    .build())
                            .build()))
                    .as("a client whose certificate the client CA did not issue")
                    .isInstanceOf(StatusRuntimeException.class);
        }
    }

    @Test
    void shouldRefuseUnreadableTlsFilesClearly() {
        assertThatThrownBy(() -> new ServerOptions.Tls(certs.resolve("absent.pem"), serverKey, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("absent.pem");
        assertThatThrownBy(() ->
                        start(ServerOptions.defaults().withTls(new ServerOptions.Tls(serverKey, serverCert, null))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("server.key");
    }

    @Test
    void shouldCloseConnectionsThatNeverSpeakAfterTheHandshakeTimeout() throws Exception {
        final int connections = 50;
        try (P4RuntimeServer server = start(ServerOptions.defaults().withHandshakeTimeout(Duration.ofSeconds(1)))) {
            final List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < connections; i++) {
                    final Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    s.setSoTimeout(10_000);
                    sockets.add(s);
                }
                final long startNs = System.nanoTime();
                int closedByServer = 0;
                for (final Socket s : sockets) {
                    try {
                        // the server may write its HTTP/2 SETTINGS first; then it must close (end of stream)
                        final byte[] buffer = new byte[4096];
                        while (s.getInputStream().read(buffer) >= 0) {
                            continue;
                        }
                        closedByServer++;
                    } catch (final SocketTimeoutException e) {
                        break;
                    } catch (final java.net.SocketException e) {
                        closedByServer++; // reset by the server
                    }
                }
                final double seconds = (System.nanoTime() - startNs) / 1e9;
                assertThat(closedByServer)
                        .as("silent connections closed by the server")
                        .isEqualTo(connections);
                assertThat(seconds)
                        .as("seconds until all were closed (handshake timeout 1 s)")
                        .isLessThan(8);
            } finally {
                for (final Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    @Test
    void shouldRefuseStreamsBeyondTheLimitPerConnectionEvenFromAClientThatIgnoresIt() throws Exception {
        try (P4RuntimeServer server = start(ServerOptions.defaults().withMaxConcurrentCallsPerConnection(2));
                RawHttp2Client client = new RawHttp2Client(server.port())) {
            final RawHttp2Client.Frame settings = client.await("SETTINGS", 0, 10_000);
            assertThat(settings).as("the server's SETTINGS").isNotNull();
            assertThat(settings.settings().maxConcurrentStreams())
                    .as("SETTINGS_MAX_CONCURRENT_STREAMS")
                    .isEqualTo(2L);
            client.ackSettings(); // from here on the limit binds (before the ack a client may not know it yet)
            client.openCall(1, "/p4.v1.P4Runtime/StreamChannel");
            client.openCall(3, "/p4.v1.P4Runtime/StreamChannel");
            client.openCall(5, "/p4.v1.P4Runtime/StreamChannel");
            final RawHttp2Client.Frame refused = client.await("RST_STREAM", 5, 10_000);
            assertThat(refused)
                    .as("the third stream on a connection allowed two")
                    .isNotNull();
            assertThat(refused.errorCode())
                    .as("RST_STREAM error code")
                    .isIn(
                            io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error.REFUSED_STREAM.code(),
                            io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error.PROTOCOL_ERROR.code());
            assertThat(client.frames())
                    .as("the two streams within the limit stay open")
                    .noneMatch(f -> f.type().equals("RST_STREAM") && f.streamId() != 5)
                    .noneMatch(f -> f.type().equals("GOAWAY"));

            client.reset(1);
            client.openCall(7, "/p4.v1.P4Runtime/Capabilities");
            client.sendLastMessage(7, CapabilitiesRequest.getDefaultInstance().toByteArray());
            RawHttp2Client.Frame trailers = null;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (trailers == null && System.nanoTime() < deadline) {
                client.await("RST_STREAM", 7, 100);
                trailers = client.frames().stream()
                        .filter(f -> f.type().equals("HEADERS")
                                && f.streamId() == 7
                                && f.headers().contains("grpc-status"))
                        .findFirst()
                        .orElse(null);
            }
            assertThat(client.frames())
                    .as("a stream opened after one ended")
                    .noneMatch(f -> f.type().equals("RST_STREAM") && f.streamId() == 7);
            assertThat(trailers)
                    .as("Capabilities answered once a slot was free")
                    .isNotNull();
            assertThat(trailers.headers().get("grpc-status").toString()).isEqualTo("0");
        }
    }

    @Test
    void shouldCloseConnectionsBeyondTheLimitAtAcceptAndTakeNewOnesOnceOneCloses() throws Exception {
        try (P4RuntimeServer server = start(ServerOptions.defaults().withMaxConnections(3))) {
            final List<ManagedChannel> channels = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    final ManagedChannel c = to(server).usePlaintext().build();
                    channels.add(c);
                    assertThat(P4RuntimeGrpc.newBlockingStub(c)
                                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                                    .capabilities(CapabilitiesRequest.getDefaultInstance())
                                    .getP4RuntimeApiVersion())
                            .isEqualTo("1.5.0");
                }
                assertThat(server.openConnections()).isEqualTo(3);
                try (Socket extra = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                    extra.setSoTimeout(5_000);
                    int read;
                    try {
                        read = extra.getInputStream().read();
                    } catch (final java.net.SocketException e) {
                        read = -1; // reset: closed as well
                    }
                    assertThat(read)
                            .as("a fourth connection is closed without a byte (not even SETTINGS)")
                            .isEqualTo(-1);
                }
                assertThat(server.refusedConnections()).isEqualTo(1);
                assertThat(server.openConnections())
                        .as("the refused one is not counted")
                        .isEqualTo(3);

                final ManagedChannel first = channels.remove(0);
                first.shutdownNow();
                assertThat(first.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (server.openConnections() > 2 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(server.openConnections()).as("after a client left").isEqualTo(2);
                final ManagedChannel next = to(server).usePlaintext().build();
                channels.add(next);
                assertThat(P4RuntimeGrpc.newBlockingStub(next)
                                .withDeadlineAfter(10, TimeUnit.SECONDS)
                                .capabilities(CapabilitiesRequest.getDefaultInstance())
                                .getP4RuntimeApiVersion())
                        .as("a new client once a slot is free")
                        .isEqualTo("1.5.0");
                assertThat(server.refusedConnections()).isEqualTo(1);
            } finally {
                for (final ManagedChannel c : channels) {
                    c.shutdownNow();
                    c.awaitTermination(5, TimeUnit.SECONDS);
                }
            }
        }
    }
}
