package io.asicemu.veth.discovery;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.NetDevice;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Prepares a data port the way a switch OS must: administratively up, kernel chatter silenced (IPv6 address
 * generation mode "none" through rtnetlink, which needs only CAP_NET_ADMIN, plus per-port disable_ipv6=1 when
 * /proc/sys is writable), no address ever assigned, and arp_ignore=8 (through rtnetlink too): the port's own netdev
 * never answers ARP for an address of the namespace (the management address, the host interfaces' addresses), so
 * neighbors learn only the answers the data plane gives. Control path; thread safe.
 */
final class LinkSetup {
    private static final int NLM_F_REQUEST = 1;
    private static final int NLM_F_ACK = 4;
    private static final int NLMSG_ERROR = 2;
    private static final int IFLA_AF_SPEC = 26;
    private static final int AF_INET6 = 10;
    private static final int IFLA_INET6_ADDR_GEN_MODE = 8;
    private static final int IN6_ADDR_GEN_MODE_NONE = 1;

    private LinkSetup() {}

    /** Silences and brings up {@code name}. */
    public static void prepareDataPort(final String name) {
        final int ifIndex = NetDevice.index(name);
        addrGenModeNone(ifIndex);
        final int errno = io.asicemu.veth.ffm.Rtnetlink.ipv4DevConf(
                ifIndex,
                io.asicemu.veth.ffm.Rtnetlink.IPV4_DEVCONF_ARP_IGNORE,
                io.asicemu.veth.ffm.Rtnetlink.ARP_IGNORE_NEVER);
        if (errno != 0) {
            throw new IllegalStateException(
                    "netlink arp_ignore on " + name + ": errno " + errno + " (" + Libc.strerror(errno) + ")");
        }
        disableIpv6(name);
        NetDevice.up(name);
    }

    /** Writes net.ipv6.conf.NAME.disable_ipv6=1 if /proc/sys is writable (it is not in unprivileged containers). */
    public static boolean disableIpv6(final String name) {
        try {
            Files.writeString(Path.of("/proc/sys/net/ipv6/conf", name, "disable_ipv6"), "1");
            return true;
        } catch (final IOException e) {
            return false;
        }
    }

    /**
     * Sets IFLA_INET6_ADDR_GEN_MODE = none on an interface (what {@code ip link set X addrgenmode none} does).
     *
     * @throws IllegalStateException if the kernel refuses (the message names errno).
     */
    public static void addrGenModeNone(final int ifIndex) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = Libc.newErrnoSegment(arena);
            final int fd =
                    Libc.socket(errno, Kernel.AF_NETLINK, Kernel.SOCK_RAW | Kernel.SOCK_CLOEXEC, Kernel.NETLINK_ROUTE);
            if (fd < 0) {
                throw new IllegalStateException(Libc.describe("socket(AF_NETLINK)", errno));
            }
            try {
                final MemorySegment request = arena.allocate(48, 4);
                request.set(JAVA_INT, 0, 48);
                request.set(JAVA_SHORT, 4, (short) Kernel.RTM_NEWLINK);
                request.set(JAVA_SHORT, 6, (short) (NLM_F_REQUEST | NLM_F_ACK));
                request.set(JAVA_INT, 8, 1);
                request.set(JAVA_INT, 16 + Kernel.IFI_INDEX, ifIndex);
                request.set(JAVA_SHORT, 32, (short) 16);
                request.set(JAVA_SHORT, 34, (short) IFLA_AF_SPEC);
                request.set(JAVA_SHORT, 36, (short) 12);
                request.set(JAVA_SHORT, 38, (short) AF_INET6);
                request.set(JAVA_SHORT, 40, (short) 5);
                request.set(JAVA_SHORT, 42, (short) IFLA_INET6_ADDR_GEN_MODE);
                request.set(JAVA_BYTE, 44, (byte) IN6_ADDR_GEN_MODE_NONE);
                final MemorySegment kernel = arena.allocate(Kernel.SOCKADDR_NL);
                kernel.set(JAVA_SHORT, Kernel.NL_FAMILY, (short) Kernel.AF_NETLINK);
                if (Libc.sendto(errno, fd, request, 48, 0, kernel, (int) Kernel.SOCKADDR_NL.byteSize()) < 0) {
                    throw new IllegalStateException(Libc.describe("netlink send addrgenmode", errno));
                }
                final MemorySegment reply = arena.allocate(4096, 4);
                final long read = Libc.recv(errno, fd, reply, 4096, 0);
                if (read < 20 || reply.get(JAVA_SHORT, 4) != NLMSG_ERROR) {
                    throw new IllegalStateException("netlink: unexpected reply to addrgenmode (" + read + " bytes)");
                }
                final int error = reply.get(JAVA_INT, 16);
                if (error != 0) {
                    throw new IllegalStateException("netlink addrgenmode none on ifindex " + ifIndex + ": errno "
                            + -error + " (" + Libc.strerror(-error) + ")");
                }
            } finally {
                Libc.close(errno, fd);
            }
        }
    }
}
