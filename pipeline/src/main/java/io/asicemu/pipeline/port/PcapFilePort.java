package io.asicemu.pipeline.port;

import io.asicemu.parser.pcap.CaptureFormatException;
import io.asicemu.parser.pcap.CaptureReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A port for offline replay: it receives the frames of an input capture (pcap with µs or ns timestamps, or pcapng;
 * either byte order; Ethernet link type; read by the parser module's {@link CaptureReader}) at their recorded times,
 * and writes what the switch transmits to an output pcap file with nanosecond timestamps (magic {@code a1b23c4d},
 * little-endian, link type 1). Either side may be absent.
 * <p>
 * The input is read whole into native memory when the port is made, so receiving lends frames of that memory and
 * allocates nothing. Output goes through a preallocated direct buffer written to the file on {@link #flush()} or when
 * full.
 * <p>
 * Not thread safe: used by the data-plane thread (replay steps it on the caller's thread); closed after the run.
 */
public final class PcapFilePort implements Port {
    private static final int LINKTYPE_ETHERNET = 1;
    private static final int MAGIC_NS = 0xa1b23c4d;
    private static final int SNAPLEN = 262_144;
    private static final int OUT_BUFFER_BYTES = 1 << 20;

    private final String name;
    private final Arena arena;
    private final MemorySegment input;
    private final long[] frameOffsets;
    private final int[] frameLengths;
    private final long[] frameTimestampsNs;
    private int next;
    private final FileChannel output;
    private final ByteBuffer outBuffer;
    private final MemorySegment outSegment;
    private final int mtu;
    private final long speedMbps;
    private long framesWritten;

    /**
     * @param name the port's name (for example {@code Ethernet0}).
     * @param inputPcap the pcap whose frames the port receives, or null for none.
     * @param outputPcap the pcap written with transmitted frames (created or truncated), or null for none.
     * @param mtu the interface MTU.
     * @param speedMbps the modeled speed in Mb/s.
     * @throws UncheckedIOException if a file cannot be read or written, or the input is not an Ethernet pcap.
     */
    public PcapFilePort(
            final String name, final Path inputPcap, final Path outputPcap, final int mtu, final long speedMbps) {
        this.name = name;
        this.mtu = mtu;
        this.speedMbps = speedMbps;
        this.arena = Arena.ofShared();
        try {
            if (inputPcap != null) {
                final byte[] bytes = Files.readAllBytes(inputPcap);
                input = arena.allocate(Math.max(1, bytes.length), 64);
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, input, 0, bytes.length);
                final long[][] index = indexFrames(input.asSlice(0, bytes.length), inputPcap);
                frameOffsets = index[0];
                frameLengths = new int[frameOffsets.length];
                for (int i = 0; i < frameLengths.length; i++) {
                    frameLengths[i] = (int) index[1][i];
                }
                frameTimestampsNs = index[2];
            } else {
                input = arena.allocate(1);
                frameOffsets = new long[0];
                frameLengths = new int[0];
                frameTimestampsNs = new long[0];
            }
            if (outputPcap != null) {
                output = FileChannel.open(
                        outputPcap,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                outBuffer = ByteBuffer.allocateDirect(OUT_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
                outBuffer
                        .putInt(MAGIC_NS)
                        .putShort((short) 2)
                        .putShort((short) 4)
                        .putInt(0)
                        .putInt(0)
                        .putInt(SNAPLEN)
                        .putInt(LINKTYPE_ETHERNET);
                outSegment = MemorySegment.ofBuffer(outBuffer.duplicate().clear());
            } else {
                output = null;
                outBuffer = null;
                outSegment = null;
            }
        } catch (final IOException e) {
            arena.close();
            throw new UncheckedIOException("port " + name + ": " + e.getMessage(), e);
        }
    }

    /** Indexes the capture's Ethernet frames with the parser's reader (pcap or pcapng, either byte order). */
    private static long[][] indexFrames(final MemorySegment data, final Path file) throws IOException {
        final java.util.List<long[]> frames = new java.util.ArrayList<>();
        try (CaptureReader reader = CaptureReader.of(data)) {
            while (reader.next()) {
                if (reader.linkType() != CaptureReader.LINKTYPE_ETHERNET) {
                    throw new IOException(file + ": link type " + reader.linkType() + " is not Ethernet (1)");
                }
                frames.add(new long[] {reader.frameOffset(), reader.capturedLength(), reader.timestampNs()});
            }
            if (reader.truncated()) {
                throw new IOException(file + ": the last record is truncated");
            }
        } catch (final CaptureFormatException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
        final long[][] index = new long[3][frames.size()];
        for (int i = 0; i < frames.size(); i++) {
            index[0][i] = frames.get(i)[0];
            index[1][i] = frames.get(i)[1];
            index[2][i] = frames.get(i)[2];
        }
        return index;
    }

    /** @return how many input frames have not been received yet. */
    public int pendingRx() {
        return frameOffsets.length - next;
    }

    /** @return the recorded time of the next input frame, or {@link Long#MAX_VALUE} if none is left. */
    public long nextRxTimestampNs() {
        return next < frameOffsets.length ? frameTimestampsNs[next] : Long.MAX_VALUE;
    }

    /** @return how many frames were written to the output pcap. */
    public long framesWritten() {
        return framesWritten;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int receive(final RxBatch batch, final long nowNs) {
        int lent = 0;
        while (next < frameOffsets.length && batch.remaining() > 0 && frameTimestampsNs[next] - nowNs <= 0) {
            batch.add(input, frameOffsets[next], frameLengths[next], frameTimestampsNs[next], next);
            next++;
            lent++;
        }
        return lent;
    }

    @Override
    public void release(final RxBatch batch) {
        batch.clear();
    }

    @Override
    public boolean transmit(final MemorySegment source, final long offset, final int length, final long timestampNs) {
        if (output == null) {
            return true;
        }
        if (length > SNAPLEN) {
            return false;
        }
        if (outBuffer.remaining() < 16 + length) {
            drain();
        }
        final int pos = outBuffer.position();
        outBuffer.putInt(pos, (int) (timestampNs / 1_000_000_000L));
        outBuffer.putInt(pos + 4, (int) (timestampNs % 1_000_000_000L));
        outBuffer.putInt(pos + 8, length);
        outBuffer.putInt(pos + 12, length);
        MemorySegment.copy(source, offset, outSegment, pos + 16, length);
        outBuffer.position(pos + 16 + length);
        framesWritten++;
        return true;
    }

    @Override
    public void flush() {
        if (output != null && outBuffer.position() > 0) {
            drain();
        }
    }

    private void drain() {
        outBuffer.flip();
        try {
            while (outBuffer.hasRemaining()) {
                output.write(outBuffer);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("port " + name + ": cannot write output pcap: " + e.getMessage(), e);
        }
        outBuffer.clear();
    }

    @Override
    public boolean linkUp() {
        return true;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public long speedMbps() {
        return speedMbps;
    }

    @Override
    public int pollFd() {
        return -1;
    }

    @Override
    public void close() {
        try {
            if (output != null && output.isOpen()) {
                flush();
                output.close();
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (arena.scope().isAlive()) {
                arena.close();
            }
        }
    }
}
