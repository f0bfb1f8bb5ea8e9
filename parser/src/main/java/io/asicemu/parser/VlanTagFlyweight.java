package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of one 4-byte 802.1Q / 802.1ad tag (TPID, then TCI = PCP:3 DEI:1 VID:12), followed on the wire by the next
 * EtherType. Wrap it at frame offset 12 for the outer tag and 16 for the inner one. Not thread safe.
 */
public final class VlanTagFlyweight extends HeaderFlyweight {
    /** Offset of the TPID (0x8100 or 0x88A8). */
    public static final int TPID_OFFSET = 0;
    /** Offset of the TCI. */
    public static final int TCI_OFFSET = 2;
    /** Offset of the EtherType that follows the tag. */
    public static final int NEXT_ETHER_TYPE_OFFSET = 4;
    /** Length of one tag. */
    public static final int TAG_LENGTH = 4;

    /** Points this view at a tag. */
    public VlanTagFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Tag protocol identifier. */
    public int tpid() {
        return u16(TPID_OFFSET);
    }

    /** Sets the TPID. */
    public VlanTagFlyweight tpid(final int tpid) {
        u16(TPID_OFFSET, tpid);
        return this;
    }

    /** Tag control information (PCP, DEI, VID). */
    public int tci() {
        return u16(TCI_OFFSET);
    }

    /** Sets the whole tag control information (PCP:3, DEI:1, VID:12). */
    public VlanTagFlyweight tci(final int tci) {
        u16(TCI_OFFSET, tci);
        return this;
    }

    /** Priority code point (0..7). */
    public int pcp() {
        return tci() >>> 13;
    }

    /** Sets the PCP, keeping DEI and VID. */
    public VlanTagFlyweight pcp(final int pcp) {
        u16(TCI_OFFSET, (tci() & 0x1FFF) | ((pcp & 0x7) << 13));
        return this;
    }

    /** Drop eligible indicator (0 or 1). */
    public int dei() {
        return (tci() >>> 12) & 0x1;
    }

    /** Sets the DEI bit. */
    public VlanTagFlyweight dei(final int dei) {
        u16(TCI_OFFSET, (tci() & 0xEFFF) | ((dei & 0x1) << 12));
        return this;
    }

    /** VLAN id (0..4095). */
    public int vlanId() {
        return tci() & 0x0FFF;
    }

    /** Sets the VLAN id, keeping PCP and DEI. */
    public VlanTagFlyweight vlanId(final int vlanId) {
        u16(TCI_OFFSET, (tci() & 0xF000) | (vlanId & 0x0FFF));
        return this;
    }

    /** The EtherType after this tag. */
    public int nextEtherType() {
        return u16(NEXT_ETHER_TYPE_OFFSET);
    }

    /** Sets the EtherType after this tag. */
    public VlanTagFlyweight nextEtherType(final int etherType) {
        u16(NEXT_ETHER_TYPE_OFFSET, etherType);
        return this;
    }
}
