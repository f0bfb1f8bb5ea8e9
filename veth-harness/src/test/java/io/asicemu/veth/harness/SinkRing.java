package io.asicemu.veth.harness;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The benchmark sink's receive ring: a TPACKET_V2 ring of small slots that keeps only the head of each frame.
 *
 * <p>The sink counts frames and reads their first 58 bytes (run id, sequence, send time), nothing more, so a slot
 * need not hold a whole frame: the kernel truncates the frame to the slot ({@code tp_snaplen}: 62 B of a
 * {@value #SLOT_BYTES} B slot) and reports its length in {@code tp_len}. {@value #SLOTS} slots take 4 MiB: 8 x the
 * frames of the 4,096 MTU-sized slots this replaces, in half their memory. That ring overflowed in session 15's runs
 * (the no-drop search above 500 kpps, the half-rate run) while the switch had dropped nothing, so it was the sink's
 * depth being measured, not the forwarder's. Not more MTU-sized slots instead: the kernel looks at the slot a quarter
 * ring ahead for every frame, and a 32 MiB ring missed the TLB there on the forwarder's CPU (docs/PERFORMANCE.md
 * "Session 13 (lead)").
 */
final class SinkRing implements AutoCloseable {
    private static final int SLOT_BYTES = 128;
    private static final int BLOCK_BYTES = 64 * 1024;
    private static final int SLOTS = 32_768;
    private static final VarHandle STATUS = JAVA_INT.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment statistics = arena.allocate(Kernel.TPACKET_STATS);
    private final MemorySegment statisticsLength = arena.allocate(JAVA_INT);
    private final int slotsPerBlock = BLOCK_BYTES / SLOT_BYTES;
    private final int fd;
    private final long ringBytes;
    private final MemorySegment mapped;
    private final MemorySegment ring;
    private int index;
    private long drops;

    /** Opens the ring on {@code interfaceName} of the calling thread's network namespace, promiscuous. */
    SinkRing(final String interfaceName) {
        final int ifIndex = Libc.ifNameToIndex(interfaceName);
        fd = Libc.socket(errno, Kernel.AF_PACKET, Kernel.SOCK_RAW | Kernel.SOCK_CLOEXEC, Kernel.ETH_P_ALL_BE);
        check(fd, "socket(AF_PACKET)");
        final int blocks = (SLOTS + slotsPerBlock - 1) / slotsPerBlock;
        ringBytes = (long) blocks * BLOCK_BYTES;
        try (Arena setup = Arena.ofConfined()) {
            check(
                    Libc.setsockopt(
                            errno,
                            fd,
                            Kernel.SOL_PACKET,
                            Kernel.PACKET_VERSION,
                            setup.allocateFrom(JAVA_INT, Kernel.TPACKET_V2),
                            4),
                    "PACKET_VERSION");
            final MemorySegment req = setup.allocate(Kernel.TPACKET_REQ);
            req.set(JAVA_INT, Kernel.REQ_BLOCK_SIZE, BLOCK_BYTES);
            req.set(JAVA_INT, Kernel.REQ_BLOCK_NR, blocks);
            req.set(JAVA_INT, Kernel.REQ_FRAME_SIZE, SLOT_BYTES);
            req.set(JAVA_INT, Kernel.REQ_FRAME_NR, blocks * slotsPerBlock);
            check(
                    Libc.setsockopt(errno, fd, Kernel.SOL_PACKET, Kernel.PACKET_RX_RING, req, (int)
                            Kernel.TPACKET_REQ.byteSize()),
                    "PACKET_RX_RING");
            mapped = Libc.mmap(errno, ringBytes, Kernel.PROT_READ | Kernel.PROT_WRITE, Kernel.MAP_SHARED, fd, 0);
            if (mapped.address() == Libc.MAP_FAILED) {
                throw new IllegalStateException(Libc.describe("mmap of the sink ring", errno));
            }
            final MemorySegment sll = setup.allocate(Kernel.SOCKADDR_LL);
            sll.set(JAVA_SHORT, Kernel.SLL_FAMILY, (short) Kernel.AF_PACKET);
            sll.set(JAVA_SHORT, Kernel.SLL_PROTOCOL, (short) Kernel.ETH_P_ALL_BE);
            sll.set(JAVA_INT, Kernel.SLL_IFINDEX, ifIndex);
            check(Libc.bind(errno, fd, sll, (int) Kernel.SOCKADDR_LL.byteSize()), "bind to " + interfaceName);
            final MemorySegment mreq = setup.allocate(Kernel.PACKET_MREQ);
            mreq.set(JAVA_INT, Kernel.MREQ_IFINDEX, ifIndex);
            mreq.set(JAVA_SHORT, Kernel.MREQ_TYPE, (short) Kernel.PACKET_MR_PROMISC);
            check(
                    Libc.setsockopt(errno, fd, Kernel.SOL_PACKET, Kernel.PACKET_ADD_MEMBERSHIP, mreq, (int)
                            Kernel.PACKET_MREQ.byteSize()),
                    "PACKET_ADD_MEMBERSHIP promisc");
        } catch (final RuntimeException e) {
            Libc.close(errno, fd);
            arena.close();
            throw e;
        }
        ring = mapped.reinterpret(ringBytes, arena, null);
    }

    /** @return the socket, for poll(2). */
    int fd() {
        return fd;
    }

    /** @return the ring's slot count. */
    int slots() {
        return slotsPerBlock * (int) (ringBytes / BLOCK_BYTES);
    }

    /** @return the ring, in which {@link #head()} is the current frame's offset. */
    MemorySegment ring() {
        return ring;
    }

    /** @return whether the kernel has handed the current slot over. */
    boolean ready() {
        return ((int) STATUS.getAcquire(ring, slot()) & Kernel.TP_STATUS_USER) != 0;
    }

    /** @return the offset in {@link #ring()} of the current frame's first byte (when {@link #ready()}). */
    long head() {
        return slot() + (ring.get(JAVA_SHORT, slot() + Kernel.TP_MAC) & 0xffff);
    }

    /** @return how many of the current frame's bytes the slot holds. */
    int headLength() {
        return ring.get(JAVA_INT, slot() + Kernel.TP_SNAPLEN);
    }

    /** Hands the current slot back to the kernel and moves to the next. */
    void next() {
        STATUS.setRelease(ring, slot(), Kernel.TP_STATUS_KERNEL);
        index = index + 1 == slots() ? 0 : index + 1;
    }

    /** @return the frames the ring had no room for since it opened (PACKET_STATISTICS, which resets on every read). */
    long drops() {
        statisticsLength.set(JAVA_INT, 0, (int) Kernel.TPACKET_STATS.byteSize());
        check(
                Libc.getsockopt(errno, fd, Kernel.SOL_PACKET, Kernel.PACKET_STATISTICS, statistics, statisticsLength),
                "PACKET_STATISTICS");
        drops += statistics.get(JAVA_INT, Kernel.STATS_DROPS) & 0xffffffffL;
        return drops;
    }

    private long slot() {
        return (long) (index / slotsPerBlock) * BLOCK_BYTES + (long) (index % slotsPerBlock) * SLOT_BYTES;
    }

    private void check(final int result, final String what) {
        if (result < 0) {
            throw new IllegalStateException(Libc.describe(what + " (benchmark sink)", errno));
        }
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
            Libc.munmap(Libc.newErrnoSegment(Arena.global()), mapped, ringBytes);
            Libc.close(Libc.newErrnoSegment(Arena.global()), fd);
        }
    }
}
