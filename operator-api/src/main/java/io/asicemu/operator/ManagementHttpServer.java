package io.asicemu.operator;

import io.asicemu.listener.ConnectionSlots;
import io.asicemu.listener.QuietIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.bootstrap.ServerBootstrap;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelFutureListener;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelInitializer;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.SocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.TooLongFrameException;
import io.grpc.netty.shaded.io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.grpc.netty.shaded.io.netty.handler.codec.http.FullHttpResponse;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpHeaderNames;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpHeaderValues;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpMethod;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpRequest;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpResponseStatus;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpServerCodec;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpVersion;
import io.grpc.netty.shaded.io.netty.handler.codec.http.QueryStringDecoder;
import io.grpc.netty.shaded.io.netty.handler.timeout.IdleStateEvent;
import io.grpc.netty.shaded.io.netty.handler.timeout.IdleStateHandler;
import io.grpc.netty.shaded.io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A read-only HTTP/1.1 endpoint of the management plane ({@code /metrics}, {@code /counters}) on Netty (the HTTP codec
 * grpc-java ships): GET and HEAD of one path, 404 for any other path, 405 for any other method; one request per
 * connection ({@code Connection: close}). Every connection is bounded as every management listener is
 * ({@link Options}): a cap of connections in which the ones that have not sent a complete request give way to new ones
 * ({@link ConnectionSlots}), a deadline for the complete request head, the codec's limits on the request line and
 * headers (whatever the read boundaries), and all clients served at once: a slow one (a slowloris sending a header a
 * minute) holds its own connection only, never the others' answers.
 * <p>
 * Threading: one Netty I/O thread ({@code <name>-http}, blocks in its selector when idle) reads and writes; the body is
 * made on {@code <name>-render} threads (it may wait for the data plane's counters), at most one per connection.
 */
public final class ManagementHttpServer implements AutoCloseable {
    /** The longest request line (a GET of a path is tens of bytes). */
    public static final int MAX_REQUEST_LINE_BYTES = 4096;
    /** All headers together. */
    public static final int MAX_HEADER_BYTES = 16 * 1024;

    /**
     * The listener's bounds.
     *
     * @param maxConnections connections held at once.
     * @param requestTimeout the deadline for a connection's complete request head, from accept.
     * @param idleTimeout a connection that neither reads nor writes this long is closed (a client that does not read
     *     its answer).
     */
    public record Options(int maxConnections, Duration requestTimeout, Duration idleTimeout) {
        /** @return 64 connections, 10 s for the request, 60 s idle. */
        public static Options defaults() {
            return new Options(64, Duration.ofSeconds(10), Duration.ofSeconds(60));
        }
    }

    /** The body of a 200 answer. */
    @FunctionalInterface
    public interface Body {
        /**
         * @return the text to serve.
         * @throws TimeoutException when it cannot be had in time (answered 503).
         * @throws IOException when it cannot be made.
         */
        String render() throws TimeoutException, IOException;
    }

    private final EventLoopGroup group;
    private final ExecutorService render;
    private final Channel channel;

    private ManagementHttpServer(final EventLoopGroup group, final ExecutorService render, final Channel channel) {
        this.group = group;
        this.render = render;
        this.channel = channel;
    }

    /**
     * Starts listening.
     *
     * @param address where (port 0 = any free port).
     * @param path the one path served.
     * @param contentType the 200 answer's Content-Type.
     * @param body what GET answers.
     * @param options the bounds.
     * @param stats the listener's counters and log (its name names the threads).
     * @return the running server.
     * @throws IOException if the address cannot be bound.
     */
    public static ManagementHttpServer start(
            final InetSocketAddress address,
            final String path,
            final String contentType,
            final Body body,
            final Options options,
            final ListenerStats stats)
            throws IOException {
        final EventLoopGroup group = new QuietIoEventLoopGroup(
                1, Thread.ofPlatform().daemon().name(stats.name() + "-http").factory(), NioIoHandler.newFactory());
        final ExecutorService render = Executors.newFixedThreadPool(
                2,
                Thread.ofPlatform().daemon().name(stats.name() + "-render-", 0).factory());
        final ConnectionSlots slots = new ConnectionSlots(options.maxConnections());
        try {
            final Channel ch = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.AUTO_READ, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel c) {
                            final ConnectionSlots.Outcome[] outcome = new ConnectionSlots.Outcome[1];
                            final ConnectionSlots.Slot slot = slots.admit(c::close, outcome);
                            if (slot == null) {
                                stats.refused("all " + options.maxConnections() + " connections are busy");
                                c.writeAndFlush(Unpooled.copiedBuffer(
                                                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                                        + "Connection: close\r\n\r\n",
                                                StandardCharsets.US_ASCII))
                                        .addListener(ChannelFutureListener.CLOSE);
                                return;
                            }
                            if (outcome[0] == ConnectionSlots.Outcome.EVICTED_ONE) {
                                stats.evictedOne();
                            }
                            stats.opened();
                            c.closeFuture().addListener(f -> {
                                slot.release();
                                stats.closed();
                            });
                            c.pipeline()
                                    .addLast(new IdleStateHandler(
                                            0, 0, options.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                                    .addLast(new HttpServerCodec(MAX_REQUEST_LINE_BYTES, MAX_HEADER_BYTES, 8192))
                                    .addLast(new Handler(path, contentType, body, options, stats, slot, render));
                        }
                    })
                    .bind(address)
                    .syncUninterruptibly()
                    .channel();
            return new ManagementHttpServer(group, render, ch);
        } catch (final RuntimeException e) {
            render.shutdownNow();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException(stats.name() + ": cannot listen on " + address + ": " + e.getMessage(), e);
        }
    }

    /** @return the bound port. */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        render.shutdownNow();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One connection: its deadline, its one request, its answer. */
    private static final class Handler extends ChannelInboundHandlerAdapter {
        private final String path;
        private final String contentType;
        private final Body body;
        private final Options options;
        private final ListenerStats stats;
        private final ConnectionSlots.Slot slot;
        private final ExecutorService render;
        private boolean answered;

        Handler(
                final String path,
                final String contentType,
                final Body body,
                final Options options,
                final ListenerStats stats,
                final ConnectionSlots.Slot slot,
                final ExecutorService render) {
            this.path = path;
            this.contentType = contentType;
            this.body = body;
            this.options = options;
            this.stats = stats;
            this.slot = slot;
            this.render = render;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            final var deadline = ctx.executor()
                    .schedule(
                            () -> {
                                if (!answered && ctx.channel().isOpen()) {
                                    stats.timedOut(
                                            "request-timeout",
                                            "connection(s) closed without a complete request within "
                                                    + options.requestTimeout().toMillis() + " ms");
                                    ctx.close();
                                }
                            },
                            options.requestTimeout().toMillis(),
                            TimeUnit.MILLISECONDS);
            // cancelled on close, so that an idle server's loop has nothing scheduled (it sleeps)
            ctx.channel().closeFuture().addListener(f -> deadline.cancel(false));
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            try {
                if (answered || !(msg instanceof HttpRequest request)) {
                    return; // a body, or what follows the one request: dropped
                }
                answered = true;
                slot.prove();
                ctx.channel().config().setAutoRead(false); // one request per connection: read nothing more
                if (request.decoderResult().isFailure()) {
                    final Throwable cause = request.decoderResult().cause();
                    final boolean tooLong = cause instanceof TooLongFrameException;
                    stats.misbehaved(
                            tooLong ? "too-long" : "malformed",
                            tooLong
                                    ? "request(s) refused: request line or headers over " + MAX_REQUEST_LINE_BYTES + "/"
                                            + MAX_HEADER_BYTES + " bytes"
                                    : "malformed HTTP request(s) refused");
                    respond(
                            ctx,
                            HttpResponseStatus.BAD_REQUEST,
                            tooLong ? "request line or headers too long\n" : "not an HTTP/1.x request\n",
                            true,
                            "text/plain; charset=utf-8");
                    return;
                }
                final String requested = new QueryStringDecoder(request.uri()).rawPath();
                final HttpMethod method = request.method();
                final boolean withBody = method.equals(HttpMethod.GET);
                if (!requested.equals(path)) {
                    respond(
                            ctx,
                            HttpResponseStatus.NOT_FOUND,
                            "not found: only " + path + " is served here\n",
                            withBody,
                            "text/plain; charset=utf-8");
                } else if (!withBody && !method.equals(HttpMethod.HEAD)) {
                    respond(
                            ctx,
                            HttpResponseStatus.METHOD_NOT_ALLOWED,
                            "only GET and HEAD are served here\n",
                            true,
                            "text/plain; charset=utf-8");
                } else {
                    answer(ctx, withBody);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void answer(final ChannelHandlerContext ctx, final boolean withBody) {
            try {
                render.execute(() -> {
                    String text;
                    HttpResponseStatus status = HttpResponseStatus.OK;
                    String type = contentType;
                    try {
                        text = body.render();
                    } catch (final TimeoutException e) {
                        status = HttpResponseStatus.SERVICE_UNAVAILABLE;
                        text = "the data plane did not answer in time\n";
                        type = "text/plain; charset=utf-8";
                    } catch (final IOException | RuntimeException e) {
                        status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
                        text = "cannot render: " + e.getMessage() + "\n";
                        type = "text/plain; charset=utf-8";
                        stats.misbehaved("render", "answer(s) failed: " + e);
                    }
                    final HttpResponseStatus s = status;
                    final String t = text;
                    final String ty = type;
                    ctx.executor().execute(() -> respond(ctx, s, t, withBody, ty));
                });
            } catch (final RejectedExecutionException e) {
                ctx.close(); // the server is closing
            }
        }

        private static void respond(
                final ChannelHandlerContext ctx,
                final HttpResponseStatus status,
                final String text,
                final boolean withBody,
                final String contentType) {
            final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            final FullHttpResponse response = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, status, withBody ? Unpooled.wrappedBuffer(bytes) : Unpooled.EMPTY_BUFFER);
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                    .set(HttpHeaderNames.CONTENT_LENGTH, bytes.length)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            if (status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
                response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            }
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
            if (evt instanceof IdleStateEvent) {
                stats.timedOut(
                        "idle",
                        "idle connection(s) closed after "
                                + options.idleTimeout().toMillis() + " ms");
                ctx.close();
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            // a reset or broken connection: one client's problem, counted in the log's interval, no stack trace
            stats.misbehaved(
                    "io-error", "connection(s) failed: " + cause.getClass().getSimpleName());
            ctx.close();
        }
    }
}
