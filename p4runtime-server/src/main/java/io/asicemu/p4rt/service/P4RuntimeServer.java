package io.asicemu.p4rt.service;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;

/**
 * The P4Runtime server: one gRPC (Netty) listener, default port {@value #DEFAULT_PORT}, inbound messages up to
 * {@value #MAX_INBOUND_BYTES} bytes, serving every device added to its {@link P4RuntimeService}. Thread safe.
 */
public final class P4RuntimeServer implements AutoCloseable
{
    /** IANA port of P4Runtime. */
    public static final int DEFAULT_PORT = 9559;
    /** Inbound message limit (the spec asks servers to raise gRPC's 4 MB default). */
    public static final int MAX_INBOUND_BYTES = 64 * 1024 * 1024;

    private final P4RuntimeService service;
    private final Server server;

    public P4RuntimeServer(final InetSocketAddress address, final P4RuntimeService service)
    {
        this.service = service;
        this.server = NettyServerBuilder.forAddress(address).maxInboundMessageSize(MAX_INBOUND_BYTES)
            .maxInboundMetadataSize(1024 * 1024).addService(service).build();
    }

    /**
     * A server on all interfaces.
     *
     * @param port the TCP port ({@link #DEFAULT_PORT} unless configured otherwise).
     */
    public static P4RuntimeServer onPort(final int port, final P4RuntimeService service)
    {
        return new P4RuntimeServer(new InetSocketAddress(port), service);
    }

    public P4RuntimeServer start() throws IOException
    {
        server.start();
        return this;
    }

    /** @return the bound port (useful when started on port 0). */
    public int port()
    {
        return server.getPort();
    }

    public P4RuntimeService service()
    {
        return service;
    }

    @Override
    public void close() throws InterruptedException
    {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
    }
}
