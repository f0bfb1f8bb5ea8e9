package io.asicemu.veth.tap;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.NetDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A switch port that creates its own Linux interface: a TAP device from /dev/net/tun (IFF_TAP | IFF_NO_PI), for users
 * who want asic-emu to make its ports. The interface exists while the port is open and goes away on {@link #close()}.
 * Without IFF_VNET_HDR the kernel segments and checksums frames before handing them to the TAP, so no GSO handling is
 * needed here.
 * <p>
 * RX reads frames (one read per frame, the TAP API has no batch read) into preallocated slots that are lent to the
 * data path; TX copies into preallocated slots and {@link #flush()} writes them. Threading as {@link Port}; no
 * allocation in receive/release/transmit/flush.
 */
public final class TapPort implements Port {
    private static final int SLOT_BYTES = 16384;

    private final String name;
    private final int fd;
    private final int mtu;
    private final long speedMbps;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment rxSlots;
    private final int rxSlotCount;
    private final MemorySegment txSlots;
    private final int[] txLengths;
    private final MemorySegment[] rxSlotViews;
    private final MemorySegment[] txSlotViews;
    private int rxUsed;
    private int txUsed;
    private long rxFrameCount;
    private long txFrameCount;
    private long txDropCount;

    private TapPort(final String name, final int slots, final long speedMbps) {
        this.name = name;
        this.speedMbps = speedMbps;
        this.rxSlotCount = slots;
        this.rxSlots = arena.allocate((long) slots * SLOT_BYTES, 64);
        this.txSlots = arena.allocate((long) slots * SLOT_BYTES, 64);
        this.txLengths = new int[slots];
        this.rxSlotViews = new MemorySegment[slots];
        this.txSlotViews = new MemorySegment[slots];
        for (int i = 0; i < slots; i++) {
            rxSlotViews[i] = rxSlots.asSlice((long) i * SLOT_BYTES, SLOT_BYTES);
            txSlotViews[i] = txSlots.asSlice((long) i * SLOT_BYTES, SLOT_BYTES);
        }
        try (Arena setup = Arena.ofConfined()) {
            final int tunFd = Libc.open(
                    errno, setup.allocateFrom("/dev/net/tun"), Kernel.O_RDWR | Kernel.O_NONBLOCK | Kernel.O_CLOEXEC, 0);
            if (tunFd < 0) {
                arena.close();
                throw new IllegalStateException(Libc.describe("open /dev/net/tun", errno));
            }
            final MemorySegment ifr = NetDevice.ifreq(setup, name);
            ifr.set(JAVA_SHORT, Kernel.IFR_FLAGS, (short) (Kernel.IFF_TAP | Kernel.IFF_NO_PI));
            if (Libc.ioctl(errno, tunFd, Kernel.TUNSETIFF, ifr) < 0) {
                final String message = Libc.describe("TUNSETIFF " + name, errno);
                Libc.close(errno, tunFd);
                arena.close();
                throw new IllegalStateException(message);
            }
            this.fd = tunFd;
        }
        this.mtu = NetDevice.mtu(name);
    }

    /**
     * Creates the TAP interface {@code name} (not yet up: the caller or the harness brings it up where it belongs).
     *
     * @param name the interface name (1..15 bytes).
     * @param slots RX and TX slots (frames per batch each way).
     * @param speedMbps the modeled speed.
     */
    public static TapPort create(final String name, final int slots, final long speedMbps) {
        return new TapPort(name, slots, speedMbps);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int receive(final RxBatch batch, final long nowNs) {
        int lent = 0;
        while (batch.remaining() > 0 && rxUsed < rxSlotCount) {
            final long at = (long) rxUsed * SLOT_BYTES;
            final long read = Libc.read(errno, fd, rxSlotViews[rxUsed], SLOT_BYTES);
            if (read <= 0) {
                break;
            }
            batch.add(rxSlots, at, (int) read, nowNs, rxUsed);
            rxUsed++;
            lent++;
        }
        rxFrameCount += lent;
        return lent;
    }

    @Override
    public void release(final RxBatch batch) {
        rxUsed = 0;
        batch.clear();
    }

    @Override
    public boolean transmit(final MemorySegment source, final long offset, final int length, final long timestampNs) {
        if (txUsed == txLengths.length || length > SLOT_BYTES || length > mtu + 22) {
            txDropCount++;
            return false;
        }
        MemorySegment.copy(source, offset, txSlots, (long) txUsed * SLOT_BYTES, length);
        txLengths[txUsed++] = length;
        return true;
    }

    @Override
    public void flush() {
        for (int i = 0; i < txUsed; i++) {
            if (Libc.write(errno, fd, txSlotViews[i], txLengths[i]) == txLengths[i]) {
                txFrameCount++;
            } else {
                txDropCount++;
            }
        }
        txUsed = 0;
    }

    @Override
    public boolean linkUp() {
        return true;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public long speedMbps() {
        return speedMbps;
    }

    @Override
    public int pollFd() {
        return fd;
    }

    /** @return frames read from the TAP. */
    public long rxFrameCount() {
        return rxFrameCount;
    }

    /** @return frames written to the TAP. */
    public long txFrameCount() {
        return txFrameCount;
    }

    /** @return frames refused (no slot, too long) or not written (the kernel queue was full). */
    public long txDropCount() {
        return txDropCount;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            Libc.close(errno, fd);
            arena.close();
        }
    }
}
