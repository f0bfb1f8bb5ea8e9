package io.asicemu.p4rt.service;

import io.asicemu.listener.ConnectionSlots;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A listening socket that holds at most {@code limit} connections at once ({@link ConnectionSlots}): a connection is
 * proven once it sent the HTTP/2 client preface's 24 bytes (or as many of TLS); when the limit is reached, a new
 * connection takes the slot of the oldest unproven one (closed), so that connections which never speak cannot lock
 * controllers out; when every slot is proven, the new one is closed as soon as it is accepted, before any byte is read
 * or TLS is negotiated. gRPC has no such setting, and its transport filters cannot refuse a connection; the accept
 * loop can.
 * <p>
 * Threading: {@link #doReadMessages} runs on the boss event loop; the count goes down on whichever loop closes a
 * child; the counters may be read from any thread.
 */
final class CappedServerSocketChannel extends NioServerSocketChannel {
    /** The HTTP/2 client connection preface ({@code PRI * HTTP/2.0…}). */
    static final int PREFACE_BYTES = 24;

    private final ConnectionSlots slots;
    private final AtomicInteger open;
    private final AtomicLong refused;
    private final AtomicLong evicted;
    private final AtomicLong closedBeforePreface;
    private final Runnable onRefused;
    private final Runnable onEvicted;

    /**
     * @param slots the connection slots (the limit).
     * @param open the count of open connections (shared with the server, which reports it).
     * @param refused the count of connections closed because every slot was held by a proven connection.
     * @param evicted the count of unproven connections closed to make room for a new one.
     * @param closedBeforePreface the count of connections that closed before their preface (handshake timeout,
     *     eviction, or a client that gave up).
     * @param onRefused called on the boss loop after each refusal (logging, rate-limited by the caller).
     * @param onEvicted called on the boss loop after each eviction (logging, rate-limited by the caller).
     */
    CappedServerSocketChannel(
            final ConnectionSlots slots,
            final AtomicInteger open,
            final AtomicLong refused,
            final AtomicLong evicted,
            final AtomicLong closedBeforePreface,
            final Runnable onRefused,
            final Runnable onEvicted) {
        this.slots = slots;
        this.open = open;
        this.refused = refused;
        this.evicted = evicted;
        this.closedBeforePreface = closedBeforePreface;
        this.onRefused = onRefused;
        this.onEvicted = onEvicted;
    }

    @Override
    protected int doReadMessages(final List<Object> buf) throws Exception {
        final int accepted = super.doReadMessages(buf);
        if (accepted != 1) {
            return accepted;
        }
        final Channel child = (Channel) buf.get(buf.size() - 1);
        final ConnectionSlots.Outcome[] outcome = new ConnectionSlots.Outcome[1];
        final ConnectionSlots.Slot slot = slots.admit(() -> closeNow(child), outcome);
        if (slot == null) {
            buf.remove(buf.size() - 1);
            child.unsafe().closeForcibly();
            refused.incrementAndGet();
            onRefused.run();
            return 0; // nothing handed to the pipeline; the accept loop looks again on the next readiness
        }
        if (outcome[0] == ConnectionSlots.Outcome.EVICTED_ONE) {
            evicted.incrementAndGet();
            onEvicted.run();
        }
        open.incrementAndGet();
        child.closeFuture().addListener(f -> {
            if (!slot.proven()) {
                closedBeforePreface.incrementAndGet();
            }
            slot.release();
            open.decrementAndGet();
        });
        child.pipeline().addFirst(new PrefaceWatch(slot));
        return 1;
    }

    /**
     * Closes an evicted connection's socket at once, on its own loop, past the pipeline: a close through gRPC's
     * handlers would send GOAWAY first, which its negotiation handler buffers until the handshake that never comes, so
     * the descriptor would stay held until the handshake timeout.
     */
    private static void closeNow(final Channel child) {
        if (child.isRegistered()) {
            child.eventLoop().execute(() -> child.unsafe().close(child.unsafe().voidPromise()));
        } else {
            // accepted in the same read as the new one, not registered yet: closed as soon as it is (closing it
            // now would fail its registration, which Netty logs with a stack trace, and skip its close listeners)
            child.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRegistered(final ChannelHandlerContext ctx) {
                    ctx.channel().unsafe().close(ctx.channel().unsafe().voidPromise());
                }
            });
        }
    }

    /** Proves the slot once the preface's worth of bytes arrived, then leaves the pipeline. */
    private static final class PrefaceWatch extends ChannelInboundHandlerAdapter {
        private final ConnectionSlots.Slot slot;
        private int seen;

        PrefaceWatch(final ConnectionSlots.Slot slot) {
            this.slot = slot;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            if (msg instanceof ByteBuf b) {
                seen += b.readableBytes();
                if (seen >= PREFACE_BYTES) {
                    slot.prove();
                    ctx.pipeline().remove(this);
                }
            }
            ctx.fireChannelRead(msg);
        }
    }
}
