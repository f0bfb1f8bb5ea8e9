package io.asicemu.parser.pcap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * pcapng reader: section header blocks in either byte order (several sections allowed), interface description blocks
 * with {@code if_tsresol} (powers of 10 or 2), enhanced, simple and obsolete packet blocks; other blocks are skipped.
 */
final class PcapNgReader extends CaptureReader {
    /** Block type of a section header (also the file magic). */
    public static final int BLOCK_SECTION_HEADER = 0x0A0D0D0A;
    /** Block type of an interface description. */
    public static final int BLOCK_INTERFACE = 1;
    /** Block type of the obsolete packet block. */
    public static final int BLOCK_OBSOLETE_PACKET = 2;
    /** Block type of a simple packet block. */
    public static final int BLOCK_SIMPLE_PACKET = 3;
    /** Block type of an enhanced packet block. */
    public static final int BLOCK_ENHANCED_PACKET = 6;
    /** Byte-order magic in a section header. */
    public static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;

    private static final int OPTION_END = 0;
    private static final int OPTION_IF_TSRESOL = 9;
    private static final ValueLayout.OfInt LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private ValueLayout.OfInt intLayout = LE;
    private ValueLayout.OfShort shortLayout = LE16;
    private long position;
    private int interfaceCount;
    private int[] interfaceLinkTypes = new int[8];
    private int[] interfaceTsResolutions = new int[8];
    private int interfaceId;

    PcapNgReader(final MemorySegment data, final Arena arena) {
        super(data, arena);
        if (data.byteSize() < 28 || !sectionOrder(0)) {
            throw new CaptureFormatException("not a pcapng file: bad section header");
        }
    }

    /** Interface id of the current packet. */
    public int interfaceId() {
        return interfaceId;
    }

    @Override
    public boolean next() {
        final long size = data.byteSize();
        while (position < size) {
            if (position + 12 > size) {
                truncated = true;
                return false;
            }
            final int rawType = data.get(LE, position);
            if (rawType == BLOCK_SECTION_HEADER && !sectionOrder(position)) {
                truncated = true;
                return false;
            }
            final int type = data.get(intLayout, position);
            final long blockLength = data.get(intLayout, position + 4) & 0xFFFF_FFFFL;
            if (blockLength < 12 || (blockLength & 3) != 0 || position + blockLength > size) {
                truncated = true;
                return false;
            }
            final long block = position;
            position += blockLength;
            if (type == BLOCK_SECTION_HEADER) {
                interfaceCount = 0;
            } else if (type == BLOCK_INTERFACE) {
                addInterface(block, blockLength);
            } else if (type == BLOCK_ENHANCED_PACKET || type == BLOCK_OBSOLETE_PACKET) {
                if (readPacketBlock(block, blockLength, type)) {
                    return true;
                }
                truncated = true;
                return false;
            } else if (type == BLOCK_SIMPLE_PACKET) {
                if (readSimplePacket(block, blockLength)) {
                    return true;
                }
                truncated = true;
                return false;
            }
        }
        return false;
    }

    private boolean sectionOrder(final long block) {
        final int magic = data.get(LE, block + 8);
        if (magic == BYTE_ORDER_MAGIC) {
            intLayout = LE;
            shortLayout = LE16;
            return true;
        }
        if (magic == Integer.reverseBytes(BYTE_ORDER_MAGIC)) {
            intLayout = BE;
            shortLayout = BE16;
            return true;
        }
        return false;
    }

    private void addInterface(final long block, final long blockLength) {
        if (interfaceCount == interfaceLinkTypes.length) {
            interfaceLinkTypes = Arrays.copyOf(interfaceLinkTypes, interfaceCount * 2);
            interfaceTsResolutions = Arrays.copyOf(interfaceTsResolutions, interfaceCount * 2);
        }
        interfaceLinkTypes[interfaceCount] = data.get(shortLayout, block + 8) & 0xFFFF;
        int tsResolution = 6;
        long option = block + 16;
        final long end = block + blockLength - 4;
        while (option + 4 <= end) {
            final int code = data.get(shortLayout, option) & 0xFFFF;
            final int length = data.get(shortLayout, option + 2) & 0xFFFF;
            if (code == OPTION_END || option + 4 + length > end) {
                break;
            }
            if (code == OPTION_IF_TSRESOL && length >= 1) {
                tsResolution = data.get(ValueLayout.JAVA_BYTE, option + 4) & 0xFF;
            }
            option += 4 + ((length + 3) & ~3);
        }
        interfaceTsResolutions[interfaceCount] = tsResolution;
        interfaceCount++;
    }

    private boolean readPacketBlock(final long block, final long blockLength, final int type) {
        final int iface;
        if (type == BLOCK_ENHANCED_PACKET) {
            iface = data.get(intLayout, block + 8);
        } else {
            iface = data.get(shortLayout, block + 8) & 0xFFFF;
        }
        if (blockLength < 32 || iface < 0 || iface >= interfaceCount) {
            return false;
        }
        final long units = ((data.get(intLayout, block + 12) & 0xFFFF_FFFFL) << 32)
                | (data.get(intLayout, block + 16) & 0xFFFF_FFFFL);
        final int captured = data.get(intLayout, block + 20);
        if (captured < 0 || 28 + (long) captured + 4 > blockLength) {
            return false;
        }
        interfaceId = iface;
        frameOffset = block + 28;
        capturedLength = captured;
        originalLength = data.get(intLayout, block + 24);
        linkType = interfaceLinkTypes[iface];
        timestampNs = toNanos(units, interfaceTsResolutions[iface]);
        return true;
    }

    private boolean readSimplePacket(final long block, final long blockLength) {
        if (interfaceCount == 0 || blockLength < 16) {
            return false;
        }
        final int original = data.get(intLayout, block + 8);
        interfaceId = 0;
        frameOffset = block + 12;
        capturedLength = (int) Math.min(original & 0xFFFF_FFFFL, blockLength - 16);
        originalLength = original;
        linkType = interfaceLinkTypes[0];
        timestampNs = 0;
        return true;
    }

    /** Converts a timestamp in if_tsresol units (bit 7 clear: 10^-n s, set: 2^-n s) to nanoseconds. */
    static long toNanos(final long units, final int tsResolution) {
        final int exponent = tsResolution & 0x7F;
        if ((tsResolution & 0x80) == 0) {
            if (exponent <= 9) {
                long scale = 1;
                for (int i = exponent; i < 9; i++) {
                    scale *= 10;
                }
                return units * scale;
            }
            long divisor = 1;
            for (int i = 9; i < exponent && i < 28; i++) {
                divisor *= 10;
            }
            return Long.divideUnsigned(units, divisor);
        }
        if (exponent == 0) {
            return units * 1_000_000_000L;
        }
        final long seconds = exponent >= 64 ? 0 : units >>> exponent;
        final long fraction = exponent >= 64 ? units : units & ((1L << exponent) - 1);
        final long fractionNs = exponent <= 33
                ? (fraction * 1_000_000_000L) >>> exponent
                : ((fraction >>> (exponent - 30)) * 1_000_000_000L) >>> 30;
        return seconds * 1_000_000_000L + fractionNs;
    }
}
