package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** View of a TCP header. Not thread safe. */
public final class TcpFlyweight extends HeaderFlyweight {
    /** Offset of the source port. */
    public static final int SRC_PORT_OFFSET = 0;
    /** Offset of the destination port. */
    public static final int DST_PORT_OFFSET = 2;
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 4;
    /** Offset of the acknowledgement number. */
    public static final int ACK_OFFSET = 8;
    /** Offset of the data offset nibble. */
    public static final int DATA_OFFSET_OFFSET = 12;
    /** Offset of the flags byte (CWR ECE URG ACK PSH RST SYN FIN). */
    public static final int FLAGS_OFFSET = 13;
    /** Offset of the window. */
    public static final int WINDOW_OFFSET = 14;
    /** Offset of the checksum. */
    public static final int CHECKSUM_OFFSET = 16;
    /** Length of a header without options. */
    public static final int MIN_HEADER_LENGTH = 20;
    /** Flag FIN. */
    public static final int FLAG_FIN = 0x01;
    /** Flag PSH. */
    public static final int FLAG_PSH = 0x08;
    /** Flag CWR. */
    public static final int FLAG_CWR = 0x80;

    /** Points this view at a TCP header. */
    public TcpFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Source port. */
    public int srcPort() {
        return u16(SRC_PORT_OFFSET);
    }

    /** Sets the source port. */
    public TcpFlyweight srcPort(final int port) {
        u16(SRC_PORT_OFFSET, port);
        return this;
    }

    /** Destination port. */
    public int dstPort() {
        return u16(DST_PORT_OFFSET);
    }

    /** Sets the destination port. */
    public TcpFlyweight dstPort(final int port) {
        u16(DST_PORT_OFFSET, port);
        return this;
    }

    /** Sequence number. */
    public int sequence() {
        return u32(SEQUENCE_OFFSET);
    }

    /** Sets the sequence number (checksum not updated). */
    public TcpFlyweight sequence(final int sequence) {
        u32(SEQUENCE_OFFSET, sequence);
        return this;
    }

    /** Acknowledgement number. */
    public int ack() {
        return u32(ACK_OFFSET);
    }

    /** Header length in bytes (data offset * 4). */
    public int headerLength() {
        return (u8(DATA_OFFSET_OFFSET) >>> 4) << 2;
    }

    /** Flags byte. */
    public int flags() {
        return u8(FLAGS_OFFSET);
    }

    /** Sets the flags byte (checksum not updated). */
    public TcpFlyweight flags(final int flags) {
        u8(FLAGS_OFFSET, flags);
        return this;
    }

    /** Window. */
    public int window() {
        return u16(WINDOW_OFFSET);
    }

    /** Checksum as stored. */
    public int checksum() {
        return u16(CHECKSUM_OFFSET);
    }
}
