package io.asicemu.tm;

/**
 * What {@link TrafficManager#dequeue(long, int, DequeueVerdict)} decided for the frame it started: its queue, length,
 * ECN bits (CE when WRED marked it), the queue depth WRED judged and when its last bit leaves the port. The caller owns
 * one instance and hands it to every dequeue, which overwrites it, so no object is made per packet.
 * <p>
 * Not thread safe: used on the data-plane thread with the traffic manager that fills it.
 */
public final class DequeueVerdict {
    private int handle = TrafficManager.NO_PACKET;
    private int queue = -1;
    private int bytes;
    private int ecn;
    private boolean marked;
    private long depthBytes;
    private long txEndNs;

    /** @return the handle dequeue returned, or {@link TrafficManager#NO_PACKET}. */
    public int handle() {
        return handle;
    }

    /**
     * @return the egress queue of the frame dequeue returned, or of the last one it dropped (WRED, watchdog) when it
     *     returned none; -1 before any.
     */
    public int queue() {
        return queue;
    }

    /** @return frame bytes (without FCS) of the frame dequeue returned. */
    public int bytes() {
        return bytes;
    }

    /** @return the ECN bits the frame leaves with: CE when marked, else the bits it was admitted with. */
    public int ecn() {
        return ecn;
    }

    /** @return true when WRED marked the frame CE (at dequeue, or at admit with {@code TmOptions.wredAtEnqueue}). */
    public boolean marked() {
        return marked;
    }

    /**
     * @return the queue's depth in charged bytes, this frame included, when it was taken off the queue (what WRED at
     *     dequeue judges); also set before a dropped frame reaches the {@link DropSink}.
     */
    public long depthBytes() {
        return depthBytes;
    }

    /** @return when the frame's last bit leaves the port (emulated ns). */
    public long txEndNs() {
        return txEndNs;
    }

    void taken(final int queue, final long depthBytes) {
        this.handle = TrafficManager.NO_PACKET;
        this.queue = queue;
        this.depthBytes = depthBytes;
    }

    void started(final int handle, final int bytes, final int ecn, final boolean marked, final long txEndNs) {
        this.handle = handle;
        this.bytes = bytes;
        this.ecn = ecn;
        this.marked = marked;
        this.txEndNs = txEndNs;
    }

    void none() {
        this.handle = TrafficManager.NO_PACKET;
    }
}
