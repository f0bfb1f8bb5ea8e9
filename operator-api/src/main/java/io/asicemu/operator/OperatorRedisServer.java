package io.asicemu.operator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis-protocol front (Netty's Redis codec) over {@link SonicDatabases}: {@code redis-cli -n 2 hgetall
 * COUNTERS:oid:0x1000000000001} against a running switch ({@link RedisCommands}). With a {@link ConfigAccess}, CONFIG_DB
 * takes writes (each one change of the running config through the control model, MULTI/EXEC one change for all) and
 * publishes keyspace notifications ({@link KeyspaceNotifications}).
 * <p>
 * Hostile clients stay contained: a bulk string over {@link Limits#maxBulkBytes()} or an array over
 * {@link Limits#maxArguments()} is refused from its header (the bytes are never buffered) and the connection closed,
 * as Redis closes on a protocol error; a client that never reads its replies stops being read once its write buffer
 * passes the high water mark (so its replies cannot grow without bound), and resumes below the low mark; the number
 * of connections is bounded. The data path is reached only through the {@link SnapshotCache}'s source, at most once
 * per max age (a refresh waits for the data plane's hand-over, typically well under a millisecond).
 * <p>
 * Threading: one Netty I/O thread runs the codec and the commands; idle, it blocks in its selector. A command that
 * waits for the data plane to apply a change (a CONFIG_DB write, an EXEC with writes, a register write) runs on one
 * {@code operator-redis-control} thread (blocked in its queue when idle), and its reply is written when it is done: the
 * I/O thread never waits, so other clients are served meanwhile, and that client's next commands wait their turn (at
 * most one change per connection is in flight, so at most {@link Limits#maxConnections()} wait).
 */
public final class OperatorRedisServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorRedisServer.class);

    /**
     * The server's bounds.
     *
     * @param maxBulkBytes the largest bulk string argument accepted.
     * @param maxArguments the most arguments in one command.
     * @param maxInlineBytes the longest inline command line.
     * @param maxConnections the most clients at once (more are closed on accept).
     * @param writeLowWaterMark resume reading a client when its pending replies fall below this.
     * @param writeHighWaterMark stop reading a client when its pending replies exceed this.
     */
    public record Limits(
            int maxBulkBytes,
            int maxArguments,
            int maxInlineBytes,
            int maxConnections,
            int writeLowWaterMark,
            int writeHighWaterMark) {
        /** @return the defaults: 512 KiB bulk strings, 1024 arguments, 64 KiB inline, 64 clients, 256 KiB/1 MiB. */
        public static Limits defaults() {
            return new Limits(512 << 10, 1024, 64 << 10, 64, 256 << 10, 1 << 20);
        }
    }

    private final EventLoopGroup group;
    private final Channel channel;
    private final java.util.concurrent.ExecutorService control;
    private final KeyspaceNotifications notifications;

    private OperatorRedisServer(
            final EventLoopGroup group,
            final Channel channel,
            final java.util.concurrent.ExecutorService control,
            final KeyspaceNotifications notifications) {
        this.group = group;
        this.channel = channel;
        this.control = control;
        this.notifications = notifications;
    }

    /**
     * Starts listening.
     *
     * @param address where (loopback or the management address; port 0 = any free port).
     * @param cache the databases to serve.
     * @param password the AUTH password, or null for none.
     * @param limits the bounds.
     * @return the running server.
     * @throws InterruptedException if interrupted while binding.
     * @throws java.io.IOException if the address cannot be bound.
     */
    public static OperatorRedisServer start(
            final InetSocketAddress address, final SnapshotCache cache, final String password, final Limits limits)
            throws InterruptedException, java.io.IOException {
        return start(address, cache, password, limits, null);
    }

    /**
     * Starts listening, also answering {@code ASICEMU.REGISTER} ({@link RegisterCommand}) over the chip's registers.
     *
     * @param address where (loopback or the management address; port 0 = any free port).
     * @param cache the databases to serve.
     * @param password the AUTH password, or null for none.
     * @param limits the bounds.
     * @param registers the register map, or null for none.
     * @return the running server.
     * @throws InterruptedException if interrupted while binding.
     * @throws java.io.IOException if the address cannot be bound.
     */
    public static OperatorRedisServer start(
            final InetSocketAddress address,
            final SnapshotCache cache,
            final String password,
            final Limits limits,
            final RegisterAccess registers)
            throws InterruptedException, java.io.IOException {
        return start(address, cache, password, limits, registers, null);
    }

    /**
     * Starts listening, with the register map and CONFIG_DB writes and keyspace notifications over the running config.
     *
     * @param address where (loopback or the management address; port 0 = any free port).
     * @param cache the databases to serve.
     * @param password the AUTH password, or null for none.
     * @param limits the bounds.
     * @param registers the register map, or null for none.
     * @param config the running config (writes, notifications), or null: CONFIG_DB is read-only, no notifications.
     * @return the running server.
     * @throws InterruptedException if interrupted while binding.
     * @throws java.io.IOException if the address cannot be bound.
     */
    public static OperatorRedisServer start(
            final InetSocketAddress address,
            final SnapshotCache cache,
            final String password,
            final Limits limits,
            final RegisterAccess registers,
            final ConfigAccess config)
            throws InterruptedException, java.io.IOException {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                1,
                (java.util.concurrent.ThreadFactory) r ->
                        Thread.ofPlatform().daemon().name("operator-redis-io").unstarted(r),
                NioIoHandler.newFactory());
        final java.util.concurrent.ExecutorService control = java.util.concurrent.Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().daemon().name("operator-redis-control").unstarted(r));
        final KeyspaceNotifications notifications =
                config == null ? null : new KeyspaceNotifications(config, cache, group.next());
        final java.util.concurrent.atomic.AtomicLong budget =
                new java.util.concurrent.atomic.AtomicLong(RedisCommands.QUEUED_BYTES_BUDGET);
        final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        try {
            final ServerBootstrap b = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childOption(
                            ChannelOption.WRITE_BUFFER_WATER_MARK,
                            new WriteBufferWaterMark(limits.writeLowWaterMark(), limits.writeHighWaterMark()))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            if (open.incrementAndGet() > limits.maxConnections()) {
                                open.decrementAndGet();
                                ch.writeAndFlush(ch.alloc()
                                                .buffer()
                                                .writeBytes("-ERR max number of clients reached\r\n"
                                                        .getBytes(StandardCharsets.US_ASCII)))
                                        .addListener(ChannelFutureListener.CLOSE);
                                return;
                            }
                            ch.closeFuture().addListener(f -> open.decrementAndGet());
                            configure(
                                    ch.pipeline(),
                                    cache,
                                    password,
                                    limits,
                                    registers,
                                    config,
                                    notifications,
                                    control,
                                    budget);
                        }
                    });
            final Channel ch = b.bind(address).sync().channel();
            return new OperatorRedisServer(group, ch, control, notifications);
        } catch (final RuntimeException | InterruptedException e) {
            if (notifications != null) {
                notifications.close();
            }
            control.shutdownNow();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (e instanceof java.net.BindException || e.getCause() instanceof java.net.BindException) {
                throw new java.io.IOException("cannot listen on " + address + ": " + e.getMessage(), e);
            }
            throw e;
        }
    }

    /** Installs the codec, the size guard and the command handler of one client connection (no registers). */
    static void configure(
            final io.netty.channel.ChannelPipeline pipeline,
            final SnapshotCache cache,
            final String password,
            final Limits limits) {
        configure(pipeline, cache, password, limits, null);
    }

    /** Installs the codec, the size guard and the command handler of one client connection (read-only). */
    static void configure(
            final io.netty.channel.ChannelPipeline pipeline,
            final SnapshotCache cache,
            final String password,
            final Limits limits,
            final RegisterAccess registers) {
        configure(pipeline, cache, password, limits, registers, null, null, Runnable::run, null);
    }

    /**
     * Installs the codec, the size guard and the command handler of one client connection.
     *
     * @param control runs the commands that wait for the data plane (off the I/O thread).
     * @param budget the bytes the server's open transactions may still queue (shared), or null: unbounded.
     */
    static void configure(
            final io.netty.channel.ChannelPipeline pipeline,
            final SnapshotCache cache,
            final String password,
            final Limits limits,
            final RegisterAccess registers,
            final ConfigAccess config,
            final KeyspaceNotifications notifications,
            final java.util.concurrent.Executor control,
            final java.util.concurrent.atomic.AtomicLong budget) {
        final KeyspaceNotifications.Subscriber subscriber =
                notifications == null ? null : notifications.subscriber(pipeline.channel());
        pipeline.addLast(new RedisDecoder(limits.maxInlineBytes(), FixedRedisMessagePool.INSTANCE, true))
                .addLast(new SizeGuard(limits))
                .addLast(new RedisBulkStringAggregator())
                .addLast(new RedisArrayAggregator(
                        65_536, 2)) // a command is one flat array of at most this many arguments
                .addLast(new RedisEncoder())
                .addLast(new CommandHandler(
                        new RedisCommands(cache, password, registers, config, subscriber, budget), control));
    }

    /** @return the bound port. */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (notifications != null) {
            notifications.close();
        }
        channel.close().syncUninterruptibly();
        control.shutdownNow(); // a change in flight still completes in the control model; its client is gone
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Refuses oversized bulk strings and arrays from their headers, before any of their bytes are buffered. */
    private static final class SizeGuard extends ChannelInboundHandlerAdapter {
        private final Limits limits;
        private boolean refused;

        SizeGuard(final Limits limits) {
            this.limits = limits;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            if (refused) {
                ReferenceCountUtil.release(msg);
                return;
            }
            String problem = null;
            if (msg instanceof BulkStringHeaderRedisMessage h && h.bulkStringLength() > limits.maxBulkBytes()) {
                problem = "ERR Protocol error: bulk string of " + h.bulkStringLength() + " bytes, the limit is "
                        + limits.maxBulkBytes();
            } else if (msg instanceof ArrayHeaderRedisMessage h && h.length() > limits.maxArguments()) {
                problem = "ERR Protocol error: " + h.length() + " arguments, the limit is " + limits.maxArguments();
            }
            if (problem == null) {
                ctx.fireChannelRead(msg);
                return;
            }
            ReferenceCountUtil.release(msg);
            refuse(ctx, problem);
        }

        /**
         * Answers one error and closes, in a task of its own: closing inside the decoder's loop would empty the
         * pipeline while the decoder still decodes the rest of what was read, and its next error would reach no
         * handler. Until the close, this guard drops what follows and swallows further errors.
         */
        private void refuse(final ChannelHandlerContext ctx, final String problem) {
            refused = true;
            ctx.channel().config().setAutoRead(false);
            ctx.channel()
                    .writeAndFlush(new ErrorRedisMessage(problem))
                    .addListener(f -> ctx.channel()
                            .eventLoop()
                            .execute(() -> ctx.channel().close()));
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            // a malformed stream (bad type byte, bad length, over-long inline line): say so and close, as Redis does
            if (!refused) {
                refuse(ctx, "ERR Protocol error: " + oneLine(cause.getMessage()));
            }
        }
    }

    /**
     * Runs each command on the I/O thread and writes its reply, while the client reads its replies: once its pending
     * replies pass the high water mark, the commands already received wait (at most what one read delivered) and the
     * channel is no longer read until the replies drain below the low mark. A client that pipelines many commands runs
     * {@link #COMMANDS_PER_TURN} of them, then the I/O thread serves the others before its next ones.
     */
    private static final class CommandHandler extends ChannelInboundHandlerAdapter {
        private static final List<byte[]> NOT_A_COMMAND = List.of();
        /** Commands one client runs before the I/O thread turns to the others (a pipelining client waits). */
        private static final int COMMANDS_PER_TURN = 16;
        /** Received commands beyond which the client is not read until they ran. */
        private static final int MAX_WAITING = 256;

        private boolean drainScheduled;
        private final RedisCommands session;
        private final java.util.concurrent.Executor control;
        private final ArrayDeque<List<byte[]>> waiting = new ArrayDeque<>();
        private boolean closing;
        /** A command waits for the data plane on the control thread: this connection's next commands wait. */
        private boolean pending;

        CommandHandler(final RedisCommands session, final java.util.concurrent.Executor control) {
            this.session = session;
            this.control = control;
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            session.close();
            ctx.fireChannelInactive();
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            try {
                final List<byte[]> args = msg instanceof RedisMessage m ? arguments(m) : null;
                waiting.add(args == null ? NOT_A_COMMAND : args);
            } finally {
                ReferenceCountUtil.release(msg);
            }
            if (waiting.size() >= MAX_WAITING) {
                // stop reading after this read: the backlog stays bounded by what one read decodes
                ctx.channel().config().setAutoRead(false);
            }
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx) {
            if (!drainScheduled) {
                drain(ctx);
            }
        }

        @Override
        public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
            if (!drainScheduled) {
                drain(ctx);
            }
            ctx.fireChannelWritabilityChanged();
        }

        private void drain(final ChannelHandlerContext ctx) {
            drainScheduled = false;
            boolean wrote = false;
            int executed = 0;
            while (!closing && !pending && !waiting.isEmpty() && ctx.channel().isWritable()) {
                if (executed == COMMANDS_PER_TURN) {
                    // yield the I/O thread: a scheduled (not an immediate) task runs after the next round of I/O, so
                    // other clients are read and served before this one's next commands
                    drainScheduled = true;
                    ctx.executor().schedule(() -> drain(ctx), 0, TimeUnit.NANOSECONDS);
                    break;
                }
                executed++;
                final List<byte[]> args = waiting.poll();
                final RedisMessage reply = args == NOT_A_COMMAND
                        ? new ErrorRedisMessage("ERR Protocol error: expected an array of bulk strings")
                        : session.execute(args);
                if (session.quit()) {
                    closing = true;
                    waiting.clear();
                    ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
                    return;
                }
                if (reply instanceof RedisCommands.Deferred deferred) {
                    runDeferred(ctx, deferred);
                    break;
                }
                write(ctx, reply);
                wrote = true;
            }
            if (wrote) {
                ctx.flush();
            }
            ctx.channel().config().setAutoRead(!closing && !pending && waiting.isEmpty());
        }

        private static void write(final ChannelHandlerContext ctx, final RedisMessage reply) {
            if (reply instanceof RedisCommands.Replies many) {
                many.replies().forEach(ctx::write);
            } else {
                ctx.write(reply);
            }
        }

        /**
         * Runs a command that waits for the data plane on the control thread and writes its reply on the I/O thread
         * when done; meanwhile this connection is not read and its next commands wait (Redis answers in order).
         */
        private void runDeferred(final ChannelHandlerContext ctx, final RedisCommands.Deferred deferred) {
            pending = true;
            try {
                control.execute(() -> {
                    RedisMessage result;
                    try {
                        result = deferred.run();
                    } catch (final RuntimeException e) {
                        LOG.warn(
                                "operator redis client {}: a change failed",
                                ctx.channel().remoteAddress(),
                                e);
                        result = new ErrorRedisMessage("ERR " + oneLine(e.toString()));
                    }
                    final RedisMessage reply = result;
                    ctx.executor().execute(() -> {
                        pending = false;
                        write(ctx, reply);
                        ctx.flush();
                        if (!drainScheduled) {
                            drain(ctx);
                        }
                    });
                });
            } catch (final java.util.concurrent.RejectedExecutionException e) {
                // the server is closing
                closing = true;
                ctx.close();
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.debug("operator redis client {}: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    /** @return the command's arguments, or null if the message is not a command. */
    static List<byte[]> arguments(final RedisMessage msg) {
        if (msg instanceof InlineCommandRedisMessage inline) {
            final List<byte[]> out = new ArrayList<>();
            for (final String part : inline.content().trim().split("\\s+")) {
                if (!part.isEmpty()) {
                    out.add(part.getBytes(StandardCharsets.UTF_8));
                }
            }
            return out;
        }
        if (msg instanceof ArrayRedisMessage array && !array.isNull()) {
            final List<byte[]> out = new ArrayList<>(array.children().size());
            for (final RedisMessage child : array.children()) {
                if (child instanceof FullBulkStringRedisMessage bulk && !bulk.isNull()) {
                    out.add(ByteBufUtil.getBytes(bulk.content()));
                } else if (child instanceof SimpleStringRedisMessage s) {
                    out.add(s.content().getBytes(StandardCharsets.UTF_8));
                } else {
                    return null;
                }
            }
            return out;
        }
        return null;
    }

    private static String oneLine(final String s) {
        if (s == null) {
            return "malformed request";
        }
        final String flat = s.replaceAll("[\\r\\n]+", " ");
        return flat.length() > 120 ? flat.substring(0, 120) : flat;
    }
}
