package io.asicemu.parser;

/** What the EtherType (after VLAN tags) says the frame carries. */
public enum FrameKind {
    /** Not recognised (or parsing stopped before the EtherType). */
    UNKNOWN,
    /** ARP. */
    ARP,
    /** IPv4. */
    IPV4,
    /** IPv6. */
    IPV6,
    /** MAC control: 802.3x PAUSE or 802.1Qbb PFC. */
    MAC_CONTROL,
    /** LLDP. */
    LLDP
}
