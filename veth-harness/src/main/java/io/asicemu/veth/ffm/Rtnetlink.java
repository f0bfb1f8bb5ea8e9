package io.asicemu.veth.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/**
 * The few rtnetlink requests the switch's host side makes (what {@code ip addr add}, {@code ip link add type dummy}
 * and {@code ip link del} do), one request and its acknowledgement per call on a throw-away NETLINK_ROUTE socket.
 * Through FFM rather than by running iproute2: the appliance image is Debian's Essential set and has no {@code ip}.
 * Control path only: each call allocates and makes a few system calls. Thread safe (no shared state).
 */
public final class Rtnetlink {
    private static final int NLM_F_REQUEST = 1;
    private static final int NLM_F_ACK = 4;
    private static final int NLM_F_EXCL = 0x200;
    private static final int NLM_F_CREATE = 0x400;
    private static final int NLMSG_ERROR = 2;
    private static final int NLMSG_HEADER = 16;
    private static final int RTM_NEWADDR = 20;
    private static final int RTM_DELADDR = 21;
    private static final int IFADDRMSG = 8;
    private static final int IFA_ADDRESS = 1;
    private static final int IFA_LOCAL = 2;
    private static final int IFLA_LINKINFO = 18;
    private static final int IFLA_INFO_KIND = 1;
    private static final int NLA_F_NESTED = 0x8000;
    private static final int AF_INET6 = 10;
    private static final int IFLA_AF_SPEC = 26;
    private static final int IFLA_INET_CONF = 1;
    /** {@code net.ipv4.conf.NAME.arp_ignore}'s IPV4_DEVCONF id (include/uapi/linux/ip.h). */
    public static final int IPV4_DEVCONF_ARP_IGNORE = 19;
    /** arp_ignore 8: never answer ARP requests on the interface, for any local address. */
    public static final int ARP_IGNORE_NEVER = 8;

    private static final int IFLA_INET6_ADDR_GEN_MODE = 8;
    private static final byte IN6_ADDR_GEN_MODE_NONE = 1;
    private static final int MESSAGE_BYTES = 256;

    private Rtnetlink() {}

    /**
     * Adds an address to an interface ({@code ip addr add ADDRESS/PREFIX dev IFINDEX}).
     *
     * @param ifIndex the interface.
     * @param address an IPv4 or IPv6 address.
     * @param prefixLength its prefix length.
     * @return 0, or the errno the kernel refused with (EEXIST when it is there already).
     */
    public static int addAddress(final int ifIndex, final InetAddress address, final int prefixLength) {
        return address(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, ifIndex, address, prefixLength);
    }

    /**
     * Removes an address from an interface.
     *
     * @return 0, or the errno the kernel refused with (EADDRNOTAVAIL when it is not there).
     */
    public static int deleteAddress(final int ifIndex, final InetAddress address, final int prefixLength) {
        return address(RTM_DELADDR, 0, ifIndex, address, prefixLength);
    }

    private static int address(
            final int type, final int flags, final int ifIndex, final InetAddress address, final int prefixLength) {
        final byte[] bytes = address.getAddress();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(MESSAGE_BYTES, 4);
            m.set(JAVA_BYTE, NLMSG_HEADER, (byte) (address instanceof Inet4Address ? Kernel.AF_INET : AF_INET6));
            m.set(JAVA_BYTE, NLMSG_HEADER + 1, (byte) prefixLength);
            m.set(JAVA_INT, NLMSG_HEADER + 4, ifIndex);
            int length = NLMSG_HEADER + IFADDRMSG;
            length = attribute(m, length, IFA_LOCAL, bytes);
            length = attribute(m, length, IFA_ADDRESS, bytes);
            return request(arena, m, length, type, flags);
        }
    }

    /**
     * Creates a dummy interface ({@code ip link add NAME type dummy}).
     *
     * @param name the interface name.
     * @return 0, or the errno the kernel refused with (EOPNOTSUPP when the kernel has no dummy driver, EEXIST).
     */
    public static int addDummy(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(MESSAGE_BYTES, 4);
            int length = NLMSG_HEADER + (int) Kernel.IFINFOMSG.byteSize();
            length = attribute(m, length, Kernel.IFLA_IFNAME, nulTerminated(name));
            final int nest = length;
            length = attribute(m, length + 4, IFLA_INFO_KIND, nulTerminated("dummy"));
            m.set(JAVA_SHORT, nest, (short) (length - nest));
            m.set(JAVA_SHORT, nest + 2, (short) (IFLA_LINKINFO | NLA_F_NESTED));
            return request(arena, m, length, Kernel.RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
        }
    }

    /**
     * Sets an interface's IPv6 address generation mode to none ({@code ip link set X addrgenmode none}): IPv6 stays
     * enabled (a link-local address can still be added, e.g. for BGP over link-local) but the kernel makes none
     * itself, so a new interface sends no router solicitations, MLD reports or DAD probes.
     *
     * @param ifIndex the interface.
     * @return 0, or the errno the kernel refused with.
     */
    public static int ipv6AddrGenModeNone(final int ifIndex) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(MESSAGE_BYTES, 4);
            m.set(JAVA_INT, NLMSG_HEADER + Kernel.IFI_INDEX, ifIndex);
            final int spec = NLMSG_HEADER + (int) Kernel.IFINFOMSG.byteSize();
            final int inet6 = spec + 4;
            final int end = attribute(m, inet6 + 4, IFLA_INET6_ADDR_GEN_MODE, new byte[] {IN6_ADDR_GEN_MODE_NONE});
            m.set(JAVA_SHORT, inet6, (short) (end - inet6));
            m.set(JAVA_SHORT, inet6 + 2, (short) AF_INET6);
            m.set(JAVA_SHORT, spec, (short) (end - spec));
            m.set(JAVA_SHORT, spec + 2, (short) IFLA_AF_SPEC);
            return request(arena, m, end, Kernel.RTM_NEWLINK, 0);
        }
    }

    /**
     * Sets one of an interface's IPv4 settings ({@code net.ipv4.conf.NAME.*}) through rtnetlink
     * (IFLA_AF_SPEC / AF_INET / IFLA_INET_CONF), which needs only CAP_NET_ADMIN where /proc/sys is read-only.
     *
     * @param ifIndex the interface.
     * @param setting an {@code IPV4_DEVCONF_*} id, e.g. {@link #IPV4_DEVCONF_ARP_IGNORE}.
     * @param value its value.
     * @return 0, or the errno the kernel refused with.
     */
    public static int ipv4DevConf(final int ifIndex, final int setting, final int value) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(MESSAGE_BYTES, 4);
            m.set(JAVA_INT, NLMSG_HEADER + Kernel.IFI_INDEX, ifIndex);
            final int spec = NLMSG_HEADER + (int) Kernel.IFINFOMSG.byteSize();
            final int inet = spec + 4;
            final int conf = inet + 4;
            final byte[] u32 = java.nio.ByteBuffer.allocate(4)
                    .order(java.nio.ByteOrder.nativeOrder())
                    .putInt(value)
                    .array();
            final int end = attribute(m, conf + 4, setting, u32);
            m.set(JAVA_SHORT, conf, (short) (end - conf));
            m.set(JAVA_SHORT, conf + 2, (short) IFLA_INET_CONF);
            m.set(JAVA_SHORT, inet, (short) (end - inet));
            m.set(JAVA_SHORT, inet + 2, (short) Kernel.AF_INET);
            m.set(JAVA_SHORT, spec, (short) (end - spec));
            m.set(JAVA_SHORT, spec + 2, (short) IFLA_AF_SPEC);
            return request(arena, m, end, Kernel.RTM_NEWLINK, 0);
        }
    }

    /**
     * Deletes an interface ({@code ip link del}).
     *
     * @param ifIndex the interface.
     * @return 0, or the errno the kernel refused with.
     */
    public static int deleteLink(final int ifIndex) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(MESSAGE_BYTES, 4);
            m.set(JAVA_INT, NLMSG_HEADER + Kernel.IFI_INDEX, ifIndex);
            return request(arena, m, NLMSG_HEADER + (int) Kernel.IFINFOMSG.byteSize(), Kernel.RTM_DELLINK, 0);
        }
    }

    private static byte[] nulTerminated(final String text) {
        final byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        return java.util.Arrays.copyOf(ascii, ascii.length + 1);
    }

    /** Writes one attribute at {@code at}; returns the aligned end. */
    private static int attribute(final MemorySegment m, final int at, final int type, final byte[] value) {
        m.set(JAVA_SHORT, at, (short) (4 + value.length));
        m.set(JAVA_SHORT, at + 2, (short) type);
        MemorySegment.copy(value, 0, m, JAVA_BYTE, at + 4, value.length);
        return at + ((4 + value.length + 3) & ~3);
    }

    /** Sends the message (header filled in here) and returns the acknowledgement's errno (0: done). */
    private static int request(
            final Arena arena, final MemorySegment m, final int length, final int type, final int flags) {
        m.set(JAVA_INT, 0, length);
        m.set(JAVA_SHORT, 4, (short) type);
        m.set(JAVA_SHORT, 6, (short) (NLM_F_REQUEST | NLM_F_ACK | flags));
        m.set(JAVA_INT, 8, 1);
        final MemorySegment errno = Libc.newErrnoSegment(arena);
        final int fd =
                Libc.socket(errno, Kernel.AF_NETLINK, Kernel.SOCK_RAW | Kernel.SOCK_CLOEXEC, Kernel.NETLINK_ROUTE);
        if (fd < 0) {
            throw new IllegalStateException(Libc.describe("socket(AF_NETLINK)", errno));
        }
        try {
            final MemorySegment kernel = arena.allocate(Kernel.SOCKADDR_NL);
            kernel.set(JAVA_SHORT, Kernel.NL_FAMILY, (short) Kernel.AF_NETLINK);
            if (Libc.sendto(errno, fd, m, length, 0, kernel, (int) Kernel.SOCKADDR_NL.byteSize()) < 0) {
                throw new IllegalStateException(Libc.describe("netlink send (type " + type + ")", errno));
            }
            final MemorySegment reply = arena.allocate(4096, 4);
            final long read = Libc.recv(errno, fd, reply, 4096, 0);
            if (read < 20 || reply.get(JAVA_SHORT, 4) != NLMSG_ERROR) {
                throw new IllegalStateException("netlink: unexpected reply to type " + type + " (" + read + " bytes)");
            }
            return -reply.get(JAVA_INT, NLMSG_HEADER);
        } finally {
            Libc.close(errno, fd);
        }
    }
}
