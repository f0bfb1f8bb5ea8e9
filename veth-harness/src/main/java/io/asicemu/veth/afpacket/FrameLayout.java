package io.asicemu.veth.afpacket;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.InternetChecksum;
import io.asicemu.parser.Ipv4Flyweight;
import io.asicemu.parser.Ipv6Flyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.VlanTagFlyweight;
import java.lang.foreign.MemorySegment;

/**
 * Finds the L3 and L4 headers of an Ethernet frame (after up to two VLAN tags) for checksum completion and TCP
 * segmentation, with the parser's header layout. A reusable view: {@link #wrap} fills its fields and allocates
 * nothing. Unlike {@code PacketParser} it accepts only what a port can finish for the sender: unfragmented IPv4, or
 * IPv6 without extension headers, whose IP length fits the frame.
 * <p>
 * Not thread safe: one instance per port, used on the data-plane thread.
 */
final class FrameLayout {
    private static final int MAX_TAGS = 2;

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
        if (length < EthernetFlyweight.HEADER_LENGTH) {
            return false;
        }
        int at = EthernetFlyweight.ETHER_TYPE_OFFSET; // a tag's TPID sits where the EtherType would
        int etherType = NetworkOrder.u16(frame, offset + at);
        for (int tags = 0; tags < MAX_TAGS && (etherType == EtherType.VLAN || etherType == EtherType.QINQ); tags++) {
            at += VlanTagFlyweight.TAG_LENGTH;
            if (at + 2 > length) {
                return false;
            }
            etherType = NetworkOrder.u16(frame, offset + at);
        }
        final int l3 = at + 2;
        if (etherType == EtherType.IPV4) {
            if (l3 + Ipv4Flyweight.MIN_HEADER_LENGTH > length) {
                return false;
            }
            final long ip = offset + l3;
            final int versionIhl = NetworkOrder.u8(frame, ip + Ipv4Flyweight.VERSION_IHL_OFFSET);
            final int ihl = (versionIhl & 0x0f) * 4;
            final int totalLength = NetworkOrder.u16(frame, ip + Ipv4Flyweight.TOTAL_LENGTH_OFFSET);
            final int fragment = NetworkOrder.u16(frame, ip + Ipv4Flyweight.FLAGS_FRAGMENT_OFFSET) & 0x3fff;
            if ((versionIhl >>> 4) != 4
                    || ihl < Ipv4Flyweight.MIN_HEADER_LENGTH
                    || totalLength < ihl
                    || l3 + totalLength > length
                    || fragment != 0) {
                return false;
            }
            ipVersion = 4;
            l3Length = ihl;
            protocol = NetworkOrder.u8(frame, ip + Ipv4Flyweight.PROTOCOL_OFFSET);
            l4Length = totalLength - ihl;
        } else if (etherType == EtherType.IPV6) {
            if (l3 + Ipv6Flyweight.HEADER_LENGTH > length) {
                return false;
            }
            final long ip = offset + l3;
            final int payloadLength = NetworkOrder.u16(frame, ip + Ipv6Flyweight.PAYLOAD_LENGTH_OFFSET);
            if (l3 + Ipv6Flyweight.HEADER_LENGTH + payloadLength > length) {
                return false;
            }
            ipVersion = 6;
            l3Length = Ipv6Flyweight.HEADER_LENGTH;
            protocol = NetworkOrder.u8(frame, ip + Ipv6Flyweight.NEXT_HEADER_OFFSET);
            l4Length = payloadLength;
        } else {
            return false;
        }
        l3Offset = l3;
        l4Offset = l3 + l3Length;
        return true;
    }

    /** @return the ones'-complement sum (folded) of the pseudo header for {@code l4Bytes} bytes of L4. */
    int pseudoHeaderSum(final MemorySegment frame, final long offset, final int l4Bytes) {
        final long ip = offset + l3Offset;
        final int addresses = ipVersion == 4
                ? InternetChecksum.sum(frame, ip + Ipv4Flyweight.SRC_ADDRESS_OFFSET, 8)
                : InternetChecksum.sum(frame, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, 32);
        return InternetChecksum.fold((long) addresses + protocol + l4Bytes);
    }
}
