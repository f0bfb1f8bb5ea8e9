package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of an IPv4 header (with options). Plain setters write the field only; the {@code ...Rewrite} methods also
 * keep the header checksum valid by RFC 1624 incremental update, which is what the data path uses. Not thread safe.
 */
public final class Ipv4Flyweight extends HeaderFlyweight {
    /** Offset of version (high nibble) and IHL (low nibble). */
    public static final int VERSION_IHL_OFFSET = 0;
    /** Offset of the TOS / DS field (DSCP:6, ECN:2). */
    public static final int TOS_OFFSET = 1;
    /** Offset of the total length. */
    public static final int TOTAL_LENGTH_OFFSET = 2;
    /** Offset of the identification. */
    public static final int IDENTIFICATION_OFFSET = 4;
    /** Offset of flags (3 bits) and fragment offset (13 bits). */
    public static final int FLAGS_FRAGMENT_OFFSET = 6;
    /** Offset of the TTL. */
    public static final int TTL_OFFSET = 8;
    /** Offset of the protocol. */
    public static final int PROTOCOL_OFFSET = 9;
    /** Offset of the header checksum. */
    public static final int CHECKSUM_OFFSET = 10;
    /** Offset of the source address. */
    public static final int SRC_ADDRESS_OFFSET = 12;
    /** Offset of the destination address. */
    public static final int DST_ADDRESS_OFFSET = 16;
    /** Length of a header without options. */
    public static final int MIN_HEADER_LENGTH = 20;
    /** ECN codepoint Not-ECT. */
    public static final int ECN_NOT_ECT = 0;
    /** ECN codepoint ECT(1). */
    public static final int ECN_ECT1 = 1;
    /** ECN codepoint ECT(0). */
    public static final int ECN_ECT0 = 2;
    /** ECN codepoint CE. */
    public static final int ECN_CE = 3;

    /** Points this view at an IPv4 header. */
    public Ipv4Flyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** IP version (4 for a well-formed header). */
    public int version() {
        return u8(VERSION_IHL_OFFSET) >>> 4;
    }

    /** Internet header length in 32-bit words. */
    public int ihl() {
        return u8(VERSION_IHL_OFFSET) & 0xF;
    }

    /** Sets version 4 and the IHL (in 32-bit words). */
    public Ipv4Flyweight versionAndIhl(final int ihlWords) {
        u8(VERSION_IHL_OFFSET, 0x40 | (ihlWords & 0xF));
        return this;
    }

    /** Header length in bytes (IHL * 4). */
    public int headerLength() {
        return ihl() << 2;
    }

    /** The whole TOS / DS byte. */
    public int tos() {
        return u8(TOS_OFFSET);
    }

    /** Sets the TOS byte (checksum not updated). */
    public Ipv4Flyweight tos(final int tos) {
        u8(TOS_OFFSET, tos);
        return this;
    }

    /** DSCP (upper 6 bits of TOS). */
    public int dscp() {
        return tos() >>> 2;
    }

    /** ECN (lower 2 bits of TOS). */
    public int ecn() {
        return tos() & 0x3;
    }

    /** Total length of the datagram in bytes. */
    public int totalLength() {
        return u16(TOTAL_LENGTH_OFFSET);
    }

    /** Sets the total length (checksum not updated). */
    public Ipv4Flyweight totalLength(final int totalLength) {
        u16(TOTAL_LENGTH_OFFSET, totalLength);
        return this;
    }

    /** Identification. */
    public int identification() {
        return u16(IDENTIFICATION_OFFSET);
    }

    /** Sets the identification (checksum not updated). */
    public Ipv4Flyweight identification(final int identification) {
        u16(IDENTIFICATION_OFFSET, identification);
        return this;
    }

    /** Flags and fragment offset word. */
    public int flagsAndFragmentOffset() {
        return u16(FLAGS_FRAGMENT_OFFSET);
    }

    /** Sets the flags and fragment offset word (checksum not updated). */
    public Ipv4Flyweight flagsAndFragmentOffset(final int value) {
        u16(FLAGS_FRAGMENT_OFFSET, value);
        return this;
    }

    /** Whether the don't-fragment bit is set. */
    public boolean dontFragment() {
        return (flagsAndFragmentOffset() & 0x4000) != 0;
    }

    /** Whether the more-fragments bit is set. */
    public boolean moreFragments() {
        return (flagsAndFragmentOffset() & 0x2000) != 0;
    }

    /** Fragment offset in 8-byte units. */
    public int fragmentOffset() {
        return flagsAndFragmentOffset() & 0x1FFF;
    }

    /** Time to live. */
    public int ttl() {
        return u8(TTL_OFFSET);
    }

    /** Sets the TTL (checksum not updated). */
    public Ipv4Flyweight ttl(final int ttl) {
        u8(TTL_OFFSET, ttl);
        return this;
    }

    /** Protocol number of the payload. */
    public int protocol() {
        return u8(PROTOCOL_OFFSET);
    }

    /** Sets the protocol (checksum not updated). */
    public Ipv4Flyweight protocol(final int protocol) {
        u8(PROTOCOL_OFFSET, protocol);
        return this;
    }

    /** Header checksum as stored. */
    public int checksum() {
        return u16(CHECKSUM_OFFSET);
    }

    /** Stores a header checksum. */
    public Ipv4Flyweight checksum(final int checksum) {
        u16(CHECKSUM_OFFSET, checksum);
        return this;
    }

    /** Source address. */
    public int srcAddress() {
        return u32(SRC_ADDRESS_OFFSET);
    }

    /** Sets the source address (checksum not updated). */
    public Ipv4Flyweight srcAddress(final int address) {
        u32(SRC_ADDRESS_OFFSET, address);
        return this;
    }

    /** Destination address. */
    public int dstAddress() {
        return u32(DST_ADDRESS_OFFSET);
    }

    /** Sets the destination address (checksum not updated). */
    public Ipv4Flyweight dstAddress(final int address) {
        u32(DST_ADDRESS_OFFSET, address);
        return this;
    }

    /** Computes the header checksum over {@link #headerLength()} bytes as if the checksum field were zero. */
    public int computeChecksum() {
        final int headerLength = headerLength();
        final int sum = InternetChecksum.sum(segment, offset, headerLength);
        // Remove the stored checksum from the sum instead of copying the header.
        final long withoutStored = (long) sum + (~checksum() & 0xFFFF);
        return ~InternetChecksum.fold(withoutStored) & 0xFFFF;
    }

    /** Recomputes and stores the header checksum. */
    public Ipv4Flyweight updateChecksum() {
        return checksum(computeChecksum());
    }

    /** Whether the stored checksum is valid (the one's-complement sum over the header is 0xFFFF). */
    public boolean checksumValid() {
        return InternetChecksum.sum(segment, offset, headerLength()) == 0xFFFF;
    }

    /** Sets the TOS byte and updates the checksum incrementally (RFC 1624). */
    public Ipv4Flyweight tosRewrite(final int tos) {
        final int oldWord = u16(VERSION_IHL_OFFSET);
        u8(TOS_OFFSET, tos);
        checksum(InternetChecksum.update(checksum(), oldWord, u16(VERSION_IHL_OFFSET)));
        return this;
    }

    /** Sets the DSCP, keeping the ECN bits, with incremental checksum update. */
    public Ipv4Flyweight dscpRewrite(final int dscp) {
        return tosRewrite(((dscp & 0x3F) << 2) | ecn());
    }

    /** Sets the ECN bits, keeping the DSCP, with incremental checksum update. */
    public Ipv4Flyweight ecnRewrite(final int ecn) {
        return tosRewrite((tos() & 0xFC) | (ecn & 0x3));
    }

    /** Sets the TTL with incremental checksum update. */
    public Ipv4Flyweight ttlRewrite(final int ttl) {
        final int oldWord = u16(TTL_OFFSET);
        u8(TTL_OFFSET, ttl);
        checksum(InternetChecksum.update(checksum(), oldWord, u16(TTL_OFFSET)));
        return this;
    }
}
