package io.asicemu.parser;

/** EtherType and protocol-number constants used by the parser and builders. */
public final class EtherType {
    /** IPv4. */
    public static final int IPV4 = 0x0800;
    /** ARP. */
    public static final int ARP = 0x0806;
    /** IEEE 802.1Q customer VLAN tag. */
    public static final int VLAN = 0x8100;
    /** IEEE 802.1ad service VLAN tag (QinQ outer tag). */
    public static final int QINQ = 0x88A8;
    /** IPv6. */
    public static final int IPV6 = 0x86DD;
    /** MAC control (802.3x PAUSE, 802.1Qbb PFC). */
    public static final int MAC_CONTROL = 0x8808;
    /** LLDP. */
    public static final int LLDP = 0x88CC;

    /** IP protocol: ICMP. */
    public static final int PROTO_ICMP = 1;
    /** IP protocol: TCP. */
    public static final int PROTO_TCP = 6;
    /** IP protocol: UDP. */
    public static final int PROTO_UDP = 17;
    /** IP protocol: ICMPv6. */
    public static final int PROTO_ICMPV6 = 58;
    /** IPv6 next header: no next header. */
    public static final int PROTO_IPV6_NONXT = 59;

    /** UDP destination port of RoCEv2. */
    public static final int ROCEV2_UDP_PORT = 4791;

    private EtherType() {}
}
