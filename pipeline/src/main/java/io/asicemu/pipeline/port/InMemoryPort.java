package io.asicemu.pipeline.port;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A port backed by two preallocated rings of native memory: tests inject frames into its RX ring and read what the
 * switch transmitted from its TX ring. Like a NIC ring it holds at most {@code ringSize} frames each way; injecting
 * into a full RX ring or transmitting into a full TX ring fails (returns false).
 * <p>
 * Not thread safe: the test thread that steps the data-plane agent also injects and reads. Allocation-free in
 * {@link #receive}, {@link #release}, {@link #transmit} and {@link #inject(MemorySegment, long, int, long)}.
 */
public final class InMemoryPort implements Port {
    private final String name;
    private final Arena arena;
    private final int slotBytes;
    private final int ringSize;
    private final MemorySegment rxRing;
    private final int[] rxLengths;
    private final long[] rxTimestampsNs;
    private final MemorySegment txRing;
    private final int[] txLengths;
    private final long[] txTimestampsNs;
    private long rxHead;
    private long rxTail;
    /** rxHead and rxTail as ring slots, advanced with a wrap instead of a 64-bit modulo per frame. */
    private int rxHeadSlot;

    private int rxTailSlot;
    private long rxLent;
    private int txCount;
    private long flushCount;
    private boolean flushIsOneSystemCall;
    private boolean linkUp = true;
    private int mtu;
    private long speedMbps;

    /**
     * A port with 256-frame rings of 10 KiB slots, MTU 9100, 100 Gb/s.
     *
     * @param name the port's name.
     */
    public InMemoryPort(final String name) {
        this(name, 256, 10240, 9100, 100_000);
    }

    /**
     * @param name the port's name.
     * @param ringSize frames per ring, each way.
     * @param slotBytes the largest frame a slot holds.
     * @param mtu the interface MTU.
     * @param speedMbps the modeled speed in Mb/s.
     */
    public InMemoryPort(
            final String name, final int ringSize, final int slotBytes, final int mtu, final long speedMbps) {
        this.name = name;
        this.ringSize = ringSize;
        this.slotBytes = slotBytes;
        this.mtu = mtu;
        this.speedMbps = speedMbps;
        this.arena = Arena.ofShared();
        this.rxRing = arena.allocate((long) ringSize * slotBytes, 64);
        this.txRing = arena.allocate((long) ringSize * slotBytes, 64);
        this.rxLengths = new int[ringSize];
        this.rxTimestampsNs = new long[ringSize];
        this.txLengths = new int[ringSize];
        this.txTimestampsNs = new long[ringSize];
    }

    /**
     * Puts a frame on the RX ring as if it arrived at {@code timestampNs}; it is received once the cycle's time has
     * reached it.
     *
     * @param frame the frame bytes, without FCS.
     * @param timestampNs its arrival time in emulated ns (non-decreasing across injects).
     * @return false if the RX ring is full or the frame too long.
     */
    public boolean inject(final byte[] frame, final long timestampNs) {
        return inject(MemorySegment.ofArray(frame), 0, frame.length, timestampNs);
    }

    /**
     * Puts a frame on the RX ring (copying it).
     *
     * @param source memory holding the frame.
     * @param offset its offset.
     * @param length its length.
     * @param timestampNs its arrival time in emulated ns.
     * @return false if the RX ring is full or the frame too long.
     */
    public boolean inject(final MemorySegment source, final long offset, final int length, final long timestampNs) {
        if (rxTail - rxHead == ringSize || length > slotBytes) {
            return false;
        }
        final int slot = rxTailSlot;
        MemorySegment.copy(source, offset, rxRing, (long) slot * slotBytes, length);
        rxLengths[slot] = length;
        rxTimestampsNs[slot] = timestampNs;
        rxTail++;
        rxTailSlot = slot + 1 == ringSize ? 0 : slot + 1;
        return true;
    }

    /** @return frames injected and not yet received. */
    public int pendingRx() {
        return (int) (rxTail - rxHead);
    }

    /** @return the arrival time of the next frame to receive, or {@link Long#MAX_VALUE} if none. */
    public long nextRxTimestampNs() {
        return rxTail == rxHead ? Long.MAX_VALUE : rxTimestampsNs[rxHeadSlot];
    }

    @Override
    public boolean rxWaitingSince(final long clockNs, final long epochNs) {
        final long arrivalNs = nextRxTimestampNs();
        return arrivalNs != Long.MAX_VALUE && arrivalNs < clockNs;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int receive(final RxBatch batch, final long nowNs) {
        int lent = 0;
        while (rxHead != rxTail && batch.remaining() > 0) {
            final int slot = rxHeadSlot;
            if (rxTimestampsNs[slot] - nowNs > 0) {
                break;
            }
            batch.add(rxRing, (long) slot * slotBytes, rxLengths[slot], rxTimestampsNs[slot], slot);
            rxHead++;
            rxHeadSlot = slot + 1 == ringSize ? 0 : slot + 1;
            lent++;
        }
        rxLent += lent;
        return lent;
    }

    @Override
    public void release(final RxBatch batch) {
        rxLent -= batch.count();
        batch.clear();
    }

    /** @return frames lent and not yet released (0 after every cycle: a contract test checks it). */
    public long lentFrames() {
        return rxLent;
    }

    @Override
    public boolean transmit(final MemorySegment source, final long offset, final int length, final long timestampNs) {
        if (txCount == ringSize || length > slotBytes || !linkUp) {
            return false;
        }
        MemorySegment.copy(source, offset, txRing, (long) txCount * slotBytes, length);
        txLengths[txCount] = length;
        txTimestampsNs[txCount] = timestampNs;
        txCount++;
        return true;
    }

    @Override
    public void flush() {
        flushCount++;
    }

    /**
     * Makes this port report its flush as one system call, as an AF_PACKET port's is (tests of the data plane's
     * flush timing).
     *
     * @param oneSystemCall what {@link #flushIsOneSystemCall()} returns from now on.
     * @return this.
     */
    public InMemoryPort flushIsOneSystemCall(final boolean oneSystemCall) {
        this.flushIsOneSystemCall = oneSystemCall;
        return this;
    }

    @Override
    public boolean flushIsOneSystemCall() {
        return flushIsOneSystemCall;
    }

    /** @return how many times the data path flushed this port. */
    public long flushCount() {
        return flushCount;
    }

    /** @return frames on the TX ring (transmitted and not yet taken by {@link #clearTransmitted()}). */
    public int transmittedCount() {
        return txCount;
    }

    /**
     * @param index below {@link #transmittedCount()}.
     * @return a copy of the transmitted frame (test side; allocates).
     */
    public byte[] transmitted(final int index) {
        checkTx(index);
        return txRing.asSlice((long) index * slotBytes, txLengths[index]).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * @param index below {@link #transmittedCount()}.
     * @return the transmitted frame's end-of-serialization time in emulated ns.
     */
    public long transmittedTimestampNs(final int index) {
        checkTx(index);
        return txTimestampsNs[index];
    }

    /** Empties the TX ring. */
    public void clearTransmitted() {
        txCount = 0;
    }

    /**
     * Sets the operational link state.
     *
     * @param up whether the link is up.
     */
    public void linkUp(final boolean up) {
        this.linkUp = up;
    }

    @Override
    public boolean linkUp() {
        return linkUp;
    }

    /**
     * @param mtu the new interface MTU.
     */
    public void mtu(final int mtu) {
        this.mtu = mtu;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    /**
     * @param speedMbps the new modeled speed in Mb/s.
     */
    public void speedMbps(final long speedMbps) {
        this.speedMbps = speedMbps;
    }

    @Override
    public long speedMbps() {
        return speedMbps;
    }

    @Override
    public int pollFd() {
        return -1;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    private void checkTx(final int index) {
        if (index < 0 || index >= txCount) {
            throw new IndexOutOfBoundsException("no transmitted frame " + index + " of " + txCount);
        }
    }
}
