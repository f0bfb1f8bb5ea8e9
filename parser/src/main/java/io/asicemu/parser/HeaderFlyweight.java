package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * Base of the header views: a reusable window (segment, offset, length) over one header of a frame, rewrapped per
 * packet so that no object is made per packet. Accessors do not check {@code length}; the segment's own bounds
 * checks apply. Use {@link PacketParser} first to learn where headers are and that they fit.
 * Not thread safe: one flyweight per thread.
 */
public abstract class HeaderFlyweight {
    /** The wrapped segment. */
    protected MemorySegment segment = MemorySegment.NULL;
    /** Absolute offset of the header within {@link #segment}. */
    protected long offset;
    /** Bytes available from {@link #offset} (the header and what follows it within the frame). */
    protected int length;

    /** Points this view at {@code length} bytes of {@code segment} starting at {@code offset}. */
    protected final void wrapSegment(final MemorySegment segment, final long offset, final int length) {
        this.segment = segment;
        this.offset = offset;
        this.length = length;
    }

    /** The wrapped segment. */
    public final MemorySegment segment() {
        return segment;
    }

    /** Absolute offset of the header within the segment. */
    public final long offset() {
        return offset;
    }

    /** Bytes available from the header start. */
    public final int length() {
        return length;
    }

    /** Unsigned byte at {@code fieldOffset} from the header start. */
    protected final int u8(final int fieldOffset) {
        return NetworkOrder.u8(segment, offset + fieldOffset);
    }

    /** Writes a byte at {@code fieldOffset}. */
    protected final void u8(final int fieldOffset, final int value) {
        NetworkOrder.u8(segment, offset + fieldOffset, value);
    }

    /** Unsigned 16-bit field at {@code fieldOffset}. */
    protected final int u16(final int fieldOffset) {
        return NetworkOrder.u16(segment, offset + fieldOffset);
    }

    /** Writes a 16-bit field at {@code fieldOffset}. */
    protected final void u16(final int fieldOffset, final int value) {
        NetworkOrder.u16(segment, offset + fieldOffset, value);
    }

    /** 32-bit field at {@code fieldOffset}. */
    protected final int u32(final int fieldOffset) {
        return NetworkOrder.u32(segment, offset + fieldOffset);
    }

    /** Writes a 32-bit field at {@code fieldOffset}. */
    protected final void u32(final int fieldOffset, final int value) {
        NetworkOrder.u32(segment, offset + fieldOffset, value);
    }

    /** Unsigned 24-bit field at {@code fieldOffset}. */
    protected final int u24(final int fieldOffset) {
        return NetworkOrder.u24(segment, offset + fieldOffset);
    }

    /** Writes a 24-bit field at {@code fieldOffset}. */
    protected final void u24(final int fieldOffset, final int value) {
        NetworkOrder.u24(segment, offset + fieldOffset, value);
    }

    /** 48-bit field at {@code fieldOffset}. */
    protected final long u48(final int fieldOffset) {
        return NetworkOrder.u48(segment, offset + fieldOffset);
    }

    /** Writes a 48-bit field at {@code fieldOffset}. */
    protected final void u48(final int fieldOffset, final long value) {
        NetworkOrder.u48(segment, offset + fieldOffset, value);
    }

    /** 64-bit field at {@code fieldOffset}. */
    protected final long u64(final int fieldOffset) {
        return NetworkOrder.u64(segment, offset + fieldOffset);
    }

    /** Writes a 64-bit field at {@code fieldOffset}. */
    protected final void u64(final int fieldOffset, final long value) {
        NetworkOrder.u64(segment, offset + fieldOffset, value);
    }
}
