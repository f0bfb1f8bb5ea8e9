package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A P4Runtime Write occupies the switch's control agent only while it is staged: while the data plane has not yet
 * applied it, port attach/detach (or the next Write) runs on the agent, and the Write still returns only once applied.
 */
@Timeout(30)
class SerializedBackendTest {
    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
    private final ControlAgent control = ControlAgent.start(pipeline.control(), "test-control");
    private final CompletableFuture<List<UpdateOutcome>> applied = new CompletableFuture<>();
    private final CountDownLatch staged = new CountDownLatch(1);

    /** A backend whose writes are staged at once and applied when the test completes {@link #applied}. */
    private final P4Backend pending = new P4Backend() {
        @Override
        public List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing) {
            staged.countDown();
            return applied.join();
        }

        @Override
        public CompletableFuture<List<UpdateOutcome>> writeAsync(final List<WriteOp> ops, final boolean allOrNothing) {
            staged.countDown();
            return applied;
        }

        @Override
        public List<P4Entity> read(final ReadFilter filter) {
            return List.of();
        }

        @Override
        public void reset() {}

        @Override
        public boolean packetOut(final byte[] payload, final int egressPort, final boolean submitToIngress) {
            return true;
        }

        @Override
        public void cpuPortListener(final CpuPortListener listener) {}

        @Override
        public boolean portExists(final int port) {
            return true;
        }

        @Override
        public void entryHit(final EntryKey key) {}

        @Override
        public int checkIdleTimeouts() {
            return 0;
        }
    };

    private final SerializedBackend backend = new SerializedBackend(pending, control);

    @AfterEach
    void stop() {
        control.close();
        pipeline.close();
    }

    @Test
    void shouldFreeTheControlAgentWhileAWriteWaitsForTheDataPlane() throws Exception {
        final CompletableFuture<List<UpdateOutcome>> write =
                CompletableFuture.supplyAsync(() -> backend.write(List.of(), true));
        assertThat(staged.await(5, TimeUnit.SECONDS)).isTrue();

        final CompletableFuture<Void> portAttach = CompletableFuture.runAsync(() -> control.run(c -> {
            // what LinuxSwitch's discovery does to attach a port
        }));
        portAttach.get(5, TimeUnit.SECONDS);
        Thread.sleep(100);
        assertThat(write).as("the Write is answered only once applied").isNotDone();

        applied.complete(List.of(UpdateOutcome.OK));
        assertThat(write.get(5, TimeUnit.SECONDS)).containsExactly(UpdateOutcome.OK);
    }

    @Test
    void shouldHandTheServiceAFutureThatCompletesWhenTheDataPlaneApplied() throws Exception {
        final CompletableFuture<List<UpdateOutcome>> write = backend.writeAsync(List.of(), true);
        assertThat(write).isNotDone();
        applied.complete(List.of(UpdateOutcome.OK));
        assertThat(write.get(5, TimeUnit.SECONDS)).containsExactly(UpdateOutcome.OK);
    }
}
