package io.asicemu.routing;

/**
 * The layout constants of the FPM header and of the rtnetlink route messages inside it ({@code linux/netlink.h},
 * {@code linux/rtnetlink.h}, FRR's {@code fpm/fpm.h}). Netlink fields are in host byte order (zebra runs on this
 * host); the FPM header is in network order.
 */
final class RtnetlinkDescriptor {
    private RtnetlinkDescriptor() {}

    /** FPM header: version (1 byte), message type (1 byte), total length including the header (2 bytes, BE). */
    static final int FPM_HEADER_LENGTH = 4;

    static final int FPM_VERSION = 1;
    static final int FPM_TYPE_NETLINK = 1;
    /** The FPM length field's largest value: no frame, and so no buffered input, is ever longer. */
    static final int FPM_MAX_FRAME_LENGTH = 0xffff;

    /** struct nlmsghdr: len u32, type u16, flags u16, seq u32, pid u32. */
    static final int NLMSG_HEADER_LENGTH = 16;

    static final int NLMSG_TYPE_OFFSET = 4;

    static final int RTM_NEWROUTE = 24;
    static final int RTM_DELROUTE = 25;
    static final int RTM_NEWNEXTHOP = 104;
    static final int RTM_DELNEXTHOP = 105;

    /** struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type (u8 each), flags u32. */
    static final int RTMSG_LENGTH = 12;

    static final int RTMSG_FAMILY_OFFSET = 0;
    static final int RTMSG_DST_LEN_OFFSET = 1;
    static final int RTMSG_TABLE_OFFSET = 4;
    static final int RTMSG_PROTOCOL_OFFSET = 5;
    static final int RTMSG_TYPE_OFFSET = 7;

    /** struct rtattr: len u16, type u16, then the payload, padded to 4. */
    static final int RTA_HEADER_LENGTH = 4;

    static final int RTA_DST = 1;
    static final int RTA_OIF = 4;
    static final int RTA_GATEWAY = 5;
    static final int RTA_PRIORITY = 6;
    static final int RTA_MULTIPATH = 9;
    static final int RTA_TABLE = 15;
    static final int RTA_VIA = 18;
    static final int RTA_ENCAP_TYPE = 21;
    static final int RTA_ENCAP = 22;
    static final int RTA_NH_ID = 30;

    /** struct rtnexthop: len u16, flags u8, hops u8, ifindex s32, then attributes. */
    static final int RTNH_LENGTH = 8;

    static final int RT_TABLE_UNSPEC = 0;
    static final int RT_TABLE_MAIN = 254;

    static final int RTN_UNICAST = 1;
    static final int RTN_BLACKHOLE = 6;
    static final int RTN_UNREACHABLE = 7;
    static final int RTN_PROHIBIT = 8;

    /** @return {@code length} rounded up to netlink's 4-byte alignment. */
    static int align(final int length) {
        return (length + 3) & ~3;
    }
}
