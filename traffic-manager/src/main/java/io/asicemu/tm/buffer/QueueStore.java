package io.asicemu.tm.buffer;

/**
 * The packets held in every egress queue: one preallocated ring per queue of parallel primitive arrays (the caller's
 * opaque packet handle, frame bytes, charged bytes and packed metadata). Tracks per-queue bytes and a per-port
 * non-empty mask. Not thread safe: data-plane thread only; no allocation after construction.
 */
public final class QueueStore
{
    private final int capacity;
    private final int mask;
    private final int shift;
    private final int[] handle;
    private final int[] bytes;
    private final int[] charged;
    private final int[] meta;
    private final int[] head;
    private final int[] count;
    private final long[] queueBytes;
    private final int[] nonEmptyMask;

    /**
     * @param portCount         number of ports.
     * @param capacityPerQueue  ring size per queue, a power of two.
     */
    public QueueStore(final int portCount, final int capacityPerQueue)
    {
        if (Integer.bitCount(capacityPerQueue) != 1)
        {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacityPerQueue);
        }
        capacity = capacityPerQueue;
        mask = capacityPerQueue - 1;
        shift = Integer.numberOfTrailingZeros(capacityPerQueue);
        final int n = portCount * 8;
        handle = new int[n * capacityPerQueue];
        bytes = new int[n * capacityPerQueue];
        charged = new int[n * capacityPerQueue];
        meta = new int[n * capacityPerQueue];
        head = new int[n];
        count = new int[n];
        queueBytes = new long[n];
        nonEmptyMask = new int[portCount];
    }

    /**
     * @param q port*8+queue.
     * @return true when the ring has no free slot.
     */
    public boolean isFull(final int q)
    {
        return count[q] == capacity;
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
    public void push(final int q, final int packetHandle, final int frameBytes, final int chargedBytes,
        final int packedMeta)
    {
        final int slot = (q << shift) + ((head[q] + count[q]) & mask);
        handle[slot] = packetHandle;
        bytes[slot] = frameBytes;
        charged[slot] = chargedBytes;
        meta[slot] = packedMeta;
        count[q]++;
        queueBytes[q] += chargedBytes;
        nonEmptyMask[q >> 3] |= 1 << (q & 7);
    }

    /**
     * @param q port*8+queue (non-empty).
     * @return the slot of the head packet, for the accessors below.
     */
    public int headSlot(final int q)
    {
        return (q << shift) + head[q];
    }

    /**
     * Remove the head packet (read it through {@link #headSlot} first).
     *
     * @param q port*8+queue (non-empty).
     */
    public void pop(final int q)
    {
        final int slot = (q << shift) + head[q];
        queueBytes[q] -= charged[slot];
        head[q] = (head[q] + 1) & mask;
        if (--count[q] == 0)
        {
            nonEmptyMask[q >> 3] &= ~(1 << (q & 7));
        }
    }

    /** @param slot slot. @return handle. */
    public int handle(final int slot)
    {
        return handle[slot];
    }

    /** @param slot slot. @return frame bytes. */
    public int bytes(final int slot)
    {
        return bytes[slot];
    }

    /** @param slot slot. @return charged bytes. */
    public int charged(final int slot)
    {
        return charged[slot];
    }

    /** @param slot slot. @return packed metadata. */
    public int meta(final int slot)
    {
        return meta[slot];
    }

    /** @param q port*8+queue. @return packets queued. */
    public int count(final int q)
    {
        return count[q];
    }

    /** @param q port*8+queue. @return charged bytes queued. */
    public long queueBytes(final int q)
    {
        return queueBytes[q];
    }

    /** @param port port. @return bit q set when queue q of the port holds packets. */
    public int nonEmptyMask(final int port)
    {
        return nonEmptyMask[port];
    }

    /** @param q port*8+queue (non-empty). @return frame bytes of the head packet. */
    public int headBytes(final int q)
    {
        return bytes[(q << shift) + head[q]];
    }
}
