package io.asicemu.switchd;

import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.rdma.host.RoceHost;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.ffm.PollSet;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The endpoint model on a Linux port in real time: frames from an AF_PACKET port go to a {@link RoceHost}, what it
 * sends goes out of the port, and the loop sleeps until the host's next event. Three ways to wait, by length: epoll
 * (whole milliseconds, woken by a frame) for waits of {@value #EPOLL_FROM_NS} ns and more; {@link LockSupport#parkNanos}
 * (nanosecond timeout, the kernel's timer slack late) for the pacing gaps between {@value #PARK_FROM_NS} ns and that,
 * aiming early by the lateness it measured; a spin only for what is left below the measured lateness. So pacing at
 * the DCQCN rate stays within tens of microseconds without burning a core: a sender at a few Mb/s mostly sleeps.
 * Single-threaded: one thread runs {@link #run}.
 */
final class LiveRoceHost implements AutoCloseable {
    /** From this wait on, sleep in epoll (it times whole milliseconds; one is left for the finer waits). */
    private static final long EPOLL_FROM_NS = 2_000_000;
    /** From this wait on (and below {@link #EPOLL_FROM_NS}), park the thread instead of spinning. */
    static final long PARK_FROM_NS = 100_000;

    private static final long MAX_SLEEP_NS = 100_000_000;
    /**
     * Bounds of the lateness estimate. Linux's default timer slack for normal threads is 50 µs; a park that wakes later
     * than {@link #PARK_FROM_NS} was held up by a busy run queue, which spinning would not have avoided (the spinning
     * thread waits for a core just the same, and takes it from the switches when it has one), so the estimate, and the
     * spin that makes up for it, stays below that.
     */
    private static final long MIN_LATENESS_NS = 5_000;

    private static final long MAX_LATENESS_NS = PARK_FROM_NS;

    /** Why {@link #run} returned. */
    enum Stop {
        /** the caller's done condition held (every message acknowledged) */
        DONE,
        /** the deadline passed */
        DEADLINE,
        /** no frame for this host within the idle time, after at least one */
        IDLE
    }

    private final AfPacketPort port;
    private final RoceHost host;
    private final RxBatch batch = new RxBatch();
    private final PollSet poll = new PollSet(1);
    private final RoceHost.Wire wire;
    private long txRefused;
    /** How late a park wakes, a moving average (1/8 per park): what the next park aims early by. */
    private long parkLatenessNs = 50_000;

    private long parks;
    private long spinNs;

    LiveRoceHost(final AfPacketPort port, final RoceHost host) {
        this.port = port;
        this.host = host;
        this.poll.add(port.pollFd());
        // A full TX ring is pushed to the kernel and tried once more; a frame still refused is lost on the wire
        // (counted) and the RC stream recovers it, as a NIC's would after a drop.
        this.wire = (frame, offset, length, departNs) -> {
            if (!port.transmit(frame, offset, length, departNs)) {
                port.flush();
                if (!port.transmit(frame, offset, length, departNs)) {
                    txRefused++;
                }
            }
        };
    }

    /**
     * Runs until {@code done} says so, {@code deadlineNs} (monotonic) passes, or, with {@code idleExitNs} > 0, no frame
     * for this host arrived for that long after the first one did (a receiver that outlives its sender).
     */
    Stop run(
            final long deadlineNs,
            final long idleExitNs,
            final BooleanSupplier done,
            final Runnable everyPeriod,
            final long periodNs) {
        long nextReportNs = System.nanoTime() + periodNs;
        long lastFrameForHostNs = 0;
        long ignoredBefore = host.framesIgnored();
        while (!done.getAsBoolean()) {
            final long now = System.nanoTime();
            if (now >= deadlineNs) {
                return Stop.DEADLINE;
            }
            final int n = port.receive(batch, now);
            for (int i = 0; i < n; i++) {
                host.onFrame(batch.segment(i), batch.offset(i), batch.length(i), now);
            }
            if (n > 0) {
                port.release(batch);
                final long ignored = host.framesIgnored();
                if (ignored - ignoredBefore < n) {
                    lastFrameForHostNs = now;
                }
                ignoredBefore = ignored;
            } else if (idleExitNs > 0 && lastFrameForHostNs != 0 && now - lastFrameForHostNs >= idleExitNs) {
                return Stop.IDLE;
            }
            host.advanceTo(now, wire);
            port.flush();
            if (now >= nextReportNs) {
                everyPeriod.run();
                nextReportNs += periodNs;
            }
            if (n == batch.capacity()) {
                continue;
            }
            long next = Math.min(Math.min(host.nextEventNs(), deadlineNs), nextReportNs);
            if (idleExitNs > 0 && lastFrameForHostNs != 0) {
                next = Math.min(next, lastFrameForHostNs + idleExitNs);
            }
            await(next);
        }
        return Stop.DONE;
    }

    /**
     * Takes frames for {@code drainNs} more without sending anything: the ACKs and CNPs answering frames already sent
     * (still queued in the fabric when the sender stopped) are counted, so that a receiver's "CNPs sent" and this
     * sender's "CNPs received" can be compared.
     */
    void drain(final long drainNs) {
        final long endNs = System.nanoTime() + drainNs;
        for (long now = System.nanoTime(); now < endNs; now = System.nanoTime()) {
            final int n = port.receive(batch, now);
            for (int i = 0; i < n; i++) {
                host.onFrame(batch.segment(i), batch.offset(i), batch.length(i), now);
            }
            if (n > 0) {
                port.release(batch);
            } else {
                poll.await(Math.min(endNs - now, MAX_SLEEP_NS));
            }
        }
    }

    /** Waits until {@code nextNs}, or less when a frame arrives during an epoll sleep. */
    private void await(final long nextNs) {
        final long wait = nextNs - System.nanoTime();
        if (wait >= EPOLL_FROM_NS) {
            poll.await(Math.min(wait - 1_000_000, MAX_SLEEP_NS));
        } else if (wait >= PARK_FROM_NS) {
            final long aimNs = nextNs - parkLatenessNs;
            LockSupport.parkNanos(aimNs - System.nanoTime());
            final long late = System.nanoTime() - aimNs;
            // an early return (a spurious wake-up) says nothing about the slack; it only loops once more
            if (late >= 0) {
                parkLatenessNs =
                        Math.clamp(parkLatenessNs + (late - parkLatenessNs) / 8, MIN_LATENESS_NS, MAX_LATENESS_NS);
            }
            parks++;
        } else if (wait > 0) {
            final long t0 = System.nanoTime();
            Thread.onSpinWait();
            spinNs += System.nanoTime() - t0;
        }
    }

    long txRefused() {
        return txRefused;
    }

    /** @return how often the loop parked between paced frames. */
    long parks() {
        return parks;
    }

    /** @return the time spent spinning (waits shorter than the park's lateness), in ns. */
    long spinNs() {
        return spinNs;
    }

    /** @return how late a park currently wakes (moving average), in ns. */
    long parkLatenessNs() {
        return parkLatenessNs;
    }

    @Override
    public void close() {
        poll.close();
        port.close();
    }
}
