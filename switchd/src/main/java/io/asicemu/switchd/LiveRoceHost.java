package io.asicemu.switchd;

import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.rdma.host.RoceHost;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.ffm.PollSet;
import java.util.function.BooleanSupplier;

/**
 * The endpoint model on a Linux port in real time: frames from an AF_PACKET port go to a {@link RoceHost}, what it
 * sends goes out of the port, and the loop sleeps in epoll until the host's next event. Waits shorter than the
 * millisecond epoll can time are spun, so pacing at the DCQCN rate stays within microseconds while sending; an idle
 * host blocks. Single-threaded: one thread runs {@link #run}.
 */
final class LiveRoceHost implements AutoCloseable {
    /** Below this, a wait is spun instead of slept (epoll times whole milliseconds). */
    private static final long SPIN_BELOW_NS = 2_000_000;

    private static final long MAX_SLEEP_NS = 100_000_000;

    private final AfPacketPort port;
    private final RoceHost host;
    private final RxBatch batch = new RxBatch();
    private final PollSet poll = new PollSet(1);
    private final RoceHost.Wire wire;
    private long txRefused;

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

    /** Runs until {@code done} says so or {@code deadlineNs} (monotonic) passes. */
    void run(final long deadlineNs, final BooleanSupplier done, final Runnable everyPeriod, final long periodNs) {
        long nextReportNs = System.nanoTime() + periodNs;
        while (!done.getAsBoolean()) {
            final long now = System.nanoTime();
            if (now >= deadlineNs) {
                return;
            }
            final int n = port.receive(batch, now);
            for (int i = 0; i < n; i++) {
                host.onFrame(batch.segment(i), batch.offset(i), batch.length(i), now);
            }
            if (n > 0) {
                port.release(batch);
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
            final long next = Math.min(Math.min(host.nextEventNs(), deadlineNs), nextReportNs);
            final long wait = next - System.nanoTime();
            if (wait >= SPIN_BELOW_NS) {
                poll.await(Math.min(wait - 1_000_000, MAX_SLEEP_NS));
            } else if (wait > 0) {
                Thread.onSpinWait();
            }
        }
    }

    long txRefused() {
        return txRefused;
    }

    @Override
    public void close() {
        poll.close();
        port.close();
    }
}
