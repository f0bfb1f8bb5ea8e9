package io.asicemu.veth.ffm;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * Linux constants and kernel structs (x86-64/arm64 LP64) used by the AF_PACKET, TAP and netlink code: each struct is a
 * {@link StructLayout} with named fields, and the field offsets the hot path uses are derived from it once, here.
 * Immutable; thread safe.
 */
public final class Kernel {
    // socket(2)
    public static final int AF_NETLINK = 16;
    public static final int AF_PACKET = 17;
    public static final int AF_INET = 2;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    /** htons(ETH_P_ALL) as the protocol argument of AF_PACKET sockets and sockaddr_ll. */
    public static final int ETH_P_ALL_BE = 0x0300;

    // <linux/if_packet.h>
    public static final int SOL_PACKET = 263;
    public static final int PACKET_ADD_MEMBERSHIP = 1;
    public static final int PACKET_RX_RING = 5;
    public static final int PACKET_STATISTICS = 6;
    public static final int PACKET_VERSION = 10;
    public static final int PACKET_TX_RING = 13;
    /** With it set, the kernel skips a malformed TX frame (status back to available) instead of stalling the ring. */
    public static final int PACKET_LOSS = 14;

    public static final int PACKET_QDISC_BYPASS = 20;
    /** TX: every ring frame starts with a struct virtio_net_hdr, whose hdr_len is how much the kernel copies. */
    public static final int PACKET_VNET_HDR = 15;
    /** sizeof(struct virtio_net_hdr). */
    public static final int VIRTIO_NET_HDR_SIZE = 10;
    /** Offset of hdr_len (__virtio16, little-endian for packet sockets) in struct virtio_net_hdr. */
    public static final long VIRTIO_NET_HDR_LEN = 2;

    public static final int PACKET_IGNORE_OUTGOING = 23;
    /**
     * With a non-zero value, a frame larger than an RX ring slot is also queued whole on the socket's receive queue
     * (the truncated slot carries TP_STATUS_COPY) so that recv(2) can read it; 0 (default) truncates it only.
     */
    public static final int PACKET_COPY_THRESH = 7;

    public static final int PACKET_MR_PROMISC = 1;
    public static final int TPACKET_V2 = 1;
    public static final int TP_STATUS_KERNEL = 0;
    public static final int TP_STATUS_USER = 1;
    /** RX: the slot holds a truncated copy; the whole frame waits on the receive queue (PACKET_COPY_THRESH). */
    public static final int TP_STATUS_COPY = 2;

    public static final int TP_STATUS_LOSING = 4;
    public static final int TP_STATUS_CSUMNOTREADY = 8;
    public static final int TP_STATUS_VLAN_VALID = 0x10;
    public static final int TP_STATUS_VLAN_TPID_VALID = 0x40;
    public static final int TP_STATUS_AVAILABLE = 0;
    public static final int TP_STATUS_SEND_REQUEST = 1;
    public static final int TP_STATUS_SENDING = 2;
    public static final int TP_STATUS_WRONG_FORMAT = 4;

    // mmap(2), poll(2), send(2), open(2)
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final short POLLIN = 1;
    public static final short POLLERR = 8;
    public static final short POLLHUP = 0x10;
    public static final short POLLNVAL = 0x20;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int O_RDWR = 2;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_CLOEXEC = 0x80000;
    public static final int EINTR = 4;
    public static final int ENOSYS = 38;
    public static final int EAGAIN = 11;
    public static final int ENOBUFS = 105;
    public static final int ENXIO = 6;
    public static final int ENODEV = 19;
    public static final int ENETDOWN = 100;

    // ioctl(2) requests and interface flags
    public static final long SIOCGIFFLAGS = 0x8913;
    public static final long SIOCSIFFLAGS = 0x8914;
    public static final long SIOCGIFMTU = 0x8921;
    public static final long SIOCGIFHWADDR = 0x8927;
    public static final long SIOCGIFINDEX = 0x8933;
    public static final long TUNSETIFF = 0x400454caL;
    /** _IOW('T', 226, int): a TAP's carrier (its oper state) on or off. */
    public static final long TUNSETCARRIER = 0x400454e2L;

    public static final long SIOCSIFMTU = 0x8922;
    public static final long SIOCSIFHWADDR = 0x8924;
    public static final int ARPHRD_ETHER = 1;
    public static final int IFF_UP = 0x1;
    public static final int IFF_RUNNING = 0x40;
    public static final int IFF_PROMISC = 0x100;
    public static final int IFF_LOWER_UP = 0x10000;
    public static final int IFF_TAP = 0x0002;
    public static final int IFF_NO_PI = 0x1000;
    public static final int IFNAMSIZ = 16;

    // rtnetlink
    public static final int NETLINK_ROUTE = 0;
    public static final int RTMGRP_LINK = 1;
    public static final int RTM_NEWLINK = 16;
    public static final int RTM_DELLINK = 17;
    public static final int NLMSG_DONE = 3;
    public static final int IFLA_IFNAME = 3;

    /** struct sockaddr_ll. */
    public static final StructLayout SOCKADDR_LL = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sll_family"),
            JAVA_SHORT.withName("sll_protocol"),
            JAVA_INT.withName("sll_ifindex"),
            JAVA_SHORT.withName("sll_hatype"),
            JAVA_BYTE.withName("sll_pkttype"),
            JAVA_BYTE.withName("sll_halen"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sll_addr"));

    public static final long SLL_FAMILY = off(SOCKADDR_LL, "sll_family");
    public static final long SLL_PROTOCOL = off(SOCKADDR_LL, "sll_protocol");
    public static final long SLL_IFINDEX = off(SOCKADDR_LL, "sll_ifindex");
    public static final long SLL_PKTTYPE = off(SOCKADDR_LL, "sll_pkttype");

    /** struct tpacket_req (the TPACKET_V2 ring request). */
    public static final StructLayout TPACKET_REQ = MemoryLayout.structLayout(
            JAVA_INT.withName("tp_block_size"),
            JAVA_INT.withName("tp_block_nr"),
            JAVA_INT.withName("tp_frame_size"),
            JAVA_INT.withName("tp_frame_nr"));

    public static final long REQ_BLOCK_SIZE = off(TPACKET_REQ, "tp_block_size");
    public static final long REQ_BLOCK_NR = off(TPACKET_REQ, "tp_block_nr");
    public static final long REQ_FRAME_SIZE = off(TPACKET_REQ, "tp_frame_size");
    public static final long REQ_FRAME_NR = off(TPACKET_REQ, "tp_frame_nr");

    /** struct tpacket2_hdr, at the start of every TPACKET_V2 ring frame. */
    public static final StructLayout TPACKET2_HDR = MemoryLayout.structLayout(
            JAVA_INT.withName("tp_status"),
            JAVA_INT.withName("tp_len"),
            JAVA_INT.withName("tp_snaplen"),
            JAVA_SHORT.withName("tp_mac"),
            JAVA_SHORT.withName("tp_net"),
            JAVA_INT.withName("tp_sec"),
            JAVA_INT.withName("tp_nsec"),
            JAVA_SHORT.withName("tp_vlan_tci"),
            JAVA_SHORT.withName("tp_vlan_tpid"),
            MemoryLayout.sequenceLayout(4, JAVA_BYTE).withName("tp_padding"));

    public static final long TP_STATUS = off(TPACKET2_HDR, "tp_status");
    public static final long TP_LEN = off(TPACKET2_HDR, "tp_len");
    public static final long TP_SNAPLEN = off(TPACKET2_HDR, "tp_snaplen");
    public static final long TP_MAC = off(TPACKET2_HDR, "tp_mac");
    public static final long TP_SEC = off(TPACKET2_HDR, "tp_sec");
    public static final long TP_NSEC = off(TPACKET2_HDR, "tp_nsec");
    public static final long TP_VLAN_TCI = off(TPACKET2_HDR, "tp_vlan_tci");
    public static final long TP_VLAN_TPID = off(TPACKET2_HDR, "tp_vlan_tpid");
    /** TPACKET_ALIGN(sizeof(struct tpacket2_hdr)): where the kernel puts the sockaddr_ll in an RX frame. */
    public static final long TPACKET2_SLL_OFFSET = align16(TPACKET2_HDR.byteSize());
    /** TPACKET2_HDRLEN = TPACKET_ALIGN(sizeof(tpacket2_hdr)) + sizeof(sockaddr_ll). */
    public static final long TPACKET2_HDRLEN = TPACKET2_SLL_OFFSET + SOCKADDR_LL.byteSize();
    /**
     * Where the kernel writes an Ethernet frame in an RX slot: netoff = TPACKET_ALIGN(TPACKET2_HDRLEN + 16) (the MAC
     * header counted as at least 16 B), less the 14 B MAC header; VLAN tags that were not offloaded follow it.
     */
    public static final long TPACKET2_RX_MAC_OFFSET = align16(TPACKET2_HDRLEN + 16) - 14;
    /** Where TX frame data starts without PACKET_TX_HAS_OFF: tp_hdrlen - sizeof(sockaddr_ll). */
    public static final long TPACKET2_TX_DATA_OFFSET = TPACKET2_HDRLEN - SOCKADDR_LL.byteSize();

    /** struct tpacket_stats. */
    public static final StructLayout TPACKET_STATS =
            MemoryLayout.structLayout(JAVA_INT.withName("tp_packets"), JAVA_INT.withName("tp_drops"));

    public static final long STATS_PACKETS = off(TPACKET_STATS, "tp_packets");
    public static final long STATS_DROPS = off(TPACKET_STATS, "tp_drops");

    /** struct packet_mreq. */
    public static final StructLayout PACKET_MREQ = MemoryLayout.structLayout(
            JAVA_INT.withName("mr_ifindex"),
            JAVA_SHORT.withName("mr_type"),
            JAVA_SHORT.withName("mr_alen"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("mr_address"));

    public static final long MREQ_IFINDEX = off(PACKET_MREQ, "mr_ifindex");
    public static final long MREQ_TYPE = off(PACKET_MREQ, "mr_type");

    /** struct ifreq: a 16-byte name and a 24-byte union (flags, ifindex, mtu, hwaddr as sockaddr). */
    public static final StructLayout IFREQ = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(IFNAMSIZ, JAVA_BYTE).withName("ifr_name"),
            MemoryLayout.unionLayout(
                            JAVA_SHORT.withName("ifr_flags"),
                            JAVA_INT.withName("ifr_ifindex"),
                            JAVA_INT.withName("ifr_mtu"),
                            MemoryLayout.structLayout(
                                            JAVA_SHORT.withName("sa_family"),
                                            MemoryLayout.sequenceLayout(14, JAVA_BYTE)
                                                    .withName("sa_data"))
                                    .withName("ifr_hwaddr"),
                            MemoryLayout.sequenceLayout(3, JAVA_LONG).withName("ifr_map"))
                    .withName("ifr_ifru"));

    public static final long IFR_NAME = off(IFREQ, "ifr_name");
    public static final long IFR_FLAGS = IFREQ.byteOffset(groupElement("ifr_ifru"), groupElement("ifr_flags"));
    public static final long IFR_IFINDEX = IFREQ.byteOffset(groupElement("ifr_ifru"), groupElement("ifr_ifindex"));
    public static final long IFR_MTU = IFREQ.byteOffset(groupElement("ifr_ifru"), groupElement("ifr_mtu"));
    public static final long IFR_HWADDR_FAMILY =
            IFREQ.byteOffset(groupElement("ifr_ifru"), groupElement("ifr_hwaddr"), groupElement("sa_family"));
    public static final long IFR_HWADDR_DATA =
            IFREQ.byteOffset(groupElement("ifr_ifru"), groupElement("ifr_hwaddr"), groupElement("sa_data"));

    /** struct pollfd. */
    public static final StructLayout POLLFD = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));

    public static final long POLLFD_FD = off(POLLFD, "fd");
    public static final long POLLFD_EVENTS = off(POLLFD, "events");
    public static final long POLLFD_REVENTS = off(POLLFD, "revents");

    public static final int EPOLL_CLOEXEC = 0x80000;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLLIN = 1;

    /** struct epoll_event: packed (12 bytes) on x86-64, naturally aligned (16 bytes) elsewhere. */
    public static final StructLayout EPOLL_EVENT = "amd64".equals(System.getProperty("os.arch"))
            ? MemoryLayout.structLayout(
                    JAVA_INT.withName("events"), JAVA_LONG.withByteAlignment(4).withName("data"))
            : MemoryLayout.structLayout(
                    JAVA_INT.withName("events"), MemoryLayout.paddingLayout(4), JAVA_LONG.withName("data"));

    public static final long EPOLL_EVENTS = off(EPOLL_EVENT, "events");
    public static final long EPOLL_DATA = off(EPOLL_EVENT, "data");

    /** struct sockaddr_nl. */
    public static final StructLayout SOCKADDR_NL = MemoryLayout.structLayout(
            JAVA_SHORT.withName("nl_family"),
            JAVA_SHORT.withName("nl_pad"),
            JAVA_INT.withName("nl_pid"),
            JAVA_INT.withName("nl_groups"));

    public static final long NL_FAMILY = off(SOCKADDR_NL, "nl_family");
    public static final long NL_GROUPS = off(SOCKADDR_NL, "nl_groups");

    /** struct nlmsghdr. */
    public static final StructLayout NLMSGHDR = MemoryLayout.structLayout(
            JAVA_INT.withName("nlmsg_len"),
            JAVA_SHORT.withName("nlmsg_type"),
            JAVA_SHORT.withName("nlmsg_flags"),
            JAVA_INT.withName("nlmsg_seq"),
            JAVA_INT.withName("nlmsg_pid"));

    public static final long NLMSG_LEN = off(NLMSGHDR, "nlmsg_len");
    public static final long NLMSG_TYPE = off(NLMSGHDR, "nlmsg_type");

    /** struct ifinfomsg, after the nlmsghdr of RTM_NEWLINK/RTM_DELLINK. */
    public static final StructLayout IFINFOMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("ifi_family"),
            JAVA_BYTE.withName("ifi_pad"),
            JAVA_SHORT.withName("ifi_type"),
            JAVA_INT.withName("ifi_index"),
            JAVA_INT.withName("ifi_flags"),
            JAVA_INT.withName("ifi_change"));

    public static final long IFI_INDEX = off(IFINFOMSG, "ifi_index");
    public static final long IFI_FLAGS = off(IFINFOMSG, "ifi_flags");
    /** struct rtattr header: rta_len (u16), rta_type (u16); attributes follow the ifinfomsg, 4-byte aligned. */
    public static final int RTA_HEADER_BYTES = 4;
    /** IFLA_MTU: the link's MTU (u32) in RTM_NEWLINK. */
    public static final int IFLA_MTU = 4;

    private Kernel() {}

    private static long off(final StructLayout layout, final String field) {
        return layout.byteOffset(groupElement(field));
    }

    private static long align16(final long value) {
        return (value + 15) & ~15L;
    }
}
