package io.asicemu.switchd;

import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.pipeline.control.ControlAgent;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs the P4Runtime backend's control-API calls (writes, resets) under the live switch's control lock, so they never
 * interleave with port attach/detach from the discovery thread (the pipeline's control API takes one caller at a
 * time). The service's {@link #writeAsync} holds the lock only to stage and commit, not across the data plane's apply. Reads, packet I/O and port checks touch only thread-safe parts and go straight through. Thread safe.
 */
final class SerializedBackend implements P4Backend {
    private final P4Backend backend;
    private final ControlAgent control;

    /**
     * @param backend the P4Runtime backend.
     * @param control the switch's control agent (its listeners hear of every write).
     */
    SerializedBackend(final P4Backend backend, final ControlAgent control) {
        this.backend = backend;
        this.control = control;
    }

    @Override
    public List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing) {
        try {
            return writeAsync(ops, allOrNothing).join(); // waits outside the control lock
        } catch (final CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause; // DataPlaneTimeoutException as the synchronous write throws it
            }
            throw e;
        }
    }

    /**
     * Holds the control lock only while the write is validated, staged and committed; the data plane's apply is
     * awaited by no thread (the future completes when it is applied), so port attach/detach and the next Write do not
     * wait behind it.
     */
    @Override
    public CompletableFuture<List<UpdateOutcome>> writeAsync(final List<WriteOp> ops, final boolean allOrNothing) {
        return control.call(c -> backend.writeAsync(ops, allOrNothing));
    }

    @Override
    public List<P4Entity> read(final ReadFilter filter) {
        return backend.read(filter);
    }

    @Override
    public void reset() {
        control.run(c -> backend.reset());
    }

    @Override
    public boolean packetOut(final byte[] payload, final int egressPort, final boolean submitToIngress) {
        return backend.packetOut(payload, egressPort, submitToIngress);
    }

    @Override
    public void cpuPortListener(final CpuPortListener listener) {
        backend.cpuPortListener(listener);
    }

    @Override
    public boolean portExists(final int port) {
        return backend.portExists(port);
    }

    @Override
    public int portMtu(final int port) {
        return backend.portMtu(port);
    }

    @Override
    public void entryHit(final EntryKey key) {
        backend.entryHit(key);
    }

    @Override
    public int checkIdleTimeouts() {
        return backend
                .checkIdleTimeouts(); // reads only; its one data-plane command goes through the thread-safe submit
    }
}
