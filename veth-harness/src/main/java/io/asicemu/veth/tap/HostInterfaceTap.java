package io.asicemu.veth.tap;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.NetDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A host interface: the Linux netdev through which the switch's own kernel (and the routing daemons on it) sees one
 * front-panel port, as SONiC's hostif netdevs. A TAP (IFF_TAP | IFF_NO_PI) from /dev/net/tun with the port's MAC and
 * MTU, administratively up, its carrier (oper state) set by the caller to follow the front-panel port
 * (TUNSETCARRIER). Non-persistent: the interface disappears when {@link #close()} closes its descriptor, or when the
 * process dies.
 * <p>
 * Threading: {@link #write} on one thread (the punt consumer), {@link #read} on one thread (the host-interface
 * reader, after a poll on {@link #fd()} said readable), {@link #carrier} on any one control thread; each role has its
 * own errno and buffer, none allocates. {@link #close()} once, after the reader and writer stopped.
 */
public final class HostInterfaceTap implements AutoCloseable {
    /** The longest frame read or written (jumbo MTU 9216 plus the Ethernet header and a VLAN tag). */
    public static final int MAX_FRAME_BYTES = 9216 + 18;

    private final String name;
    private final int fd;
    private final int ifIndex;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment writeErrno = Libc.newErrnoSegment(arena);
    private final MemorySegment readErrno = Libc.newErrnoSegment(arena);
    private final MemorySegment controlErrno = Libc.newErrnoSegment(arena);
    private final MemorySegment writeBuffer = arena.allocate(MAX_FRAME_BYTES, 64);
    private final MemorySegment carrierValue = arena.allocate(JAVA_INT);

    private HostInterfaceTap(final String name, final byte[] mac, final int mtu) {
        this.name = name;
        try (Arena setup = Arena.ofConfined()) {
            final int tunFd = Libc.open(
                    controlErrno,
                    setup.allocateFrom("/dev/net/tun"),
                    Kernel.O_RDWR | Kernel.O_NONBLOCK | Kernel.O_CLOEXEC,
                    0);
            if (tunFd < 0) {
                final String message = Libc.describe("open /dev/net/tun", controlErrno);
                arena.close();
                throw new IllegalStateException(message);
            }
            final MemorySegment ifr = NetDevice.ifreq(setup, name);
            ifr.set(JAVA_SHORT, Kernel.IFR_FLAGS, (short) (Kernel.IFF_TAP | Kernel.IFF_NO_PI));
            if (Libc.ioctl(controlErrno, tunFd, Kernel.TUNSETIFF, ifr) < 0) {
                final String message = Libc.describe("TUNSETIFF " + name, controlErrno);
                Libc.close(controlErrno, tunFd);
                arena.close();
                throw new IllegalStateException(message);
            }
            this.fd = tunFd;
        }
        try {
            NetDevice.macAddress(name, mac);
            NetDevice.mtu(name, mtu);
            carrier(false);
            this.ifIndex = NetDevice.index(name);
        } catch (final RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Creates the interface with the port's MAC and MTU, carrier off, administratively down (bring it up with
     * {@link #up()} once its addresses and settings are in place).
     *
     * @param name the interface name (the SONiC port's, e.g. {@code Ethernet0}).
     * @param mac the port's router MAC (6 bytes).
     * @param mtu the port's MTU.
     * @return the interface.
     * @throws IllegalStateException if it cannot be created (no /dev/net/tun, no CAP_NET_ADMIN, the name is taken).
     */
    public static HostInterfaceTap create(final String name, final byte[] mac, final int mtu) {
        return new HostInterfaceTap(name, mac, mtu);
    }

    /** Sets the interface administratively up. */
    public void up() {
        NetDevice.up(name);
    }

    /**
     * Sets the carrier: what the kernel shows as the interface's oper state (LOWER_UP, {@code ip link}'s state).
     *
     * @param on whether the front-panel port's link is up.
     */
    public void carrier(final boolean on) {
        carrierValue.set(JAVA_INT, 0, on ? 1 : 0);
        if (Libc.ioctl(controlErrno, fd, Kernel.TUNSETCARRIER, carrierValue) < 0) {
            throw new IllegalStateException(Libc.describe("TUNSETCARRIER " + name, controlErrno));
        }
    }

    /**
     * Hands a frame to the kernel as if it had arrived on this interface.
     *
     * @param source memory holding the frame.
     * @param offset its offset.
     * @param length its length (at most {@link #MAX_FRAME_BYTES}).
     * @return false if the kernel did not take it (its errno is {@link #lastWriteErrno()}) or it is too long.
     */
    public boolean write(final MemorySegment source, final long offset, final int length) {
        if (length > MAX_FRAME_BYTES) {
            return false;
        }
        MemorySegment.copy(source, offset, writeBuffer, 0, length);
        return Libc.write(writeErrno, fd, writeBuffer, length) == length;
    }

    /** @return the errno of the last failed {@link #write}. */
    public int lastWriteErrno() {
        return Libc.errno(writeErrno);
    }

    /**
     * Reads the next frame the kernel sent on this interface, without blocking.
     *
     * @param buffer where to put it (at least {@link #MAX_FRAME_BYTES} long).
     * @return its length, 0 if there is none now, or -errno on an error.
     */
    public int read(final MemorySegment buffer) {
        final long n = Libc.read(readErrno, fd, buffer, MAX_FRAME_BYTES);
        if (n >= 0) {
            return (int) n;
        }
        final int errno = Libc.errno(readErrno);
        return errno == Kernel.EAGAIN ? 0 : -errno;
    }

    /** @return the descriptor to poll for frames the kernel sends. */
    public int fd() {
        return fd;
    }

    /** @return the interface name. */
    public String name() {
        return name;
    }

    /** @return the interface index (for netlink requests). */
    public int ifIndex() {
        return ifIndex;
    }

    /** Closes the descriptor: the kernel removes the interface (and its addresses and neighbors). */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            Libc.close(controlErrno, fd);
            arena.close();
        }
    }
}
