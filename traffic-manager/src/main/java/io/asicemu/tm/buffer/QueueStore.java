package io.asicemu.tm.buffer;

/**
 * The packets held in every egress queue: one preallocated pool of packet descriptors (the caller's opaque packet
 * handle, frame bytes, charged bytes and packed metadata, in parallel primitive arrays) shared by all queues, each
 * queue a singly linked FIFO through that pool, as a chip's MMU links packet descriptors per queue. Sharing the pool
 * means no queue has a packet limit of its own: the traffic manager sizes the pool to the most packets its buffer
 * model can hold (one per cell), so the buffer rules, never this store, decide admission. Tracks per-queue bytes and a
 * per-port non-empty mask. Not thread safe: data-plane thread only; no allocation after construction.
 */
public final class QueueStore {
    private static final int NONE = -1;

    private final int[] handle;
    private final int[] bytes;
    private final int[] charged;
    private final int[] meta;
    private final int[] next;
    private final int[] head;
    private final int[] tail;
    private final int[] count;
    private final long[] queueBytes;
    private final int[] nonEmptyMask;
    private int freeHead;
    private int freeCount;

    /**
     * @param portCount   number of ports.
     * @param descriptors packets all queues together can hold, ≥ 1.
     */
    public QueueStore(final int portCount, final int descriptors) {
        if (descriptors < 1) {
            throw new IllegalArgumentException("descriptors must be positive: " + descriptors);
        }
        final int n = portCount * 8;
        handle = new int[descriptors];
        bytes = new int[descriptors];
        charged = new int[descriptors];
        meta = new int[descriptors];
        next = new int[descriptors];
        for (int i = 0; i < descriptors; i++) {
            next[i] = i + 1 < descriptors ? i + 1 : NONE;
        }
        freeHead = 0;
        freeCount = descriptors;
        head = new int[n];
        tail = new int[n];
        java.util.Arrays.fill(head, NONE);
        java.util.Arrays.fill(tail, NONE);
        count = new int[n];
        queueBytes = new long[n];
        nonEmptyMask = new int[portCount];
    }

    /**
     * @param q port*8+queue (all queues share the descriptors, so the answer is the same for every queue).
     * @return true when no descriptor is free.
     */
    public boolean isFull(final int q) {
        return freeCount == 0;
    }

    /** @return descriptors all queues together can hold. */
    public int capacity() {
        return handle.length;
    }

    /** @return descriptors in use. */
    public int inUse() {
        return handle.length - freeCount;
    }

    /**
     * Append a packet (caller checked {@link #isFull}).
     *
     * @param q             port*8+queue.
     * @param packetHandle  opaque handle.
     * @param frameBytes    frame length.
     * @param chargedBytes  cell-rounded length.
     * @param packedMeta    metadata.
     */
    public void push(
            final int q, final int packetHandle, final int frameBytes, final int chargedBytes, final int packedMeta) {
        final int d = freeHead;
        freeHead = next[d];
        freeCount--;
        handle[d] = packetHandle;
        bytes[d] = frameBytes;
        charged[d] = chargedBytes;
        meta[d] = packedMeta;
        next[d] = NONE;
        final int t = tail[q];
        if (t == NONE) {
            head[q] = d;
        } else {
            next[t] = d;
        }
        tail[q] = d;
        count[q]++;
        queueBytes[q] += chargedBytes;
        nonEmptyMask[q >> 3] |= 1 << (q & 7);
    }

    /**
     * @param q port*8+queue (non-empty).
     * @return the slot (descriptor) of the head packet, for the accessors below.
     */
    public int headSlot(final int q) {
        return head[q];
    }

    /**
     * Remove the head packet (read it through {@link #headSlot} first).
     *
     * @param q port*8+queue (non-empty).
     */
    public void pop(final int q) {
        final int d = head[q];
        queueBytes[q] -= charged[d];
        final int after = next[d];
        head[q] = after;
        next[d] = freeHead;
        freeHead = d;
        freeCount++;
        if (--count[q] == 0) {
            tail[q] = NONE;
            nonEmptyMask[q >> 3] &= ~(1 << (q & 7));
        }
    }

    /** @param slot slot. @return handle. */
    public int handle(final int slot) {
        return handle[slot];
    }

    /** @param slot slot. @return frame bytes. */
    public int bytes(final int slot) {
        return bytes[slot];
    }

    /** @param slot slot. @return charged bytes. */
    public int charged(final int slot) {
        return charged[slot];
    }

    /** @param slot slot. @return packed metadata. */
    public int meta(final int slot) {
        return meta[slot];
    }

    /** @param q port*8+queue. @return packets queued. */
    public int count(final int q) {
        return count[q];
    }

    /** @param q port*8+queue. @return charged bytes queued. */
    public long queueBytes(final int q) {
        return queueBytes[q];
    }

    /** @param port port. @return bit q set when queue q of the port holds packets. */
    public int nonEmptyMask(final int port) {
        return nonEmptyMask[port];
    }

    /** @param q port*8+queue (non-empty). @return frame bytes of the head packet. */
    public int headBytes(final int q) {
        return bytes[head[q]];
    }
}
