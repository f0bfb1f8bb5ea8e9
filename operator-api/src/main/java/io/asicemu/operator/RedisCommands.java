package io.asicemu.operator;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The Redis commands the read side answers, over {@link SonicDatabases}: PING, ECHO, QUIT, AUTH, SELECT, HGET,
 * HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS, EXISTS, KEYS, SCAN, TYPE, DBSIZE, INFO, plus CLIENT/COMMAND/HELLO
 * courtesies clients send on connect, and asic-emu's {@code ASICEMU.REGISTER} ({@link RegisterCommand}). Every other command is an error reply, never an exception: write commands say
 * that CONFIG_DB writes are not available yet (nothing is pretended), unknown ones are named.
 * <p>
 * Threading: one instance per connection, used by one thread at a time.
 */
final class RedisCommands {
    /** Databases a client may SELECT (as a default Redis server). */
    static final int DATABASES = 16;

    static final String READ_ONLY = "ERR CONFIG_DB writes are not available yet: asic-emu's Redis front is read-only"
            + " (COUNTERS_DB, STATE_DB and CONFIG_DB as loaded); change the running switch through P4Runtime";
    private static final Set<String> WRITES = Set.of(
            "SET",
            "SETNX",
            "SETEX",
            "PSETEX",
            "MSET",
            "MSETNX",
            "GETSET",
            "GETDEL",
            "GETEX",
            "APPEND",
            "INCR",
            "INCRBY",
            "INCRBYFLOAT",
            "DECR",
            "DECRBY",
            "DEL",
            "UNLINK",
            "HSET",
            "HSETNX",
            "HMSET",
            "HDEL",
            "HINCRBY",
            "HINCRBYFLOAT",
            "EXPIRE",
            "PEXPIRE",
            "EXPIREAT",
            "PEXPIREAT",
            "PERSIST",
            "RENAME",
            "RENAMENX",
            "MOVE",
            "COPY",
            "RESTORE",
            "FLUSHDB",
            "FLUSHALL",
            "MULTI",
            "EXEC",
            "DISCARD",
            "WATCH",
            "UNWATCH",
            "LPUSH",
            "RPUSH",
            "LPOP",
            "RPOP",
            "LSET",
            "LREM",
            "SADD",
            "SREM",
            "SPOP",
            "ZADD",
            "ZREM",
            "EVAL",
            "EVALSHA",
            "FCALL",
            "SCRIPT",
            "SWAPDB",
            "SAVE",
            "BGSAVE",
            "BGREWRITEAOF",
            "PUBLISH");
    private static final int SCAN_DEFAULT_COUNT = 10;

    private final SnapshotCache cache;
    private final RegisterAccess registers;
    private final byte[] password;
    private int db;
    private boolean authenticated;
    private boolean quit;

    /**
     * @param cache where the databases come from.
     * @param password the AUTH password, or null for none.
     */
    RedisCommands(final SnapshotCache cache, final String password) {
        this(cache, password, null);
    }

    /**
     * @param cache where the databases come from.
     * @param password the AUTH password, or null for none.
     * @param registers the chip's register map ({@code ASICEMU.REGISTER}), or null for none.
     */
    RedisCommands(final SnapshotCache cache, final String password, final RegisterAccess registers) {
        this.registers = registers;
        this.cache = cache;
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
        this.authenticated = password == null;
    }

    /** @return whether the client asked to close (QUIT). */
    boolean quit() {
        return quit;
    }

    /**
     * @param args the command and its arguments (raw bytes, as received).
     * @return the reply (the caller writes and so releases it).
     */
    RedisMessage execute(final List<byte[]> args) {
        if (args.isEmpty()) {
            return error("ERR empty command");
        }
        final String name = text(args.get(0)).toUpperCase(Locale.ROOT);
        if (!authenticated && !name.equals("AUTH") && !name.equals("QUIT") && !name.equals("HELLO")) {
            return error("NOAUTH Authentication required.");
        }
        try {
            return switch (name) {
                case "PING" ->
                    args.size() == 1
                            ? new SimpleStringRedisMessage("PONG")
                            : args.size() == 2 ? bulk(args.get(1)) : arity(name);
                case "ECHO" -> args.size() == 2 ? bulk(args.get(1)) : arity(name);
                case "QUIT" -> {
                    quit = true;
                    yield ok();
                }
                case "AUTH" -> auth(args);
                case "HELLO" -> error("NOPROTO this server speaks RESP2 only");
                case "SELECT" -> select(args);
                case "CLIENT" -> args.size() >= 2 ? client(args) : arity(name);
                case "COMMAND" -> new ArrayRedisMessage(List.of());
                case "HGET" -> args.size() == 3 ? hget(args) : arity(name);
                case "HMGET" -> args.size() >= 3 ? hmget(args) : arity(name);
                case "HGETALL" -> args.size() == 2 ? hgetall(args) : arity(name);
                case "HKEYS", "HVALS" -> args.size() == 2 ? hkeysOrValues(args, name.equals("HKEYS")) : arity(name);
                case "HLEN" ->
                    args.size() == 2 ? new IntegerRedisMessage(hash(args.get(1)).size()) : arity(name);
                case "HEXISTS" ->
                    args.size() == 3
                            ? new IntegerRedisMessage(hash(args.get(1)).containsKey(text(args.get(2))) ? 1 : 0)
                            : arity(name);
                case "EXISTS" -> args.size() >= 2 ? exists(args) : arity(name);
                case "TYPE" ->
                    args.size() == 2
                            ? new SimpleStringRedisMessage(keys().containsKey(text(args.get(1))) ? "hash" : "none")
                            : arity(name);
                case "KEYS" -> args.size() == 2 ? keysMatching(text(args.get(1))) : arity(name);
                case "SCAN" -> args.size() >= 2 ? scan(args) : arity(name);
                case "DBSIZE" -> args.size() == 1 ? new IntegerRedisMessage(keys().size()) : arity(name);
                case "INFO" -> bulk(info());
                case RegisterCommand.NAME -> RegisterCommand.execute(args, registers);
                case "SUBSCRIBE", "PSUBSCRIBE" ->
                    error("ERR keyspace notifications are not available yet: "
                            + "CONFIG_DB does not change while asic-emu runs (it is read-only here)");
                default ->
                    WRITES.contains(name) ? error(READ_ONLY) : error("ERR unknown command '" + printable(name) + "'");
            };
        } catch (final TimeoutException e) {
            return error("ERR the switch's data plane did not hand over its counters in time; try again");
        }
    }

    private RedisMessage auth(final List<byte[]> args) {
        if (args.size() != 2 && args.size() != 3) {
            return arity("AUTH");
        }
        if (password == null) {
            return error("ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?");
        }
        final boolean userOk = args.size() == 2 || text(args.get(1)).equals("default");
        if (userOk && MessageDigest.isEqual(password, args.get(args.size() - 1))) {
            authenticated = true;
            return ok();
        }
        return error("WRONGPASS invalid username-password pair or user is disabled.");
    }

    private RedisMessage select(final List<byte[]> args) {
        if (args.size() != 2) {
            return arity("SELECT");
        }
        final Integer index = integer(args.get(1));
        if (index == null) {
            return error("ERR value is not an integer or out of range");
        }
        if (index < 0 || index >= DATABASES) {
            return error("ERR DB index is out of range");
        }
        db = index;
        return ok();
    }

    private RedisMessage client(final List<byte[]> args) {
        final String sub = text(args.get(1)).toUpperCase(Locale.ROOT);
        return switch (sub) {
            case "SETNAME", "SETINFO" -> ok();
            case "GETNAME" -> FullBulkStringRedisMessage.NULL_INSTANCE;
            case "ID" -> new IntegerRedisMessage(1);
            default -> error("ERR unknown subcommand '" + printable(sub) + "'");
        };
    }

    private RedisMessage hget(final List<byte[]> args) throws TimeoutException {
        final String value = hash(args.get(1)).get(text(args.get(2)));
        return value == null ? FullBulkStringRedisMessage.NULL_INSTANCE : bulk(value);
    }

    private RedisMessage hmget(final List<byte[]> args) throws TimeoutException {
        final Map<String, String> hash = hash(args.get(1));
        final List<RedisMessage> out = new ArrayList<>(args.size() - 2);
        for (int i = 2; i < args.size(); i++) {
            final String value = hash.get(text(args.get(i)));
            out.add(value == null ? FullBulkStringRedisMessage.NULL_INSTANCE : bulk(value));
        }
        return new ArrayRedisMessage(out);
    }

    private RedisMessage hgetall(final List<byte[]> args) throws TimeoutException {
        final Map<String, String> hash = hash(args.get(1));
        final List<RedisMessage> out = new ArrayList<>(hash.size() * 2);
        hash.forEach((field, value) -> {
            out.add(bulk(field));
            out.add(bulk(value));
        });
        return new ArrayRedisMessage(out);
    }

    private RedisMessage hkeysOrValues(final List<byte[]> args, final boolean keys) throws TimeoutException {
        final List<RedisMessage> out = new ArrayList<>();
        hash(args.get(1)).forEach((field, value) -> out.add(bulk(keys ? field : value)));
        return new ArrayRedisMessage(out);
    }

    private RedisMessage exists(final List<byte[]> args) throws TimeoutException {
        final NavigableMap<String, Map<String, String>> keys = keys();
        int n = 0;
        for (int i = 1; i < args.size(); i++) {
            if (keys.containsKey(text(args.get(i)))) {
                n++;
            }
        }
        return new IntegerRedisMessage(n);
    }

    private RedisMessage keysMatching(final String pattern) throws TimeoutException {
        final List<RedisMessage> out = new ArrayList<>();
        for (final String key : keys().keySet()) {
            if (RedisGlob.matches(pattern, key)) {
                out.add(bulk(key));
            }
        }
        return new ArrayRedisMessage(out);
    }

    /** SCAN's cursor is the position in the sorted key set; the keys of a config do not change while it runs. */
    private RedisMessage scan(final List<byte[]> args) throws TimeoutException {
        final Long cursor = longValue(args.get(1));
        if (cursor == null || cursor < 0) {
            return error("ERR invalid cursor");
        }
        String pattern = null;
        String type = null;
        int count = SCAN_DEFAULT_COUNT;
        for (int i = 2; i < args.size(); i += 2) {
            final String option = text(args.get(i)).toUpperCase(Locale.ROOT);
            if (i + 1 >= args.size()) {
                return error("ERR syntax error");
            }
            switch (option) {
                case "MATCH" -> pattern = text(args.get(i + 1));
                case "TYPE" -> type = text(args.get(i + 1)).toLowerCase(Locale.ROOT);
                case "COUNT" -> {
                    final Integer n = integer(args.get(i + 1));
                    if (n == null || n < 1) {
                        return error(n == null ? "ERR value is not an integer or out of range" : "ERR syntax error");
                    }
                    count = n;
                }
                default -> {
                    return error("ERR syntax error");
                }
            }
        }
        final List<String> keys = new ArrayList<>(keys().keySet());
        final List<RedisMessage> page = new ArrayList<>();
        long position = cursor;
        int visited = 0;
        while (position < keys.size() && visited < count) {
            final String key = keys.get((int) position);
            if ((pattern == null || RedisGlob.matches(pattern, key)) && (type == null || type.equals("hash"))) {
                page.add(bulk(key));
            }
            position++;
            visited++;
        }
        final long next = position >= keys.size() ? 0 : position;
        return new ArrayRedisMessage(List.of(bulk(Long.toString(next)), new ArrayRedisMessage(page)));
    }

    private String info() throws TimeoutException {
        final SonicDatabases dbs = cache.databases();
        final StringBuilder out = new StringBuilder()
                .append("# Server\r\n")
                .append("redis_version:7.0.0\r\n")
                .append("asicemu_role:read-only operator view of a running asic-emu switch\r\n")
                .append("redis_mode:standalone\r\n")
                .append("\r\n# Keyspace\r\n");
        for (int i = 0; i < DATABASES; i++) {
            final int n = dbs.db(i).size();
            if (n > 0) {
                out.append("db").append(i).append(":keys=").append(n).append(",expires=0,avg_ttl=0\r\n");
            }
        }
        return out.toString();
    }

    private NavigableMap<String, Map<String, String>> keys() throws TimeoutException {
        return cache.databases().db(db);
    }

    private Map<String, String> hash(final byte[] key) throws TimeoutException {
        return keys().getOrDefault(text(key), Map.of());
    }

    private static RedisMessage arity(final String name) {
        return error("ERR wrong number of arguments for '" + printable(name.toLowerCase(Locale.ROOT)) + "' command");
    }

    private static RedisMessage ok() {
        return new SimpleStringRedisMessage("OK");
    }

    private static RedisMessage error(final String message) {
        return new ErrorRedisMessage(message);
    }

    private static RedisMessage bulk(final String value) {
        return bulk(value.getBytes(StandardCharsets.UTF_8));
    }

    private static RedisMessage bulk(final byte[] value) {
        return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(value));
    }

    private static String text(final byte[] raw) {
        return new String(raw, StandardCharsets.UTF_8);
    }

    /** An error reply is a simple string: no CR/LF, bounded, so a hostile name cannot break the framing. */
    private static String printable(final String s) {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && out.length() < 64; i++) {
            final char c = s.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.toString();
    }

    private static Integer integer(final byte[] raw) {
        final Long v = longValue(raw);
        return v == null || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? null : (int) (long) v;
    }

    private static Long longValue(final byte[] raw) {
        try {
            return Long.parseLong(text(raw));
        } catch (final NumberFormatException e) {
            return null;
        }
    }
}
