package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The write side of the Redis front against real clients (Debian's redis-cli, Python's redis client, raw sockets)
 * over a fake {@link ConfigAccess} that refuses non-numeric thresholds and times (the real control model's writes are
 * switchd's {@code ConfigWritesPropertyTest} and {@code ConfigWritesNetnsTest}): replies as Redis gives them, refusals
 * naming {@code TABLE|key|field} with nothing changed, MULTI/EXEC all or nothing, WATCH, keyspace notifications and
 * subscribe-mode rules, a slow change that does not stall other clients, a subscriber that never reads disconnected.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigWritesServerTest {
    /** CONFIG_DB held in memory; a change is refused when a threshold/time/seed is not a number. */
    private static final class FakeConfig implements ConfigAccess {
        private volatile Map<String, Map<String, String>> config;
        private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
        volatile CountDownLatch slow;
        final java.util.concurrent.atomic.AtomicInteger changes = new java.util.concurrent.atomic.AtomicInteger();

        FakeConfig(final Map<String, Map<String, String>> initial) {
            config = initial;
        }

        @Override
        public Map<String, Map<String, String>> running() {
            return config;
        }

        @Override
        public synchronized void change(final Consumer<Map<String, Map<String, String>>> edit) {
            final Map<String, Map<String, String>> working = new LinkedHashMap<>();
            config.forEach((k, v) -> working.put(k, new LinkedHashMap<>(v)));
            edit.accept(working);
            working.forEach((key, fields) -> fields.forEach((field, value) -> {
                if ((field.endsWith("_threshold") || field.endsWith("_time") || field.endsWith("_seed"))
                        && !value.matches("\\d{1,12}")) {
                    throw new ConfigRefusedException(key + "|" + field + ": not a number: " + value);
                }
            }));
            final CountDownLatch wait = slow;
            if (wait != null) {
                try {
                    wait.await(10, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (!working.equals(config)) {
                config = working;
                changes.incrementAndGet();
                listeners.forEach(Runnable::run);
            }
        }

        @Override
        public void addChangeListener(final Runnable listener) {
            listeners.add(listener);
        }

        @Override
        public void removeChangeListener(final Runnable listener) {
            listeners.remove(listener);
        }
    }

    private FakeConfig config;
    private OperatorRedisServer server;

    @BeforeEach
    void start() throws Exception {
        config = new FakeConfig(SampleSnapshots.sample(1, 0).config());
        final SnapshotCache cache = new SnapshotCache(
                () -> {
                    final SwitchSnapshot s = SampleSnapshots.sample(1, 0);
                    return new SwitchSnapshot(
                            s.takenAtNs(),
                            s.ports(),
                            s.pools(),
                            config.running(),
                            s.switchCapabilities(),
                            s.aclRules(),
                            s.arsGroups());
                },
                Duration.ofDays(1));
        server = OperatorRedisServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                cache,
                null,
                OperatorRedisServer.Limits.defaults(),
                null,
                config);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void redisCliWritesAreAppliedOrRefusedNamingTheField() throws Exception {
        final String key = "WRED_PROFILE|AZURE_LOSSLESS";
        assertThat(cli("-n", "4", "hset", key, "green_min_threshold", "300000", "green_max_threshold", "400000"))
                .as("one new field")
                .isEqualTo("1");
        assertThat(cli("-n", "4", "hget", key, "green_min_threshold")).isEqualTo("300000");
        assertThat(cli("-n", "4", "hset", key, "green_min_threshold", "many"))
                .isEqualTo("ERR WRED_PROFILE|AZURE_LOSSLESS|green_min_threshold: not a number: many");
        assertThat(cli("-n", "4", "hget", key, "green_min_threshold")).isEqualTo("300000");
        assertThat(cli("-n", "4", "hsetnx", key, "green_min_threshold", "1")).isEqualTo("0");
        assertThat(cli("-n", "4", "hdel", key, "green_max_threshold", "nosuch")).isEqualTo("1");
        assertThat(cli("-n", "4", "hmset", "WRED_PROFILE|NEW", "ecn", "ecn_all"))
                .isEqualTo("OK");
        assertThat(cli("-n", "4", "del", "WRED_PROFILE|NEW", "WRED_PROFILE|NONE"))
                .isEqualTo("1");
        assertThat(cli("-n", "4", "exists", "WRED_PROFILE|NEW")).isEqualTo("0");
        assertThat(cli("-n", "4", "hset", "NOBAR", "f", "v")).contains("CONFIG_DB keys are TABLE|key");
        assertThat(cli("-n", "4", "set", "x", "y")).contains("CONFIG_DB holds hashes");
        assertThat(cli("-n", "2", "hset", "COUNTERS_PORT_NAME_MAP", "Ethernet0", "x"))
                .contains("CONFIG_DB (4) only");
        assertThat(cli("-n", "4", "config", "get", "notify-keyspace-events")).isEqualTo("notify-keyspace-events\nAKE");
        assertThat(config.changes.get()).as("HSET, HDEL, HMSET, DEL").isEqualTo(4);
    }

    @Test
    void multiExecAppliesAllOrNothingAndWatchAborts() throws Exception {
        final String out = python(
                "p = r.pipeline(transaction=True)",
                "p.hset('WRED_PROFILE|AZURE_LOSSLESS', 'green_min_threshold', '111')",
                "p.hset('PFC_WD|Ethernet0', 'detection_time', '300')",
                "p.hget('PFC_WD|Ethernet0', 'detection_time')",
                "print(p.execute())",
                "p = r.pipeline(transaction=True)",
                "p.hset('WRED_PROFILE|AZURE_LOSSLESS', 'green_min_threshold', '222')",
                "p.hset('PFC_WD|Ethernet0', 'detection_time', 'soon')",
                "try:",
                "    print(p.execute())",
                "except redis.ResponseError as e:",
                "    print('refused', e)",
                "print(r.hget('WRED_PROFILE|AZURE_LOSSLESS', 'green_min_threshold'),"
                        + " r.hget('PFC_WD|Ethernet0', 'detection_time'))",
                "other = redis.Redis(host='127.0.0.1', port=" + server.port() + ", db=4, decode_responses=True)",
                "with r.pipeline() as p:",
                "    p.watch('SWITCH_HASH|GLOBAL')",
                "    other.hset('SWITCH_HASH|GLOBAL', 'ecmp_hash_seed', '9')",
                "    p.multi()",
                "    p.hset('SWITCH_HASH|GLOBAL', 'ecmp_hash_seed', '10')",
                "    try:",
                "        p.execute()",
                "    except redis.WatchError:",
                "        print('watch aborted', r.hget('SWITCH_HASH|GLOBAL', 'ecmp_hash_seed'))");
        assertThat(out.lines().toList())
                .containsExactly(
                        "[0, 0, '300']",
                        "refused PFC_WD|Ethernet0|detection_time: not a number: soon (EXEC changed nothing: the"
                                + " transaction's 2 commands apply together or not at all)",
                        "111 300",
                        "watch aborted 9");
        assertThat(cli("-n", "4", "multi")).isEqualTo("OK");
        assertThat(cli("-n", "4", "exec")).contains("EXEC without MULTI");
    }

    @Test
    void subscribersSeeEachChangeAndObeySubscribeModeRules() throws Exception {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Process py = new ProcessBuilder(
                        "timeout",
                        "30",
                        "/usr/bin/python3",
                        "-c",
                        String.join(
                                "\n",
                                "import redis, time",
                                "r = redis.Redis(host='127.0.0.1', port=" + server.port()
                                        + ", db=4, decode_responses=True)",
                                "p = r.pubsub()",
                                "p.psubscribe('__keyspace@4__:*')",
                                "p.subscribe('__keyevent@4__:del')",
                                "end = time.time() + 20",
                                "while time.time() < end:",
                                "    m = p.get_message(timeout=0.2)",
                                "    if m:",
                                "        print(m['type'], m['channel'], m['data'], flush=True)"))
                .redirectErrorStream(true)
                .start();
        try {
            Thread.ofPlatform().daemon().start(() -> {
                try (var in = new java.io.BufferedReader(
                        new java.io.InputStreamReader(py.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (final java.io.IOException e) {
                    // ended
                }
            });
            await(lines, 2);
            cli("-n", "4", "hset", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold", "1");
            cli("-n", "4", "hset", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold", "x"); // refused: no event
            cli("-n", "4", "hdel", "PFC_WD|Ethernet0", "restoration_time");
            cli("-n", "4", "del", "PORT_QOS_MAP|Ethernet4");
            // a change that does not come through Redis (a register write does this): notified the same way
            config.change(c -> c.get("SWITCH_HASH|GLOBAL").put("ecmp_hash_seed", "5"));
            await(lines, 7);
            Thread.sleep(300);
            assertThat(lines)
                    .containsExactly(
                            "psubscribe __keyspace@4__:* 1",
                            "subscribe __keyevent@4__:del 2",
                            "pmessage __keyspace@4__:WRED_PROFILE|AZURE_LOSSLESS hset",
                            "pmessage __keyspace@4__:PFC_WD|Ethernet0 hdel",
                            "pmessage __keyspace@4__:PORT_QOS_MAP|Ethernet4 del",
                            "message __keyevent@4__:del PORT_QOS_MAP|Ethernet4",
                            "pmessage __keyspace@4__:SWITCH_HASH|GLOBAL hset");
        } finally {
            py.destroyForcibly();
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream()
                    .write(("*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n*2\r\n$4\r\nHGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n"
                                    + "*1\r\n$11\r\nUNSUBSCRIBE\r\n*1\r\n$4\r\nPING\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            final String expected = "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"
                    + "-ERR Can't execute 'hget': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are"
                    + " allowed in this context\r\n"
                    + "*2\r\n$4\r\npong\r\n$0\r\n\r\n"
                    + "*3\r\n$11\r\nunsubscribe\r\n$1\r\nc\r\n:0\r\n"
                    + "+PONG\r\n";
            assertThat(new String(s.getInputStream().readNBytes(expected.length()), StandardCharsets.US_ASCII))
                    .isEqualTo(expected);
        }
    }

    @Test
    void aSlowChangeDoesNotStallOtherClients() throws Exception {
        config.slow = new CountDownLatch(1);
        final Thread writer = Thread.ofPlatform()
                .start(() -> assertThat(cliUnchecked("-n", "4", "hset", "PFC_WD|Ethernet0", "detection_time", "250"))
                        .isEqualTo("0"));
        Thread.sleep(300); // the write waits in the control model
        try (RedisCountersClient other = RedisCountersClient.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), null, Duration.ofSeconds(5))) {
            final long t0 = System.nanoTime();
            assertThat(other.hgetall(2, "COUNTERS_PORT_NAME_MAP")).containsKey("Ethernet0");
            assertThat(System.nanoTime() - t0).isLessThan(Duration.ofSeconds(1).toNanos());
        }
        assertThat(writer.isAlive()).as("the write still waits").isTrue();
        config.slow.countDown();
        writer.join(10_000);
        assertThat(cli("-n", "4", "hget", "PFC_WD|Ethernet0", "detection_time")).isEqualTo("250");
    }

    @Test
    void aSubscriberThatNeverReadsIsDisconnectedAndOthersAreServed() throws Exception {
        try (Socket lazy = new Socket()) {
            lazy.setReceiveBufferSize(64 << 10);
            lazy.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
            lazy.setSoTimeout(10_000);
            // 64 patterns that all match: each event is 128 notifications of ~95 bytes, so a change of 20k keys would
            // be ~240 MB, far more than loopback's socket buffers hold (tens of MB here) and the 1 MiB a connection may
            // hold in the server
            final StringBuilder psubscribe = new StringBuilder("*65\r\n$10\r\nPSUBSCRIBE\r\n$1\r\n*\r\n");
            final String classes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
            for (int i = 0; i < 63; i++) {
                psubscribe.append("$5\r\n[_").append(classes.charAt(i)).append("]*\r\n");
            }
            lazy.getOutputStream().write(psubscribe.toString().getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(300);
            final int keys = 20_000;
            config.change(c -> {
                for (int i = 0; i < keys; i++) {
                    c.put(
                            "STATIC_ROUTE|10." + (i >> 16) + "." + (i >> 8 & 255) + "." + (i & 255) + "/32",
                            new LinkedHashMap<>(Map.of("nexthop", "10.0.0.1")));
                }
            });
            Thread.sleep(500);
            final long t0 = System.nanoTime();
            assertThat(cli("ping")).isEqualTo("PONG");
            assertThat(System.nanoTime() - t0).as("another client's round trip").isLessThan(5_000_000_000L);
            final InputStream in = lazy.getInputStream();
            final byte[] chunk = new byte[1 << 16];
            long read = 0;
            int n;
            try {
                while ((n = in.read(chunk)) >= 0) {
                    read += n;
                }
            } catch (final java.net.SocketTimeoutException e) {
                throw new AssertionError("no end of stream after " + read + " bytes", e);
            }
            assertThat(read)
                    .as("the server closed the connection (end of stream) long before 2.56M notifications")
                    .isLessThan(120L << 20);
        }
    }

    private static void await(final List<String> lines, final int n) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (lines.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lines).hasSizeGreaterThanOrEqualTo(n);
    }

    private String python(final String... body) throws Exception {
        final List<String> script = new ArrayList<>(List.of(
                "import redis",
                "r = redis.Redis(host='127.0.0.1', port=" + server.port() + ", db=4, decode_responses=True)"));
        script.addAll(List.of(body));
        return OperatorRedisServerTest.run(List.of("/usr/bin/python3", "-c", String.join("\n", script)));
    }

    private String cli(final String... args) throws Exception {
        final List<String> command =
                new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(server.port())));
        command.addAll(List.of(args));
        return OperatorRedisServerTest.run(command).strip();
    }

    private String cliUnchecked(final String... args) {
        try {
            return cli(args);
        } catch (final Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
