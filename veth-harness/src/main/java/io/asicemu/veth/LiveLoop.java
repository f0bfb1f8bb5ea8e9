package io.asicemu.veth;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.time.MonotonicClock;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.PollSet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.agrona.concurrent.Agent;

/**
 * Runs a data-plane agent in real time on its own platform thread: duty cycles back to back while there is work;
 * when a cycle did nothing, block in epoll on the ports' descriptors until one is readable, the agent's next timer
 * deadline (emulated time, converted to real time by the clock's dilation) is due, or {@link #wakeup()} is called
 * (after a control command, so commands never wait for traffic). Idle costs nothing.
 * <p>
 * Low-latency mode (opt-in, {@code busyPollNs > 0}): after the last cycle that did work, the loop keeps polling the
 * rings for up to {@code busyPollNs} before it sleeps in epoll, like Linux's busy-poll or DPDK's power management:
 * a frame that arrives within that window is picked up without the epoll wake-up (≈ 40 µs on a VM). The window
 * restarts with every frame, so under steady traffic the loop never sleeps and costs a core; once traffic stops it
 * sleeps again after the window, so idle still costs nothing.
 * <p>
 * Threading: {@link #watch}, {@link #unwatch}, {@link #wakeup()} and {@link #close()} may be called from any thread;
 * the agent runs only on the loop thread. The loop calls the agent's {@code onStart}, not its {@code onClose}: the
 * agent's owner (e.g. {@code Pipeline.close()}) releases it after {@link #close()} returned.
 */
public final class LiveLoop implements AutoCloseable {
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;

    private final Agent agent;
    private final MonotonicClock clock;
    private final LongSupplier nextDeadlineNs;
    private final PollSet pollSet;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment wakeErrno = Libc.newErrnoSegment(arena);
    private final MemorySegment eventValue = arena.allocate(JAVA_LONG);
    private final MemorySegment wakeValue = arena.allocate(JAVA_LONG);
    private final int eventFd;
    private final Thread thread;
    private final long busyPollNs;
    private volatile boolean running = true;
    private volatile Throwable failure;
    private volatile long cycles;
    /** The loop thread's Linux thread id once it runs (low-latency mode only), else 0. */
    private volatile int threadId;

    /**
     * @param agent the data-plane agent.
     * @param clock the clock the agent reads (its dilation converts deadlines to real waits).
     * @param nextDeadlineNs the agent's next timer deadline in emulated ns ({@link Long#MAX_VALUE}: none).
     * @param maxPorts the most ports watched at once.
     */
    public LiveLoop(
            final Agent agent, final MonotonicClock clock, final LongSupplier nextDeadlineNs, final int maxPorts) {
        this(agent, clock, nextDeadlineNs, maxPorts, 0);
    }

    /**
     * @param agent the data-plane agent.
     * @param clock the clock the agent reads (its dilation converts deadlines to real waits).
     * @param nextDeadlineNs the agent's next timer deadline in emulated ns ({@link Long#MAX_VALUE}: none).
     * @param maxPorts the most ports watched at once.
     * @param busyPollNs how long (real ns) to keep polling after the last cycle with work before sleeping in epoll;
     *                   0: sleep at once (the default mode).
     */
    public LiveLoop(
            final Agent agent,
            final MonotonicClock clock,
            final LongSupplier nextDeadlineNs,
            final int maxPorts,
            final long busyPollNs) {
        if (busyPollNs < 0) {
            throw new IllegalArgumentException("busyPollNs must be >= 0: " + busyPollNs);
        }
        this.busyPollNs = busyPollNs;
        this.agent = agent;
        this.clock = clock;
        this.nextDeadlineNs = nextDeadlineNs;
        this.pollSet = new PollSet(maxPorts + 1);
        this.eventFd = Libc.eventfd(errno, 0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (eventFd < 0) {
            throw new IllegalStateException(Libc.describe("eventfd", errno));
        }
        pollSet.add(eventFd);
        wakeValue.set(JAVA_LONG, 0, 1L);
        this.thread = new Thread(this::run, agent.roleName());
    }

    /** Starts the loop thread. */
    public LiveLoop start() {
        thread.start();
        return this;
    }

    /** Wakes on {@code port}'s descriptor from now on (call when attaching it). */
    public void watch(final Port port) {
        pollSet.add(port.pollFd());
        wakeup();
    }

    /** Stops waking on {@code port} (call before closing it). */
    public void unwatch(final Port port) {
        if (port.pollFd() >= 0) {
            pollSet.remove(port.pollFd());
        }
    }

    /** Ends the current or next idle wait at once (after submitting a command). */
    public void wakeup() {
        synchronized (wakeValue) {
            Libc.write(wakeErrno, eventFd, wakeValue, 8);
        }
    }

    /** @return the busy-poll window in ns (0: the default, sleep in epoll as soon as a cycle did nothing). */
    public long busyPollNs() {
        return busyPollNs;
    }

    /**
     * Low-latency mode: lowers every other thread of this process (GC, the JVM's service threads, the control plane;
     * the caller too, so that the threads it starts later inherit the value) to nice {@link ThreadPriorities#LOWEST},
     * except those whose name {@code keepName} accepts (e.g. {@link ThreadPriorities#isJitCompiler}), so that on a CPU
     * they share with the busy-polling loop thread they take it only when it leaves it (the scheduler weighs a nice-19
     * thread at 1.5 % of a nice-0 one). Only lowering needs no privilege; the loop thread keeps its own value. Call once
     * the process has started its threads (e.g. when the switch is up). The default mode changes nothing: its loop
     * sleeps when idle and competes with nobody.
     *
     * @param keepName the names ({@code comm}) of other threads that keep their priority.
     * @return threads lowered (0 in the default mode).
     */
    public int yieldOtherThreads(final Predicate<String> keepName) {
        if (busyPollNs == 0) {
            return 0;
        }
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (threadId == 0 && failure == null && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L); // the loop thread publishes its id first thing
        }
        if (threadId == 0) {
            throw new IllegalStateException("the data-plane loop thread is not running", failure);
        }
        return ThreadPriorities.lowerAllBut(threadId, ThreadPriorities.LOWEST, keepName);
    }

    /** @return the loop thread's Linux thread id in the low-latency mode once started, else 0. */
    public int threadId() {
        return threadId;
    }

    /** @return duty cycles run so far. */
    public long cycles() {
        return cycles;
    }

    private void run() {
        try {
            if (busyPollNs > 0) {
                threadId = ThreadPriorities.currentThreadId();
            }
            agent.onStart();
            long count = 0;
            long lastWorkNs = System.nanoTime() - busyPollNs;
            while (running) {
                final int work = agent.doWork();
                cycles = ++count;
                if (work > 0) {
                    if (busyPollNs > 0) {
                        lastWorkNs = System.nanoTime();
                    }
                } else if (busyPollNs > 0 && System.nanoTime() - lastWorkNs < busyPollNs) {
                    Thread.onSpinWait(); // low-latency mode: poll the rings a while longer before sleeping
                } else {
                    idle();
                }
            }
        } catch (final Throwable t) {
            failure = t;
        }
    }

    private void idle() {
        final long deadlineNs = nextDeadlineNs.getAsLong();
        // No timer due: sleep until a port is readable or wakeup() (a command was submitted). Idle costs nothing.
        long timeoutNs = -1;
        if (deadlineNs != Long.MAX_VALUE) {
            timeoutNs = clock.toRealNs(deadlineNs - clock.nowNs());
            if (timeoutNs <= 0) {
                return;
            }
        }
        final int ready = pollSet.await(timeoutNs);
        // Drain the eventfd only when it woke us: a port's frame is the usual cause, and a read that finds nothing
        // is one more system call per frame at low rates (where a VM's syscalls cost most).
        if (ready > 0 && pollSet.wasReady(eventFd, ready)) {
            Libc.read(errno, eventFd, eventValue, 8);
        }
    }

    /**
     * Stops the loop and waits for it.
     *
     * @throws IllegalStateException if the loop died of an exception.
     */
    @Override
    public void close() {
        running = false;
        wakeup();
        try {
            thread.join(5_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pollSet.close();
        Libc.close(errno, eventFd);
        if (failure != null) {
            throw new IllegalStateException("data-plane loop failed", failure);
        }
    }

    /** @return the exception that ended the loop, or null. */
    public Throwable failure() {
        return failure;
    }
}
