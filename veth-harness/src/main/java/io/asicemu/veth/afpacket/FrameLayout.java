package io.asicemu.veth.afpacket;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Finds the L3 and L4 headers of an Ethernet frame (after up to two VLAN tags) for checksum completion and TCP
 * segmentation. A reusable view: {@link #wrap} fills its fields and allocates nothing.
 * <p>
 * Not thread safe: one instance per port, used on the data-plane thread.
 */
final class FrameLayout {
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_IPV6 = 0x86dd;
    static final int PROTO_TCP = 6;
    static final int PROTO_UDP = 17;

    /** Offset of the L3 header from the frame start, or -1 if the frame is not IPv4/IPv6. */
    int l3Offset;
    /** 4 or 6. */
    int ipVersion;
    /** IPv4 header length with options, or 40 for IPv6. */
    int l3Length;
    /** 6 (TCP), 17 (UDP) or another protocol; -1 if unknown. */
    int protocol;
    /** Offset of the L4 header from the frame start. */
    int l4Offset;
    /** L4 header plus payload bytes, from the IP length fields. */
    int l4Length;

    /**
     * @return true if the frame is an unfragmented IPv4 or IPv6 (no extension headers) packet whose IP length fits
     *         in {@code length}.
     */
    boolean wrap(final MemorySegment frame, final long offset, final int length) {
        l3Offset = -1;
        protocol = -1;
        if (length < 14) {
            return false;
        }
        int at = 12;
        int etherType = frame.get(U16, offset + at) & 0xffff;
        for (int tags = 0; tags < 2 && (etherType == 0x8100 || etherType == 0x88a8); tags++) {
            at += 4;
            if (at + 2 > length) {
                return false;
            }
            etherType = frame.get(U16, offset + at) & 0xffff;
        }
        final int l3 = at + 2;
        if (etherType == ETHERTYPE_IPV4) {
            if (l3 + 20 > length) {
                return false;
            }
            final int versionIhl = frame.get(ValueLayout.JAVA_BYTE, offset + l3) & 0xff;
            final int ihl = (versionIhl & 0x0f) * 4;
            final int totalLength = frame.get(U16, offset + l3 + 2) & 0xffff;
            final int fragment = frame.get(U16, offset + l3 + 6) & 0x3fff;
            if ((versionIhl >>> 4) != 4
                    || ihl < 20
                    || totalLength < ihl
                    || l3 + totalLength > length
                    || fragment != 0) {
                return false;
            }
            ipVersion = 4;
            l3Length = ihl;
            protocol = frame.get(ValueLayout.JAVA_BYTE, offset + l3 + 9) & 0xff;
            l4Length = totalLength - ihl;
        } else if (etherType == ETHERTYPE_IPV6) {
            if (l3 + 40 > length) {
                return false;
            }
            final int payloadLength = frame.get(U16, offset + l3 + 4) & 0xffff;
            if (l3 + 40 + payloadLength > length) {
                return false;
            }
            ipVersion = 6;
            l3Length = 40;
            protocol = frame.get(ValueLayout.JAVA_BYTE, offset + l3 + 6) & 0xff;
            l4Length = payloadLength;
        } else {
            return false;
        }
        l3Offset = l3;
        l4Offset = l3 + l3Length;
        return true;
    }

    /** @return the ones'-complement sum (unfolded) of the pseudo header for {@code l4Length} bytes of L4. */
    long pseudoHeaderSum(final MemorySegment frame, final long offset, final int l4Bytes) {
        long sum;
        if (ipVersion == 4) {
            sum = Checksums.sum(frame, offset + l3Offset + 12, 8, 0);
        } else {
            sum = Checksums.sum(frame, offset + l3Offset + 8, 32, 0);
        }
        return sum + protocol + l4Bytes;
    }
}
