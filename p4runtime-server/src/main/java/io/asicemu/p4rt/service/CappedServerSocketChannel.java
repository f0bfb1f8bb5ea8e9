package io.asicemu.p4rt.service;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A listening socket that accepts at most {@code limit} connections at once: one more is closed as soon as it is
 * accepted, before any byte is read or TLS is negotiated, so a client (or many) cannot hold more than the limit's
 * worth of descriptors and handshake state. gRPC has no such setting, and its transport filters cannot refuse a
 * connection; the accept loop can.
 * <p>
 * Threading: {@link #doReadMessages} runs on the boss event loop; the count goes down on whichever loop closes a
 * child; {@link #open} and {@link #refused} may be read from any thread.
 */
final class CappedServerSocketChannel extends NioServerSocketChannel {
    private final int limit;
    private final AtomicInteger open;
    private final AtomicLong refused;
    private final Runnable onRefused;

    /**
     * @param limit the most connections open at once.
     * @param open the count of open connections (shared with the server, which reports it).
     * @param refused the count of connections closed because of the limit.
     * @param onRefused called on the boss loop after each refusal (logging, rate-limited by the caller).
     */
    CappedServerSocketChannel(
            final int limit, final AtomicInteger open, final AtomicLong refused, final Runnable onRefused) {
        this.limit = limit;
        this.open = open;
        this.refused = refused;
        this.onRefused = onRefused;
    }

    @Override
    protected int doReadMessages(final List<Object> buf) throws Exception {
        final int accepted = super.doReadMessages(buf);
        if (accepted != 1) {
            return accepted;
        }
        final Channel child = (Channel) buf.get(buf.size() - 1);
        if (open.incrementAndGet() > limit) {
            open.decrementAndGet();
            buf.remove(buf.size() - 1);
            child.unsafe().closeForcibly();
            refused.incrementAndGet();
            onRefused.run();
            return 0; // nothing handed to the pipeline; the accept loop looks again on the next readiness
        }
        child.closeFuture().addListener(f -> open.decrementAndGet());
        return 1;
    }
}
