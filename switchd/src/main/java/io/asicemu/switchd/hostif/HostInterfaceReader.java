package io.asicemu.switchd.hostif;

import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.PollSet;
import io.asicemu.veth.tap.HostInterfaceTap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what the switch's kernel sends on its host interfaces out of the front-panel ports: one platform thread
 * blocked in epoll on every TAP and a wake-up eventfd (no time-out: idle costs nothing), which on a wake-up reads each
 * ready TAP (at most {@link #FRAMES_PER_WAKEUP} frames a TAP per round, so one busy interface cannot starve the
 * others; epoll is level-triggered and wakes again for the rest) and hands every frame to
 * {@link CpuPort#packetOut}. The injection queue is bounded: a refused frame is counted per port.
 * <p>
 * Threading: its own thread reads; {@link #close} from the control thread.
 */
final class HostInterfaceReader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostInterfaceReader.class);
    static final int FRAMES_PER_WAKEUP = 64;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;

    private final HostInterfaces owner;
    private final HostInterfaceTap[] taps;
    private final CpuPort cpu;
    private final PollSet pollSet;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment frame = arena.allocate(HostInterfaceTap.MAX_FRAME_BYTES, 64);
    private final MemorySegment wakeValue = arena.allocate(ValueLayout.JAVA_LONG);
    private final int wakeFd;
    private final Thread thread;
    private volatile boolean stopping;
    /** Ports whose TAP failed a read (e.g. its interface was deleted under the switch): no longer polled. */
    private final boolean[] lost;

    private HostInterfaceReader(final HostInterfaces owner) {
        this.owner = owner;
        this.taps = owner.tapsByPort();
        this.cpu = owner.cpu();
        this.lost = new boolean[taps.length];
        this.pollSet = new PollSet(taps.length + 1);
        this.wakeFd = Libc.eventfd(errno, 0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (wakeFd < 0) {
            final String message = Libc.describe("eventfd", errno);
            pollSet.close();
            arena.close();
            throw new IllegalStateException(message);
        }
        pollSet.add(wakeFd);
        for (final HostInterfaceTap tap : taps) {
            if (tap != null) {
                pollSet.add(tap.fd());
            }
        }
        this.thread = Thread.ofPlatform().daemon().name("hostif-reader").unstarted(this::run);
    }

    static HostInterfaceReader start(final HostInterfaces owner) {
        final HostInterfaceReader reader = new HostInterfaceReader(owner);
        reader.thread.start();
        return reader;
    }

    private void run() {
        try {
            while (!stopping) {
                final int ready = pollSet.await(-1);
                for (int port = 0; port < taps.length && !stopping; port++) {
                    final HostInterfaceTap tap = taps[port];
                    if (tap != null && !lost[port] && pollSet.wasReady(tap.fd(), ready)) {
                        readFrom(port, tap);
                    }
                }
            }
        } catch (final RuntimeException e) {
            LOG.error("host interface reader stopped: frames the kernel sends no longer leave the ports", e);
        }
    }

    private void readFrom(final int port, final HostInterfaceTap tap) {
        for (int i = 0; i < FRAMES_PER_WAKEUP; i++) {
            final int length = tap.read(frame);
            if (length <= 0) {
                if (length < 0) {
                    // an error repeats (epoll keeps reporting it): stop polling this TAP rather than spin on it
                    lost[port] = true;
                    pollSet.remove(tap.fd());
                    LOG.warn(
                            "host interface {}: read failed, errno {} ({}): what the kernel sends on it no longer "
                                    + "leaves the port",
                            tap.name(),
                            -length,
                            Libc.strerror(-length));
                }
                return;
            }
            // packet-out takes a heap copy it owns (the injection queue's element); this is the control path
            final byte[] copy = frame.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
            if (cpu.packetOut(copy, port)) {
                HostInterfaces.increment(owner.fromKernel(), port);
            } else {
                HostInterfaces.increment(owner.fromKernelRefused(), port);
            }
        }
    }

    /** Wakes the thread through the eventfd, waits for it to end, and releases the poll set. */
    @Override
    public void close() {
        stopping = true;
        wakeValue.set(ValueLayout.JAVA_LONG, 0, 1L);
        Libc.write(errno, wakeFd, wakeValue, 8);
        try {
            thread.join(5_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            pollSet.close();
            Libc.close(errno, wakeFd);
            arena.close();
        }
    }
}
