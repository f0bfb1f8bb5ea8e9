package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.operator.gnmi.GnmiServer;
import io.asicemu.operator.gnmi.GnmiService;
import io.asicemu.operator.gnmi.proto.CapabilityRequest;
import io.asicemu.operator.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** gNMI over TLS with a real certificate (made by the JDK's keytool): a client that trusts it is served, a plaintext one is not. */
@Timeout(60)
class GnmiTlsTest {
    @TempDir
    Path dir;

    @Test
    void shouldServeTlsClientsAndRefusePlaintextOnes() throws Exception {
        final Path store = dir.resolve("server.p12");
        final String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(
                keytool,
                "-genkeypair",
                "-alias",
                "gnmi",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=asic-emu",
                "-ext",
                "san=ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit");
        final Path cert = dir.resolve("cert.pem");
        run(
                keytool,
                "-exportcert",
                "-rfc",
                "-alias",
                "gnmi",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit",
                "-file",
                cert.toString());
        final KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        final PrivateKey key = (PrivateKey) ks.getKey("gnmi", "changeit".toCharArray());
        final Path keyPem = dir.resolve("key.pem");
        Files.writeString(
                keyPem,
                "-----BEGIN PRIVATE KEY-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
                        + "\n-----END PRIVATE KEY-----\n");

        final Duration maxAge = Duration.ofMillis(100);
        try (GnmiServer server = GnmiServer.start(
                new InetSocketAddress("127.0.0.1", 0),
                new SnapshotCache(() -> SampleSnapshots.sample(1, 0), maxAge),
                GnmiService.Limits.defaults(maxAge),
                new GnmiServer.Tls(cert, keyPem, null))) {
            final ManagedChannel tls = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                    .sslContext(GrpcSslContexts.forClient()
                            .trustManager(cert.toFile())
                            .build())
                    .build();
            final ManagedChannel plain = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                    .usePlaintext()
                    .build();
            try {
                assertThat(gNMIGrpc.newBlockingStub(tls)
                                .withDeadlineAfter(10, TimeUnit.SECONDS)
                                .capabilities(CapabilityRequest.getDefaultInstance())
                                .getGNMIVersion())
                        .isEqualTo("0.7.0");
                assertThatThrownBy(() -> gNMIGrpc.newBlockingStub(plain)
                                .withDeadlineAfter(10, TimeUnit.SECONDS)
                                .capabilities(CapabilityRequest.getDefaultInstance()))
                        .satisfies(e ->
                                assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNAVAILABLE));
            } finally {
                tls.shutdownNow();
                plain.shutdownNow();
            }
        }
    }

    private static void run(final String... command) throws Exception {
        assertThat(OperatorRedisServerTest.run(List.of(command))).doesNotContain("error");
    }
}
