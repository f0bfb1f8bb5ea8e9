package io.asicemu.operator;

import io.asicemu.listener.ConnectionSlots;
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
     * @param maxInlineBytes the longest inline command line, however it arrives (in one read or many).
     * @param maxConnections the most clients at once: when all are held, a new one takes the place of the oldest that
     *     has not authenticated (with a password) or sent a command (without one), else it is refused.
     * @param writeLowWaterMark resume reading a client when its pending replies fall below this.
     * @param writeHighWaterMark stop reading a client when its pending replies exceed this.
     * @param authTimeout a connection that has not authenticated (with a password) or sent a complete command
     *     (without one) this long after accept is closed.
     * @param idleTimeout a connection that neither reads nor writes this long is closed (subscribers excepted, as
     *     Redis' {@code timeout}); zero = never.
     * @param authFailureDelay a failed AUTH is answered after this delay (the connection reads nothing meanwhile).
     * @param maxAuthFailures after this many failed AUTHs the connection is closed.
     */
    public record Limits(
            int maxBulkBytes,
            int maxArguments,
            int maxInlineBytes,
            int maxConnections,
            int writeLowWaterMark,
            int writeHighWaterMark,
            java.time.Duration authTimeout,
            java.time.Duration idleTimeout,
            java.time.Duration authFailureDelay,
            int maxAuthFailures) {
        /** The bounds with the default deadlines and AUTH throttle. */
        public Limits(
                final int maxBulkBytes,
                final int maxArguments,
                final int maxInlineBytes,
                final int maxConnections,
                final int writeLowWaterMark,
                final int writeHighWaterMark) {
            this(
                    maxBulkBytes,
                    maxArguments,
                    maxInlineBytes,
                    maxConnections,
                    writeLowWaterMark,
                    writeHighWaterMark,
                    DEFAULT_AUTH_TIMEOUT,
                    DEFAULT_IDLE_TIMEOUT,
                    DEFAULT_AUTH_FAILURE_DELAY,
                    DEFAULT_MAX_AUTH_FAILURES);
        }

        /**
         * @return the defaults: 512 KiB bulk strings, 1024 arguments, 64 KiB inline, 64 clients, 256 KiB/1 MiB, 10 s to
         *     authenticate (or send a first command), 300 s idle, 1 s delay per failed AUTH and a close after 3.
         */
        public static Limits defaults() {
            return new Limits(512 << 10, 1024, 64 << 10, 64, 256 << 10, 1 << 20);
        }

        /** @return these limits with other connection deadlines and cap. */
        public Limits withConnections(
                final int connections,
                final java.time.Duration auth,
                final java.time.Duration idle,
                final java.time.Duration failureDelay,
                final int authFailures) {
            return new Limits(
                    maxBulkBytes,
                    maxArguments,
                    maxInlineBytes,
                    connections,
                    writeLowWaterMark,
                    writeHighWaterMark,
                    auth,
                    idle,
                    failureDelay,
                    authFailures);
        }
    }

    /** Default {@link Limits#authTimeout()}. */
    public static final java.time.Duration DEFAULT_AUTH_TIMEOUT = java.time.Duration.ofSeconds(10);
    /** Default {@link Limits#idleTimeout()}. */
    public static final java.time.Duration DEFAULT_IDLE_TIMEOUT = java.time.Duration.ofSeconds(300);
    /** Default {@link Limits#authFailureDelay()}. */
    public static final java.time.Duration DEFAULT_AUTH_FAILURE_DELAY = java.time.Duration.ofSeconds(1);
    /** Default {@link Limits#maxAuthFailures()}. */
    public static final int DEFAULT_MAX_AUTH_FAILURES = 3;
    /**
     * Failed AUTHs a second the whole server takes before every AUTH check waits its turn ({@link AuthThrottle}): the
     * per-connection delay alone would let many connections guess at once.
     */
    public static final int AUTH_FAILURES_PER_SECOND = 10;

    private final EventLoopGroup group;
    private final Channel channel;
    private final ListenerStats stats;
    private final java.util.concurrent.ExecutorService control;
    private final KeyspaceNotifications notifications;

    private OperatorRedisServer(
            final EventLoopGroup group,
            final Channel channel,
            final java.util.concurrent.ExecutorService control,
            final KeyspaceNotifications notifications,
            final ListenerStats stats) {
        this.stats = stats;
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
        return start(address, cache, password, limits, registers, config, new ListenerStats("redis"));
    }

    /**
     * Starts listening, with the register map, CONFIG_DB writes and keyspace notifications, counting into
     * {@code stats}.
     *
     * @param address where (loopback or the management address; port 0 = any free port).
     * @param cache the databases to serve.
     * @param password the AUTH password, or null for none.
     * @param limits the bounds.
     * @param registers the register map, or null for none.
     * @param config the running config (writes, notifications), or null: CONFIG_DB is read-only, no notifications.
     * @param stats the listener's counters and log.
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
            final ConfigAccess config,
            final ListenerStats stats)
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
        final ConnectionSlots slots = new ConnectionSlots(limits.maxConnections());
        final AuthThrottle throttle = new AuthThrottle(AUTH_FAILURES_PER_SECOND);
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
                            final ConnectionSlots.Outcome[] outcome = new ConnectionSlots.Outcome[1];
                            final ConnectionSlots.Slot slot = slots.admit(ch::close, outcome);
                            if (slot == null) {
                                stats.refused("all " + limits.maxConnections() + " connections are held by clients "
                                        + "that authenticated (or sent a command)");
                                ch.writeAndFlush(ch.alloc()
                                                .buffer()
                                                .writeBytes("-ERR max number of clients reached\r\n"
                                                        .getBytes(StandardCharsets.US_ASCII)))
                                        .addListener(ChannelFutureListener.CLOSE);
                                return;
                            }
                            if (outcome[0] == ConnectionSlots.Outcome.EVICTED_ONE) {
                                stats.evictedOne();
                            }
                            stats.opened();
                            ch.closeFuture().addListener(f -> {
                                slot.release();
                                stats.closed();
                            });
                            configure(
                                    ch.pipeline(),
                                    cache,
                                    password,
                                    limits,
                                    registers,
                                    config,
                                    notifications,
                                    control,
                                    budget,
                                    slot,
                                    stats,
                                    throttle);
                        }
                    });
            final Channel ch = b.bind(address).sync().channel();
            return new OperatorRedisServer(group, ch, control, notifications, stats);
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
        configure(pipeline, cache, password, limits, registers, null, null, Runnable::run, null, null, null, null);
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
            final java.util.concurrent.atomic.AtomicLong budget,
            final ConnectionSlots.Slot slot,
            final ListenerStats stats,
            final AuthThrottle throttle) {
        final KeyspaceNotifications.Subscriber subscriber =
                notifications == null ? null : notifications.subscriber(pipeline.channel());
        final ListenerStats counted = stats == null ? new ListenerStats("redis") : stats;
        if (!limits.idleTimeout().isZero()) {
            pipeline.addLast(new io.netty.handler.timeout.IdleStateHandler(
                    0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        }
        pipeline.addLast(new RedisDecoder(limits.maxInlineBytes(), FixedRedisMessagePool.INSTANCE, true))
                .addLast(new SizeGuard(limits, counted))
                .addLast(new RedisBulkStringAggregator())
                .addLast(new RedisArrayAggregator(
                        65_536, 2)) // a command is one flat array of at most this many arguments
                .addLast(new RedisEncoder())
                .addLast(new CommandHandler(
                        new RedisCommands(cache, password, registers, config, subscriber, budget),
                        control,
                        limits,
                        password != null,
                        slot,
                        counted,
                        throttle));
    }

    /** @return the listener's counters. */
    public ListenerStats stats() {
        return stats;
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
        private final ListenerStats stats;
        private boolean refused;

        SizeGuard(final Limits limits, final ListenerStats stats) {
            this.limits = limits;
            this.stats = stats;
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
            } else if (msg instanceof InlineCommandRedisMessage inline
                    && inline.content().length() > limits.maxInlineBytes()) {
                // the decoder checks the limit only while the line is incomplete: a whole line in one read passes it
                problem = "ERR Protocol error: an inline command of "
                        + inline.content().length() + " bytes, the limit is " + limits.maxInlineBytes();
            }
            if (problem == null) {
                ctx.fireChannelRead(msg);
                return;
            }
            ReferenceCountUtil.release(msg);
            stats.misbehaved("too-large", "oversized request(s) refused and the connection closed");
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
                stats.misbehaved("protocol", "malformed request(s) refused and the connection closed");
                refuse(ctx, "ERR Protocol error: " + problem(cause));
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

        private final Limits limits;
        private final boolean passwordRequired;
        /** This connection's place under the cap (null: not counted, an embedded test channel). */
        private final ConnectionSlots.Slot slot;

        private final ListenerStats stats;
        private io.netty.util.concurrent.ScheduledFuture<?> deadline;
        /** The server's AUTH throttle (null: none, an embedded test channel). */
        private final AuthThrottle throttle;

        CommandHandler(
                final RedisCommands session,
                final java.util.concurrent.Executor control,
                final Limits limits,
                final boolean passwordRequired,
                final ConnectionSlots.Slot slot,
                final ListenerStats stats,
                final AuthThrottle throttle) {
            this.throttle = throttle;
            this.session = session;
            this.control = control;
            this.limits = limits;
            this.passwordRequired = passwordRequired;
            this.slot = slot;
            this.stats = stats;
        }

        @Override
        public void handlerAdded(final ChannelHandlerContext ctx) {
            if (slot == null) {
                return;
            }
            // the deadline to authenticate (with a password) or to send a first complete command (without one)
            deadline = ctx.executor()
                    .schedule(
                            () -> {
                                if (!slot.proven() && ctx.channel().isOpen()) {
                                    stats.timedOut(
                                            passwordRequired ? "unauthenticated" : "silent",
                                            "connection(s) closed: no "
                                                    + (passwordRequired ? "successful AUTH" : "complete command")
                                                    + " within "
                                                    + limits.authTimeout().toMillis() + " ms");
                                    closing = true;
                                    ctx.close();
                                }
                            },
                            limits.authTimeout().toMillis(),
                            TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            if (deadline != null) {
                deadline.cancel(false);
            }
            session.close();
            ctx.fireChannelInactive();
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
            if (evt instanceof io.netty.handler.timeout.IdleStateEvent) {
                if (!session.subscribed() && !pending && !closing) {
                    stats.timedOut(
                            "idle",
                            "idle connection(s) closed after "
                                    + limits.idleTimeout().toSeconds() + " s");
                    closing = true;
                    ctx.close();
                }
                return;
            }
            ctx.fireUserEventTriggered(evt);
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
                if (throttle != null && passwordRequired && !session.authenticated() && isAuth(waiting.peek())) {
                    final long wait = throttle.waitNs(System.nanoTime());
                    if (wait > 0) {
                        // too many failed AUTHs server-wide: this check waits its turn, nothing else of it is read
                        pending = true;
                        ctx.executor()
                                .schedule(
                                        () -> {
                                            pending = false;
                                            if (ctx.channel().isActive() && !drainScheduled) {
                                                drain(ctx);
                                            }
                                        },
                                        wait,
                                        TimeUnit.NANOSECONDS);
                        break;
                    }
                }
                executed++;
                final List<byte[]> args = waiting.poll();
                final int failuresBefore = session.authFailures();
                final RedisMessage reply = args == NOT_A_COMMAND
                        ? new ErrorRedisMessage("ERR Protocol error: expected an array of bulk strings")
                        : session.execute(args);
                if (slot != null && (passwordRequired ? session.authenticated() : args != NOT_A_COMMAND)) {
                    slot.prove();
                }
                if (session.authFailures() > failuresBefore && slot != null) {
                    if (wrote) {
                        ctx.flush();
                    }
                    failedAuth(ctx, reply);
                    return;
                }
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

        /**
         * A wrong password: the reply waits {@link Limits#authFailureDelay()} (nothing else of this connection is
         * read or run meanwhile), and after {@link Limits#maxAuthFailures()} failures the connection is closed.
         */
        private void failedAuth(final ChannelHandlerContext ctx, final RedisMessage reply) {
            pending = true;
            ctx.channel().config().setAutoRead(false);
            if (throttle != null) {
                throttle.failed(System.nanoTime());
            }
            final boolean last = session.authFailures() >= limits.maxAuthFailures();
            stats.misbehaved(
                    "auth-failed",
                    "failed AUTH(s) (wrong password), each answered after "
                            + limits.authFailureDelay().toMillis() + " ms, the connection closed after "
                            + limits.maxAuthFailures());
            ctx.executor()
                    .schedule(
                            () -> {
                                pending = false;
                                if (last) {
                                    closing = true;
                                    waiting.clear();
                                    ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
                                    return;
                                }
                                write(ctx, reply);
                                ctx.flush();
                                if (!drainScheduled) {
                                    drain(ctx);
                                }
                            },
                            limits.authFailureDelay().toMillis(),
                            TimeUnit.MILLISECONDS);
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
                                "operator redis client {}: a change failed: {}",
                                ctx.channel().remoteAddress(),
                                problem(e));
                        if (LOG.isDebugEnabled()) {
                            LOG.debug("the change's failure", e);
                        }
                        result = new ErrorRedisMessage("ERR " + problem(e));
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

    private static boolean isAuth(final List<byte[]> args) {
        return args != null
                && !args.isEmpty()
                && new String(args.get(0), StandardCharsets.US_ASCII).equalsIgnoreCase("AUTH");
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

    /**
     * @return the innermost cause's message on one line, without the Java class names a wrapping exception puts in
     *     front ({@code io.netty.handler.codec.redis.RedisCodecException: …}): what a client is told.
     */
    static String problem(final Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        final String message = root.getMessage() == null
                ? null
                : CLASS_NAME.matcher(root.getMessage()).replaceAll("");
        return oneLine(message == null || message.isBlank() ? null : message);
    }

    /** A Java class name followed by a colon, as {@code Throwable.toString()} writes one. */
    private static final java.util.regex.Pattern CLASS_NAME = java.util.regex.Pattern.compile(
            "\\b(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)(?::\\s*)?");

    private static String oneLine(final String s) {
        if (s == null) {
            return "malformed request";
        }
        final String flat = s.replaceAll("[\\r\\n]+", " ");
        return flat.length() > 120 ? flat.substring(0, 120) : flat;
    }
}
