package io.asicemu.parser;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian (network order) unaligned accessors over a {@link MemorySegment}, the frame representation of the whole
 * data path. Stateless; safe from any thread. Offsets are absolute within the segment.
 */
public final class NetworkOrder {
    /** Unaligned big-endian 16-bit layout. */
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian 32-bit layout. */
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian 64-bit layout. */
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned little-endian 32-bit layout (the ICRC is stored little-endian). */
    public static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private NetworkOrder() {}

    /** Unsigned byte at {@code offset}. */
    public static int u8(final MemorySegment segment, final long offset) {
        return segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
    }

    /** Writes the low 8 bits of {@code value}. */
    public static void u8(final MemorySegment segment, final long offset, final int value) {
        segment.set(ValueLayout.JAVA_BYTE, offset, (byte) value);
    }

    /** Unsigned big-endian 16-bit value at {@code offset}. */
    public static int u16(final MemorySegment segment, final long offset) {
        return segment.get(U16, offset) & 0xFFFF;
    }

    /** Writes the low 16 bits of {@code value} big-endian. */
    public static void u16(final MemorySegment segment, final long offset, final int value) {
        segment.set(U16, offset, (short) value);
    }

    /** Big-endian 32-bit value at {@code offset} (as a signed int; mask with 0xFFFFFFFFL for unsigned). */
    public static int u32(final MemorySegment segment, final long offset) {
        return segment.get(U32, offset);
    }

    /** Writes {@code value} big-endian. */
    public static void u32(final MemorySegment segment, final long offset, final int value) {
        segment.set(U32, offset, value);
    }

    /** Unsigned big-endian 24-bit value at {@code offset}. */
    public static int u24(final MemorySegment segment, final long offset) {
        return (u8(segment, offset) << 16) | u16(segment, offset + 1);
    }

    /** Writes the low 24 bits of {@code value} big-endian. */
    public static void u24(final MemorySegment segment, final long offset, final int value) {
        u8(segment, offset, value >>> 16);
        u16(segment, offset + 1, value);
    }

    /** Big-endian 48-bit value (a MAC address) at {@code offset}, in the low 48 bits of the result. */
    public static long u48(final MemorySegment segment, final long offset) {
        return ((long) u16(segment, offset) << 32) | (u32(segment, offset + 2) & 0xFFFF_FFFFL);
    }

    /** Writes the low 48 bits of {@code value} big-endian (a MAC address). */
    public static void u48(final MemorySegment segment, final long offset, final long value) {
        u16(segment, offset, (int) (value >>> 32));
        u32(segment, offset + 2, (int) value);
    }

    /** Big-endian 64-bit value at {@code offset}. */
    public static long u64(final MemorySegment segment, final long offset) {
        return segment.get(U64, offset);
    }

    /** Writes {@code value} big-endian. */
    public static void u64(final MemorySegment segment, final long offset, final long value) {
        segment.set(U64, offset, value);
    }
}
