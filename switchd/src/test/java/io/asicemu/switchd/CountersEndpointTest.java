package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The counters endpoint's HTTP, and that it costs nothing while nobody asks. */
class CountersEndpointTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> send(final CountersEndpoint endpoint, final String method, final String path)
            throws IOException, InterruptedException {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeTheBodyToGetAndItsLengthToHeadAndRefuseOtherPathsAndMethods() throws Exception {
        final AtomicInteger renders = new AtomicInteger();
        try (CountersEndpoint endpoint = CountersEndpoint.start(LOOPBACK, () -> {
            renders.incrementAndGet();
            return "Ethernet0 SAI_PORT_STAT_IF_IN_UCAST_PKTS 3\n";
        })) {
            for (int i = 0; i < 3; i++) { // one request per connection, the next one served as well
                final HttpResponse<String> get = send(endpoint, "GET", "/counters");
                assertThat(get.statusCode()).isEqualTo(200);
                assertThat(get.body()).isEqualTo("Ethernet0 SAI_PORT_STAT_IF_IN_UCAST_PKTS 3\n");
                assertThat(get.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
            }
            assertThat(send(endpoint, "GET", "/counters?x=1").statusCode()).isEqualTo(200);
            final HttpResponse<String> head = send(endpoint, "HEAD", "/counters");
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.headers().firstValue("content-length")).hasValue("43");
            assertThat(head.body()).isEmpty();
            assertThat(renders).hasValue(5);
            assertThat(send(endpoint, "GET", "/").statusCode()).isEqualTo(404);
            assertThat(send(endpoint, "GET", "/counterss").statusCode()).isEqualTo(404);
            final HttpResponse<String> post = send(endpoint, "POST", "/counters");
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");
            assertThat(renders).hasValue(5);
        }
    }

    @Test
    void shouldAnswer503WhenTheDataPlaneDoesNotAnswer() throws Exception {
        try (CountersEndpoint endpoint = CountersEndpoint.start(LOOPBACK, () -> {
            throw new TimeoutException();
        })) {
            final HttpResponse<String> r = send(endpoint, "GET", "/counters");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("did not answer");
        }
    }

    @Test
    void shouldSurviveBrokenAndSilentClients() throws Exception {
        try (CountersEndpoint endpoint = CountersEndpoint.start(LOOPBACK, () -> "ok\n")) {
            try (Socket garbage = new Socket("127.0.0.1", endpoint.port())) {
                garbage.getOutputStream().write("NONSENSE\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(readAll(garbage.getInputStream())).startsWith("HTTP/1.1 400 ");
            }
            try (Socket tooLong = new Socket("127.0.0.1", endpoint.port())) {
                final OutputStream out = tooLong.getOutputStream();
                out.write("GET /counters HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(("X: " + "a".repeat(CountersEndpoint.MAX_HEAD_BYTES) + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(readAll(tooLong.getInputStream())).startsWith("HTTP/1.1 400 ");
            } catch (final IOException e) {
                // the server may close while the client still writes: refused either way
            }
            try (Socket closedAtOnce = new Socket("127.0.0.1", endpoint.port())) {
                closedAtOnce.shutdownOutput();
            }
            assertThat(send(endpoint, "GET", "/counters").body()).isEqualTo("ok\n");
        }
    }

    @Test
    void shouldNotWakeWhileNobodyAsks() throws Exception {
        try (CountersEndpoint endpoint = CountersEndpoint.start(LOOPBACK, () -> "ok\n")) {
            assertThat(send(endpoint, "GET", "/counters").statusCode()).isEqualTo(200);
            final Path task = serverTask();
            final long before = contextSwitches(task);
            Thread.sleep(2_500); // the JDK's server woke at least twice in this time (select(1000))
            assertThat(contextSwitches(task))
                    .as("the server thread's context switches while idle")
                    .isEqualTo(before);
            assertThat(send(endpoint, "GET", "/counters").statusCode()).isEqualTo(200);
        }
    }

    /** @return /proc/self/task/TID of the endpoint's thread (Linux). */
    private static Path serverTask() throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (final Path t : (Iterable<Path>) tasks::iterator) {
                    if (Files.readString(t.resolve("comm")).strip().equals("counters-http")) {
                        return t;
                    }
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no thread named counters-http");
    }

    private static long contextSwitches(final Path task) throws IOException {
        long sum = 0;
        for (final String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                sum += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        return sum;
    }

    private static String readAll(final InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
}
