package io.asicemu.parser.pcap;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Iterates the packets of a pcap or pcapng capture held in one segment (a memory-mapped file or caller's memory):
 * {@link #next()} moves to the next packet, then the accessors describe it and its bytes are read in place from
 * {@link #segment()} at {@link #frameOffset()}. No object is made per packet. A truncated last record ends iteration
 * and sets {@link #truncated()}; a damaged file header throws {@link CaptureFormatException}.
 * Not thread safe.
 */
public abstract sealed class CaptureReader implements AutoCloseable permits PcapReader, PcapNgReader {
    /** LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;

    /** The capture bytes. */
    protected final MemorySegment data;

    private final Arena arena;
    /** Absolute offset of the current packet's bytes. */
    protected long frameOffset;
    /** Captured bytes of the current packet. */
    protected int capturedLength;
    /** Original length on the wire of the current packet. */
    protected int originalLength;
    /** Timestamp of the current packet in ns since the epoch. */
    protected long timestampNs;
    /** Link type of the current packet. */
    protected int linkType;
    /** Whether iteration stopped at a truncated record. */
    protected boolean truncated;

    /** A reader over {@code data}; {@code arena} (may be null) is closed with the reader. */
    protected CaptureReader(final MemorySegment data, final Arena arena) {
        this.data = data;
        this.arena = arena;
    }

    /** Opens {@code path} (pcap or pcapng, any byte order) by mapping it read-only. */
    public static CaptureReader open(final Path path) throws IOException {
        final Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            final MemorySegment data = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            return of(data, arena);
        } catch (final IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** A reader over capture bytes already in memory (not closed by the reader). */
    public static CaptureReader of(final MemorySegment data) {
        return of(data, null);
    }

    private static CaptureReader of(final MemorySegment data, final Arena arena) {
        if (data.byteSize() < 4) {
            throw new CaptureFormatException("capture shorter than a magic number: " + data.byteSize() + " bytes");
        }
        final int magic = data.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (magic == PcapNgReader.BLOCK_SECTION_HEADER) {
            return new PcapNgReader(data, arena);
        }
        return new PcapReader(data, arena);
    }

    /** Moves to the next packet; false at the end of the capture. */
    public abstract boolean next();

    /** The segment holding the capture (packet bytes are read in place). */
    public final MemorySegment segment() {
        return data;
    }

    /** Absolute offset of the current packet in {@link #segment()}. */
    public final long frameOffset() {
        return frameOffset;
    }

    /** Captured length of the current packet. */
    public final int capturedLength() {
        return capturedLength;
    }

    /** Original (wire) length of the current packet. */
    public final int originalLength() {
        return originalLength;
    }

    /** Timestamp of the current packet, ns since the epoch. */
    public final long timestampNs() {
        return timestampNs;
    }

    /** Link type of the current packet ({@link #LINKTYPE_ETHERNET} for Ethernet). */
    public final int linkType() {
        return linkType;
    }

    /** Whether iteration ended at a truncated or damaged record rather than at the clean end. */
    public final boolean truncated() {
        return truncated;
    }

    /** Unmaps the file, if this reader mapped one. */
    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
