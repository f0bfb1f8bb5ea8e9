package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.operator.gnmi.proto.CapabilityRequest;
import io.asicemu.operator.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;

/**
 * The running switch ({@code asic-emu run} as its own process, all five management listeners on 127.0.0.1, ports
 * mapped to interfaces that do not exist) under abuse (issue 43): every listener's cap held by silent connections and a
 * legitimate client still served within 1 s; 10,000 misbehaving connections across the five listeners write fewer than
 * 100 log lines and no stack trace; the per-listener counters in STATE_DB and Prometheus; the switch's descriptors back
 * to their idle count within the idle timeout.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ManagementAbuseProcessTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}}}
        """;
    private static final String PASSWORD = "lab-secret";
    private static final int CAP = 64;

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void everyListenerOfTheRunningSwitchStaysBoundedUnderAbuse() throws Exception {
        final Path config = dir.resolve("config_db.json");
        Files.writeString(config, CONFIG);
        final Path password = dir.resolve("redis.pw");
        Files.writeString(password, PASSWORD + "\n");
        final int p4 = freePort();
        final int counters = freePort();
        final int redis = freePort();
        final int metrics = freePort();
        final int gnmi = freePort();
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process process = new ProcessBuilder(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "run",
                        "--config",
                        config.toString(),
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--p4runtime-address",
                        "127.0.0.1",
                        "--p4runtime-port",
                        Integer.toString(p4),
                        "--counters-port",
                        Integer.toString(counters),
                        "--redis-port",
                        Integer.toString(redis),
                        "--redis-password-file",
                        password.toString(),
                        "--metrics-port",
                        Integer.toString(metrics),
                        "--gnmi-port",
                        Integer.toString(gnmi),
                        "--p4runtime-handshake-timeout-s",
                        "2",
                        "--gnmi-handshake-timeout-s",
                        "2",
                        "--redis-auth-timeout-s",
                        "2",
                        "--http-request-timeout-s",
                        "2")
                .redirectErrorStream(true)
                .start();
        final List<String> log = new ArrayList<>();
        final CompletableFuture<Void> started = new CompletableFuture<>();
        final Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (log) {
                        log.add(line);
                    }
                    if (line.contains("asic-emu live: 1 ports")) {
                        started.complete(null);
                    }
                }
            } catch (final IOException e) {
                started.completeExceptionally(e);
            }
        });
        try {
            started.get(90, TimeUnit.SECONDS);
            final int[] ports = {p4, gnmi, redis, metrics, counters};
            final String[] names = {"p4runtime", "gnmi", "redis", "metrics", "counters"};
            for (int i = 0; i < ports.length; i++) {
                legitimate(names[i], ports[i], 20_000); // warm: the first call of each loads classes
            }
            Thread.sleep(500);
            final int idleFds = fds(process.pid());

            // 1. the cap held by silent connections, then a legitimate client within 1 s
            for (int i = 0; i < ports.length; i++) {
                final List<Socket> silent = new ArrayList<>();
                try {
                    for (int c = 0; c < CAP; c++) {
                        silent.add(connect(ports[i]));
                    }
                    Thread.sleep(200);
                    final long t0 = System.nanoTime();
                    legitimate(names[i], ports[i], 1_000);
                    final double ms = (System.nanoTime() - t0) / 1e6;
                    System.out.printf("run: %s served in %.1f ms beside %d silent connections%n", names[i], ms, CAP);
                    assertThat(ms)
                            .as(names[i] + ": ms until a legitimate client was served")
                            .isLessThan(1_000);
                } finally {
                    for (final Socket s : silent) {
                        s.close();
                    }
                }
            }

            // 2. 10,000 misbehaving connections across the five listeners
            final int linesBefore;
            synchronized (log) {
                linesBefore = log.size();
            }
            final byte[][] garbage = {
                "\u0001\u0002garbage\r\n".getBytes(StandardCharsets.ISO_8859_1),
                "*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n".getBytes(StandardCharsets.US_ASCII),
                "*99999999\r\n".getBytes(StandardCharsets.US_ASCII),
                "POST /../../etc/passwd HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0004garbage".getBytes(StandardCharsets.ISO_8859_1),
                new byte[0],
                "P".getBytes(StandardCharsets.US_ASCII),
            };
            final ExecutorService pool = Executors.newFixedThreadPool(8);
            final List<Future<?>> done = new ArrayList<>();
            final AtomicInteger made = new AtomicInteger();
            final long t0 = System.nanoTime();
            for (int t = 0; t < 8; t++) {
                final int worker = t;
                done.add(pool.submit(() -> {
                    for (int i = worker; i < 10_000; i += 8) {
                        try (Socket s = new Socket()) {
                            s.connect(new InetSocketAddress("127.0.0.1", ports[i % ports.length]), 2_000);
                            made.incrementAndGet();
                            if (i % 2 == 0) {
                                s.setSoLinger(true, 0); // half of them reset, half closed
                            }
                            s.getOutputStream().write(garbage[(i / ports.length) % garbage.length]);
                        } catch (final IOException e) {
                            // refused or reset: misbehaviour all the same
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> f : done) {
                f.get(180, TimeUnit.SECONDS);
            }
            pool.shutdown();
            // the switch still works through its accept queues and deadlines: wait until its descriptors are back
            // (bounded by the deadlines: 2 s, plus the work)
            final long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int now = fds(process.pid());
            while (now > idleFds + 2 && System.nanoTime() < settle) {
                Thread.sleep(100);
                now = fds(process.pid());
            }
            Thread.sleep(1_000);
            final List<String> abuseLines;
            synchronized (log) {
                abuseLines = List.copyOf(log.subList(linesBefore, log.size()));
            }
            System.out.printf(
                    "run: %d misbehaving connections in %.1f s; %d log lines; descriptors idle %d, after %d%n",
                    made.get(), (System.nanoTime() - t0) / 1e9, abuseLines.size(), idleFds, now);
            abuseLines.forEach(l -> System.out.println("  | " + l));
            assertThat(made.get()).as("connections made").isGreaterThan(9_000);
            assertThat(abuseLines.size())
                    .as("log lines for 10,000 misbehaving connections")
                    .isLessThan(100);
            assertThat(abuseLines)
                    .as("no stack trace without --debug")
                    .noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception in thread"));
            assertThat(now)
                    .as("the switch's descriptors after the abuse (idle " + idleFds + ")")
                    .isLessThanOrEqualTo(idleFds + 2);

            // 3. the counters, in STATE_DB and Prometheus
            final String state = redis(
                    redis,
                    "*2\r\n$6\r\nSELECT\r\n$1\r\n6\r\n*2\r\n$7\r\nHGETALL\r\n$24\r\nASICEMU_LISTENER|metrics\r\n");
            assertThat(state)
                    .as("STATE_DB ASICEMU_LISTENER|metrics")
                    .contains("connections_refused")
                    .contains("connections_timed_out");
            final String prom = http(metrics, "GET /metrics HTTP/1.1\r\n\r\n");
            for (final String name : names) {
                assertThat(prom).contains("asicemu_listener_connections_timed_out_total{listener=\"" + name + "\"}");
            }
            for (int i = 0; i < ports.length; i++) {
                legitimate(names[i], ports[i], 2_000);
            }
        } finally {
            process.toHandle().destroy();
            process.waitFor(30, TimeUnit.SECONDS);
            process.destroyForcibly();
            reader.join(5_000);
        }
    }

    private static Socket connect(final int port) throws IOException {
        final Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
        s.setSoTimeout(10_000);
        return s;
    }

    private static void legitimate(final String name, final int port, final int deadlineMs) throws Exception {
        switch (name) {
            case "p4runtime" -> {
                final ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", port)
                        .usePlaintext()
                        .build();
                try {
                    assertThat(P4RuntimeGrpc.newBlockingStub(c)
                                    .withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS)
                                    .capabilities(CapabilitiesRequest.getDefaultInstance())
                                    .getP4RuntimeApiVersion())
                            .isEqualTo("1.5.0");
                } finally {
                    c.shutdownNow();
                    c.awaitTermination(5, TimeUnit.SECONDS);
                }
            }
            case "gnmi" -> {
                final ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", port)
                        .usePlaintext()
                        .build();
                try {
                    assertThat(gNMIGrpc.newBlockingStub(c)
                                    .withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS)
                                    .capabilities(CapabilityRequest.getDefaultInstance())
                                    .getGNMIVersion())
                            .isNotEmpty();
                } finally {
                    c.shutdownNow();
                    c.awaitTermination(5, TimeUnit.SECONDS);
                }
            }
            case "redis" -> assertThat(redis(port, "*1\r\n$4\r\nPING\r\n")).endsWith("+PONG\r\n");
            case "metrics" ->
                assertThat(http(port, "GET /metrics HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
            default -> assertThat(http(port, "GET /counters HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
        }
    }

    /** AUTH, then the commands; answers until the connection is closed after QUIT. */
    private static String redis(final int port, final String commands) throws IOException {
        try (Socket s = connect(port)) {
            s.getOutputStream()
                    .write(("*2\r\n$4\r\nAUTH\r\n$" + PASSWORD.length() + "\r\n" + PASSWORD + "\r\n" + commands
                                    + "*1\r\n$4\r\nQUIT\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            final String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return all.endsWith("+OK\r\n") ? all.substring(0, all.length() - 5) : all; // QUIT's OK
        }
    }

    private static String http(final int port, final String request) throws IOException {
        try (Socket s = connect(port)) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            final InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static int fds(final long pid) throws IOException {
        try (var list = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return (int) list.count();
        }
    }
}
