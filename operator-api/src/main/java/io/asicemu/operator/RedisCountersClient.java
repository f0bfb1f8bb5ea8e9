package io.asicemu.operator;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A blocking Redis client on Netty's Redis codec, for {@code asic-emu show}: one connection, one request at a time,
 * HGETALL with SELECT as needed. Replies are turned into Java values on the I/O thread and handed over in order.
 */
public final class RedisCountersClient implements CountersReader, AutoCloseable {
    private static final Object CLOSED = new Object();
    /** Field/value pairs per HSET of {@link #loadConfig} (the server refuses commands of over 1024 arguments). */
    private static final int FIELDS_PER_HSET = 256;

    private final EventLoopGroup group;
    private final Channel channel;
    private final BlockingQueue<Object> replies = new LinkedBlockingQueue<>();
    private final Duration timeout;
    private int db = -1;

    private RedisCountersClient(final EventLoopGroup group, final Channel channel, final Duration timeout) {
        this.group = group;
        this.channel = channel;
        this.timeout = timeout;
    }

    /**
     * @param address the switch's Redis port.
     * @param password AUTH password, or null.
     * @param timeout for connecting and for each reply.
     * @return a connected client.
     * @throws IOException if the switch cannot be reached or refuses the password.
     */
    public static RedisCountersClient connect(
            final InetSocketAddress address, final String password, final Duration timeout) throws IOException {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                1,
                (java.util.concurrent.ThreadFactory)
                        r -> Thread.ofPlatform().daemon().name("redis-client").unstarted(r),
                NioIoHandler.newFactory());
        final java.util.concurrent.atomic.AtomicReference<BlockingQueue<Object>> queue =
                new java.util.concurrent.atomic.AtomicReference<>();
        final RedisCountersClient[] self = new RedisCountersClient[1];
        try {
            final Bootstrap b = new Bootstrap()
                    .group(group)
                    .channel(NioSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeout.toMillis())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            ch.pipeline()
                                    .addLast(
                                            new RedisDecoder(),
                                            new RedisBulkStringAggregator(),
                                            new RedisArrayAggregator(1 << 20, 4),
                                            new RedisEncoder(),
                                            new Replies(queue::get));
                        }
                    });
            final io.netty.channel.ChannelFuture f = b.connect(address).awaitUninterruptibly();
            if (!f.isSuccess()) {
                throw new IOException("cannot reach the switch's Redis port at " + address.getHostString() + ":"
                        + address.getPort() + " (is `asic-emu run` started with --redis-port?): "
                        + f.cause().getMessage());
            }
            self[0] = new RedisCountersClient(group, f.channel(), timeout);
            queue.set(self[0].replies);
            if (password != null) {
                self[0].call("AUTH", password);
            }
            return self[0];
        } catch (final IOException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Override
    public Map<String, String> hgetall(final int database, final String key) throws IOException {
        if (database != db) {
            call("SELECT", Integer.toString(database));
            db = database;
        }
        final Object reply = call("HGETALL", key);
        final Map<String, String> out = new LinkedHashMap<>();
        if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                out.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
            }
        }
        return out;
    }

    /**
     * The running CONFIG_DB (DB 4), as {@code config save} writes it.
     *
     * @return {@code TABLE|key} → field (list fields as {@code field@}) → value, keys sorted.
     * @throws IOException if the switch cannot be reached or refuses.
     */
    public Map<String, Map<String, String>> config() throws IOException {
        if (db != SonicDatabases.CONFIG_DB) {
            call("SELECT", Integer.toString(SonicDatabases.CONFIG_DB));
            db = SonicDatabases.CONFIG_DB;
        }
        final Map<String, Map<String, String>> out = new java.util.TreeMap<>();
        if (call("KEYS", "*") instanceof List<?> keys) {
            for (final Object key : keys) {
                out.put(String.valueOf(key), hgetall(SonicDatabases.CONFIG_DB, String.valueOf(key)));
            }
        }
        return out;
    }

    /**
     * Merges a config into the running CONFIG_DB as SONiC's {@code config load} does (each key's fields set, keys and
     * fields the file does not name kept), atomically: one MULTI of HSETs, one EXEC, so the switch applies all of it
     * as one change or refuses all of it. A key without fields is sent as SONiC's {@code NULL} placeholder.
     *
     * @param config {@code TABLE|key} → field (list fields as {@code field@}) → value.
     * @throws IOException if the switch cannot be reached, or refuses (the message names {@code TABLE|key|field}).
     */
    public void loadConfig(final Map<String, Map<String, String>> config) throws IOException {
        if (db != SonicDatabases.CONFIG_DB) {
            call("SELECT", Integer.toString(SonicDatabases.CONFIG_DB));
            db = SonicDatabases.CONFIG_DB;
        }
        call("MULTI");
        try {
            for (final Map.Entry<String, Map<String, String>> key : config.entrySet()) {
                List<String> args = new ArrayList<>(List.of("HSET", key.getKey()));
                for (final Map.Entry<String, String> field : key.getValue().entrySet()) {
                    args.add(field.getKey());
                    args.add(field.getValue());
                    if (args.size() >= 2 + 2 * FIELDS_PER_HSET) { // the server takes at most 1024 arguments
                        call(args.toArray(String[]::new));
                        args = new ArrayList<>(List.of("HSET", key.getKey()));
                    }
                }
                if (args.size() == 2 && key.getValue().isEmpty()) {
                    args.add("NULL");
                    args.add("NULL");
                }
                if (args.size() > 2) {
                    call(args.toArray(String[]::new));
                }
            }
        } catch (final IOException e) {
            call("DISCARD");
            throw e;
        }
        call("EXEC");
    }

    /**
     * {@code ASICEMU.REGISTER GET}.
     *
     * @param name a register name, or null for all.
     * @param instance an instance, or null for all.
     * @return the rows.
     * @throws IOException if the switch cannot be reached.
     * @throws RegisterAccess.RegisterException if it refuses (the message names register and instance).
     */
    public List<RegisterAccess.Row> registers(final String name, final String instance) throws IOException {
        final List<String> args = new ArrayList<>(List.of(RegisterCommand.NAME, "GET"));
        if (name != null) {
            args.add(name);
            if (instance != null) {
                args.add(instance);
            }
        }
        return RegisterCommand.rows(registerCall(args.toArray(String[]::new)));
    }

    /**
     * {@code ASICEMU.REGISTER SET}.
     *
     * @param name a register name.
     * @param instance its instance ({@code ""} for a switch-wide one).
     * @param value the value (decimal or 0x hex).
     * @return the row after the write.
     * @throws IOException if the switch cannot be reached.
     * @throws RegisterAccess.RegisterException if it refuses (the message names register and instance; nothing
     *     changed).
     */
    public RegisterAccess.Row writeRegister(final String name, final String instance, final String value)
            throws IOException {
        final Object reply = registerCall(RegisterCommand.NAME, "SET", name, instance, value);
        final List<RegisterAccess.Row> rows = RegisterCommand.rows(List.of(reply));
        if (rows.size() != 1) {
            throw new IOException("unexpected reply to " + RegisterCommand.NAME + " SET: " + reply);
        }
        return rows.get(0);
    }

    /** A register command; the switch's refusal becomes a {@link RegisterAccess.RegisterException} with its words. */
    private Object registerCall(final String... args) throws IOException {
        try {
            return call(args);
        } catch (final IOException e) {
            final String prefix = RegisterCommand.NAME + ": ERR ";
            if (e.getMessage() != null && e.getMessage().startsWith(prefix)) {
                throw new RegisterAccess.RegisterException(e.getMessage().substring(prefix.length()));
            }
            throw e;
        }
    }

    /**
     * @param args a command.
     * @return its reply: a String, Long, List or null.
     * @throws IOException if the server answers an error, closes, or does not answer in time.
     */
    Object call(final String... args) throws IOException {
        final List<RedisMessage> parts = new ArrayList<>();
        for (final String a : args) {
            parts.add(new FullBulkStringRedisMessage(Unpooled.copiedBuffer(a, StandardCharsets.UTF_8)));
        }
        channel.writeAndFlush(new ArrayRedisMessage(parts));
        final Object reply;
        try {
            reply = replies.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (reply == null) {
            throw new IOException("the switch did not answer " + args[0] + " within " + timeout.toMillis() + " ms");
        }
        if (reply == CLOSED) {
            throw new IOException("the switch closed the connection");
        }
        if (reply instanceof IOException e) {
            throw new IOException(args[0] + ": " + e.getMessage());
        }
        return reply == NULL ? null : reply;
    }

    private static final Object NULL = new Object();

    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Turns each reply into a Java value (errors into IOException) and queues it. */
    private static final class Replies extends SimpleChannelInboundHandler<RedisMessage> {
        private final java.util.function.Supplier<BlockingQueue<Object>> queue;

        Replies(final java.util.function.Supplier<BlockingQueue<Object>> queue) {
            this.queue = queue;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final RedisMessage msg) {
            queue.get().add(value(msg));
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            final BlockingQueue<Object> q = queue.get();
            if (q != null) {
                q.add(CLOSED);
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            ctx.close();
        }

        private static Object value(final RedisMessage msg) {
            if (msg instanceof ErrorRedisMessage e) {
                return new IOException(e.content());
            }
            if (msg instanceof SimpleStringRedisMessage s) {
                return s.content();
            }
            if (msg instanceof IntegerRedisMessage i) {
                return i.value();
            }
            if (msg instanceof FullBulkStringRedisMessage b) {
                return b.isNull() ? NULL : b.content().toString(StandardCharsets.UTF_8);
            }
            if (msg instanceof ArrayRedisMessage a) {
                final List<Object> out = new ArrayList<>();
                for (final RedisMessage child : a.children()) {
                    out.add(value(child));
                }
                return out;
            }
            return NULL;
        }
    }
}
