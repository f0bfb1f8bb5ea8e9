package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.DigestInfo;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.cpu.LearnRing;
import io.asicemu.pipeline.cpu.PacketInHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Connects P4Runtime packet I/O to the real pipeline's CPU port: PacketOut goes to {@link CpuPort#packetOut} (or
 * through ingress), punted packets polled from the CPU port become PacketIn with the pipeline's punt reason, and the
 * FDB's learn events (new or moved MACs) become {@code l2_learn_digest} data (vlan_id, src_mac, port). Table
 * state is delegated to {@code tables} (in production a {@link PipelineTableBackend}, which programs the pipeline);
 * this class keeps no state of its own.
 * <p>
 * <p>
 * With host interfaces ({@link #hostInterfaces}), this poller stays the CPU port's one consumer and dispatches: the
 * punts a controller's own rules ask for (ACL trap and copy, TTL error) go to the P4Runtime stream while a controller
 * that receives PacketIns is connected, and to the host interface of their ingress port otherwise; every other punt
 * (ARP, ND, LLDP, IP to the switch) goes to the host interface only. Punts are then never left queued for a controller
 * that does not read: a PacketIn it cannot take is dropped and counted ({@link #packetInsNotRead()}).
 * <p>
 * Threading: {@link #pollPacketIns} and {@link #pollLearnEvents} must run on one thread (the single consumer of the
 * CPU port and of the learn ring); everything else may run
 * on gRPC threads.
 */
public final class PipelineCpuPortBackend implements P4Backend, PacketInHandler, LearnRing.Handler {
    /** The digest the FDB's learn events feed. */
    static final String LEARN_DIGEST = "ingress.l2.l2_learn_digest";
    /** How often the poller checks idle timeouts (the finest idle-timeout resolution it gives). */
    static final long IDLE_CHECK_NS = 100_000_000L;

    private final P4Backend tables;
    private final int learnDigestId = learnDigestId();
    private final PipelineControl control;
    private volatile CpuPortListener listener;
    /** Set by the first written entry with an idle timeout: until then the poller has no timer to wake it. */
    private volatile boolean idleTimeoutsInUse;

    private volatile Thread poller;
    /** Where punts for the switch's kernel go (null: host interfaces off, everything to the controller). */
    private volatile PacketInHandler hostInterfaces;
    /** PacketIns dropped because the controller did not read its stream while host interfaces were on. */
    private final java.util.concurrent.atomic.AtomicLong packetInsNotRead =
            new java.util.concurrent.atomic.AtomicLong();

    public PipelineCpuPortBackend(final P4Backend tables, final PipelineControl control) {
        this.tables = tables;
        this.control = control;
    }

    @Override
    public List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing) {
        return noticeIdleTimeouts(ops, tables.write(ops, allOrNothing));
    }

    @Override
    public CompletableFuture<List<UpdateOutcome>> writeAsync(final List<WriteOp> ops, final boolean allOrNothing) {
        return tables.writeAsync(ops, allOrNothing).thenApply(outcomes -> noticeIdleTimeouts(ops, outcomes));
    }

    /** Wakes the poller's idle-timer checks when the first entry with an idle timeout was written. */
    private List<UpdateOutcome> noticeIdleTimeouts(final List<WriteOp> ops, final List<UpdateOutcome> outcomes) {
        if (!idleTimeoutsInUse) {
            for (int i = 0; i < ops.size(); i++) {
                if (outcomes.get(i).ok()
                        && ops.get(i).entity() instanceof P4Entity.TableEntry e
                        && e.idleTimeoutNs() > 0) {
                    idleTimeoutsInUse = true; // from now on the poller checks idle timers every IDLE_CHECK_NS
                    final Thread p = poller;
                    if (p != null) {
                        LockSupport.unpark(p);
                    }
                    break;
                }
            }
        }
        return outcomes;
    }

    @Override
    public List<P4Entity> read(final ReadFilter filter) {
        return tables.read(filter);
    }

    @Override
    public void reset() {
        tables.reset();
    }

    @Override
    public boolean packetOut(final byte[] payload, final int egressPort, final boolean submitToIngress) {
        return submitToIngress
                ? control.cpuPort().packetOutThroughIngress(payload, egressPort)
                : control.cpuPort().packetOut(payload, egressPort);
    }

    @Override
    public void cpuPortListener(final CpuPortListener listener) {
        this.listener = listener;
        tables.cpuPortListener(listener);
    }

    @Override
    public void entryHit(final EntryKey key) {
        tables.entryHit(key);
    }

    @Override
    public int checkIdleTimeouts() {
        return tables.checkIdleTimeouts();
    }

    @Override
    public boolean portExists(final int port) {
        return port >= 0 && port < control.portNames().size();
    }

    @Override
    public int portMtu(final int port) {
        return control.portMtu(port);
    }

    /**
     * Turns host interfaces on: from now on punts are dispatched between {@code handler} and the controller (see the
     * class comment). Set before {@link #startPacketInPoller()}.
     *
     * @param handler the host interfaces' writer (called on the poller's thread; it must not block).
     */
    public void hostInterfaces(final PacketInHandler handler) {
        this.hostInterfaces = handler;
    }

    /** @return PacketIns dropped because a controller did not read its stream while host interfaces were on. */
    public long packetInsNotRead() {
        return packetInsNotRead.get();
    }

    /** Whether a punt with this reason is one a controller's own rules asked for. */
    static boolean controllerReason(final int reason) {
        return reason == PuntReason.ACL_TRAP.index()
                || reason == PuntReason.ACL_COPY.index()
                || reason == PuntReason.TTL_ERROR.index();
    }

    /**
     * Hands up to {@code limit} punted packets to the P4Runtime listener. Call from one thread only.
     *
     * @return how many packets were handed over.
     */
    public int pollPacketIns(final int limit) {
        final CpuPortListener l = listener;
        if (hostInterfaces == null && l != null && !l.readyForPacketIns()) {
            return 0; // the controller does not read: leave them queued; a full queue is counted by the data path
        }
        return control.cpuPort().poll(this, limit);
    }

    /** How long the poller waits before asking a controller that did not read its stream again. */
    static final long NOT_READY_RETRY_NS = 1_000_000L;

    private static int learnDigestId() {
        for (final DigestInfo d : FixedPipelineInfo.model().digests()) {
            if (d.name().equals(LEARN_DIGEST)) {
                return d.id();
            }
        }
        throw new IllegalStateException("the P4Info has no " + LEARN_DIGEST);
    }

    /**
     * Hands up to {@code limit} FDB learn events to the P4Runtime listener as {@code l2_learn_digest} data (the
     * digest engine batches, de-duplicates and sends them). Call from one thread only.
     *
     * @return how many events were handed over.
     */
    public int pollLearnEvents(final int limit) {
        return control.cpuPort().learnEvents().poll(this, limit);
    }

    @Override
    public void onLearn(final int vlanId, final long mac, final int port, final long timestampNs) {
        final CpuPortListener l = listener;
        if (l != null) {
            l.onDigest(
                    learnDigestId,
                    List.of(BigInteger.valueOf(vlanId), BigInteger.valueOf(mac), BigInteger.valueOf(port)));
        }
    }

    /**
     * Starts the CPU port's consumer: a daemon thread that hands punted packets and learn events up as they come, and,
     * once an entry with an idle timeout was written, every {@link #IDLE_CHECK_NS} checks the idle timeouts. Between those it blocks: the data plane
     * unparks it when it adds to a ring ({@link CpuPort#prepareToWait}), so an idle switch costs nothing here.
     *
     * @return closing it stops the thread (and waits for it).
     */
    public AutoCloseable startPacketInPoller() {
        final CpuPort cpu = control.cpuPort();
        final Thread thread = Thread.ofPlatform()
                .daemon()
                .name("p4rt-packet-in")
                .unstarted(() -> {
                    cpu.consumer(Thread.currentThread());
                    poller = Thread.currentThread();
                    long nextIdleCheckNs = System.nanoTime() + IDLE_CHECK_NS;
                    while (!Thread.currentThread().isInterrupted()) {
                        final int handed = pollPacketIns(64) + pollLearnEvents(64);
                        final long now = System.nanoTime();
                        final boolean timers = idleTimeoutsInUse;
                        if (timers && now - nextIdleCheckNs >= 0) {
                            checkIdleTimeouts();
                            nextIdleCheckNs = now + IDLE_CHECK_NS;
                        } else if (handed == 0
                                && hostInterfaces == null
                                && listener != null
                                && !listener.readyForPacketIns()) {
                            // a full CPU queue wakes nobody: look again soon, the controller may have caught up
                            LockSupport.parkNanos(this, NOT_READY_RETRY_NS);
                        } else if (handed == 0 && cpu.prepareToWait()) {
                            if (timers) {
                                LockSupport.parkNanos(this, nextIdleCheckNs - now);
                            } else {
                                LockSupport.park(
                                        this); // a punt, a learn event or the first idle-timeout entry wakes it
                            }
                            cpu.doneWaiting();
                        }
                    }
                    poller = null;
                    cpu.consumer(null);
                });
        thread.start();
        return () -> {
            thread.interrupt();
            thread.join(5_000);
        };
    }

    @Override
    public void onPacket(
            final MemorySegment segment,
            final long offset,
            final int length,
            final int ingressPort,
            final int reason,
            final long timestampNs) {
        final CpuPortListener l = listener;
        final PacketInHandler host = hostInterfaces;
        if (host != null) {
            if (l == null || !controllerReason(reason) || !l.hasPacketInReceiver()) {
                host.onPacket(segment, offset, length, ingressPort, reason, timestampNs);
                return;
            }
            if (!l.readyForPacketIns()) {
                packetInsNotRead.incrementAndGet(); // never hold the kernel's punts back for a controller
                return;
            }
        }
        if (l != null) {
            final byte[] frame = new byte[length];
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, frame, 0, length);
            l.onPacketIn(frame, ingressPort, 0, reason);
        }
    }
}
