package io.asicemu.operator.gnmi;

import io.asicemu.listener.ConnectionSlots;
import io.asicemu.listener.QuietIoEventLoopGroup;
import io.asicemu.listener.SlottedServerChannel;
import io.asicemu.operator.ListenerStats;
import io.asicemu.operator.SnapshotCache;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The gNMI telemetry listener (grpc-java over Netty) for {@link GnmiService}: plaintext, or TLS (optionally mutual)
 * from PEM files. Requests are small, so inbound messages are capped at 1 MiB.
 * <p>
 * Threading: Netty's I/O threads, two {@code gnmi-rpc} executor threads for the RPCs and one {@code gnmi-sampler}
 * thread for STREAM ticks; all block when idle (no subscription, no ticks). Thread safe.
 */
public final class GnmiServer implements AutoCloseable {
    private static final int MAX_INBOUND_BYTES = 1 << 20;

    /**
     * TLS for the listener.
     *
     * @param certChain the server's certificate chain (PEM).
     * @param privateKey its private key (PKCS#8 PEM).
     * @param clientCa if not null, client certificates must chain to these CA certificates (mutual TLS).
     */
    public record Tls(Path certChain, Path privateKey, Path clientCa) {}

    /**
     * The listener's connection bounds (P4Runtime's, SECURITY.md).
     *
     * @param maxConnections connections held at once; when all are held, a new one takes the place of the oldest
     *     that has not sent its HTTP/2 preface, else it is closed at accept.
     * @param handshakeTimeout a connection that has not finished its TLS/HTTP/2 handshake this long is closed.
     * @param idleTimeout a connection with no call in flight this long is closed (a subscription is a call).
     */
    public record Options(int maxConnections, Duration handshakeTimeout, Duration idleTimeout) {
        /** @return 64 connections, a 10 s handshake, 300 s idle. */
        public static Options defaults() {
            return new Options(64, Duration.ofSeconds(10), Duration.ofSeconds(300));
        }
    }

    private final Server server;
    private final GnmiService service;
    private final ExecutorService executor;
    private final ScheduledExecutorService sampler;
    private final ListenerStats stats;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;

    private GnmiServer(
            final Server server,
            final GnmiService service,
            final ExecutorService executor,
            final ScheduledExecutorService sampler,
            final ListenerStats stats,
            final EventLoopGroup boss,
            final EventLoopGroup workers) {
        this.stats = stats;
        this.boss = boss;
        this.workers = workers;
        this.server = server;
        this.service = service;
        this.executor = executor;
        this.sampler = sampler;
    }

    /**
     * Starts listening.
     *
     * @param address where (loopback or the management address; port 0 = any free port).
     * @param cache the databases to serve.
     * @param limits the service's bounds.
     * @param tls TLS, or null for plaintext.
     * @return the running server.
     * @throws IOException if the address cannot be bound or the TLS files cannot be used.
     */
    public static GnmiServer start(
            final InetSocketAddress address, final SnapshotCache cache, final GnmiService.Limits limits, final Tls tls)
            throws IOException {
        return start(address, cache, limits, tls, Options.defaults(), new ListenerStats("gnmi"));
    }

    /**
     * Starts listening with connection bounds.
     *
     * @param address where (loopback or the management address; port 0 = any free port).
     * @param cache the databases to serve.
     * @param limits the service's bounds.
     * @param tls TLS, or null for plaintext.
     * @param options the connection bounds.
     * @param stats the listener's counters and log.
     * @return the running server.
     * @throws IOException if the address cannot be bound or the TLS files cannot be used.
     */
    public static GnmiServer start(
            final InetSocketAddress address,
            final SnapshotCache cache,
            final GnmiService.Limits limits,
            final Tls tls,
            final Options options,
            final ListenerStats stats)
            throws IOException {
        final EventLoopGroup boss = new QuietIoEventLoopGroup(
                1, Thread.ofPlatform().daemon().name("gnmi-accept").factory(), NioIoHandler.newFactory());
        final EventLoopGroup workers = new QuietIoEventLoopGroup(
                2, Thread.ofPlatform().daemon().name("gnmi-io-", 0).factory(), NioIoHandler.newFactory());
        final ConnectionSlots slots = new ConnectionSlots(options.maxConnections());
        final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("gnmi-sampler").unstarted(r));
        final ExecutorService executor = Executors.newFixedThreadPool(
                2, Thread.ofPlatform().daemon().name("gnmi-rpc-", 0).factory());
        final GnmiService service = new GnmiService(cache, limits, sampler);
        try {
            final NettyServerBuilder builder = NettyServerBuilder.forAddress(address)
                    .bossEventLoopGroup(boss)
                    .workerEventLoopGroup(workers)
                    .channelFactory(() -> new SlottedServerChannel(slots, new SlottedServerChannel.Events() {
                        @Override
                        public void refused() {
                            stats.refused(
                                    "all " + slots.limit() + " connections are held by clients past their handshake");
                        }

                        @Override
                        public void evicted() {
                            stats.evictedOne();
                        }

                        @Override
                        public void opened() {
                            stats.opened();
                        }

                        @Override
                        public void closed(final boolean proven) {
                            if (!proven) {
                                // gRPC's handshake timeout, an eviction, or a client that gave up
                                stats.timedOut("no-handshake", "connection(s) closed before their HTTP/2 preface");
                            }
                            stats.closed();
                        }
                    }))
                    .handshakeTimeout(options.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .maxConnectionIdle(options.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .keepAliveTime(60, TimeUnit.SECONDS)
                    .keepAliveTimeout(20, TimeUnit.SECONDS)
                    .permitKeepAliveTime(10, TimeUnit.SECONDS)
                    .permitKeepAliveWithoutCalls(true)
                    .maxConcurrentCallsPerConnection(32)
                    .executor(executor)
                    .maxInboundMessageSize(MAX_INBOUND_BYTES)
                    .maxInboundMetadataSize(64 << 10)
                    .addService(service);
            if (tls != null) {
                final SslContextBuilder ssl = GrpcSslContexts.forServer(
                        tls.certChain().toFile(), tls.privateKey().toFile());
                if (tls.clientCa() != null) {
                    ssl.trustManager(tls.clientCa().toFile()).clientAuth(ClientAuth.REQUIRE);
                }
                builder.sslContext(ssl.build());
            }
            final Server server = builder.build().start();
            return new GnmiServer(server, service, executor, sampler, stats, boss, workers);
        } catch (final IOException | RuntimeException e) {
            sampler.shutdownNow();
            executor.shutdownNow();
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (e instanceof IOException io) {
                throw new IOException("gNMI: cannot listen on " + address + ": " + io.getMessage(), io);
            }
            throw new IOException("gNMI: cannot start on " + address + ": " + e.getMessage(), e);
        }
    }

    /** @return the port it listens on. */
    public int port() {
        return server.getPort();
    }

    /** @return the listener's counters. */
    public ListenerStats stats() {
        return stats;
    }

    /** @return the service (its counters: open subscriptions, coalesced updates, missed samples). */
    public GnmiService service() {
        return service;
    }

    @Override
    public void close() {
        server.shutdownNow();
        sampler.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
