package io.asicemu.pipeline.port;

import java.lang.foreign.MemorySegment;

/**
 * A preallocated batch of received frames that a {@link Port} lends to the data path without copying.
 * <p>
 * Each slot names a frame as (segment, offset, length) plus its receive timestamp in emulated ns and a port-private
 * cookie (for example the ring frame index the port needs to give the frame back). The frames stay the port's memory:
 * they are valid, and may be rewritten in place, from {@link Port#receive} until {@link Port#release} for this batch;
 * after that the data path must not touch them. The segment is usually one large ring segment shared by all slots, so
 * lending a frame allocates nothing.
 * <p>
 * Not thread safe: owned by the data-plane thread, one batch per port, reused every cycle.
 */
public final class RxBatch {
    /** A batch size that pays for the per-batch costs without hurting latency. */
    public static final int DEFAULT_CAPACITY = 64;

    private final MemorySegment[] segments;
    private final long[] offsets;
    private final int[] lengths;
    private final long[] timestampsNs;
    private final long[] cookies;
    private int count;

    /** A batch of {@link #DEFAULT_CAPACITY} slots. */
    public RxBatch() {
        this(DEFAULT_CAPACITY);
    }

    /**
     * A batch of {@code capacity} slots.
     *
     * @param capacity the most frames one receive may lend, at least 1.
     */
    public RxBatch(final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
        segments = new MemorySegment[capacity];
        offsets = new long[capacity];
        lengths = new int[capacity];
        timestampsNs = new long[capacity];
        cookies = new long[capacity];
    }

    /**
     * Called by the port while it fills the batch: appends one lent frame.
     *
     * @param segment the memory holding the frame (native, big-endian access expected by the parser).
     * @param offset where the frame starts in {@code segment}.
     * @param length the frame length in bytes, without FCS.
     * @param timestampNs when the frame was received, in emulated ns.
     * @param cookie a value private to the port, returned by {@link #cookie(int)}.
     * @return false if the batch is full (nothing was added).
     */
    public boolean add(
            final MemorySegment segment,
            final long offset,
            final int length,
            final long timestampNs,
            final long cookie) {
        if (count == segments.length) {
            return false;
        }
        if (segments[count] != segment) { // a port lends from one ring: skip the GC barriers of an unchanged store
            segments[count] = segment;
        }
        offsets[count] = offset;
        lengths[count] = length;
        timestampsNs[count] = timestampNs;
        cookies[count] = cookie;
        count++;
        return true;
    }

    /** @return how many frames are lent. */
    public int count() {
        return count;
    }

    /** @return the number of slots. */
    public int capacity() {
        return segments.length;
    }

    /** @return how many more frames fit. */
    public int remaining() {
        return segments.length - count;
    }

    /**
     * @param slot a slot below {@link #count()}.
     * @return the segment holding the frame.
     */
    public MemorySegment segment(final int slot) {
        return segments[slot];
    }

    /**
     * @param slot a slot below {@link #count()}.
     * @return the frame's offset in its segment.
     */
    public long offset(final int slot) {
        return offsets[slot];
    }

    /**
     * @param slot a slot below {@link #count()}.
     * @return the frame's length in bytes.
     */
    public int length(final int slot) {
        return lengths[slot];
    }

    /**
     * @param slot a slot below {@link #count()}.
     * @return when the frame was received, in emulated ns.
     */
    public long timestampNs(final int slot) {
        return timestampsNs[slot];
    }

    /**
     * @param slot a slot below {@link #count()}.
     * @return the port-private cookie given to {@link #add}.
     */
    public long cookie(final int slot) {
        return cookies[slot];
    }

    /** Called by the port in {@link Port#release}: forgets every slot (segment references are kept for reuse). */
    public void clear() {
        count = 0;
    }
}
