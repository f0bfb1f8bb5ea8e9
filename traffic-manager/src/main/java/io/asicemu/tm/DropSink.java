package io.asicemu.tm;

/**
 * Receives the handles of packets the traffic manager drops after it admitted them (WRED at dequeue, watchdog drop
 * action), so the caller can free the frames. Drops refused at {@code admit} are returned from admit instead and
 * the handle stays with the caller. Called on the data-plane thread from {@code dequeue}.
 */
@FunctionalInterface
public interface DropSink {
    /**
     * @param nowNs  emulated time.
     * @param handle the caller's packet handle given to admit.
     * @param port   egress port.
     * @param queue  egress queue.
     * @param reason {@link TrafficManager#DROP_WRED} or {@link TrafficManager#DROP_PFCWD}.
     */
    void onDropped(long nowNs, int handle, int port, int queue, int reason);
}
