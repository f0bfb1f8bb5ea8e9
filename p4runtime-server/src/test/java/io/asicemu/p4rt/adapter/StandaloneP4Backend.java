package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.P4InfoModel;
import java.math.BigInteger;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A {@link P4Backend} with no pipeline behind it, for the service's conformance tests (arbitration, codes, Read
 * filters, packet I/O, digests, idle timeouts) and for tests of the CPU port path alone: the P4 rules and the
 * as-written view are production's {@link WrittenEntities}; punts and digests are injected by the test, PacketOuts
 * handed to a sink. Test scope only: production answers through {@link PipelineTableBackend}.
 */
public final class StandaloneP4Backend implements P4Backend {
    private final int portCount;
    private final PacketOutSink packetOutSink;
    private final WrittenEntities entities;
    private volatile CpuPortListener listener;

    /** Receives packets the controller sends out of the CPU port. */
    public interface PacketOutSink {
        void onPacketOut(byte[] payload, int egressPort, boolean submitToIngress);
    }

    public StandaloneP4Backend(final P4InfoModel model, final int portCount, final PacketOutSink packetOutSink) {
        this(model, portCount, packetOutSink, System::nanoTime);
    }

    /**
     * @param clockNs the time source of idle timeouts (a manual clock in tests).
     */
    public StandaloneP4Backend(
            final P4InfoModel model,
            final int portCount,
            final PacketOutSink packetOutSink,
            final LongSupplier clockNs) {
        this.portCount = portCount;
        this.packetOutSink = packetOutSink;
        this.entities = new WrittenEntities(model, this::portExists, clockNs);
    }

    @Override
    public List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing) {
        return entities.write(ops, allOrNothing);
    }

    @Override
    public List<P4Entity> read(final ReadFilter filter) {
        return entities.read(filter);
    }

    @Override
    public void reset() {
        entities.reset();
    }

    @Override
    public boolean packetOut(final byte[] payload, final int egressPort, final boolean submitToIngress) {
        packetOutSink.onPacketOut(payload, egressPort, submitToIngress);
        return true;
    }

    @Override
    public void cpuPortListener(final CpuPortListener listener) {
        this.listener = listener;
    }

    @Override
    public boolean portExists(final int port) {
        return port >= 0 && port < portCount;
    }

    /** Punts a packet to the controller, as the pipeline's CPU port does. */
    public void punt(final byte[] payload, final int ingressPort, final int targetEgressPort, final int puntReason) {
        final CpuPortListener l = listener;
        if (l != null) {
            l.onPacketIn(payload, ingressPort, targetEgressPort, puntReason);
        }
    }

    /** Emits a digest message, as the pipeline's learning stage does. */
    public void digest(final int digestId, final List<BigInteger> members) {
        final CpuPortListener l = listener;
        if (l != null) {
            l.onDigest(digestId, members);
        }
    }

    @Override
    public void entryHit(final EntryKey key) {
        entities.entryHit(key);
    }

    @Override
    public int checkIdleTimeouts() {
        final List<P4Entity.TableEntry> idle = entities.expireIdle();
        final CpuPortListener l = listener;
        if (l != null && !idle.isEmpty()) {
            l.onIdleTimeout(idle);
        }
        return idle.size();
    }
}
