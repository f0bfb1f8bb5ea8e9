package io.asicemu.p4rt.service;

import io.asicemu.listener.ConnectionSlots;
import io.asicemu.listener.QuietIoEventLoopGroup;
import io.asicemu.listener.SlottedServerChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The P4Runtime server: one gRPC (Netty) listener, default port {@value #DEFAULT_PORT}, inbound messages up to
 * {@value #MAX_INBOUND_BYTES} bytes, serving every device added to its {@link P4RuntimeService}; TLS (optionally
 * mutual) and connection limits from {@link ServerOptions}. Thread safe.
 */
public final class P4RuntimeServer implements AutoCloseable {
    /** IANA port of P4Runtime. */
    public static final int DEFAULT_PORT = 9559;
    /** Inbound message limit (the spec asks servers to raise gRPC's 4 MB default). */
    public static final int MAX_INBOUND_BYTES = 64 * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(P4RuntimeServer.class);
    private static final long REFUSAL_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);
    private static final String WRITE_METHOD =
            p4.v1.P4RuntimeGrpc.getWriteMethod().getFullMethodName();

    private final P4RuntimeService service;
    private final Server server;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    /** Every call but Write (Read, pipeline config, StreamChannel, Capabilities): handlers that may take a while. */
    private final ExecutorService callThreads;

    private final AtomicInteger openConnections = new AtomicInteger();
    private final AtomicLong refusedConnections = new AtomicLong();
    private final AtomicLong evictedConnections = new AtomicLong();
    private final AtomicLong closedBeforePreface = new AtomicLong();
    private final int maxConnections;
    private long refusalsLogged;
    private long lastRefusalLogNs;
    private long evictionsLogged;
    private long lastEvictionLogNs;

    /** A plaintext server with {@link ServerOptions#defaults()}. */
    public P4RuntimeServer(final InetSocketAddress address, final P4RuntimeService service) {
        this(address, service, ServerOptions.defaults());
    }

    /**
     * @param address where to listen.
     * @param service the service.
     * @param options TLS and connection limits.
     * @throws IllegalArgumentException if the TLS files cannot be read as a certificate chain and key.
     */
    public P4RuntimeServer(
            final InetSocketAddress address, final P4RuntimeService service, final ServerOptions options) {
        this.service = service;
        this.maxConnections = options.maxConnections();
        final SslContext ssl = options.tls() == null ? null : sslContext(options.tls()); // before threads exist
        // our own loops so the listener can be ours (gRPC cannot cap connections): one acceptor, few I/O threads
        // (loops that sleep while idle: Netty's own wake once a second, QuietIoEventLoopGroup)
        this.boss =
                new QuietIoEventLoopGroup(1, new DefaultThreadFactory("p4rt-accept", true), NioIoHandler.newFactory());
        this.callThreads = Executors.newCachedThreadPool(new DefaultThreadFactory("p4rt-call", true));
        this.workers = new QuietIoEventLoopGroup(
                Math.min(4, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory("p4rt-io", true),
                NioIoHandler.newFactory());
        final NettyServerBuilder builder = NettyServerBuilder.forAddress(address)
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .channelFactory(() -> new SlottedServerChannel(
                        new ConnectionSlots(maxConnections), new SlottedServerChannel.Events() {
                            @Override
                            public void refused() {
                                refusedConnections.incrementAndGet();
                                logRefusal();
                            }

                            @Override
                            public void evicted() {
                                evictedConnections.incrementAndGet();
                                logEviction();
                            }

                            @Override
                            public void opened() {
                                openConnections.incrementAndGet();
                            }

                            @Override
                            public void closed(final boolean proven) {
                                if (!proven) {
                                    closedBeforePreface.incrementAndGet();
                                }
                                openConnections.decrementAndGet();
                            }
                        }))
                .maxInboundMessageSize(MAX_INBOUND_BYTES)
                .maxInboundMetadataSize(1024 * 1024)
                .handshakeTimeout(options.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .keepAliveTime(options.keepAliveTime().toMillis(), TimeUnit.MILLISECONDS)
                .keepAliveTimeout(options.keepAliveTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .permitKeepAliveTime(options.permitKeepAliveTime().toMillis(), TimeUnit.MILLISECONDS)
                .permitKeepAliveWithoutCalls(true)
                .maxConnectionIdle(options.maxConnectionIdle().toMillis(), TimeUnit.MILLISECONDS)
                .maxConcurrentCallsPerConnection(options.maxConcurrentCallsPerConnection())
                // Write runs on the connection's I/O thread (one hand-off less per Write, and the Writes of one
                // connection stage in arrival order): its handler decodes, validates and commits, and never waits for
                // the data plane (the reply is sent when it applied the batch); every other call on call threads
                .directExecutor()
                .callExecutor(new ServerCallExecutorSupplier() {
                    @Override
                    public <Q, R> Executor getExecutor(final ServerCall<Q, R> call, final Metadata headers) {
                        return WRITE_METHOD.equals(call.getMethodDescriptor().getFullMethodName()) ? null : callThreads;
                    }
                });
        if (!options.maxConnectionAge().isZero()) {
            builder.maxConnectionAge(options.maxConnectionAge().toMillis(), TimeUnit.MILLISECONDS)
                    .maxConnectionAgeGrace(options.maxConnectionAgeGrace().toMillis(), TimeUnit.MILLISECONDS);
        }
        if (ssl != null) {
            builder.sslContext(ssl);
        }
        this.server = builder.addService(service.serverDefinition()).build();
    }

    /** Boss loop only: one line for the first refusal, then at most one per interval with the count since. */
    private void logRefusal() {
        final long now = System.nanoTime();
        if (refusalsLogged == 0 || now - lastRefusalLogNs >= REFUSAL_LOG_INTERVAL_NS) {
            final long total = refusedConnections.get();
            LOG.warn(
                    "P4Runtime: refused {} connection(s): {} are open, the limit (--p4runtime-max-connections)",
                    total - refusalsLogged,
                    maxConnections);
            refusalsLogged = total;
            lastRefusalLogNs = now;
        }
    }

    /** Boss loop only: as {@link #logRefusal}, for connections that never spoke closed to make room. */
    private void logEviction() {
        final long now = System.nanoTime();
        if (evictionsLogged == 0 || now - lastEvictionLogNs >= REFUSAL_LOG_INTERVAL_NS) {
            final long total = evictedConnections.get();
            LOG.warn(
                    "P4Runtime: closed {} connection(s) that had not sent their HTTP/2 preface to make room for new"
                            + " ones ({} open, the limit)",
                    total - evictionsLogged,
                    maxConnections);
            evictionsLogged = total;
            lastEvictionLogNs = now;
        }
    }

    /** @return connections that had not sent their preface closed to make room for a new one. */
    public long evictedConnections() {
        return evictedConnections.get();
    }

    /** @return connections closed before their HTTP/2 preface (handshake timeout, eviction, or the client). */
    public long closedBeforePreface() {
        return closedBeforePreface.get();
    }

    /** @return connections open now. */
    public int openConnections() {
        return openConnections.get();
    }

    /**
     * @return connections closed at accept because {@link ServerOptions#maxConnections()} were open, all past their
     *     preface.
     */
    public long refusedConnections() {
        return refusedConnections.get();
    }

    private static SslContext sslContext(final ServerOptions.Tls tls) {
        try {
            final SslContextBuilder ssl = GrpcSslContexts.forServer(
                    tls.certChain().toFile(), tls.privateKey().toFile());
            if (tls.clientCa() != null) {
                ssl.trustManager(tls.clientCa().toFile()).clientAuth(ClientAuth.REQUIRE);
            }
            return ssl.build();
        } catch (final javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot use the TLS files " + tls.certChain() + ", " + tls.privateKey()
                            + (tls.clientCa() == null ? "" : ", " + tls.clientCa()) + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * A server on all interfaces.
     *
     * @param port the TCP port ({@link #DEFAULT_PORT} unless configured otherwise).
     */
    public static P4RuntimeServer onPort(final int port, final P4RuntimeService service) {
        return new P4RuntimeServer(new InetSocketAddress(port), service);
    }

    public P4RuntimeServer start() throws IOException {
        try {
            server.start();
        } catch (final IOException | RuntimeException e) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            callThreads.shutdownNow();
            throw e;
        }
        return this;
    }

    /** @return the bound port (useful when started on port 0). */
    public int port() {
        return server.getPort();
    }

    public P4RuntimeService service() {
        return service;
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller's interrupt stays visible; the loops still shut down
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        callThreads.shutdownNow();
    }
}
