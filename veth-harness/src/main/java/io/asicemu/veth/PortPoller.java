package io.asicemu.veth;

import io.asicemu.pipeline.port.Port;
import io.asicemu.veth.ffm.PollSet;

/**
 * The idle half of the real-time data-plane loop: when a duty cycle did no work, block in poll(2) on every port's
 * descriptor until one is readable or the next timer deadline is due, so idle ports cost no CPU (VPP's timed epoll).
 * <p>
 * Not thread safe: owned by the data-plane thread, which also adds and removes ports (from its command queue).
 * {@link #idle} allocates nothing.
 */
final class PortPoller implements AutoCloseable {
    private final PollSet pollSet;

    /** @param capacity the most ports (and extra descriptors). */
    public PortPoller(final int capacity) {
        this.pollSet = new PollSet(capacity);
    }

    /** Adds a port's descriptor (ports without one, such as in-memory ports, are ignored). */
    public void add(final Port port) {
        pollSet.add(port.pollFd());
    }

    /** Adds another descriptor to wake on (a command queue's eventfd, the netlink socket). */
    public void addFd(final int fd) {
        pollSet.add(fd);
    }

    /** Removes a port's descriptor. */
    public void remove(final Port port) {
        if (port.pollFd() >= 0) {
            pollSet.remove(port.pollFd());
        }
    }

    /**
     * Blocks until a port is readable or {@code deadlineNs} (on the same clock as {@code nowNs}) is reached.
     *
     * @param nowNs the current time.
     * @param deadlineNs the next timer deadline ({@link Long#MAX_VALUE}: none, wait for traffic only).
     * @return how many descriptors are ready.
     */
    public int idle(final long nowNs, final long deadlineNs) {
        if (deadlineNs == Long.MAX_VALUE) {
            return pollSet.await(-1);
        }
        final long timeoutNs = deadlineNs - nowNs;
        return timeoutNs <= 0 ? 0 : pollSet.await(timeoutNs);
    }

    /** @return how many descriptors are ready now (poll with a zero timeout; never blocks). */
    public int check() {
        return pollSet.await(0);
    }

    @Override
    public void close() {
        pollSet.close();
    }
}
