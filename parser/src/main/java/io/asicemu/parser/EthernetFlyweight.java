package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of an Ethernet II header (destination MAC, source MAC, EtherType or first TPID). MACs are the low 48 bits of a
 * long, most significant byte first on the wire. Not thread safe.
 */
public final class EthernetFlyweight extends HeaderFlyweight {
    /** Offset of the destination MAC. */
    public static final int DST_MAC_OFFSET = 0;
    /** Offset of the source MAC. */
    public static final int SRC_MAC_OFFSET = 6;
    /** Offset of the EtherType (or of the first VLAN tag's TPID). */
    public static final int ETHER_TYPE_OFFSET = 12;
    /** Length of an untagged Ethernet II header. */
    public static final int HEADER_LENGTH = 14;

    /** Points this view at a frame. */
    public EthernetFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Destination MAC. */
    public long dstMac() {
        return u48(DST_MAC_OFFSET);
    }

    /** Sets the destination MAC. */
    public EthernetFlyweight dstMac(final long mac) {
        u48(DST_MAC_OFFSET, mac);
        return this;
    }

    /** Source MAC. */
    public long srcMac() {
        return u48(SRC_MAC_OFFSET);
    }

    /** Sets the source MAC. */
    public EthernetFlyweight srcMac(final long mac) {
        u48(SRC_MAC_OFFSET, mac);
        return this;
    }

    /** EtherType at byte 12 (a TPID if the frame is tagged). */
    public int etherType() {
        return u16(ETHER_TYPE_OFFSET);
    }

    /** Sets the EtherType at byte 12. */
    public EthernetFlyweight etherType(final int etherType) {
        u16(ETHER_TYPE_OFFSET, etherType);
        return this;
    }
}
