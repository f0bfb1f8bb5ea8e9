package io.asicemu.parser.pcap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a little-endian pcap with nanosecond timestamps (magic 0xA1B23C4D, LINKTYPE_ETHERNET). Packets are copied
 * into one preallocated buffer and written in large chunks, so {@link #write} allocates nothing. Frames longer than the
 * snap length are cut (the original length is kept). Not thread safe.
 */
public final class PcapWriter implements AutoCloseable {
    /** Default snap length. */
    public static final int DEFAULT_SNAP_LENGTH = 65_535;

    private static final int BUFFER_LENGTH = 1 << 20;
    private static final ValueLayout.OfInt LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final FileChannel channel;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment buffer;
    private final ByteBuffer byteBuffer;
    private final int snapLength;
    private int used;
    private long packetCount;

    /** Creates (or truncates) {@code path} and writes the file header (Ethernet, snap length 65535). */
    public PcapWriter(final Path path) throws IOException {
        this(path, DEFAULT_SNAP_LENGTH, CaptureReader.LINKTYPE_ETHERNET);
    }

    /** Creates (or truncates) {@code path} and writes the file header. */
    public PcapWriter(final Path path, final int snapLength, final int linkType) throws IOException {
        if (snapLength <= 0 || snapLength > BUFFER_LENGTH - PcapReader.RECORD_HEADER_LENGTH) {
            throw new IllegalArgumentException("snap length out of range: " + snapLength);
        }
        this.snapLength = snapLength;
        channel = FileChannel.open(
                path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        buffer = arena.allocate(BUFFER_LENGTH);
        byteBuffer = buffer.asByteBuffer();
        buffer.set(LE, 0, PcapReader.MAGIC_NANOS);
        buffer.set(LE16, 4, (short) 2);
        buffer.set(LE16, 6, (short) 4);
        buffer.set(LE, 8, 0);
        buffer.set(LE, 12, 0);
        buffer.set(LE, 16, snapLength);
        buffer.set(LE, 20, linkType);
        used = PcapReader.FILE_HEADER_LENGTH;
    }

    /** Appends one packet of {@code length} bytes at {@code offset} of {@code segment}, stamped {@code timestampNs}. */
    public void write(final MemorySegment segment, final long offset, final int length, final long timestampNs) {
        final int captured = Math.min(length, snapLength);
        if (used + PcapReader.RECORD_HEADER_LENGTH + captured > BUFFER_LENGTH) {
            flush();
        }
        buffer.set(LE, used, (int) (timestampNs / 1_000_000_000L));
        buffer.set(LE, used + 4, (int) (timestampNs % 1_000_000_000L));
        buffer.set(LE, used + 8, captured);
        buffer.set(LE, used + 12, length);
        MemorySegment.copy(segment, offset, buffer, used + PcapReader.RECORD_HEADER_LENGTH, captured);
        used += PcapReader.RECORD_HEADER_LENGTH + captured;
        packetCount++;
    }

    /** Packets written so far. */
    public long packetCount() {
        return packetCount;
    }

    /** Writes buffered packets to the file. */
    public void flush() {
        byteBuffer.clear().limit(used);
        try {
            while (byteBuffer.hasRemaining()) {
                channel.write(byteBuffer);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        used = 0;
    }

    /** Flushes and closes the file. */
    @Override
    public void close() throws IOException {
        try {
            flush();
            channel.close();
        } finally {
            arena.close();
        }
    }
}
