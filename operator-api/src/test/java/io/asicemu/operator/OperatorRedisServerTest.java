package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Redis front against real clients: Debian's redis-cli and Python's redis client, and hostile raw sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OperatorRedisServerTest {
    private final AtomicLong snapshots = new AtomicLong();
    private OperatorRedisServer server;

    @BeforeEach
    void start() throws Exception {
        final SnapshotCache cache = new SnapshotCache(
                () -> {
                    final long n = snapshots.incrementAndGet();
                    return SampleSnapshots.sample(1, n * 1_000_000_000L);
                },
                Duration.ofMillis(100));
        server = OperatorRedisServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                cache,
                null,
                OperatorRedisServer.Limits.defaults());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void redisCliReadsCountersDbMapsAndSaiStats() throws Exception {
        final String oid = redisCli("-n", "2", "hget", "COUNTERS_PORT_NAME_MAP", "Ethernet4")
                .strip();
        assertThat(oid).isEqualTo("oid:0x1000000000002");
        assertThat(redisCli("-n", "2", "hget", "COUNTERS:" + oid, "SAI_PORT_STAT_IF_IN_UCAST_PKTS")
                        .strip())
                .isEqualTo("2001");
        final String queue = redisCli("-n", "2", "hget", "COUNTERS_QUEUE_NAME_MAP", "Ethernet4:3")
                .strip();
        assertThat(redisCli("-n", "2", "hget", "COUNTERS_QUEUE_TYPE_MAP", queue).strip())
                .isEqualTo("SAI_QUEUE_TYPE_UNICAST");
        assertThat(redisCli("-n", "2", "hget", "COUNTERS:" + queue, "PFC_WD_STATUS")
                        .strip())
                .isEqualTo("stormed");
        assertThat(redisCli("-n", "2", "hget", "COUNTERS:" + queue, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS")
                        .strip())
                .isEqualTo("234");
        assertThat(redisCli("-n", "6", "hget", "PORT_TABLE|Ethernet0", "oper_status")
                        .strip())
                .isEqualTo("up");
        assertThat(redisCli("-n", "6", "hget", "PORT_TABLE|Ethernet4", "oper_status")
                        .strip())
                .isEqualTo("down");
        assertThat(redisCli("-n", "6", "hget", "PFC_WD_STORM|Ethernet4:3", "status")
                        .strip())
                .isEqualTo("stormed");
        assertThat(redisCli("-n", "6", "hget", "SWITCH_CAPABILITY|switch", "HASH|NATIVE_HASH_FIELD_LIST")
                        .strip())
                .contains("RDMA_BTH_DEST_QP");
        assertThat(redisCli("-n", "4", "hget", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold")
                        .strip())
                .isEqualTo("250000");
        assertThat(redisCli("-n", "4", "keys", "PORT|*").lines().sorted().toList())
                .containsExactly("PORT|Ethernet0", "PORT|Ethernet4");
        assertThat(redisCli("-n", "4", "type", "SWITCH_HASH|GLOBAL").strip()).isEqualTo("hash");
        assertThat(redisCli("-n", "4", "hgetall", "SWITCH_HASH|GLOBAL")).contains("ecmp_hash@");
        assertThat(redisCli("-n", "2", "--scan", "--pattern", "RATES:*").lines().count())
                .isEqualTo(2);
        assertThat(redisCli("ping").strip()).isEqualTo("PONG");
        assertThat(redisCli("-n", "4", "exists", "PORT|Ethernet0", "PORT|Ethernet8")
                        .strip())
                .isEqualTo("1");
        assertThat(redisCli("info", "keyspace")).contains("db2:keys=").contains("db4:keys=7");
    }

    @Test
    void writesAreRefusedWithAClearErrorAndChangeNothing() throws Exception {
        assertThat(redisCli("-n", "4", "hset", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold", "1"))
                .contains("CONFIG_DB writes are not available yet");
        assertThat(redisCli("-n", "4", "multi")).contains("CONFIG_DB writes are not available yet");
        assertThat(redisCli("-n", "4", "del", "PORT|Ethernet0")).contains("CONFIG_DB writes are not available yet");
        assertThat(redisCli("-n", "4", "hget", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold")
                        .strip())
                .isEqualTo("250000");
        assertThat(redisCli("-n", "4", "exists", "PORT|Ethernet0").strip()).isEqualTo("1");
        assertThat(redisCli("select", "16")).contains("DB index is out of range");
        assertThat(redisCli("nosuchcommand")).contains("unknown command 'NOSUCHCOMMAND'");
    }

    @Test
    void pythonRedisClientReadsTheSameCountersAsTheSnapshot() throws Exception {
        final String script = String.join(
                "\n",
                "import redis, sys",
                "r = redis.Redis(host='127.0.0.1', port=" + server.port() + ", db=2, decode_responses=True)",
                "oid = r.hget('COUNTERS_PORT_NAME_MAP', 'Ethernet0')",
                "c = r.hgetall('COUNTERS:' + oid)",
                "q = r.hgetall('COUNTERS:' + r.hget('COUNTERS_QUEUE_NAME_MAP', 'Ethernet0:4'))",
                "keys = sorted(k for k in r.scan_iter(match='COUNTERS:oid:0x15*', count=7))",
                "print(c['SAI_PORT_STAT_IF_OUT_OCTETS'], c['SAI_PORT_STAT_PFC_3_RX_PKTS'],"
                        + " q['SAI_QUEUE_STAT_PACKETS'], len(keys))",
                "try:",
                "    r.hset('x', 'y', 'z')",
                "except redis.exceptions.ResponseError as e:",
                "    print('refused:', e)");
        final String out = run(List.of("/usr/bin/python3", "-c", script));
        // port 0 stat 6 = 1006; PFC priority 3 RX = 1 * 4; queue 4 stat 0 = 100 + 40; 2 ports x 8 queues
        assertThat(out).startsWith("1006 4 140 16\n").contains("refused: CONFIG_DB writes are not available yet");
    }

    @Test
    void passwordIsRequiredWhenSet() throws Exception {
        server.close();
        server = OperatorRedisServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                new SnapshotCache(() -> SampleSnapshots.sample(1, 0), Duration.ofSeconds(1)),
                "s3cret",
                OperatorRedisServer.Limits.defaults());
        assertThat(redisCli("-n", "2", "dbsize")).contains("NOAUTH");
        assertThat(redisCli("--no-auth-warning", "-a", "wrong", "ping")).contains("WRONGPASS");
        assertThat(redisCli("--no-auth-warning", "-a", "s3cret", "ping").strip())
                .isEqualTo("PONG");
    }

    @Test
    void aHundredMegabyteBulkStringIsRefusedFromItsHeaderAndOthersAreServed() throws Exception {
        try (RedisCountersClient other = connectClient();
                Socket hostile = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            hostile.setSoTimeout(10_000);
            other.hgetall(2, "COUNTERS_PORT_NAME_MAP"); // the client's first call loads its classes: not measured
            final OutputStream out = hostile.getOutputStream();
            out.write("*3\r\n$4\r\nHGET\r\n$104857600\r\n".getBytes(StandardCharsets.US_ASCII));
            final byte[] chunk = new byte[1 << 16];
            long sent = 0;
            try {
                for (; sent < (100L << 20); sent += chunk.length) {
                    out.write(chunk);
                    if (sent == (4L << 20)) {
                        // mid-stream, another (already connected) client is served at once
                        final long t0 = System.nanoTime();
                        assertThat(other.hgetall(2, "COUNTERS_PORT_NAME_MAP")).containsKey("Ethernet0");
                        assertThat(System.nanoTime() - t0)
                                .isLessThan(Duration.ofSeconds(1).toNanos());
                    }
                }
            } catch (final IOException closed) {
                // the server closed the connection: what we expect
            }
            final String reply = new String(hostile.getInputStream().readNBytes(200), StandardCharsets.US_ASCII);
            assertThat(reply).startsWith("-ERR Protocol error: bulk string of 104857600 bytes");
            assertThat(sent).as("the server stopped reading long before 100 MB").isLessThan(100L << 20);
        }
        assertThat(redisCli("ping").strip()).isEqualTo("PONG");
    }

    @Test
    void aClientThatNeverReadsIsThrottledAndOthersAreServed() throws Exception {
        try (RedisCountersClient other = connectClient();
                Socket lazy = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            lazy.setSoTimeout(10_000);
            lazy.setReceiveBufferSize(4096);
            other.hgetall(2, "COUNTERS_PORT_NAME_MAP"); // the client's first call loads its classes: not measured
            final OutputStream out = lazy.getOutputStream();
            final byte[] command = "*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n"
                    .getBytes(StandardCharsets.US_ASCII);
            // 2M commands (88 MB): far more than the kernel's socket buffers on both sides can hold (a few MB on
            // loopback), so the writer can only finish if the server keeps reading while nobody reads its replies
            final AtomicLong written = new AtomicLong();
            final Thread writer = Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int i = 0; i < 2_000_000; i++) {
                        out.write(command);
                        written.incrementAndGet();
                    }
                } catch (final IOException e) {
                    // blocked then closed by the test: fine
                }
            });
            Thread.sleep(2000);
            final long afterTwoSeconds = written.get();
            Thread.sleep(1000);
            assertThat(writer.isAlive())
                    .as("the server stopped reading the lazy client (its send blocks)")
                    .isTrue();
            assertThat(written.get())
                    .as("the lazy client's send stays blocked: nothing more was read in a second")
                    .isEqualTo(afterTwoSeconds);
            // an already connected client's round trip (no process start-up in the measurement)
            final long t0 = System.nanoTime();
            assertThat(other.hgetall(2, "COUNTERS_PORT_NAME_MAP")).containsEntry("Ethernet0", "oid:0x1000000000001");
            assertThat(System.nanoTime() - t0).isLessThan(Duration.ofSeconds(1).toNanos());
            assertThat(redisCli("-n", "2", "hget", "COUNTERS_PORT_NAME_MAP", "Ethernet0")
                            .strip())
                    .isEqualTo("oid:0x1000000000001");
            lazy.close();
            writer.join(10_000);
        }
        assertThat(redisCli("ping").strip()).isEqualTo("PONG");
    }

    @Test
    void protocolGarbageGetsAnErrorAndTheConnectionCloses() throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("*1\r\n:notanumber\r\n".getBytes(StandardCharsets.US_ASCII));
            final InputStream in = s.getInputStream();
            final String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(reply).startsWith("-ERR");
        }
        assertThat(redisCli("ping").strip()).isEqualTo("PONG");
    }

    @Test
    void snapshotsAreTakenAtMostOncePerMaxAgeWhateverTheClientsDo() throws Exception {
        final long before = snapshots.get();
        for (int i = 0; i < 20; i++) {
            redisCli("-n", "2", "dbsize");
        }
        // 20 redis-cli processes take well over 100 ms in all, but far fewer than 20 snapshots at 100 ms each
        assertThat(snapshots.get() - before).isLessThan(20);
    }

    @Test
    void redisCliReadsTheRouteTableTheRoutingStackPublishesInApplDb() throws Exception {
        final java.util.concurrent.ConcurrentSkipListMap<String, java.util.Map<String, String>> routes =
                new java.util.concurrent.ConcurrentSkipListMap<>();
        routes.put(
                "ROUTE_TABLE:10.200.0.0/24",
                java.util.Map.of("protocol", "bgp", "nexthop", "10.0.0.0,10.0.0.2", "ifname", "Ethernet0,Ethernet4"));
        final SnapshotCache cache = new SnapshotCache(() -> SampleSnapshots.sample(1, 0), Duration.ofMillis(100));
        cache.publish(SonicDatabases.APPL_DB, () -> java.util.Collections.unmodifiableNavigableMap(routes));
        try (OperatorRedisServer routing = OperatorRedisServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                cache,
                null,
                OperatorRedisServer.Limits.defaults())) {
            final String port = Integer.toString(routing.port());
            assertThat(run(List.of(
                                    "redis-cli",
                                    "-h",
                                    "127.0.0.1",
                                    "-p",
                                    port,
                                    "-n",
                                    "0",
                                    "hget",
                                    "ROUTE_TABLE:10.200.0.0/24",
                                    "nexthop"))
                            .strip())
                    .isEqualTo("10.0.0.0,10.0.0.2");
            routes.put("ROUTE_TABLE:10.201.0.0/24", java.util.Map.of("protocol", "bgp", "blackhole", "true"));
            cache.invalidate();
            assertThat(run(List.of("redis-cli", "-h", "127.0.0.1", "-p", port, "-n", "0", "keys", "ROUTE_TABLE:*")))
                    .contains("ROUTE_TABLE:10.200.0.0/24", "ROUTE_TABLE:10.201.0.0/24");
            assertThat(run(List.of(
                            "redis-cli",
                            "-h",
                            "127.0.0.1",
                            "-p",
                            port,
                            "-n",
                            "0",
                            "hset",
                            "ROUTE_TABLE:10.200.0.0/24",
                            "nexthop",
                            "1.1.1.1")))
                    .as("APPL_DB is the routing stack's: read-only here")
                    .contains("CONFIG_DB");
        }
    }

    private RedisCountersClient connectClient() throws IOException {
        return RedisCountersClient.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), null, Duration.ofSeconds(10));
    }

    private String redisCli(final String... args) throws Exception {
        final List<String> command =
                new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(server.port())));
        command.addAll(List.of(args));
        return run(command);
    }

    static String run(final List<String> command) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
