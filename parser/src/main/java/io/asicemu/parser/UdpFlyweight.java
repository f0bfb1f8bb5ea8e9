package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** View of a UDP header. Not thread safe. */
public final class UdpFlyweight extends HeaderFlyweight {
    /** Offset of the source port. */
    public static final int SRC_PORT_OFFSET = 0;
    /** Offset of the destination port. */
    public static final int DST_PORT_OFFSET = 2;
    /** Offset of the length (header plus payload). */
    public static final int LENGTH_OFFSET = 4;
    /** Offset of the checksum (0: none, IPv4 only). */
    public static final int CHECKSUM_OFFSET = 6;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 8;

    /** Points this view at a UDP header. */
    public UdpFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Source port. */
    public int srcPort() {
        return u16(SRC_PORT_OFFSET);
    }

    /** Sets the source port. */
    public UdpFlyweight srcPort(final int port) {
        u16(SRC_PORT_OFFSET, port);
        return this;
    }

    /** Destination port. */
    public int dstPort() {
        return u16(DST_PORT_OFFSET);
    }

    /** Sets the destination port. */
    public UdpFlyweight dstPort(final int port) {
        u16(DST_PORT_OFFSET, port);
        return this;
    }

    /** Length of header plus payload. */
    public int udpLength() {
        return u16(LENGTH_OFFSET);
    }

    /** Sets the UDP length. */
    public UdpFlyweight udpLength(final int udpLength) {
        u16(LENGTH_OFFSET, udpLength);
        return this;
    }

    /** Checksum as stored. */
    public int checksum() {
        return u16(CHECKSUM_OFFSET);
    }

    /** Stores a checksum. */
    public UdpFlyweight checksum(final int checksum) {
        u16(CHECKSUM_OFFSET, checksum);
        return this;
    }
}
