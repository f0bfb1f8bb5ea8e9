package io.asicemu.veth.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An epoll(7) set over file descriptors (port fds, the netlink fd): the idle half of the real-time loop, which
 * blocks here until a descriptor is readable or the next timer deadline passes, so an idle switch costs nothing.
 * epoll rather than poll: a wake-up costs the same with 1 or 64 ports registered.
 * <p>
 * Threading: {@link #await(long)} is called by one thread (the data-plane thread) and allocates nothing; {@link #add}
 * and {@link #remove} may be called from a control thread meanwhile (they serialize among themselves; the kernel makes
 * epoll_ctl safe against a concurrent epoll_wait, and a newly added readable descriptor wakes the waiter).
 */
public final class PollSet implements AutoCloseable {
    private static final long EVENT_SIZE = Kernel.EPOLL_EVENT.byteSize();

    /**
     * epoll_data in a packed {@code struct epoll_event} (4-byte aligned). One constant: a layout made per call
     * ({@code withByteAlignment}) allocates and looks its var handle up every time, on the data plane's every wake-up.
     */
    private static final ValueLayout.OfLong EPOLL_DATA_LAYOUT = JAVA_LONG.withByteAlignment(4);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment controlErrno = Libc.newErrnoSegment(arena);
    private final MemorySegment events;
    private final MemorySegment control;
    /** A {@code struct timespec} for epoll_pwait2's timeout. */
    private final MemorySegment timespec;
    /** Whether waits take ns timeouts (epoll_pwait2); false: whole ms (epoll_wait), e.g. on a kernel before 5.11. */
    private boolean nanosecondTimeouts = Libc.hasEpollPwait2();

    private final int capacity;
    private final int epfd;
    private int count;

    /** @param capacity the most descriptors the set holds. */
    public PollSet(final int capacity) {
        this.capacity = capacity;
        this.events = arena.allocate(EVENT_SIZE * capacity, 8);
        this.control = arena.allocate(EVENT_SIZE, 8);
        this.timespec = arena.allocate(16, 8);
        this.epfd = Libc.epollCreate1(errno, Kernel.EPOLL_CLOEXEC);
        if (epfd < 0) {
            final String message = Libc.describe("epoll_create1", errno);
            arena.close();
            throw new IllegalStateException(message);
        }
    }

    /**
     * Adds a descriptor to wait on for readability (errors and hang-ups wake too).
     *
     * @param fd the descriptor (ignored if negative).
     * @return how many descriptors the set holds.
     */
    public synchronized int add(final int fd) {
        if (fd < 0) {
            return count;
        }
        if (count == capacity) {
            throw new IllegalStateException("poll set full: " + capacity);
        }
        control.set(JAVA_INT, Kernel.EPOLL_EVENTS, Kernel.EPOLLIN);
        control.set(EPOLL_DATA_LAYOUT, Kernel.EPOLL_DATA, fd);
        if (Libc.epollCtl(controlErrno, epfd, Kernel.EPOLL_CTL_ADD, fd, control) < 0) {
            throw new IllegalStateException(Libc.describe("epoll_ctl ADD " + fd, controlErrno));
        }
        return ++count;
    }

    /** Removes {@code fd} (a closed descriptor is removed by the kernel already; that is not an error). */
    public synchronized void remove(final int fd) {
        if (Libc.epollCtl(controlErrno, epfd, Kernel.EPOLL_CTL_DEL, fd, control) == 0) {
            count--;
        }
    }

    /** @return how many descriptors are in the set. */
    public synchronized int size() {
        return count;
    }

    /**
     * Blocks until a descriptor is readable (or in error) or {@code timeoutNs} passed. A signal interruption counts as
     * a timeout. Timeouts are kept to the ns (epoll_pwait2) where the kernel can: the traffic manager's next frame or a
     * full TX ring's retry is due in µs, and epoll_wait's whole milliseconds would leave the port idle (and its RX
     * ring filling) for up to a millisecond; where it cannot, they are rounded up to whole ms.
     *
     * @param timeoutNs the longest wait in ns (negative: wait forever; 0: just check).
     * @return how many descriptors are ready.
     */
    public int await(final long timeoutNs) {
        int ready;
        if (timeoutNs > 0 && nanosecondTimeouts) {
            timespec.set(JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
            timespec.set(JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
            ready = Libc.epollPwait2(errno, epfd, events, Math.max(1, capacity), timespec);
            if (ready < 0 && Libc.errno(errno) == Kernel.ENOSYS) {
                nanosecondTimeouts = false; // the C library has it, the kernel does not: whole ms from now on
                return await(timeoutNs);
            }
        } else {
            final int timeoutMs =
                    timeoutNs < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, (timeoutNs + 999_999) / 1_000_000);
            ready = Libc.epollWait(errno, epfd, events, Math.max(1, capacity), timeoutMs);
        }
        if (ready < 0) {
            if (Libc.errno(errno) == Kernel.EINTR) {
                return 0;
            }
            throw new IllegalStateException(Libc.describe("epoll_wait", errno));
        }
        return ready;
    }

    /** @return whether {@link #await} keeps timeouts to the ns (epoll_pwait2) rather than rounding up to whole ms. */
    public boolean nanosecondTimeouts() {
        return nanosecondTimeouts;
    }

    /**
     * Whether {@code fd} is among the descriptors the last {@link #await} reported ready, so that a wake-up caused by a
     * port does not also read an eventfd that has nothing to give (one system call per wake-up saved). The data-plane
     * thread, after {@code await}; allocates nothing.
     *
     * @param fd a descriptor in the set.
     * @param ready what the last {@link #await} returned.
     * @return true if {@code fd} was ready.
     */
    public boolean wasReady(final int fd, final int ready) {
        for (int i = 0; i < ready; i++) {
            if (events.get(EPOLL_DATA_LAYOUT, i * EVENT_SIZE + Kernel.EPOLL_DATA) == fd) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            Libc.close(errno, epfd);
            arena.close();
        }
    }
}
