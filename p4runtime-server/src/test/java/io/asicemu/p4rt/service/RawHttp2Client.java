package io.asicemu.p4rt.service;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.embedded.EmbeddedChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2CodecUtil;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameAdapter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * An HTTP/2 client that does only what it is told: it writes frames with Netty's frame writer onto a plain socket and
 * reads the server's frames with Netty's frame reader. Unlike a real client it does not honour the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS, so a test can see what the server does to a client that exceeds it.
 * Single-threaded.
 */
final class RawHttp2Client implements AutoCloseable {
    /** A frame the server sent, as far as the tests care. */
    record Frame(String type, int streamId, long errorCode, Http2Headers headers, Http2Settings settings) {}

    private final Socket socket;
    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
    private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader();
    private final ByteBuf received = Unpooled.buffer();
    private final List<Frame> frames = new ArrayList<>();
    private final Http2FrameAdapter listener = new Http2FrameAdapter() {
        @Override
        public void onSettingsRead(final ChannelHandlerContext c, final Http2Settings settings) {
            frames.add(new Frame("SETTINGS", 0, 0, null, settings));
        }

        @Override
        public void onRstStreamRead(final ChannelHandlerContext c, final int streamId, final long errorCode) {
            frames.add(new Frame("RST_STREAM", streamId, errorCode, null, null));
        }

        @Override
        public void onHeadersRead(
                final ChannelHandlerContext c,
                final int streamId,
                final Http2Headers headers,
                final int padding,
                final boolean endStream) {
            frames.add(new Frame("HEADERS", streamId, 0, headers, null));
        }

        @Override
        public void onHeadersRead(
                final ChannelHandlerContext c,
                final int streamId,
                final Http2Headers headers,
                final int streamDependency,
                final short weight,
                final boolean exclusive,
                final int padding,
                final boolean endStream) {
            onHeadersRead(c, streamId, headers, padding, endStream);
        }

        @Override
        public int onDataRead(
                final ChannelHandlerContext c,
                final int streamId,
                final ByteBuf data,
                final int padding,
                final boolean endOfStream) {
            return data.readableBytes() + padding;
        }

        @Override
        public void onGoAwayRead(
                final ChannelHandlerContext c, final int lastStreamId, final long errorCode, final ByteBuf debugData) {
            frames.add(new Frame("GOAWAY", lastStreamId, errorCode, null, null));
        }
    };

    /** Connects and sends the connection preface with empty SETTINGS. */
    RawHttp2Client(final int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(100);
        ctx.write(Http2CodecUtil.connectionPrefaceBuf());
        writer.writeSettings(ctx, new Http2Settings(), ctx.newPromise());
        flush();
    }

    void ackSettings() throws IOException {
        writer.writeSettingsAck(ctx, ctx.newPromise());
        flush();
    }

    /** Opens a gRPC call on {@code streamId} (HEADERS only: a stream the client keeps open). */
    void openCall(final int streamId, final String method) throws IOException {
        final Http2Headers headers = new DefaultHttp2Headers()
                .method("POST")
                .scheme("http")
                .path(method)
                .authority("localhost")
                .add("content-type", "application/grpc")
                .add("te", "trailers");
        writer.writeHeaders(ctx, streamId, headers, 0, false, ctx.newPromise());
        flush();
    }

    /** Sends one gRPC message of {@code payload} and ends the client's side of the stream. */
    void sendLastMessage(final int streamId, final byte[] payload) throws IOException {
        final ByteBuf message = Unpooled.buffer(5 + payload.length)
                .writeByte(0)
                .writeInt(payload.length)
                .writeBytes(payload);
        writer.writeData(ctx, streamId, message, 0, true, ctx.newPromise());
        flush();
    }

    void reset(final int streamId) throws IOException {
        writer.writeRstStream(ctx, streamId, Http2Error.CANCEL.code(), ctx.newPromise());
        flush();
    }

    /**
     * Reads until a frame matching {@code type} and {@code streamId} arrived or the time is up.
     *
     * @return the frame, or null after {@code timeoutMs}.
     */
    Frame await(final String type, final int streamId, final long timeoutMs) throws Exception {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        final byte[] buffer = new byte[16384];
        while (true) {
            for (final Frame f : frames) {
                if (f.type().equals(type) && (streamId < 0 || f.streamId() == streamId)) {
                    return f;
                }
            }
            if (System.nanoTime() > deadline) {
                return null;
            }
            try {
                final int n = socket.getInputStream().read(buffer);
                if (n < 0) {
                    return null;
                }
                received.writeBytes(buffer, 0, n);
                reader.readFrame(ctx, received, listener);
                received.discardReadBytes();
            } catch (final SocketTimeoutException e) {
                continue;
            }
        }
    }

    /** @return every frame read so far. */
    List<Frame> frames() {
        return frames;
    }

    private void flush() throws IOException {
        ctx.flush();
        ByteBuf out;
        while ((out = channel.readOutbound()) != null) {
            final byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            out.release();
            socket.getOutputStream().write(bytes);
        }
        socket.getOutputStream().flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        channel.finishAndReleaseAll();
        received.release();
    }
}
