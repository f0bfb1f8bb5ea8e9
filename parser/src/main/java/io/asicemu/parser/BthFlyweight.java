package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of the 12-byte InfiniBand Base Transport Header carried by RoCEv2 (UDP port 4791). Layout per
 * reference/sonic-asic-behaviour.md §4.4: opcode; SE/MigReq/PadCnt/TVer; P_Key; FECN/BECN/resv6; destination QP (24);
 * AckReq/resv7; PSN (24). Not thread safe.
 */
final class BthFlyweight extends HeaderFlyweight {
    /** Offset of the opcode. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the SE/MigReq/PadCnt/TVer byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the partition key. */
    public static final int PKEY_OFFSET = 2;
    /** Offset of the FECN/BECN/reserved byte (masked by the ICRC). */
    public static final int FECN_BECN_OFFSET = 4;
    /** Offset of the 24-bit destination QP. */
    public static final int DEST_QP_OFFSET = 5;
    /** Offset of the AckReq/reserved byte. */
    public static final int ACK_REQ_OFFSET = 8;
    /** Offset of the 24-bit PSN. */
    public static final int PSN_OFFSET = 9;
    /** Length of the BTH. */
    public static final int HEADER_LENGTH = 12;
    /** Length of the ICRC trailer. */
    public static final int ICRC_LENGTH = 4;
    /** Length of the CNP's reserved body after the BTH. */
    public static final int CNP_BODY_LENGTH = 16;
    /** FECN bit within the byte at {@link #FECN_BECN_OFFSET}. */
    public static final int FECN_BIT = 0x80;
    /** BECN bit within the byte at {@link #FECN_BECN_OFFSET}. */
    public static final int BECN_BIT = 0x40;

    /** Points this view at a BTH. */
    public BthFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Opcode (transport group in the top 3 bits). */
    public int opcode() {
        return u8(OPCODE_OFFSET);
    }

    /** Sets the opcode. */
    public BthFlyweight opcode(final int opcode) {
        u8(OPCODE_OFFSET, opcode);
        return this;
    }

    /** The flags byte (SE 0x80, MigReq 0x40, PadCnt 0x30, TVer 0x0F). */
    public int flags() {
        return u8(FLAGS_OFFSET);
    }

    /** Sets the flags byte. */
    public BthFlyweight flags(final int flags) {
        u8(FLAGS_OFFSET, flags);
        return this;
    }

    /** Solicited event bit. */
    public boolean solicitedEvent() {
        return (flags() & 0x80) != 0;
    }

    /** Migration request bit. */
    public boolean migReq() {
        return (flags() & 0x40) != 0;
    }

    /** Pad count (0..3). */
    public int padCount() {
        return (flags() >>> 4) & 0x3;
    }

    /** Transport header version. */
    public int transportVersion() {
        return flags() & 0xF;
    }

    /** Partition key. */
    public int pkey() {
        return u16(PKEY_OFFSET);
    }

    /** Sets the partition key. */
    public BthFlyweight pkey(final int pkey) {
        u16(PKEY_OFFSET, pkey);
        return this;
    }

    /** The FECN/BECN/reserved byte. */
    public int fecnBecnByte() {
        return u8(FECN_BECN_OFFSET);
    }

    /** Sets the FECN/BECN/reserved byte. */
    public BthFlyweight fecnBecnByte(final int value) {
        u8(FECN_BECN_OFFSET, value);
        return this;
    }

    /** Forward explicit congestion notification. */
    public boolean fecn() {
        return (fecnBecnByte() & FECN_BIT) != 0;
    }

    /** Backward explicit congestion notification (set in a CNP). */
    public boolean becn() {
        return (fecnBecnByte() & BECN_BIT) != 0;
    }

    /** Destination queue pair (24 bits). */
    public int destQp() {
        return u24(DEST_QP_OFFSET);
    }

    /** Sets the destination QP. */
    public BthFlyweight destQp(final int qp) {
        u24(DEST_QP_OFFSET, qp);
        return this;
    }

    /** Acknowledge-request bit. */
    public boolean ackReq() {
        return (u8(ACK_REQ_OFFSET) & 0x80) != 0;
    }

    /** Sets or clears the acknowledge-request bit (reserved bits cleared). */
    public BthFlyweight ackReq(final boolean ackReq) {
        u8(ACK_REQ_OFFSET, ackReq ? 0x80 : 0);
        return this;
    }

    /** Packet sequence number (24 bits). */
    public int psn() {
        return u24(PSN_OFFSET);
    }

    /** Sets the PSN. */
    public BthFlyweight psn(final int psn) {
        u24(PSN_OFFSET, psn);
        return this;
    }
}
