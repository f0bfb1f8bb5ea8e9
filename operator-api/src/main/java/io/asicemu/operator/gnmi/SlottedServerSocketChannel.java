package io.asicemu.operator.gnmi;

import io.asicemu.listener.ConnectionSlots;
import io.asicemu.operator.ListenerStats;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;

/**
 * A gRPC listening socket under a {@link ConnectionSlots} cap, as p4runtime-server's: a connection is proven once it
 * sent the HTTP/2 client preface's 24 bytes (or its TLS hello and more); when the cap is reached, a new connection
 * takes the slot of the oldest that has not (closed), else it is closed as soon as it is accepted, before TLS or HTTP/2.
 * gRPC has no such setting and its transport filters cannot refuse a connection; the accept loop can.
 * <p>
 * Threading: {@link #doReadMessages} runs on the boss event loop; slots are proven and released on the I/O threads.
 */
final class SlottedServerSocketChannel extends NioServerSocketChannel {
    /** The HTTP/2 client connection preface ({@code PRI * HTTP/2.0…}). */
    static final int PREFACE_BYTES = 24;

    private final ConnectionSlots slots;
    private final ListenerStats stats;

    SlottedServerSocketChannel(final ConnectionSlots slots, final ListenerStats stats) {
        this.slots = slots;
        this.stats = stats;
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
            stats.refused("all " + slots.limit() + " connections are held by clients past their handshake");
            return 0; // nothing handed to the pipeline; the accept loop looks again on the next readiness
        }
        if (outcome[0] == ConnectionSlots.Outcome.EVICTED_ONE) {
            stats.evictedOne();
        }
        stats.opened();
        child.closeFuture().addListener(f -> {
            if (!slot.proven()) {
                // closed before its preface: gRPC's handshake timeout, an eviction, or a client that gave up
                stats.timedOut("no-handshake", "connection(s) closed before their HTTP/2 preface");
            }
            slot.release();
            stats.closed();
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
