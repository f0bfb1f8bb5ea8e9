package io.asicemu.parser.pcap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Classic pcap reader: both byte orders, microsecond (0xA1B2C3D4) and nanosecond (0xA1B23C4D) timestamps. */
final class PcapReader extends CaptureReader {
    /** Magic of a microsecond pcap. */
    public static final int MAGIC_MICROS = 0xA1B2C3D4;
    /** Magic of a nanosecond pcap. */
    public static final int MAGIC_NANOS = 0xA1B23C4D;
    /** Length of the file header. */
    public static final int FILE_HEADER_LENGTH = 24;
    /** Length of a record header. */
    public static final int RECORD_HEADER_LENGTH = 16;

    private final ValueLayout.OfInt intLayout;
    private final boolean nanos;
    private final int fileLinkType;
    private long position = FILE_HEADER_LENGTH;

    PcapReader(final MemorySegment data, final Arena arena) {
        super(data, arena);
        if (data.byteSize() < FILE_HEADER_LENGTH) {
            throw new CaptureFormatException("pcap shorter than its file header");
        }
        final ValueLayout.OfInt le = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        final int magic = data.get(le, 0);
        if (magic == MAGIC_MICROS || magic == MAGIC_NANOS) {
            intLayout = le;
        } else if (Integer.reverseBytes(magic) == MAGIC_MICROS || Integer.reverseBytes(magic) == MAGIC_NANOS) {
            intLayout = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        } else {
            throw new CaptureFormatException("not a pcap or pcapng file: magic 0x" + Integer.toHexString(magic));
        }
        nanos = data.get(intLayout, 0) == MAGIC_NANOS;
        // The upper bits of the link-type field may carry FCS information; the link type is the low 16 bits.
        fileLinkType = data.get(intLayout, 20) & 0xFFFF;
    }

    /** Whether timestamps are in nanoseconds. */
    public boolean nanosecondTimestamps() {
        return nanos;
    }

    @Override
    public boolean next() {
        final long size = data.byteSize();
        if (position == size) {
            return false;
        }
        if (position + RECORD_HEADER_LENGTH > size) {
            truncated = true;
            return false;
        }
        final long seconds = data.get(intLayout, position) & 0xFFFF_FFFFL;
        final long fraction = data.get(intLayout, position + 4) & 0xFFFF_FFFFL;
        final int captured = data.get(intLayout, position + 8);
        final int original = data.get(intLayout, position + 12);
        if (captured < 0 || position + RECORD_HEADER_LENGTH + captured > size) {
            truncated = true;
            return false;
        }
        frameOffset = position + RECORD_HEADER_LENGTH;
        capturedLength = captured;
        originalLength = original;
        timestampNs = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1_000L);
        linkType = fileLinkType;
        position = frameOffset + captured;
        return true;
    }
}
