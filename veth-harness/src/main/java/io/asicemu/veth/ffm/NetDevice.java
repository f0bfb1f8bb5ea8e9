package io.asicemu.veth.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Interface queries and settings through ioctl on a throw-away datagram socket (SIOCGIFINDEX, SIOCGIFFLAGS,
 * SIOCSIFFLAGS, SIOCGIFMTU, SIOCSIFMTU, SIOCGIFHWADDR, SIOCSIFHWADDR). Control path only: each call allocates and makes a few syscalls.
 * Thread safe (no shared state).
 */
public final class NetDevice {
    private NetDevice() {}

    /**
     * @param name the interface name.
     * @return its index.
     * @throws IllegalStateException if there is no such interface.
     */
    public static int index(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ioctl(arena, name, Kernel.SIOCGIFINDEX, ifr);
            return ifr.get(JAVA_INT, Kernel.IFR_IFINDEX);
        }
    }

    /** @return the interface flags (IFF_UP, IFF_RUNNING, IFF_PROMISC...; the low 16 bits). */
    public static int flags(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ioctl(arena, name, Kernel.SIOCGIFFLAGS, ifr);
            return ifr.get(JAVA_SHORT, Kernel.IFR_FLAGS) & 0xffff;
        }
    }

    /** Sets IFF_UP (administratively up), keeping the other flags. */
    public static void up(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ioctl(arena, name, Kernel.SIOCGIFFLAGS, ifr);
            final short flags = ifr.get(JAVA_SHORT, Kernel.IFR_FLAGS);
            if ((flags & Kernel.IFF_UP) == 0) {
                ifr.set(JAVA_SHORT, Kernel.IFR_FLAGS, (short) (flags | Kernel.IFF_UP));
                ioctl(arena, name, Kernel.SIOCSIFFLAGS, ifr);
            }
        }
    }

    /** Clears IFF_UP (administratively down), keeping the other flags. */
    public static void down(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ioctl(arena, name, Kernel.SIOCGIFFLAGS, ifr);
            final short flags = ifr.get(JAVA_SHORT, Kernel.IFR_FLAGS);
            if ((flags & Kernel.IFF_UP) != 0) {
                ifr.set(JAVA_SHORT, Kernel.IFR_FLAGS, (short) (flags & ~Kernel.IFF_UP));
                ioctl(arena, name, Kernel.SIOCSIFFLAGS, ifr);
            }
        }
    }

    /** @return the interface MTU. */
    public static int mtu(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ioctl(arena, name, Kernel.SIOCGIFMTU, ifr);
            return ifr.get(JAVA_INT, Kernel.IFR_MTU);
        }
    }

    /**
     * Sets the interface MTU.
     *
     * @param name the interface.
     * @param mtu the MTU in bytes (L3).
     */
    public static void mtu(final String name, final int mtu) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ifr.set(JAVA_INT, Kernel.IFR_MTU, mtu);
            ioctl(arena, name, Kernel.SIOCSIFMTU, ifr);
        }
    }

    /**
     * Sets the Ethernet hardware address.
     *
     * @param name the interface.
     * @param mac the 6-byte address.
     */
    public static void macAddress(final String name, final byte[] mac) {
        if (mac.length != 6) {
            throw new IllegalArgumentException("a MAC address has 6 bytes, not " + mac.length);
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ifr.set(JAVA_SHORT, Kernel.IFR_HWADDR_FAMILY, (short) Kernel.ARPHRD_ETHER);
            MemorySegment.copy(mac, 0, ifr, JAVA_BYTE, Kernel.IFR_HWADDR_DATA, 6);
            ioctl(arena, name, Kernel.SIOCSIFHWADDR, ifr);
        }
    }

    /** @return the 6-byte hardware address. */
    public static byte[] macAddress(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment ifr = ifreq(arena, name);
            ioctl(arena, name, Kernel.SIOCGIFHWADDR, ifr);
            return ifr.asSlice(Kernel.IFR_HWADDR_DATA, 6).toArray(JAVA_BYTE);
        }
    }

    /**
     * @param arena where to allocate.
     * @param name the interface name (at most 15 bytes).
     * @return a zeroed ifreq with the name filled in.
     */
    public static MemorySegment ifreq(final Arena arena, final String name) {
        final byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        if (bytes.length >= Kernel.IFNAMSIZ || bytes.length == 0) {
            throw new IllegalArgumentException("bad interface name (1..15 bytes): " + name);
        }
        final MemorySegment ifr = arena.allocate(Kernel.IFREQ);
        MemorySegment.copy(bytes, 0, ifr, JAVA_BYTE, Kernel.IFR_NAME, bytes.length);
        return ifr;
    }

    private static void ioctl(final Arena arena, final String name, final long request, final MemorySegment ifr) {
        final MemorySegment errno = Libc.newErrnoSegment(arena);
        final int fd = Libc.socket(errno, Kernel.AF_INET, Kernel.SOCK_DGRAM | Kernel.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new IllegalStateException(Libc.describe("socket(AF_INET, SOCK_DGRAM)", errno));
        }
        try {
            if (Libc.ioctl(errno, fd, request, ifr) < 0) {
                throw new IllegalStateException(
                        Libc.describe("ioctl 0x" + Long.toHexString(request) + " on " + name, errno));
            }
        } finally {
            Libc.close(errno, fd);
        }
    }
}
