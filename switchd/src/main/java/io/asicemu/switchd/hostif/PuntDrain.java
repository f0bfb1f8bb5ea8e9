package io.asicemu.switchd.hostif;

import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.cpu.LearnRing;
import java.util.concurrent.locks.LockSupport;

/**
 * The CPU port's one consumer when the switch runs without P4Runtime: hands every punt to the host interfaces and
 * drops the FDB's learn events (nobody asked for them; they are drained so that the consumer's wake-up protocol,
 * which waits only while both rings are empty, does not keep it awake). Between punts it parks: the data plane
 * unparks it when it adds to a ring ({@link CpuPort#prepareToWait}), so an idle switch costs nothing here.
 * <p>
 * Threading: its own platform thread; {@link #close} from the control thread.
 */
final class PuntDrain implements AutoCloseable {
    private static final int LIMIT = 64;
    private static final LearnRing.Handler DISCARD = (vlanId, mac, port, timestampNs) -> {};

    private final Thread thread;

    private PuntDrain(final CpuPort cpu, final HostInterfaces hostInterfaces) {
        this.thread = Thread.ofPlatform().daemon().name("hostif-punts").unstarted(() -> {
            cpu.consumer(Thread.currentThread());
            while (!Thread.currentThread().isInterrupted()) {
                final int handed =
                        cpu.poll(hostInterfaces, LIMIT) + cpu.learnEvents().poll(DISCARD, LIMIT);
                if (handed == 0 && cpu.prepareToWait()) {
                    LockSupport.park(this); // a punt or a learn event unparks it; close() interrupts
                    cpu.doneWaiting();
                }
            }
            cpu.consumer(null);
        });
    }

    static PuntDrain start(final CpuPort cpu, final HostInterfaces hostInterfaces) {
        final PuntDrain drain = new PuntDrain(cpu, hostInterfaces);
        drain.thread.start();
        return drain;
    }

    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
