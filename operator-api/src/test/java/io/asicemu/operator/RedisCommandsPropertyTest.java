package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Random commands and random bytes give replies (errors for nonsense), never a crash, and change nothing. */
class RedisCommandsPropertyTest {
    private static final List<String> NAMES = List.of(
            "PING",
            "ECHO",
            "AUTH",
            "SELECT",
            "HGET",
            "HMGET",
            "HGETALL",
            "HKEYS",
            "HVALS",
            "HLEN",
            "HEXISTS",
            "EXISTS",
            "KEYS",
            "SCAN",
            "TYPE",
            "DBSIZE",
            "INFO",
            "CLIENT",
            "COMMAND",
            "HELLO",
            "HSET",
            "HMSET",
            "HDEL",
            "DEL",
            "MULTI",
            "EXEC",
            "DISCARD",
            "WATCH",
            "HSETNX",
            "UNLINK",
            "CONFIG",
            "PSUBSCRIBE",
            "UNSUBSCRIBE",
            "RESET",
            "SUBSCRIBE",
            "FLUSHALL",
            "QUIT",
            "hgetall",
            "scan",
            "select",
            "NOSUCH");
    private static final List<String> WORDS = List.of(
            "0",
            "2",
            "4",
            "6",
            "15",
            "16",
            "-1",
            "99999999999999999999",
            "*",
            "PORT|*",
            "COUNTERS:*",
            "[a-",
            "\\",
            "MATCH",
            "COUNT",
            "TYPE",
            "hash",
            "COUNTERS_PORT_NAME_MAP",
            "Ethernet0",
            "PORT|Ethernet0",
            "WRED_PROFILE|AZURE_LOSSLESS",
            "green_min_threshold",
            "green_min_threshold@",
            "detection_time",
            "PFC_WD|Ethernet0",
            "NULL",
            "@",
            "GET",
            "notify-keyspace-events",
            "",
            "\r\n",
            "\u0000");

    private final SnapshotCache cache = new SnapshotCache(() -> SampleSnapshots.sample(1, 0), Duration.ofDays(1));

    @Property(tries = 10_000)
    void randomCommandsGetARepliesNeverAnExceptionAndLeaveTheConfigUnchanged(
            @ForAll("commands") final List<List<byte[]>> commands) throws Exception {
        final Map<String, Map<String, String>> before = cache.databases().db(SonicDatabases.CONFIG_DB);
        final RedisCommands session = new RedisCommands(cache, null);
        for (final List<byte[]> command : commands) {
            final RedisMessage reply = session.execute(command);
            assertThat(reply).isNotNull();
            ReferenceCountUtil.release(reply);
        }
        assertThat(cache.databases().db(SonicDatabases.CONFIG_DB)).isEqualTo(before);
        assertThat(cache.databases().db(SonicDatabases.CONFIG_DB).get("WRED_PROFILE|AZURE_LOSSLESS"))
                .containsEntry("green_min_threshold", "250000");
    }

    /**
     * With a writable CONFIG_DB (a fake control model refusing non-numeric thresholds and times): random commands,
     * writes with random field values among them, give a reply or an error, never an exception, and a refused command
     * leaves the running config as it was.
     */
    @Property(tries = 10_000)
    void randomCommandsWithWritesGiveRepliesAndRefusedOnesChangeNothing(
            @ForAll("commands") final List<List<byte[]>> commands) {
        final java.util.concurrent.atomic.AtomicReference<Map<String, Map<String, String>>> running =
                new java.util.concurrent.atomic.AtomicReference<>(
                        SampleSnapshots.sample(1, 0).config());
        final ConfigAccess config = new ConfigAccess() {
            @Override
            public Map<String, Map<String, String>> running() {
                return running.get();
            }

            @Override
            public void change(final java.util.function.Consumer<Map<String, Map<String, String>>> edit) {
                final Map<String, Map<String, String>> working = new java.util.LinkedHashMap<>();
                running.get().forEach((k, v) -> working.put(k, new java.util.LinkedHashMap<>(v)));
                edit.accept(working);
                working.forEach((key, fields) -> fields.forEach((field, value) -> {
                    if ((field.endsWith("_threshold") || field.endsWith("_time")) && !value.matches("\\d{1,9}")) {
                        throw new ConfigRefusedException(key + "|" + field + ": not a number");
                    }
                }));
                running.set(working);
            }

            @Override
            public void addChangeListener(final Runnable listener) {}

            @Override
            public void removeChangeListener(final Runnable listener) {}
        };
        final SnapshotCache writable = new SnapshotCache(
                () -> {
                    final SwitchSnapshot s = SampleSnapshots.sample(1, 0);
                    return new SwitchSnapshot(0, s.ports(), s.pools(), running.get(), Map.of(), Map.of(), List.of());
                },
                Duration.ofDays(1));
        final RedisCommands session = new RedisCommands(writable, null, null, config, null);
        for (final List<byte[]> command : commands) {
            final Map<String, Map<String, String>> before = running.get();
            RedisMessage reply = session.execute(command);
            if (reply instanceof RedisCommands.Deferred deferred) {
                reply = deferred.run();
            }
            assertThat(reply).isNotNull();
            if (reply instanceof io.netty.handler.codec.redis.ErrorRedisMessage) {
                assertThat(running.get()).as("refused: nothing changed").isSameAs(before);
            }
            ReferenceCountUtil.release(reply);
        }
    }

    @Property(tries = 2_000)
    void randomBytesOnTheWireGiveErrorsOrRepliesNeverACrash(@ForAll("wire") final byte[] bytes) {
        final EmbeddedChannel channel = new EmbeddedChannel();
        OperatorRedisServer.configure(
                channel.pipeline(), cache, null, new OperatorRedisServer.Limits(1024, 16, 256, 4, 1024, 4096));
        channel.writeInbound(Unpooled.wrappedBuffer(bytes));
        channel.runPendingTasks();
        Object out;
        while ((out = channel.readOutbound()) != null) {
            assertThat(out).isInstanceOf(ByteBuf.class);
            ReferenceCountUtil.release(out);
        }
        channel.finishAndReleaseAll();
    }

    @Provide
    Arbitrary<List<List<byte[]>>> commands() {
        final Arbitrary<byte[]> word = Arbitraries.oneOf(
                Arbitraries.of(WORDS).map(w -> w.getBytes(StandardCharsets.UTF_8)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(40));
        final Arbitrary<List<byte[]>> command = Combinators.combine(
                        Arbitraries.oneOf(
                                Arbitraries.of(NAMES).map(n -> n.getBytes(StandardCharsets.UTF_8)),
                                Arbitraries.bytes().array(byte[].class).ofMaxSize(12)),
                        word.list().ofMaxSize(6))
                .as((name, args) -> {
                    final List<byte[]> all = new ArrayList<>();
                    all.add(name);
                    all.addAll(args);
                    return all;
                });
        return Arbitraries.oneOf(command.list().ofMinSize(1).ofMaxSize(8), Arbitraries.just(List.of(List.of())));
    }

    @Provide
    Arbitrary<byte[]> wire() {
        final Arbitrary<String> frames = Arbitraries.of(
                "*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n",
                "*1\r\n$4\r\nPING\r\n",
                "PING\r\n",
                "KEYS *\r\n",
                "*-1\r\n",
                "$-1\r\n",
                "*3\r\n$4\r\nHGET\r\n",
                "$999999\r\n",
                "*99999\r\n",
                ":12\r\n",
                "+OK\r\n",
                "-ERR x\r\n",
                "*1\r\n*1\r\n$1\r\nx\r\n",
                "\r\n",
                "*x\r\n",
                "$x\r\n",
                "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n",
                "*2\r\n$7\r\nHGETALL\r\n$22\r\nCOUNTERS_PORT_NAME_MAP\r\n");
        return Arbitraries.oneOf(
                frames.list().ofMaxSize(10).map(l -> String.join("", l).getBytes(StandardCharsets.UTF_8)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300));
    }
}
