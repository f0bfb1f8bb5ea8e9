package io.asicemu.listener;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;

/**
 * A gRPC listening socket (P4Runtime, gNMI) under a {@link ConnectionSlots} cap: a connection is proven once it sent
 * the HTTP/2 client preface's 24 bytes (or as many of TLS); when the cap is reached, a new connection takes the slot
 * of the oldest unproven one (closed), so that connections which never speak cannot lock clients out; when every slot
 * is proven, the new one is closed as soon as it is accepted, before any byte is read or TLS is negotiated. gRPC has
 * no such setting, and its transport filters cannot refuse a connection; the accept loop can.
 * <p>
 * Threading: {@link #doReadMessages} and the {@link Events} of acceptance run on the boss event loop; a connection's
 * close on whichever loop closes it.
 */
public final class SlottedServerChannel extends NioServerSocketChannel {
    /** The HTTP/2 client connection preface ({@code PRI * HTTP/2.0…}). */
    public static final int PREFACE_BYTES = 24;

    /** What the listener counts and logs (each listener its own way). */
    public interface Events {
        /** A new connection was closed at once: every slot is held by a proven one. */
        void refused();

        /** An unproven connection was closed to make room for a new one. */
        void evicted();

        /** A connection was admitted. */
        void opened();

        /**
         * @param proven whether it had sent its preface (if not: a handshake timeout, an eviction, or a client that
         *     gave up).
         */
        void closed(boolean proven);
    }

    private final ConnectionSlots slots;
    private final Events events;

    /**
     * @param slots the connection slots (the cap).
     * @param events told of each refusal, eviction, admission and close.
     */
    public SlottedServerChannel(final ConnectionSlots slots, final Events events) {
        this.slots = slots;
        this.events = events;
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
            events.refused();
            return 0; // nothing handed to the pipeline; the accept loop looks again on the next readiness
        }
        if (outcome[0] == ConnectionSlots.Outcome.EVICTED_ONE) {
            events.evicted();
        }
        events.opened();
        child.closeFuture().addListener(f -> {
            final boolean proven = slot.proven();
            slot.release();
            events.closed(proven);
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
