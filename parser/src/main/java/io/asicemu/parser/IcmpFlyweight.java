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
    /** Length of an echo request/reply header (type, code, checksum, identifier, sequence). */
    public static final int ECHO_HEADER_LENGTH = 8;
    /** ICMP echo reply. */
    public static final int TYPE_ECHO_REPLY = 0;
    /** ICMP echo request. */
    public static final int TYPE_ECHO_REQUEST = 8;
    /** ICMPv6 echo request. */
    public static final int TYPE_V6_ECHO_REQUEST = 128;
    /** ICMPv6 echo reply. */
    public static final int TYPE_V6_ECHO_REPLY = 129;
    /** ICMPv6 router solicitation (RFC 4861 §4.1), the first neighbor discovery type. */
    public static final int TYPE_V6_ROUTER_SOLICITATION = 133;
    /** ICMPv6 neighbor solicitation (RFC 4861 §4.3). */
    public static final int TYPE_V6_NEIGHBOR_SOLICITATION = 135;
    /** ICMPv6 neighbor advertisement (RFC 4861 §4.4). */
    public static final int TYPE_V6_NEIGHBOR_ADVERTISEMENT = 136;
    /** ICMPv6 redirect (RFC 4861 §4.5), the last neighbor discovery type. */
    public static final int TYPE_V6_REDIRECT = 137;
    /** Offset of a neighbor advertisement's R, S, O flags (the top bits of the rest-of-header word). */
    public static final int ND_FLAGS_OFFSET = 4;
    /** Neighbor advertisement flags Router, Solicited and Override. */
    public static final int ND_FLAGS_ROUTER_SOLICITED_OVERRIDE = 0xE000_0000;
    /** Offset of the 16-byte target address of a neighbor solicitation or advertisement. */
    public static final int ND_TARGET_OFFSET = 8;
    /** Offset of the first option of a neighbor solicitation or advertisement. */
    public static final int ND_OPTION_TYPE_OFFSET = 24;
    /** Offset of the first option's length (in units of 8 bytes). */
    public static final int ND_OPTION_LENGTH_OFFSET = 25;
    /** Offset of the link-layer address in a source/target link-layer address option in first place. */
    public static final int ND_OPTION_ADDRESS_OFFSET = 26;
    /** Option type: source link-layer address. */
    public static final int ND_OPTION_SOURCE_LL = 1;
    /** Option type: target link-layer address. */
    public static final int ND_OPTION_TARGET_LL = 2;
    /** Length of a solicitation or advertisement with one Ethernet link-layer address option. */
    public static final int ND_LENGTH_WITH_LL_OPTION = 32;

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

    /** Sets the type, keeping the code, with incremental checksum update (RFC 1624). */
    public IcmpFlyweight typeRewrite(final int type) {
        final int oldWord = u16(TYPE_OFFSET);
        u8(TYPE_OFFSET, type);
        checksum(InternetChecksum.update(checksum(), oldWord, u16(TYPE_OFFSET)));
        return this;
    }

    /** Echo identifier. */
    public int identifier() {
        return u16(IDENTIFIER_OFFSET);
    }

    /** Sets the echo identifier. */
    public IcmpFlyweight identifier(final int identifier) {
        u16(IDENTIFIER_OFFSET, identifier);
        return this;
    }

    /** Echo sequence number. */
    public int sequence() {
        return u16(SEQUENCE_OFFSET);
    }

    /** Sets the echo sequence number. */
    public IcmpFlyweight sequence(final int sequence) {
        u16(SEQUENCE_OFFSET, sequence);
        return this;
    }
}
