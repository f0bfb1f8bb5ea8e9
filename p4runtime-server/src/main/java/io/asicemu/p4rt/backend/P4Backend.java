package io.asicemu.p4rt.backend;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The only thing the P4Runtime server touches below the protocol: receives validated, typed, whole batches and
 * answers reads. The implementation owns the single copy of forwarding state (the pipeline's, through its control
 * API). Implementations are thread safe: the service may call from several gRPC threads; each call is atomic
 * with respect to the others.
 */
public interface P4Backend {
    /**
     * Applies a batch in order. Each update is checked against the state left by the updates before it
     * (existence, capacity, references); a failed update changes nothing. With {@code allOrNothing}, the first failure
     * leaves the whole batch unapplied (the later updates report {@link UpdateStatus#ABORTED}) and the data path sees
     * the batch whole or not at all.
     *
     * @return one outcome per op, in order ({@link UpdateStatus#ABORTED} for updates rolled back or skipped).
     */
    List<UpdateOutcome> write(List<WriteOp> ops, boolean allOrNothing);

    /**
     * {@link #write} without a thread waiting for the data plane: the batch is validated and committed before this
     * returns (so the next write sees its state, and writes apply in the order of these calls), and the future
     * completes with the outcomes once the data plane applied it, or with {@link DataPlaneTimeoutException} if it did
     * not in time. The future may complete on another thread (the one that learns of the apply); its callbacks must
     * not block. This default completes it on the caller's thread by {@link #write}.
     *
     * @return the outcomes, one per op, once applied.
     */
    default CompletableFuture<List<UpdateOutcome>> writeAsync(final List<WriteOp> ops, final boolean allOrNothing) {
        try {
            return CompletableFuture.completedFuture(write(ops, allOrNothing));
        } catch (final DataPlaneTimeoutException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** @return the entities matching the filter, in a stable order. */
    List<P4Entity> read(ReadFilter filter);

    /** Clears all forwarding state (tables, groups, sessions, registers, counters) back to the pipeline's defaults. */
    void reset();

    /**
     * Sends a packet from the CPU port: out of {@code egressPort}, or through the ingress pipeline when
     * {@code submitToIngress}.
     *
     * @return false if the packet was refused because the queue towards the data path is full (counted there).
     */
    boolean packetOut(byte[] payload, int egressPort, boolean submitToIngress);

    /** Sets the receiver of punted packets and digests (one per device). */
    void cpuPortListener(CpuPortListener listener);

    /** @return true when the data port exists (for PacketOut and watch_port validation). */
    boolean portExists(int port);

    /**
     * @param port a port number.
     * @return the port's MTU as its link reports it, or -1 if unknown (then PacketOut sizes are not checked here).
     */
    default int portMtu(final int port) {
        return -1;
    }

    /**
     * The data path matched a table entry: restarts its idle timer (tables with {@code idle_timeout_behavior}).
     *
     * @param key the entry.
     */
    void entryHit(EntryKey key);

    /**
     * Sends an {@code IdleTimeoutNotification} (through the listener) for every entry whose idle timeout passed since
     * its last hit or notification, and restarts their timers (spec: notify once per timeout period).
     *
     * @return how many entries were reported.
     */
    int checkIdleTimeouts();
}
