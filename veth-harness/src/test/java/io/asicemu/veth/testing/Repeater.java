package io.asicemu.veth.testing;

import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.veth.ffm.PollSet;

/**
 * A two-port wire for driver tests: everything received on one port is transmitted on the other, on one thread that
 * blocks in poll when idle (the shape of the data-plane loop, without a pipeline). Stop it before reading counters.
 */
public final class Repeater implements AutoCloseable {
    private final Port a;
    private final Port b;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    public Repeater(final Port a, final Port b) {
        this.a = a;
        this.b = b;
        this.thread = new Thread(this::run, "repeater");
        thread.start();
    }

    private void run() {
        final RxBatch batch = new RxBatch();
        try (PollSet poll = new PollSet(2)) {
            poll.add(a.pollFd());
            poll.add(b.pollFd());
            while (running) {
                final int work = pump(a, b, batch) + pump(b, a, batch);
                if (work == 0) {
                    poll.await(10_000_000L);
                }
            }
        } catch (final Throwable t) {
            failure = t;
        }
    }

    private static int pump(final Port from, final Port to, final RxBatch batch) {
        final long nowNs = System.nanoTime();
        final int n = from.receive(batch, nowNs);
        for (int i = 0; i < n; i++) {
            to.transmit(batch.segment(i), batch.offset(i), batch.length(i), nowNs);
        }
        if (n > 0) {
            from.release(batch);
            to.flush();
        }
        return n;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5_000);
        if (failure != null) {
            throw new IllegalStateException("repeater failed", failure);
        }
    }
}
