package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of an LLDPDU: a chain of TLVs (7-bit type, 9-bit length, value) ending with End of LLDPDU. Walk it with
 * {@link #firstTlv()} / {@link #nextTlv(int)}, which return TLV offsets from the LLDPDU start or -1 at the
 * end, so no object is made. The parser has already checked that the chain fits and ends. Not thread safe.
 */
final class LldpFlyweight extends HeaderFlyweight {
    /** Destination MAC for nearest-bridge LLDP, 01:80:C2:00:00:0E. */
    public static final long DST_MAC = 0x0180C200000EL;
    /** Length of a TLV header. */
    public static final int TLV_HEADER_LENGTH = 2;
    /** TLV type End of LLDPDU. */
    public static final int TLV_END = 0;
    /** TLV type Chassis ID. */
    public static final int TLV_CHASSIS_ID = 1;
    /** TLV type Port ID. */
    public static final int TLV_PORT_ID = 2;
    /** TLV type Time To Live. */
    public static final int TLV_TTL = 3;
    /** TLV type Port Description. */
    public static final int TLV_PORT_DESCRIPTION = 4;
    /** TLV type System Name. */
    public static final int TLV_SYSTEM_NAME = 5;

    /** Points this view at an LLDPDU of {@code length} bytes. */
    public LldpFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Offset (from the LLDPDU start) of the first TLV, or -1 if there is none. */
    public int firstTlv() {
        return length >= TLV_HEADER_LENGTH ? 0 : -1;
    }

    /** Offset of the TLV after the one at {@code tlvOffset}, or -1 after End of LLDPDU or past the end. */
    public int nextTlv(final int tlvOffset) {
        if (tlvType(tlvOffset) == TLV_END) {
            return -1;
        }
        final int next = tlvOffset + TLV_HEADER_LENGTH + tlvLength(tlvOffset);
        return next + TLV_HEADER_LENGTH <= length ? next : -1;
    }

    /** Type of the TLV at {@code tlvOffset}. */
    public int tlvType(final int tlvOffset) {
        return u16(tlvOffset) >>> 9;
    }

    /** Value length of the TLV at {@code tlvOffset}. */
    public int tlvLength(final int tlvOffset) {
        return u16(tlvOffset) & 0x1FF;
    }

    /** Offset (from the LLDPDU start) of the value of the TLV at {@code tlvOffset}. */
    public int tlvValueOffset(final int tlvOffset) {
        return tlvOffset + TLV_HEADER_LENGTH;
    }

    /** Writes a TLV header at {@code tlvOffset} and returns the offset of its value. */
    public int putTlvHeader(final int tlvOffset, final int type, final int valueLength) {
        u16(tlvOffset, (type << 9) | (valueLength & 0x1FF));
        return tlvOffset + TLV_HEADER_LENGTH;
    }

    /** Offset of the first TLV of {@code type}, or -1. */
    public int findTlv(final int type) {
        for (int tlv = firstTlv(); tlv >= 0; tlv = nextTlv(tlv)) {
            if (tlvType(tlv) == type) {
                return tlv;
            }
        }
        return -1;
    }

    /** The TTL TLV's value in seconds, or -1 if absent. */
    public int ttlSeconds() {
        final int tlv = findTlv(TLV_TTL);
        return tlv >= 0 && tlvLength(tlv) >= 2 ? u16(tlvValueOffset(tlv)) : -1;
    }
}
