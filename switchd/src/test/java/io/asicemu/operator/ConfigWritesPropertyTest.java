package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.switchd.RunningConfigAccess;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The Redis front's CONFIG_DB writes ({@link RedisCommands}) on the real control model ({@code RunningConfigAccess}
 * over a {@link PipelineControl}): about 10k random commands — HSET/HMSET/HSETNX/HDEL/DEL with random field values on
 * the tables a running switch changes and on others, reads, SELECTs, MULTI/EXEC/DISCARD groups — give a reply or an
 * error, never an exception; a refused write leaves the running config unchanged; an accepted one leaves exactly what
 * Redis' semantics make of the running config (an independent model of HSET/HDEL/DEL here), and exactly what
 * {@code reconfigure} accepts: an oracle switch, given the same candidate configs by {@code reconfigure} directly,
 * accepts and refuses the same ones and runs the same config.
 */
class ConfigWritesPropertyTest {
    private static final String BASE = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "WRED_PROFILE": {
           "W1": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "40000",
                  "green_max_threshold": "80000", "green_drop_probability": "10"},
           "W2": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "100000",
                  "green_max_threshold": "200000", "green_drop_probability": "5"}},
         "QUEUE": {"Ethernet0,Ethernet4|3-4": {"wred_profile": "W1"}},
         "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "2000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "100000",
                                         "xoff": "50000", "xon": "20000"}},
         "BUFFER_PG": {"Ethernet0,Ethernet4|3": {"profile": "lossless"}},
         "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}},
         "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"},
                    "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "400"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_hash": ["SRC_IP", "DST_IP"], "ecmp_hash_seed": "7"}}}""";
    private static final PipelineSizing SMALL = new PipelineSizing(8, 16, 256, 64, 256, 256, 64, 9_728, 64, 64, 1_024);

    private static final List<String> KEYS = List.of(
            "WRED_PROFILE|W1",
            "WRED_PROFILE|W2",
            "WRED_PROFILE|NEW",
            "PFC_WD|Ethernet0",
            "SWITCH_HASH|GLOBAL",
            "BUFFER_PROFILE|lossless",
            "QUEUE|Ethernet0,Ethernet4|3-4",
            "BUFFER_PG|Ethernet0,Ethernet4|3",
            "PORT|Ethernet0",
            "INTERFACE|Ethernet0",
            "FOO|bar",
            "NOBAR",
            "|x");
    private static final List<String> FIELDS = List.of(
            "green_min_threshold",
            "green_max_threshold",
            "green_drop_probability",
            "ecn",
            "wred_green_enable",
            "detection_time",
            "restoration_time",
            "action",
            "ecmp_hash_seed",
            "ecmp_hash@",
            "ecmp_hash",
            "xoff",
            "xon",
            "wred_profile",
            "profile",
            "speed",
            "mtu",
            "NULL",
            "nosuch",
            "@",
            "");
    private static final List<String> VALUES = List.of(
            "0",
            "1",
            "7",
            "100",
            "101",
            "200",
            "400",
            "5000",
            "20000",
            "40000",
            "50000",
            "80000",
            "100000",
            "250000",
            "-1",
            "abc",
            "",
            "1e5",
            "99999999999999999999",
            "W1",
            "W2",
            "drop",
            "SRC_IP,DST_IP",
            "ecn_all",
            "true",
            "false");

    /** The switch behind the Redis front and the oracle fed by {@code reconfigure} directly (one per JVM). */
    private static Pipeline switchPipeline;

    private static Pipeline oraclePipeline;
    /** Changes applied and refused over the property's tries (both must happen, or the property proves little). */
    private static final java.util.concurrent.atomic.AtomicInteger APPLIED =
            new java.util.concurrent.atomic.AtomicInteger();

    private static final java.util.concurrent.atomic.AtomicInteger REFUSED =
            new java.util.concurrent.atomic.AtomicInteger();
    private static RunningConfigAccess access;
    private static SnapshotCache cache;

    private static synchronized void start() {
        if (switchPipeline != null) {
            return;
        }
        switchPipeline = pipeline();
        oraclePipeline = pipeline();
        access = new RunningConfigAccess(
                ControlAgent.start(switchPipeline.control(), "test-control"),
                () -> SwitchConfig.of(switchPipeline.control()).runningConfig(),
                null);
        cache = new SnapshotCache(
                () -> new SwitchSnapshot(0, List.of(), Map.of(), access.running(), Map.of(), Map.of(), List.of()),
                Duration.ofDays(1));
    }

    private static Pipeline pipeline() {
        final Pipeline p = Pipeline.create(new ManualClock(1_000_000_000L), SMALL, Map.of());
        final ConfigDb db = ConfigDb.parse(BASE);
        for (final String name : db.table("PORT").keySet()) {
            p.control().attachPort(name, new InMemoryPort(name));
        }
        SwitchConfig.of(p.control()).applyConfig(db);
        p.agent().doWork();
        return p;
    }

    @Property(tries = 1000)
    void randomWritesGiveRepliesOrErrorsAndChangeExactlyWhatReconfigureAccepts(
            @ForAll("sessions") final List<List<String>> commands) {
        start();
        final RedisCommands session = new RedisCommands(cache, null, null, access, null);
        Map<String, Map<String, String>> candidate = null; // the open transaction's model
        boolean transactionFailed = false;
        final Map<String, Map<String, String>> watched = new LinkedHashMap<>(); // key -> hash when watched (or null)
        int db = 0;
        int dbAtMulti = 0;
        for (final List<String> command : commands) {
            final String name = command.get(0).toUpperCase(Locale.ROOT);
            final Map<String, Map<String, String>> before = copy(access.running());
            final List<byte[]> args = new ArrayList<>();
            command.forEach(a -> args.add(a.getBytes(StandardCharsets.UTF_8)));
            final RedisMessage[] reply = new RedisMessage[1];
            assertThatCode(() -> {
                        final RedisMessage r = session.execute(args);
                        reply[0] = r instanceof RedisCommands.Deferred d ? d.run() : r;
                    })
                    .as("%s", command)
                    .doesNotThrowAnyException();
            switchPipeline.agent().doWork();
            assertThat(reply[0]).as("%s", command).isNotNull();
            final Map<String, Map<String, String>> after = access.running();
            final boolean error = reply[0] instanceof ErrorRedisMessage;
            if (candidate != null
                    && !List.of("EXEC", "DISCARD", "MULTI", "WATCH").contains(name)) {
                // queued: nothing changes yet
                assertThat(after).as("queued %s", command).isEqualTo(before);
                if (error) {
                    transactionFailed = true;
                } else if (RedisCommands.CONFIG_WRITES.contains(name) && db == 4) {
                    apply(candidate, command);
                } else if (RedisCommands.CONFIG_WRITES.contains(name)) {
                    transactionFailed = true; // a write to another DB fails the EXEC
                } else if (name.equals("SELECT")) {
                    db = Integer.parseInt(command.get(1));
                }
                continue;
            }
            if (name.equals("SELECT") && !error) {
                db = Integer.parseInt(command.get(1));
            }
            if (name.equals("WATCH") && !error) {
                for (int i = 1; i < command.size(); i++) {
                    if (!watched.containsKey(command.get(i))) {
                        final Map<String, String> hash = before.get(command.get(i));
                        watched.put(command.get(i), hash == null ? null : new LinkedHashMap<>(hash));
                    }
                }
            }
            if (name.equals("UNWATCH")) {
                watched.clear();
            }
            if (name.equals("MULTI") && !error) {
                candidate = copy(before);
                transactionFailed = false;
                dbAtMulti = db;
                continue;
            }
            if (name.equals("DISCARD") && candidate != null) {
                candidate = null;
                watched.clear();
                db = dbAtMulti;
            }
            Map<String, Map<String, String>> expected = null;
            if (name.equals("EXEC") && candidate != null) {
                boolean aborted = transactionFailed;
                for (final Map.Entry<String, Map<String, String>> w : watched.entrySet()) {
                    aborted |= !java.util.Objects.equals(w.getValue(), before.get(w.getKey()));
                }
                expected = aborted ? null : candidate;
                candidate = null;
                watched.clear();
                if (!(reply[0] instanceof ArrayRedisMessage a) || a.isNull()) {
                    db = dbAtMulti; // nothing of it ran
                }
            } else if (RedisCommands.CONFIG_WRITES.contains(name) && db == 4 && wellFormed(command)) {
                expected = copy(before);
                apply(expected, command);
            }
            if (error || expected == null) {
                assertThat(after)
                        .as("refused or read-only %s: %s", command, text(reply[0]))
                        .isEqualTo(before);
                if (error && expected != null) {
                    REFUSED.incrementAndGet();
                }
                if (expected != null && !normalizable(expected)) {
                    continue;
                }
                if (expected != null && !normalized(expected).equals(before)) {
                    assertThat(oracleAccepts(expected))
                            .as("the oracle refuses %s too (%s)", command, text(reply[0]))
                            .isFalse();
                }
                continue;
            }
            if (normalized(expected).equals(before)) {
                assertThat(after).as("%s changes nothing", command).isEqualTo(before);
                continue;
            }
            assertThat(oracleAccepts(expected))
                    .as("the oracle accepts %s", command)
                    .isTrue();
            APPLIED.incrementAndGet();
            assertThat(after).as("accepted %s", command).isEqualTo(normalized(expected));
            assertThat(RunningConfigAccess.toRedis(
                            SwitchConfig.of(oraclePipeline.control()).runningConfig()))
                    .isEqualTo(after);
        }
    }

    @net.jqwik.api.lifecycle.AfterContainer
    static void bothAcceptedAndRefusedChangesHappened() {
        System.out.println("ConfigWritesPropertyTest: " + APPLIED.get() + " changes applied, " + REFUSED.get()
                + " refused by the control model");
        assertThat(APPLIED.get()).as("changes applied").isGreaterThan(50);
        assertThat(REFUSED.get()).as("changes the control model refused").isGreaterThan(500);
    }

    /** The syntax the front checks before it asks the control model (arity, key shape, named fields). */
    private static boolean wellFormed(final List<String> command) {
        final String name = command.get(0).toUpperCase(Locale.ROOT);
        final int n = command.size();
        final boolean arity = switch (name) {
            case "HSET", "HMSET" -> n >= 4 && n % 2 == 0;
            case "HSETNX" -> n == 4;
            case "HDEL" -> n >= 3;
            default -> n >= 2;
        };
        if (!arity || name.equals("DEL") || name.equals("UNLINK")) {
            return arity;
        }
        final String key = command.get(1);
        final int bar = key.indexOf('|');
        if (bar <= 0 || bar == key.length() - 1) {
            return false;
        }
        for (int i = 2; i < n; i += name.equals("HDEL") ? 1 : 2) {
            if (command.get(i).isEmpty() || command.get(i).equals("@")) {
                return false;
            }
        }
        return true;
    }

    private static boolean normalizable(final Map<String, Map<String, String>> candidate) {
        try {
            RunningConfigAccess.fromRedis(candidate);
            return true;
        } catch (final ConfigAccess.ConfigRefusedException e) {
            return false;
        }
    }

    /** The oracle switch's reconfigure of a candidate (in Redis form), applied when it accepts. */
    private static boolean oracleAccepts(final Map<String, Map<String, String>> candidate) {
        final ConfigDb next;
        try {
            next = RunningConfigAccess.fromRedis(candidate);
        } catch (final ConfigAccess.ConfigRefusedException e) {
            return false;
        }
        try {
            SwitchConfig.of(oraclePipeline.control()).reconfigure(next);
        } catch (final io.asicemu.config.ConfigException e) {
            return false;
        } finally {
            oraclePipeline.agent().doWork();
        }
        return true;
    }

    private static Map<String, Map<String, String>> normalized(final Map<String, Map<String, String>> redis) {
        return RunningConfigAccess.toRedis(RunningConfigAccess.fromRedis(redis));
    }

    /** Redis' semantics, written again: the model the replies are checked against. */
    private static void apply(final Map<String, Map<String, String>> config, final List<String> command) {
        final String name = command.get(0).toUpperCase(Locale.ROOT);
        switch (name) {
            case "HSET", "HMSET" -> {
                final Map<String, String> hash = config.computeIfAbsent(command.get(1), k -> new LinkedHashMap<>());
                for (int i = 2; i + 1 < command.size(); i += 2) {
                    hash.put(command.get(i), command.get(i + 1));
                }
            }
            case "HSETNX" -> {
                final Map<String, String> hash = config.computeIfAbsent(command.get(1), k -> new LinkedHashMap<>());
                hash.putIfAbsent(command.get(2), command.get(3));
            }
            case "HDEL" -> {
                final Map<String, String> hash = config.get(command.get(1));
                if (hash != null) {
                    final boolean fieldless = hash.isEmpty();
                    boolean removed = false;
                    for (int i = 2; i < command.size(); i++) {
                        removed |= hash.remove(command.get(i)) != null
                                || (fieldless && command.get(i).equals("NULL"));
                    }
                    if (hash.isEmpty() && removed) {
                        config.remove(command.get(1));
                    }
                }
            }
            default -> {
                for (int i = 1; i < command.size(); i++) {
                    config.remove(command.get(i));
                }
            }
        }
    }

    private static Map<String, Map<String, String>> copy(final Map<String, Map<String, String>> config) {
        final Map<String, Map<String, String>> out = new LinkedHashMap<>();
        config.forEach((k, v) -> out.put(k, new LinkedHashMap<>(v)));
        return out;
    }

    private static String text(final RedisMessage m) {
        return m instanceof ErrorRedisMessage e ? e.content() : m instanceof ArrayRedisMessage ? "array" : m.toString();
    }

    @Provide
    Arbitrary<List<List<String>>> sessions() {
        final Arbitrary<String> key = Arbitraries.of(KEYS);
        final Arbitrary<String> field = Arbitraries.of(FIELDS);
        final Arbitrary<String> value = Arbitraries.oneOf(
                Arbitraries.of(VALUES),
                Arbitraries.integers().between(-10, 3_000_000).map(i -> Integer.toString(i)),
                Arbitraries.strings().ofMaxLength(8));
        final Arbitrary<List<String>> pairs = Combinators.combine(field, value)
                .as(List::of)
                .list()
                .ofMinSize(1)
                .ofMaxSize(3)
                .map(l -> l.stream().flatMap(List::stream).toList());
        final Arbitrary<List<String>> hset = Combinators.combine(Arbitraries.of("HSET", "hset", "HMSET"), key, pairs)
                .as((n, k, p) -> {
                    final List<String> c = new ArrayList<>(List.of(n, k));
                    c.addAll(p);
                    return c;
                });
        final Arbitrary<List<String>> hsetnx =
                Combinators.combine(key, field, value).as((k, f, v) -> List.of("HSETNX", k, f, v));
        final Arbitrary<List<String>> hdel = Combinators.combine(
                        key, field.list().ofMinSize(1).ofMaxSize(2))
                .as((k, f) -> {
                    final List<String> c = new ArrayList<>(List.of("HDEL", k));
                    c.addAll(f);
                    return c;
                });
        final Arbitrary<List<String>> del = key.list().ofMinSize(1).ofMaxSize(2).map(k -> {
            final List<String> c = new ArrayList<>(List.of("DEL"));
            c.addAll(k);
            return c;
        });
        final Arbitrary<List<String>> other = Arbitraries.of(
                List.of("MULTI"),
                List.of("EXEC"),
                List.of("DISCARD"),
                List.of("SELECT", "4"),
                List.of("SELECT", "2"),
                List.of("HGETALL", "WRED_PROFILE|W1"),
                List.of("HSET", "WRED_PROFILE|W1"),
                List.of("HDEL"),
                List.of("SET", "x", "y"),
                List.of("WATCH", "WRED_PROFILE|W1"),
                List.of("UNWATCH"));
        final Arbitrary<List<String>> command = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, hset),
                net.jqwik.api.Tuple.of(1, hsetnx),
                net.jqwik.api.Tuple.of(2, hdel),
                net.jqwik.api.Tuple.of(1, del),
                net.jqwik.api.Tuple.of(3, other));
        return command.list().ofMinSize(5).ofMaxSize(15).map(l -> {
            final List<List<String>> all = new ArrayList<>();
            all.add(List.of("SELECT", "4"));
            all.addAll(l);
            return all;
        });
    }
}
