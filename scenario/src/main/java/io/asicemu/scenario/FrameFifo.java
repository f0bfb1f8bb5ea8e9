package io.asicemu.scenario;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Frames on one cable, in arrival order: a byte ring plus arrival times. A link is one wire with a fixed delay, so
 * arrivals are non-decreasing and a FIFO is exact. Frames are copied in once and read in place.
 */
final class FrameFifo {
    private final MemorySegment ring;
    private final long[] offsets;
    private final int[] lengths;
    private final long[] arrivalNs;
    private final int mask;
    private int head;
    private int count;
    private long writeAt;
    private long overflows;

    FrameFifo(Arena arena, int ringBytes, int capacityPow2) {
        this.ring = arena.allocate(ringBytes, 64);
        this.offsets = new long[capacityPow2];
        this.lengths = new int[capacityPow2];
        this.arrivalNs = new long[capacityPow2];
        this.mask = capacityPow2 - 1;
    }

    /** Copies a frame in; false (counted) when the cable holds more than the ring, which a sane scenario never does. */
    boolean add(MemorySegment frame, long offset, int length, long atNs) {
        if (count == lengths.length) {
            overflows++;
            return false;
        }
        long start;
        long readAt = count == 0 ? writeAt : offsets[head];
        if (count == 0 || writeAt >= readAt) {
            if (writeAt + length <= ring.byteSize()) {
                start = writeAt;
            } else if (length < readAt || count == 0) {
                start = 0;
            } else {
                overflows++;
                return false;
            }
        } else if (writeAt + length < readAt) {
            start = writeAt;
        } else {
            overflows++;
            return false;
        }
        MemorySegment.copy(frame, offset, ring, start, length);
        int slot = (head + count) & mask;
        offsets[slot] = start;
        lengths[slot] = length;
        arrivalNs[slot] = atNs;
        writeAt = start + length;
        count++;
        return true;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    long headArrivalNs() {
        return count == 0 ? Long.MAX_VALUE : arrivalNs[head];
    }

    MemorySegment ring() {
        return ring;
    }

    /** The i-th frame from the head. */
    long offset(int i) {
        return offsets[(head + i) & mask];
    }

    int length(int i) {
        return lengths[(head + i) & mask];
    }

    long arrival(int i) {
        return arrivalNs[(head + i) & mask];
    }

    void removeHead(int n) {
        head = (head + n) & mask;
        count -= n;
        if (count == 0) {
            writeAt = 0;
        }
    }

    long overflows() {
        return overflows;
    }
}
