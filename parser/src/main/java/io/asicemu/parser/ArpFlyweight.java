package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** View of an Ethernet/IPv4 ARP packet (28 bytes). Not thread safe. */
public final class ArpFlyweight extends HeaderFlyweight {
    /** Offset of the hardware type. */
    public static final int HARDWARE_TYPE_OFFSET = 0;
    /** Offset of the protocol type. */
    public static final int PROTOCOL_TYPE_OFFSET = 2;
    /** Offset of the hardware address length. */
    public static final int HARDWARE_LENGTH_OFFSET = 4;
    /** Offset of the protocol address length. */
    public static final int PROTOCOL_LENGTH_OFFSET = 5;
    /** Offset of the operation. */
    public static final int OPERATION_OFFSET = 6;
    /** Offset of the sender MAC. */
    public static final int SENDER_MAC_OFFSET = 8;
    /** Offset of the sender IPv4 address. */
    public static final int SENDER_IP_OFFSET = 14;
    /** Offset of the target MAC. */
    public static final int TARGET_MAC_OFFSET = 18;
    /** Offset of the target IPv4 address. */
    public static final int TARGET_IP_OFFSET = 24;
    /** Length of an Ethernet/IPv4 ARP packet. */
    public static final int LENGTH = 28;
    /** Hardware type Ethernet. */
    public static final int HARDWARE_ETHERNET = 1;
    /** Operation: request. */
    public static final int OP_REQUEST = 1;
    /** Operation: reply. */
    public static final int OP_REPLY = 2;

    /** Points this view at an ARP packet. */
    public ArpFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Writes the fixed Ethernet/IPv4 preamble (types and lengths). */
    public ArpFlyweight ethernetIpv4() {
        u16(HARDWARE_TYPE_OFFSET, HARDWARE_ETHERNET);
        u16(PROTOCOL_TYPE_OFFSET, EtherType.IPV4);
        u8(HARDWARE_LENGTH_OFFSET, 6);
        u8(PROTOCOL_LENGTH_OFFSET, 4);
        return this;
    }

    /** Hardware type. */
    public int hardwareType() {
        return u16(HARDWARE_TYPE_OFFSET);
    }

    /** Protocol type. */
    public int protocolType() {
        return u16(PROTOCOL_TYPE_OFFSET);
    }

    /** Operation (1 request, 2 reply). */
    public int operation() {
        return u16(OPERATION_OFFSET);
    }

    /** Sets the operation. */
    public ArpFlyweight operation(final int operation) {
        u16(OPERATION_OFFSET, operation);
        return this;
    }

    /** Sender MAC. */
    public long senderMac() {
        return u48(SENDER_MAC_OFFSET);
    }

    /** Sets the sender MAC. */
    public ArpFlyweight senderMac(final long mac) {
        u48(SENDER_MAC_OFFSET, mac);
        return this;
    }

    /** Sender IPv4 address. */
    public int senderIp() {
        return u32(SENDER_IP_OFFSET);
    }

    /** Sets the sender IPv4 address. */
    public ArpFlyweight senderIp(final int ip) {
        u32(SENDER_IP_OFFSET, ip);
        return this;
    }

    /** Target MAC. */
    public long targetMac() {
        return u48(TARGET_MAC_OFFSET);
    }

    /** Sets the target MAC. */
    public ArpFlyweight targetMac(final long mac) {
        u48(TARGET_MAC_OFFSET, mac);
        return this;
    }

    /** Target IPv4 address. */
    public int targetIp() {
        return u32(TARGET_IP_OFFSET);
    }

    /** Sets the target IPv4 address. */
    public ArpFlyweight targetIp(final int ip) {
        u32(TARGET_IP_OFFSET, ip);
        return this;
    }
}
