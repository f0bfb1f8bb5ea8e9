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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The Redis commands the operator's front answers, over {@link SonicDatabases}: PING, ECHO, QUIT, AUTH, SELECT, HGET,
 * HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS, EXISTS, KEYS, SCAN, TYPE, DBSIZE, INFO, CONFIG GET/SET (only
 * {@code notify-keyspace-events}), plus CLIENT/COMMAND/HELLO courtesies clients send on connect, and asic-emu's
 * {@code ASICEMU.REGISTER} ({@link RegisterCommand}). With a {@link ConfigAccess}, CONFIG_DB (4) takes writes: HSET,
 * HMSET, HSETNX, HDEL, DEL, UNLINK, and MULTI / EXEC / DISCARD / WATCH / UNWATCH around them, each write (or each
 * EXEC) one change of the running config through the control model; with {@link KeyspaceNotifications}, SUBSCRIBE,
 * PSUBSCRIBE, UNSUBSCRIBE, PUNSUBSCRIBE. Every other command is an error reply, never an exception: other write
 * commands and writes to other databases are refused and named, unknown commands are named.
 * <p>
 * A command that waits for the data plane (a CONFIG_DB write, an EXEC with writes, a register write) returns a
 * {@link Deferred}: the caller runs it off the I/O thread and writes its reply when done. A command with several
 * replies (SUBSCRIBE of several channels) returns {@link Replies}.
 * <p>
 * Threading: one instance per connection, used by one thread at a time (a deferred command runs while the connection
 * waits for it).
 */
final class RedisCommands {
    /** Databases a client may SELECT (as a default Redis server). */
    static final int DATABASES = 16;

    static final String READ_ONLY = "ERR CONFIG_DB writes are not available yet on this server: it serves snapshots"
            + " without the switch's control model (a running switch's `asic-emu run --redis-port` takes them)";
    /** The write commands CONFIG_DB takes. */
    static final Set<String> CONFIG_WRITES = Set.of("HSET", "HMSET", "HSETNX", "HDEL", "DEL", "UNLINK");
    /** What a connection in subscribe mode may send (as Redis 7). */
    private static final Set<String> SUBSCRIBE_MODE =
            Set.of("SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PING", "QUIT", "RESET");
    /** Commands MULTI queues (the others are answered at once, as EXEC, DISCARD, MULTI and WATCH are). */
    private static final Set<String> KNOWN = Set.of(
            "PING", "ECHO", "SELECT", "HGET", "HMGET", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS", "EXISTS", "TYPE",
            "KEYS", "SCAN", "DBSIZE", "INFO", "CONFIG", "CLIENT", "COMMAND", "HSET", "HMSET", "HSETNX", "HDEL", "DEL",
            "UNLINK", "UNWATCH");
    /** At most this many commands wait in one MULTI (config load of a large config_db.json fits). */
    static final int MAX_QUEUED = 200_000;
    /** At most this many argument bytes wait in all open transactions of one server (the heap is small). */
    static final long QUEUED_BYTES_BUDGET = 32L << 20;

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
    private final ConfigAccess config;
    private final KeyspaceNotifications.Subscriber subscriber;
    private final byte[] password;
    private int db;
    private boolean authenticated;
    private int authFailures;
    private boolean quit;
    /** The commands of an open MULTI, or null. */
    private List<List<byte[]>> queued;

    private long queuedBytes;
    /** What all of this server's open transactions may still queue, in bytes (shared; null: unbounded, tests). */
    private final java.util.concurrent.atomic.AtomicLong budget;
    /** Whether a command of the open MULTI was refused (EXEC then aborts, as Redis' EXECABORT). */
    private boolean transactionFailed;
    /** WATCHed CONFIG_DB keys and their hashes when watched (null value: absent). */
    private final Map<String, Map<String, String>> watched = new LinkedHashMap<>();
    /** While an EXEC runs its writes: CONFIG_DB as the transaction has it so far (reads of DB 4 see it). */
    private Map<String, Map<String, String>> transaction;

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
        this(cache, password, registers, null, null);
    }

    /**
     * @param cache where the databases come from.
     * @param password the AUTH password, or null for none.
     * @param registers the chip's register map ({@code ASICEMU.REGISTER}), or null for none.
     * @param config the running config CONFIG_DB writes change, or null: writes are refused.
     * @param subscriber this connection's keyspace subscriptions, or null: SUBSCRIBE is refused.
     */
    RedisCommands(
            final SnapshotCache cache,
            final String password,
            final RegisterAccess registers,
            final ConfigAccess config,
            final KeyspaceNotifications.Subscriber subscriber) {
        this(cache, password, registers, config, subscriber, null);
    }

    /**
     * @param cache where the databases come from.
     * @param password the AUTH password, or null for none.
     * @param registers the chip's register map ({@code ASICEMU.REGISTER}), or null for none.
     * @param config the running config CONFIG_DB writes change, or null: writes are refused.
     * @param subscriber this connection's keyspace subscriptions, or null: SUBSCRIBE is refused.
     * @param budget the bytes all of the server's open transactions may still queue (shared), or null: unbounded.
     */
    RedisCommands(
            final SnapshotCache cache,
            final String password,
            final RegisterAccess registers,
            final ConfigAccess config,
            final KeyspaceNotifications.Subscriber subscriber,
            final java.util.concurrent.atomic.AtomicLong budget) {
        this.budget = budget;
        this.config = config;
        this.subscriber = subscriber;
        this.registers = registers;
        this.cache = cache;
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
        this.authenticated = password == null;
    }

    /** @return whether the client asked to close (QUIT). */
    boolean quit() {
        return quit;
    }

    /** @return whether the client may run commands (AUTH succeeded, or no password is required). */
    boolean authenticated() {
        return authenticated;
    }

    /** @return how many AUTH commands failed on this connection (wrong password). */
    int authFailures() {
        return authFailures;
    }

    /** @return whether the connection is in subscribe mode (waits for notifications: never idle). */
    boolean subscribed() {
        return subscriber != null && subscriber.count() > 0;
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
        if (subscriber != null && subscriber.count() > 0 && !SUBSCRIBE_MODE.contains(name)) {
            return error("ERR Can't execute '" + printable(name.toLowerCase(Locale.ROOT))
                    + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
        }
        if (queued != null
                && !Set.of("EXEC", "DISCARD", "MULTI", "WATCH", "QUIT").contains(name)) {
            return queue(name, args);
        }
        return run(name, args);
    }

    /** Runs one command now (also each command of an EXEC). */
    private RedisMessage run(final String name, final List<byte[]> args) {
        try {
            return switch (name) {
                case "PING" ->
                    subscriber != null && subscriber.count() > 0 && args.size() <= 2
                            ? new ArrayRedisMessage(
                                    List.of(bulk("pong"), args.size() == 2 ? bulk(args.get(1)) : bulk("")))
                            : args.size() == 1
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
                case "CONFIG" -> args.size() >= 2 ? configCommand(args) : arity(name);
                case RegisterCommand.NAME ->
                    registers != null && args.size() > 1 && text(args.get(1)).equalsIgnoreCase("SET")
                            ? new Deferred(() -> RegisterCommand.execute(args, registers))
                            : RegisterCommand.execute(args, registers);
                case "HSET", "HMSET", "HSETNX", "HDEL", "DEL", "UNLINK" -> write(name, args);
                case "MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH" ->
                    config == null ? error(READ_ONLY) : transactionCommand(name, args);
                case "SUBSCRIBE", "PSUBSCRIBE" -> subscribe(name, args);
                case "UNSUBSCRIBE", "PUNSUBSCRIBE" -> unsubscribe(name, args);
                case "RESET" -> reset();
                case "PUBLISH" ->
                    error("ERR PUBLISH is not available: only the switch publishes here (CONFIG_DB keyspace"
                            + " notifications, " + KeyspaceNotifications.KEYSPACE + "<TABLE|key>)");
                default ->
                    WRITES.contains(name)
                            ? error(config == null ? READ_ONLY : notAConfigWrite(name))
                            : error("ERR unknown command '" + printable(name) + "'");
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
        authFailures++;
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
        final Map<String, Map<String, String>> keys = keys();
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
                .append(
                        config == null
                                ? "asicemu_role:read-only operator view of a running asic-emu switch\r\n"
                                : "asicemu_role:operator view of a running asic-emu switch (CONFIG_DB writes change it)\r\n")
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

    /** The selected database's keys, iterated in key order (KEYS and SCAN walk it). */
    private Map<String, Map<String, String>> keys() throws TimeoutException {
        if (transaction != null && db == SonicDatabases.CONFIG_DB) {
            return new TreeMap<>(transaction);
        }
        return cache.databases().db(db);
    }

    private Map<String, String> hash(final byte[] key) throws TimeoutException {
        return keys().getOrDefault(text(key), Map.of());
    }

    // ---- CONFIG_DB writes and transactions ----

    /** A write command now (its own change of the running config), or on the transaction's copy inside EXEC. */
    private RedisMessage write(final String name, final List<byte[]> args) {
        if (config == null) {
            return error(READ_ONLY);
        }
        if (db != SonicDatabases.CONFIG_DB) {
            return error("ERR asic-emu takes writes to CONFIG_DB (" + SonicDatabases.CONFIG_DB + ") only: DB " + db
                    + " is the switch's own account of itself (SELECT 4 first)");
        }
        final String problem = writeProblem(name, args);
        if (problem != null) {
            return error(problem);
        }
        if (transaction != null) {
            return edit(name, args, transaction);
        }
        return new Deferred(() -> {
            final RedisMessage[] reply = new RedisMessage[1];
            try {
                config.change(working -> reply[0] = edit(name, args, working));
            } catch (final ConfigAccess.ConfigRefusedException e) {
                return error("ERR " + printable(e.getMessage(), 400));
            }
            cache.invalidate();
            return reply[0];
        });
    }

    /** @return why a write command is malformed (arity, key shape), or null. */
    private static String writeProblem(final String name, final List<byte[]> args) {
        final boolean arityOk = switch (name) {
            case "HSET", "HMSET" -> args.size() >= 4 && args.size() % 2 == 0;
            case "HSETNX" -> args.size() == 4;
            case "HDEL" -> args.size() >= 3;
            default -> args.size() >= 2;
        };
        if (!arityOk) {
            return "ERR wrong number of arguments for '" + name.toLowerCase(Locale.ROOT) + "' command";
        }
        if (name.equals("DEL") || name.equals("UNLINK")) {
            return null; // a key of another shape does not exist: DEL counts 0, as Redis does
        }
        final String key = text(args.get(1));
        final int bar = key.indexOf('|');
        if (bar <= 0 || bar == key.length() - 1) {
            return "ERR " + printable(key) + ": CONFIG_DB keys are TABLE|key (e.g. WRED_PROFILE|AZURE_LOSSLESS)";
        }
        for (int i = 2; i < args.size(); i += name.equals("HDEL") ? 1 : 2) {
            final String field = text(args.get(i));
            if (field.isEmpty() || field.equals("@")) {
                return "ERR " + printable(key) + "|" + printable(field) + ": a CONFIG_DB field needs a name";
            }
        }
        return null;
    }

    /** Applies one (checked) write command to a CONFIG_DB copy; its reply is what Redis answers. */
    private static RedisMessage edit(
            final String name, final List<byte[]> args, final Map<String, Map<String, String>> working) {
        final String key = text(args.get(1));
        switch (name) {
            case "HSET", "HMSET" -> {
                final Map<String, String> hash = working.computeIfAbsent(key, k -> new LinkedHashMap<>());
                int added = 0;
                for (int i = 2; i < args.size(); i += 2) {
                    if (hash.put(text(args.get(i)), text(args.get(i + 1))) == null) {
                        added++;
                    }
                }
                return name.equals("HSET") ? new IntegerRedisMessage(added) : ok();
            }
            case "HSETNX" -> {
                final Map<String, String> hash = working.get(key);
                final String field = text(args.get(2));
                if (hash != null && hash.containsKey(field)) {
                    return new IntegerRedisMessage(0);
                }
                working.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(field, text(args.get(3)));
                return new IntegerRedisMessage(1);
            }
            case "HDEL" -> {
                final Map<String, String> hash = working.get(key);
                if (hash == null) {
                    return new IntegerRedisMessage(0);
                }
                final boolean fieldless = hash.isEmpty();
                int removed = 0;
                for (int i = 2; i < args.size(); i++) {
                    final String field = text(args.get(i));
                    // a key without fields is SONiC's NULL:NULL hash in Redis: deleting NULL deletes it
                    if (hash.remove(field) != null || (fieldless && field.equals("NULL") && removed == 0)) {
                        removed++;
                    }
                }
                if (hash.isEmpty() && removed > 0) {
                    working.remove(key); // a hash without fields does not exist in Redis
                }
                return new IntegerRedisMessage(removed);
            }
            default -> {
                int removed = 0;
                for (int i = 1; i < args.size(); i++) {
                    if (working.remove(text(args.get(i))) != null) {
                        removed++;
                    }
                }
                return new IntegerRedisMessage(removed);
            }
        }
    }

    private static String notAConfigWrite(final String name) {
        return "ERR CONFIG_DB holds hashes: asic-emu takes HSET, HMSET, HSETNX, HDEL, DEL and UNLINK (also inside"
                + " MULTI/EXEC), not " + printable(name);
    }

    private RedisMessage transactionCommand(final String name, final List<byte[]> args) {
        return switch (name) {
            case "MULTI" -> multi(args);
            case "EXEC" -> exec(args);
            case "DISCARD" -> discard(args);
            case "WATCH" -> watch(args);
            default -> {
                watched.clear();
                yield ok();
            }
        };
    }

    private RedisMessage multi(final List<byte[]> args) {
        if (args.size() != 1) {
            return arity("MULTI");
        }
        if (queued != null) {
            return error("ERR MULTI calls can not be nested");
        }
        queued = new ArrayList<>();
        return ok();
    }

    private RedisMessage discard(final List<byte[]> args) {
        if (args.size() != 1) {
            return arity("DISCARD");
        }
        if (queued == null) {
            return error("ERR DISCARD without MULTI");
        }
        endTransaction();
        watched.clear();
        return ok();
    }

    private void endTransaction() {
        queued = null;
        if (budget != null) {
            budget.addAndGet(queuedBytes);
        }
        queuedBytes = 0;
        transactionFailed = false;
    }

    /** Queues one command of an open MULTI, refusing at once what EXEC could not run (EXEC then aborts). */
    private RedisMessage queue(final String name, final List<byte[]> args) {
        String problem = null;
        if (name.equals("SUBSCRIBE") || name.equals("PSUBSCRIBE")) {
            problem = "ERR " + name + " inside MULTI is not supported here";
        } else if (name.equals(RegisterCommand.NAME)) {
            problem = "ERR " + RegisterCommand.NAME + " inside MULTI is not supported: a register write is a change of"
                    + " its own (write CONFIG_DB's fields to change several things at once)";
        } else if (!KNOWN.contains(name)) {
            problem = WRITES.contains(name)
                    ? (config == null ? READ_ONLY : notAConfigWrite(name))
                    : "ERR unknown command '" + printable(name) + "'";
        } else if (CONFIG_WRITES.contains(name)) {
            problem = config == null ? READ_ONLY : writeProblem(name, args);
        }
        if (problem == null) {
            long bytes = 0;
            for (final byte[] a : args) {
                bytes += a.length + 32L; // the array and its header
            }
            if (queued.size() >= MAX_QUEUED || (budget != null && budget.addAndGet(-bytes) < 0)) {
                if (budget != null) {
                    budget.addAndGet(bytes);
                }
                problem = "ERR the transaction is over asic-emu's bounds (" + MAX_QUEUED + " commands, "
                        + (QUEUED_BYTES_BUDGET >> 20) + " MiB waiting in all transactions); EXEC will discard it";
            } else {
                queuedBytes += bytes;
            }
        }
        if (problem != null) {
            transactionFailed = true;
            return error(problem);
        }
        queued.add(args);
        return new SimpleStringRedisMessage("QUEUED");
    }

    private RedisMessage watch(final List<byte[]> args) {
        if (args.size() < 2) {
            return arity("WATCH");
        }
        if (queued != null) {
            return error("ERR WATCH inside MULTI is not allowed");
        }
        if (config == null || db != SonicDatabases.CONFIG_DB) {
            return error("ERR WATCH: only CONFIG_DB (" + SonicDatabases.CONFIG_DB + ") keys can be watched here"
                    + (config == null ? " (this server takes no writes)" : ""));
        }
        final Map<String, Map<String, String>> running = config.running();
        for (int i = 1; i < args.size(); i++) {
            final String key = text(args.get(i));
            if (!watched.containsKey(key)) {
                final Map<String, String> hash = running.get(key);
                watched.put(key, hash == null ? null : new LinkedHashMap<>(hash));
            }
        }
        return ok();
    }

    private static boolean unchanged(
            final Map<String, Map<String, String>> watching, final Map<String, Map<String, String>> now) {
        for (final Map.Entry<String, Map<String, String>> w : watching.entrySet()) {
            if (!java.util.Objects.equals(w.getValue(), now.get(w.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * EXEC: the queued commands in order; with writes, all of them one change of the running config (one
     * {@code reconfigure}) — refused whole, naming the field, if any write is (stricter than Redis, which would apply
     * the others: a half-applied CONFIG_DB change could leave the switch in a state nobody asked for).
     */
    private RedisMessage exec(final List<byte[]> args) {
        if (args.size() != 1) {
            return arity("EXEC");
        }
        if (queued == null) {
            return error("ERR EXEC without MULTI");
        }
        final List<List<byte[]>> commands = queued;
        final boolean failed = transactionFailed;
        endTransaction();
        final Map<String, Map<String, String>> watching = new LinkedHashMap<>(watched);
        watched.clear();
        if (failed) {
            return error("EXECABORT Transaction discarded because of previous errors.");
        }
        boolean writes = false;
        for (final List<byte[]> c : commands) {
            writes |= CONFIG_WRITES.contains(text(c.get(0)).toUpperCase(Locale.ROOT));
        }
        if (!writes) {
            if (!watching.isEmpty() && !unchanged(watching, config.running())) {
                return ArrayRedisMessage.NULL_INSTANCE;
            }
            final List<RedisMessage> replies = new ArrayList<>();
            for (final List<byte[]> c : commands) {
                replies.add(run(text(c.get(0)).toUpperCase(Locale.ROOT), c));
            }
            return new ArrayRedisMessage(replies);
        }
        final int dbAtStart = db;
        return new Deferred(() -> {
            final List<RedisMessage> replies = new ArrayList<>();
            final boolean[] aborted = {false};
            try {
                config.change(working -> {
                    replies.clear();
                    db = dbAtStart;
                    aborted[0] = !unchanged(watching, working);
                    if (aborted[0]) {
                        return;
                    }
                    transaction = working;
                    try {
                        for (final List<byte[]> c : commands) {
                            final String name = text(c.get(0)).toUpperCase(Locale.ROOT);
                            final RedisMessage reply = run(name, c);
                            if (CONFIG_WRITES.contains(name) && reply instanceof ErrorRedisMessage e) {
                                throw new ConfigAccess.ConfigRefusedException(
                                        e.content().replaceFirst("^ERR ", ""));
                            }
                            replies.add(reply);
                        }
                    } finally {
                        transaction = null;
                    }
                });
            } catch (final ConfigAccess.ConfigRefusedException e) {
                db = dbAtStart;
                return error("ERR " + printable(e.getMessage(), 400) + " (EXEC changed nothing: the transaction's "
                        + commands.size() + " commands apply together or not at all)");
            }
            if (aborted[0]) {
                return ArrayRedisMessage.NULL_INSTANCE;
            }
            cache.invalidate();
            return new ArrayRedisMessage(replies);
        });
    }

    /** Gives back what an open MULTI holds of the shared budget (the connection closed). */
    void close() {
        if (queued != null) {
            endTransaction();
        }
    }

    // ---- keyspace notifications ----

    private RedisMessage subscribe(final String name, final List<byte[]> args) {
        if (subscriber == null) {
            return error("ERR keyspace notifications are not available on this server: it serves snapshots without"
                    + " the switch's control model (a running switch's `asic-emu run --redis-port` publishes them)");
        }
        if (args.size() < 2) {
            return arity(name);
        }
        final boolean pattern = name.equals("PSUBSCRIBE");
        final Set<String> set = pattern ? subscriber.patterns : subscriber.channels;
        final List<RedisMessage> out = new ArrayList<>();
        for (int i = 1; i < args.size(); i++) {
            final String channel = text(args.get(i));
            if (!set.contains(channel) && subscriber.count() >= KeyspaceNotifications.MAX_SUBSCRIPTIONS) {
                out.add(error(
                        "ERR at most " + KeyspaceNotifications.MAX_SUBSCRIPTIONS + " subscriptions per connection"));
                continue;
            }
            set.add(channel);
            out.add(new ArrayRedisMessage(List.of(
                    bulk(name.toLowerCase(Locale.ROOT)), bulk(channel), new IntegerRedisMessage(subscriber.count()))));
        }
        subscriber.update();
        return out.size() == 1 ? out.get(0) : new Replies(out);
    }

    private RedisMessage unsubscribe(final String name, final List<byte[]> args) {
        final String kind = name.toLowerCase(Locale.ROOT);
        if (subscriber == null) {
            return new ArrayRedisMessage(
                    List.of(bulk(kind), FullBulkStringRedisMessage.NULL_INSTANCE, new IntegerRedisMessage(0)));
        }
        final Set<String> set = name.equals("PUNSUBSCRIBE") ? subscriber.patterns : subscriber.channels;
        final List<String> names = new ArrayList<>();
        if (args.size() == 1) {
            names.addAll(set);
        } else {
            for (int i = 1; i < args.size(); i++) {
                names.add(text(args.get(i)));
            }
        }
        final List<RedisMessage> out = new ArrayList<>();
        if (names.isEmpty()) {
            out.add(new ArrayRedisMessage(List.of(
                    bulk(kind),
                    FullBulkStringRedisMessage.NULL_INSTANCE,
                    new IntegerRedisMessage(subscriber.count()))));
        }
        for (final String channel : names) {
            set.remove(channel);
            out.add(new ArrayRedisMessage(
                    List.of(bulk(kind), bulk(channel), new IntegerRedisMessage(subscriber.count()))));
        }
        subscriber.update();
        return out.size() == 1 ? out.get(0) : new Replies(out);
    }

    /** RESET: out of MULTI, WATCH and subscribe mode, back to DB 0 (as Redis 6.2+). */
    private RedisMessage reset() {
        if (queued != null) {
            endTransaction();
        }
        watched.clear();
        if (subscriber != null) {
            subscriber.channels.clear();
            subscriber.patterns.clear();
            subscriber.update();
        }
        db = 0;
        return new SimpleStringRedisMessage("RESET");
    }

    /** CONFIG GET/SET of what clients of keyspace notifications touch; nothing else is configurable. */
    private RedisMessage configCommand(final List<byte[]> args) {
        final String sub = text(args.get(1)).toUpperCase(Locale.ROOT);
        switch (sub) {
            case "GET" -> {
                if (args.size() != 3) {
                    return arity("CONFIG|GET");
                }
                final String pattern = text(args.get(2)).toLowerCase(Locale.ROOT);
                final Map<String, String> settings = new LinkedHashMap<>();
                settings.put("notify-keyspace-events", subscriber == null ? "" : "AKE");
                settings.put("databases", Integer.toString(DATABASES));
                final List<RedisMessage> out = new ArrayList<>();
                settings.forEach((k, v) -> {
                    if (RedisGlob.matches(pattern, k)) {
                        out.add(bulk(k));
                        out.add(bulk(v));
                    }
                });
                return new ArrayRedisMessage(out);
            }
            case "SET" -> {
                if (args.size() == 4 && text(args.get(2)).equalsIgnoreCase("notify-keyspace-events")) {
                    return ok(); // CONFIG_DB's notifications are always on; nothing else is published
                }
                return error("ERR CONFIG SET takes only notify-keyspace-events here (CONFIG_DB's keyspace"
                        + " notifications are always on); the switch's settings are CONFIG_DB's tables");
            }
            default -> {
                return error("ERR unknown subcommand '" + printable(sub) + "'. Try CONFIG GET or CONFIG SET.");
            }
        }
    }

    /**
     * A reply that waits for the data plane: the caller runs {@link #run()} off the I/O thread (the connection's next
     * commands wait), then writes what it returns.
     */
    static final class Deferred implements RedisMessage {
        private final Supplier<RedisMessage> work;

        Deferred(final Supplier<RedisMessage> work) {
            this.work = work;
        }

        /** @return the reply (blocks until the change is applied or refused). */
        RedisMessage run() {
            return work.get();
        }
    }

    /** Several replies to one command, written in order (SUBSCRIBE of several channels). */
    record Replies(List<RedisMessage> replies) implements RedisMessage {}

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
        return printable(s, 64);
    }

    private static String printable(final String s, final int max) {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; s != null && i < s.length() && out.length() < max; i++) {
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
