package io.asicemu.veth.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A fixed-capacity poll(2) set over file descriptors (port fds, the netlink fd): the idle half of the real-time loop,
 * which blocks here until a port is readable or the next timer deadline passes, so an idle switch costs nothing.
 * <p>
 * Not thread safe: owned by one thread (the data-plane thread). {@link #await(long)} allocates nothing.
 */
public final class PollSet implements AutoCloseable {
    private static final long POLLFD_SIZE = Kernel.POLLFD.byteSize();

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment fds;
    private final int capacity;
    private int count;

    /** @param capacity the most descriptors the set holds. */
    public PollSet(final int capacity) {
        this.capacity = capacity;
        this.fds = arena.allocate(POLLFD_SIZE * capacity, 8);
    }

    /**
     * Adds a descriptor to wait on for readability.
     *
     * @param fd the descriptor (ignored if negative).
     * @return its index in the set, or -1 if {@code fd} was negative.
     */
    public int add(final int fd) {
        if (fd < 0) {
            return -1;
        }
        if (count == capacity) {
            throw new IllegalStateException("poll set full: " + capacity);
        }
        final long at = count * POLLFD_SIZE;
        fds.set(JAVA_INT, at + Kernel.POLLFD_FD, fd);
        fds.set(JAVA_SHORT, at + Kernel.POLLFD_EVENTS, Kernel.POLLIN);
        fds.set(JAVA_SHORT, at + Kernel.POLLFD_REVENTS, (short) 0);
        return count++;
    }

    /** Removes {@code fd} (moving the last entry into its place). */
    public void remove(final int fd) {
        for (int i = 0; i < count; i++) {
            if (fds.get(JAVA_INT, i * POLLFD_SIZE + Kernel.POLLFD_FD) == fd) {
                MemorySegment.copy(fds, (count - 1) * POLLFD_SIZE, fds, i * POLLFD_SIZE, POLLFD_SIZE);
                count--;
                return;
            }
        }
    }

    /** @return how many descriptors are in the set. */
    public int size() {
        return count;
    }

    /**
     * Blocks until a descriptor is readable (or in error) or {@code timeoutNs} passed. A signal interruption counts as
     * a timeout.
     *
     * @param timeoutNs the longest wait in ns (rounded up to whole ms; negative: wait forever; 0: just check).
     * @return how many descriptors are ready.
     */
    public int await(final long timeoutNs) {
        final int timeoutMs = timeoutNs < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, (timeoutNs + 999_999) / 1_000_000);
        final int ready = Libc.poll(errno, fds, count, timeoutMs);
        if (ready < 0) {
            if (Libc.errno(errno) == Kernel.EINTR) {
                return 0;
            }
            throw new IllegalStateException(Libc.describe("poll", errno));
        }
        return ready;
    }

    /**
     * @param index an index returned by {@link #add(int)}.
     * @return the revents of the last {@link #await(long)} for it.
     */
    public int revents(final int index) {
        return fds.get(JAVA_SHORT, index * POLLFD_SIZE + Kernel.POLLFD_REVENTS) & 0xffff;
    }

    /**
     * @param index an index below {@link #size()}.
     * @return the descriptor at that index.
     */
    public int fd(final int index) {
        return fds.get(JAVA_INT, index * POLLFD_SIZE + Kernel.POLLFD_FD);
    }

    @Override
    public void close() {
        arena.close();
    }
}
