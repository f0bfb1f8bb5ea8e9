package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** View of the common ICMP / ICMPv6 header (type, code, checksum, then the rest-of-header word). Not thread safe. */
public final class IcmpFlyweight extends HeaderFlyweight {
    /** Offset of the type. */
    public static final int TYPE_OFFSET = 0;
    /** Offset of the code. */
    public static final int CODE_OFFSET = 1;
    /** Offset of the checksum. */
    public static final int CHECKSUM_OFFSET = 2;
    /** Offset of the echo identifier (echo request/reply). */
    public static final int IDENTIFIER_OFFSET = 4;
    /** Offset of the echo sequence number (echo request/reply). */
    public static final int SEQUENCE_OFFSET = 6;
    /** Bytes the parser requires (type, code, checksum). */
    public static final int HEADER_LENGTH = 4;

    /** Points this view at an ICMP header. */
    public IcmpFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Type. */
    public int type() {
        return u8(TYPE_OFFSET);
    }

    /** Sets the type. */
    public IcmpFlyweight type(final int type) {
        u8(TYPE_OFFSET, type);
        return this;
    }

    /** Code. */
    public int code() {
        return u8(CODE_OFFSET);
    }

    /** Sets the code. */
    public IcmpFlyweight code(final int code) {
        u8(CODE_OFFSET, code);
        return this;
    }

    /** Checksum as stored. */
    public int checksum() {
        return u16(CHECKSUM_OFFSET);
    }

    /** Stores a checksum. */
    public IcmpFlyweight checksum(final int checksum) {
        u16(CHECKSUM_OFFSET, checksum);
        return this;
    }

    /** Echo identifier. */
    public int identifier() {
        return u16(IDENTIFIER_OFFSET);
    }

    /** Echo sequence number. */
    public int sequence() {
        return u16(SEQUENCE_OFFSET);
    }
}
