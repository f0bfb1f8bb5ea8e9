package io.asicemu.parser;

/**
 * Outcome of {@link PacketParser#parse}: {@link #OK} or the first problem found. Each constant has a stable
 * {@link #index()} (never renumbered; new reasons are appended) so that counters can be plain {@code long[COUNT]}
 * arrays indexed by reason. Fields of a {@link ParseResult} are valid up to the layer where parsing stopped.
 */
public enum ParseReason {
    /** Parsed to the deepest layer the parser knows. */
    OK(0, "ok"),
    /** Shorter than the runt threshold (60 bytes without FCS by default). */
    RUNT(1, "runt"),
    /** Longer than 9216 bytes. */
    OVERSIZE(2, "oversize"),
    /** Offset/length do not lie within the segment. */
    BAD_BUFFER(3, "bad_buffer"),
    /** Ethernet header or a VLAN tag runs past the frame. */
    TRUNCATED_L2(4, "truncated_l2"),
    /** More than two VLAN tags. */
    TOO_MANY_VLAN_TAGS(5, "too_many_vlan_tags"),
    /** EtherType the parser does not know (L2 fields are valid). */
    UNKNOWN_ETHER_TYPE(6, "unknown_ether_type"),
    /** ARP shorter than 28 bytes or not Ethernet/IPv4. */
    BAD_ARP(7, "bad_arp"),
    /** IPv4 header runs past the frame. */
    TRUNCATED_IPV4(8, "truncated_ipv4"),
    /** IPv4 version nibble is not 4. */
    IPV4_BAD_VERSION(9, "ipv4_bad_version"),
    /** IPv4 IHL below 5. */
    IPV4_BAD_IHL(10, "ipv4_bad_ihl"),
    /** IPv4 total length beyond the frame. */
    IPV4_TOTAL_LENGTH_BEYOND_FRAME(11, "ipv4_total_length_beyond_frame"),
    /** IPv4 total length smaller than its header. */
    IPV4_TOTAL_LENGTH_TOO_SMALL(12, "ipv4_total_length_too_small"),
    /** IPv6 fixed header runs past the frame. */
    TRUNCATED_IPV6(13, "truncated_ipv6"),
    /** IPv6 version nibble is not 6. */
    IPV6_BAD_VERSION(14, "ipv6_bad_version"),
    /** IPv6 payload length beyond the frame. */
    IPV6_PAYLOAD_BEYOND_FRAME(15, "ipv6_payload_beyond_frame"),
    /** An IPv6 extension header runs past the payload. */
    IPV6_EXT_HEADER_OVERRUN(16, "ipv6_ext_header_overrun"),
    /** More IPv6 extension headers than the bound (a looping or abusive chain), or hop-by-hop not first. */
    IPV6_EXT_HEADER_CHAIN(17, "ipv6_ext_header_chain"),
    /** UDP header runs past the IP payload. */
    TRUNCATED_UDP(18, "truncated_udp"),
    /** UDP length below 8 or beyond the IP payload. */
    UDP_BAD_LENGTH(19, "udp_bad_length"),
    /** TCP header runs past the IP payload. */
    TRUNCATED_TCP(20, "truncated_tcp"),
    /** TCP data offset below 5 or beyond the IP payload. */
    TCP_BAD_DATA_OFFSET(21, "tcp_bad_data_offset"),
    /** ICMP/ICMPv6 header runs past the IP payload. */
    TRUNCATED_ICMP(22, "truncated_icmp"),
    /** UDP 4791 payload too short for BTH, its extended headers and the ICRC. */
    TRUNCATED_BTH(23, "truncated_bth"),
    /** MAC control frame shorter than its opcode's fields. */
    TRUNCATED_MAC_CONTROL(24, "truncated_mac_control"),
    /** LLDP TLV chain runs past the frame or lacks End of LLDPDU. */
    BAD_LLDP(25, "bad_lldp");

    /** Number of reasons: size of a counter array indexed by {@link #index()}. */
    public static final int COUNT = 26;

    private static final ParseReason[] BY_INDEX = new ParseReason[COUNT];

    static {
        for (final ParseReason reason : values()) {
            BY_INDEX[reason.index] = reason;
        }
    }

    private final int index;
    private final String label;

    ParseReason(final int index, final String label) {
        this.index = index;
        this.label = label;
    }

    /** Stable index for counter arrays. */
    public int index() {
        return index;
    }

    /** Stable lower-case label for counter names and logs. */
    public String label() {
        return label;
    }

    /** The reason with {@code index}. */
    public static ParseReason fromIndex(final int index) {
        return BY_INDEX[index];
    }
}
