package io.asicemu.routing;

import io.asicemu.listener.ConnectionSlots;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The FPM listener zebra's {@code dplane_fpm_nl} connects to (fpmsyncd's job in SONiC): FPM frames (version 1, type
 * netlink, a big-endian length that includes the 4-byte header) carrying rtnetlink route messages, decoded into
 * {@link Route}s for a {@link RouteSink}, kept in {@link HeldRoutes} and reconciled across zebra restarts.
 * <p>
 * One connection at a time, as zebra makes and fpmsyncd serves: while zebra's connection is open (it has sent a
 * frame), another is accepted and closed at once, counted {@link FpmCounters.Event#CONNECTIONS_REFUSED}; a
 * connection that has sent nothing yet gives its place to a newer one ({@link ConnectionSlots}), so a silent client
 * cannot keep zebra out. TCP keepalive (60 s idle, 3 probes 10 s apart) notices a peer that vanished without a FIN.
 * <p>
 * Bounds: a frame is at most 65,535 bytes (the FPM length field), the only input ever buffered; frames are decoded
 * and handed to the sink as they arrive on the one I/O thread, nothing is queued, so a sink slower than zebra pushes
 * back on zebra through TCP. Routes held are capped ({@link Settings#maxRoutes()}).
 * <p>
 * Threading: one Netty I/O thread ({@code fpm-io}) decodes, calls the sink and runs the grace timer; counters and the
 * held-route count are readable from any thread.
 */
public final class FpmServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FpmServer.class);

    /** FPM's port (fpm.h {@code FPM_DEFAULT_PORT}). */
    public static final int DEFAULT_PORT = 2620;
    /** How long after a reconnect zebra has to re-send a route before it is withdrawn (fpmsyncd's default, 120 s). */
    public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(120);

    static final int KEEPALIVE_IDLE_SECONDS = 60;
    static final int KEEPALIVE_INTERVAL_SECONDS = 10;
    static final int KEEPALIVE_PROBES = 3;

    /** The most routes held at once by default. */
    public static final int DEFAULT_MAX_ROUTES = 1 << 20;

    /**
     * The listener's settings.
     *
     * @param address where to listen (zebra's {@code fpm address}; default 127.0.0.1:2620; port 0 = any free port).
     * @param gracePeriod after a reconnect, routes not re-sent within this are withdrawn.
     * @param maxRoutes the most routes held; new prefixes beyond are refused and counted.
     * @param interfaceNames resolves zebra's interface indexes (default: /sys/class/net).
     */
    public record Settings(
            InetSocketAddress address, Duration gracePeriod, int maxRoutes, InterfaceNames interfaceNames) {
        /** Validates. */
        public Settings {
            if (gracePeriod.isNegative()) {
                throw new IllegalArgumentException("grace period must not be negative: " + gracePeriod);
            }
            if (maxRoutes < 1) {
                throw new IllegalArgumentException("maxRoutes must be at least 1: " + maxRoutes);
            }
        }

        /** @return 127.0.0.1:2620, a 120 s grace period, 2^20 routes, names from /sys/class/net. */
        public static Settings defaults() {
            return new Settings(
                    new InetSocketAddress("127.0.0.1", DEFAULT_PORT),
                    DEFAULT_GRACE_PERIOD,
                    DEFAULT_MAX_ROUTES,
                    new SysClassNetInterfaceNames());
        }

        /** @return these settings listening elsewhere. */
        public Settings withAddress(final InetSocketAddress other) {
            return new Settings(other, gracePeriod, maxRoutes, interfaceNames);
        }

        /** @return these settings with another grace period. */
        public Settings withGracePeriod(final Duration other) {
            return new Settings(address, other, maxRoutes, interfaceNames);
        }

        /** @return these settings with another route limit. */
        public Settings withMaxRoutes(final int other) {
            return new Settings(address, gracePeriod, other, interfaceNames);
        }

        /** @return these settings with another interface-name resolver. */
        public Settings withInterfaceNames(final InterfaceNames other) {
            return new Settings(address, gracePeriod, maxRoutes, other);
        }
    }

    private final EventLoopGroup group;
    private final Channel listener;
    private final FpmCounters counters;
    private final HeldRoutes routes;

    private FpmServer(
            final EventLoopGroup group, final Channel listener, final FpmCounters counters, final HeldRoutes routes) {
        this.group = group;
        this.listener = listener;
        this.counters = counters;
        this.routes = routes;
    }

    /**
     * Starts listening; the grace timer runs on the I/O thread.
     *
     * @param settings where and how.
     * @param sink where routes go (called on the I/O thread).
     * @return the running server.
     * @throws IOException if the address cannot be bound.
     * @throws InterruptedException if interrupted while binding.
     */
    public static FpmServer start(final Settings settings, final RouteSink sink)
            throws IOException, InterruptedException {
        return start(settings, sink, null);
    }

    /** As {@link #start(Settings, RouteSink)}, with the grace timer given (null: the I/O thread's scheduler). */
    static FpmServer start(final Settings settings, final RouteSink sink, final GraceTimer timer)
            throws IOException, InterruptedException {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                1,
                (ThreadFactory) r -> Thread.ofPlatform().daemon().name("fpm-io").unstarted(r),
                NioIoHandler.newFactory());
        final EventLoop loop = group.next();
        final GraceTimer graceTimer = timer != null
                ? timer
                : (delay, task) -> {
                    final var future = loop.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
                    return () -> future.cancel(false);
                };
        final FpmCounters counters = new FpmCounters();
        final HeldRoutes routes =
                new HeldRoutes(sink, counters, graceTimer, settings.gracePeriod(), settings.maxRoutes());
        final Connections connections =
                new Connections(routes, counters, new RouteMessageDecoder(settings.interfaceNames()));
        try {
            final Channel listener = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    // a peer gone without a FIN is noticed after about 90 s, not Linux's default 2 h 11 min
                    .childOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), KEEPALIVE_IDLE_SECONDS)
                    .childOption(
                            NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), KEEPALIVE_INTERVAL_SECONDS)
                    .childOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT), KEEPALIVE_PROBES)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel channel) {
                            connections.accept(channel);
                        }
                    })
                    .bind(settings.address())
                    .sync()
                    .channel();
            LOG.info("FPM: listening on {}", listener.localAddress());
            return new FpmServer(group, listener, counters, routes);
        } catch (final RuntimeException | InterruptedException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (e instanceof java.net.BindException || e.getCause() instanceof java.net.BindException) {
                throw new IOException("cannot listen for FPM on " + settings.address() + ": " + e.getMessage(), e);
            }
            throw e;
        }
    }

    /** @return the bound port. */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** @return the live counters. */
    public FpmCounters counters() {
        return counters;
    }

    /** @return a copy of the counters with the number of routes held. */
    public FpmCounters.Snapshot snapshot() {
        return counters.snapshot(routes.size());
    }

    /** @return routes held now. */
    public int routesHeld() {
        return routes.size();
    }

    /** Stops listening and closes zebra's connection; the sink keeps what it holds. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Admits connections (one at a time) and owns the current one. I/O thread only, but for slot bookkeeping. */
    private static final class Connections {
        private final HeldRoutes routes;
        private final FpmCounters counters;
        private final RouteMessageDecoder decoder;
        private final ConnectionSlots slots = new ConnectionSlots(1);
        private Channel current;

        Connections(final HeldRoutes routes, final FpmCounters counters, final RouteMessageDecoder decoder) {
            this.routes = routes;
            this.counters = counters;
            this.decoder = decoder;
        }

        void accept(final SocketChannel channel) {
            final ConnectionSlots.Outcome[] outcome = new ConnectionSlots.Outcome[1];
            final ConnectionSlots.Slot slot = slots.admit(channel::close, outcome);
            if (slot == null) {
                counters.count(FpmCounters.Event.CONNECTIONS_REFUSED);
                LOG.warn("FPM: refused a connection from {}: zebra's connection is open", channel.remoteAddress());
                channel.close();
                return;
            }
            if (outcome[0] == ConnectionSlots.Outcome.EVICTED_ONE) {
                counters.count(FpmCounters.Event.CONNECTIONS_EVICTED);
            }
            counters.count(FpmCounters.Event.CONNECTIONS_ACCEPTED);
            channel.pipeline()
                    .addLast(new LengthFieldBasedFrameDecoder(
                            RtnetlinkDescriptor.FPM_MAX_FRAME_LENGTH, 2, 2, -RtnetlinkDescriptor.FPM_HEADER_LENGTH, 0))
                    .addLast(new Connection(this, slot));
        }

        void opened(final Channel channel) {
            if (current != null) {
                routes.disconnected(); // the one it replaced has not reported its close yet
            }
            current = channel;
            LOG.info("FPM: zebra connected from {}", channel.remoteAddress());
            routes.connected();
        }

        void closed(final Channel channel) {
            counters.count(FpmCounters.Event.CONNECTIONS_CLOSED);
            if (current == channel) {
                current = null;
                LOG.info("FPM: zebra's connection closed; routes stay in place");
                routes.disconnected();
            }
        }
    }

    /** One connection's frames. */
    private static final class Connection extends SimpleChannelInboundHandler<ByteBuf>
            implements RouteMessageDecoder.Handler {
        private final Connections connections;
        private final ConnectionSlots.Slot slot;
        private final java.util.Set<SkipReason> loggedSkips = java.util.EnumSet.noneOf(SkipReason.class);
        private boolean sinkFailureLogged;

        Connection(final Connections connections, final ConnectionSlots.Slot slot) {
            this.connections = connections;
            this.slot = slot;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            connections.opened(ctx.channel());
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            slot.release();
            connections.closed(ctx.channel());
            ctx.fireChannelInactive();
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            final FpmCounters counters = connections.counters;
            if (connections.current != ctx.channel()) {
                counters.skip(SkipReason.STALE_CONNECTION);
                return;
            }
            counters.count(FpmCounters.Event.FRAMES);
            slot.prove();
            final int at = frame.readerIndex();
            if (frame.getUnsignedByte(at) != RtnetlinkDescriptor.FPM_VERSION) {
                skipFrame(SkipReason.FPM_VERSION);
                return;
            }
            if (frame.getUnsignedByte(at + 1) != RtnetlinkDescriptor.FPM_TYPE_NETLINK) {
                skipFrame(SkipReason.FPM_NOT_NETLINK);
                return;
            }
            frame.skipBytes(RtnetlinkDescriptor.FPM_HEADER_LENGTH);
            connections.decoder.decode(frame, this);
        }

        @Override
        public void onReplace(final Route route) {
            connections.counters.count(FpmCounters.Event.MESSAGES);
            try {
                connections.routes.replace(route);
            } catch (final RuntimeException e) {
                sinkFailed(route.prefix(), e);
            }
        }

        @Override
        public void onWithdraw(final RoutePrefix prefix) {
            connections.counters.count(FpmCounters.Event.MESSAGES);
            try {
                connections.routes.withdraw(prefix);
            } catch (final RuntimeException e) {
                sinkFailed(prefix, e);
            }
        }

        @Override
        public void onSkipped(final SkipReason reason) {
            connections.counters.count(FpmCounters.Event.MESSAGES);
            connections.counters.skip(reason);
            if (reason == SkipReason.MALFORMED) {
                connections.counters.count(FpmCounters.Event.DECODE_ERRORS);
            }
            if (loggedSkips.add(reason)) { // once per reason and connection; the counters have the rest
                LOG.info("FPM: skipping a message ({}); further ones are only counted", reason);
            }
        }

        private void skipFrame(final SkipReason reason) {
            connections.counters.skip(reason);
            if (loggedSkips.add(reason)) {
                LOG.info("FPM: skipping a frame ({}); further ones are only counted", reason);
            }
        }

        /** A sink that threw: the message is lost to it, the frame's other messages and the connection go on. */
        private void sinkFailed(final RoutePrefix prefix, final RuntimeException e) {
            connections.counters.count(FpmCounters.Event.SINK_ERRORS);
            if (!sinkFailureLogged) {
                sinkFailureLogged = true;
                LOG.error("FPM: the route sink failed on {}; further failures are only counted", prefix, e);
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            final FpmCounters counters = connections.counters;
            if (cause instanceof DecoderException && cause.getCause() instanceof CorruptedFrameException
                    || cause instanceof CorruptedFrameException) {
                counters.count(FpmCounters.Event.FRAMING_ERRORS);
                counters.count(FpmCounters.Event.DECODE_ERRORS);
                LOG.warn(
                        "FPM: closing the connection from {}: broken framing ({})",
                        ctx.channel().remoteAddress(),
                        cause.getMessage());
                ctx.close();
                return;
            }
            if (cause instanceof IOException) {
                LOG.info("FPM: connection from {} failed: {}", ctx.channel().remoteAddress(), cause.getMessage());
                ctx.close();
                return;
            }
            counters.count(FpmCounters.Event.SINK_ERRORS);
            LOG.error("FPM: handling a frame failed; the connection stays open", cause);
        }
    }
}
