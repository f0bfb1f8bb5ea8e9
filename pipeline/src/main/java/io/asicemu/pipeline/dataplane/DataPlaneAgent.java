package io.asicemu.pipeline.dataplane;

import io.asicemu.parser.FrameRewriter;
import io.asicemu.parser.MacControlFrames;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.ParseResult;
import io.asicemu.pipeline.counter.Counters;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.counter.PortStat;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.pipeline.stage.EgressStage;
import io.asicemu.pipeline.stage.IngressStage;
import io.asicemu.pipeline.stage.NeighborResolver;
import io.asicemu.pipeline.stage.PacketBuffer;
import io.asicemu.pipeline.stage.Verdict;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.Clock;
import io.asicemu.tm.DequeueVerdict;
import io.asicemu.tm.TrafficManager;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;

/**
 * The data-plane agent: the single writer of every piece of packet state (ports' batches, tables, the packet
 * buffer, the traffic manager, counters). One duty cycle:
 * <pre>
 *  now = clock.nowNs()                          (once)
 *  drain control commands (bounded)             (config, table edits, port attach: whole or nothing)
 *  timers: traffic manager (PFC refresh, watchdog), FDB aging
 *  TX phase A: frames queued earlier start between the previous cycle and now (exact serialization times)
 *  CPU injections (PacketOut)
 *  for each port: RX batch → IngressStage → [mirror copies] → [CoPP meter → CPU] → EgressStage (copy + rewrite
 *                 → egress ACL → TM admit) → release batch
 *  TX phase B: idle ports start this cycle's frames at now
 *  flush ports; return the work count
 * </pre>
 * Run it on its own thread with an {@link org.agrona.concurrent.AgentRunner}, on the caller's thread with an
 * {@link org.agrona.concurrent.AgentInvoker}, or step it by calling {@link #doWork()} (tests, replay). When a cycle
 * does no work, a live loop may block in poll/epoll on the ports' {@link Port#pollFd()} until
 * {@link #nextDeadlineNs()}.
 * <p>
 * Threading: {@link #doWork()} and every {@code on…} method run on the data-plane thread only; {@link #submit} and
 * {@link #appliedCommands()} and {@link #framesReceived()} may be called from any thread. Nothing in a cycle allocates or locks.
 */
public final class DataPlaneAgent implements Agent {
    /** Most commands applied per cycle. */
    public static final int COMMAND_LIMIT = 16;

    private static final long AGING_INTERVAL_NS = 1_000_000_000L;
    private static final int INJECT_LIMIT = 16;
    /** How often ports' own losses (kernel RX ring overflow, oversize) are folded into the counters. */
    private static final long PORT_LOSS_INTERVAL_NS = 100_000_000L;
    /** How soon a port whose TX ring was full is tried again when nothing else wakes the loop. */
    private static final long TX_RETRY_NS = 200_000L;
    /**
     * How long the flush of a port whose flush is one system call ({@link Port#flushIsOneSystemCall()}, AF_PACKET) may
     * be held while every cycle still receives frames. A cycle that receives nothing flushes every port, so a lone
     * frame leaves at once and the loop never sleeps with a flush held. Under steady load at a few hundred kpps a cycle
     * takes a few frames, and a kick per cycle cost ≈ 2 µs of system call each on this project's VMs; holding it up to
     * 20 µs cut the CPU per frame at half rate by 12–19 % (docs/PERFORMANCE.md, session 14). {@code
     * -Dasicemu.txKickDelayNs} (0: flush every cycle, as before) is for such comparisons.
     */
    static final long TX_KICK_DELAY_NS = Long.getLong("asicemu.txKickDelayNs", 20_000L);

    private final Clock clock;
    private final PipelineSizing sizing;
    private final Counters counters;
    private PacketBuffer buffer;
    private final CpuPort cpu;
    private final CpuPort.RefusalSink refusalSink = this::countRefusedInjections;
    private final EgressStage egress;
    private final NeighborResolver resolver;
    private final IngressStage ingress;
    private final Verdict verdict = new Verdict();
    /** The traffic manager's verdict on the frame the TX pass dequeued last (queue depth, CE mark, end of TX). */
    private final DequeueVerdict departure = new DequeueVerdict();

    private final Port[] ports;
    private final RxBatch[] batches;
    /** Ports whose TX ring was full at their last transmit pass (their due frames wait in the TM). */
    private final boolean[] txBlocked;
    /** Ports with frames handed to {@link Port#transmit} since their last flush ({@link #flushDue}), and since when. */
    private final boolean[] kickPending;

    private final long[] kickPendingSinceNs;

    private final boolean[] linkState;
    /** Indexes of the attached ports, ascending: the duty cycle's loops visit these only (64 slots, few in use). */
    private final int[] attached;

    private int attachedCount;
    private final ConcurrentLinkedQueue<QueuedCommand> commands = new ConcurrentLinkedQueue<>();

    /**
     * A command and when it was queued, in the agent's clock (what {@link InMemoryPort}s and replay stamp frames with)
     * and in nanoseconds since the epoch (what the kernel stamps a live port's frames with): a frame that was waiting in
     * a ring from before a command was queued is forwarded before the command applies.
     */
    private record QueuedCommand(DataPlaneCommand command, long queuedNs, long queuedEpochNs) {}

    private final MemorySegment scratch = Arena.ofAuto().allocate(128, 64);
    private final MemorySegment injectSegment;
    /** A frame whose cells are not consecutive is gathered here before the port copies it. */
    private final MemorySegment gatherSegment;

    private final int[] pfcQuanta = new int[8];
    /** Whether a port coming up announces its address (gratuitous ARP): live ports only, see {@link #announceOnLinkUp}. */
    private boolean announceOnLinkUp;

    private volatile long applied;
    /**
     * Frames taken from the ports' RX rings so far: written once per batch (opaque: a plain store on x86, no fence),
     * read by any thread. (AtomicLong rather than a VarHandle: no method handle to link on the way to the first frame.)
     */
    private final AtomicLong framesReceived = new AtomicLong();

    private volatile Runnable wakeUp;
    /** The one thread parked in {@link #parkUntilApplied}, unparked when a duty cycle applied commands. */
    private final AtomicReference<Thread> appliedWaiter = new AtomicReference<>();

    private ForwardingTables tables;
    private TrafficManager tm;
    private long previousNowNs = Long.MIN_VALUE;
    private long nextAgingNs;
    private long nextPortLossNs;
    /** Frames arrived since the last fold of the ports' losses: only then is a fold due (an idle port loses nothing). */
    private boolean portLossesToFold;

    private final DropLog dropLog;
    private int seenGroupEpoch = -1;
    /** One port's frames sent by the transmitDueOn call in progress (its counters are written once, after it). */
    private long sentOctets;

    private int sentUcast;
    private int sentNonUcast;
    /** Frames that call dequeued but could not send (counted where they failed). */
    private int attemptsFailed;

    /**
     * @param clock the time source, read once per cycle.
     * @param sizing table and buffer sizes.
     * @param counters where counters go.
     * @param cpu the CPU port.
     */
    public DataPlaneAgent(final Clock clock, final PipelineSizing sizing, final Counters counters, final CpuPort cpu) {
        this.clock = clock;
        this.sizing = sizing;
        this.counters = counters;
        this.cpu = cpu;
        this.egress = new EgressStage(counters);
        this.resolver = new NeighborResolver(egress);
        this.ingress = new IngressStage(counters, resolver, sizing.batchSize());
        this.ingress.learnEvents(cpu.learnEvents());
        this.ingress.cpuPort(cpu);
        this.ports = new Port[sizing.maxPorts()];
        this.batches = new RxBatch[sizing.maxPorts()];
        this.txBlocked = new boolean[sizing.maxPorts()];
        this.kickPending = new boolean[sizing.maxPorts()];
        this.kickPendingSinceNs = new long[sizing.maxPorts()];
        this.linkState = new boolean[sizing.maxPorts()];
        this.attached = new int[sizing.maxPorts()];
        this.injectSegment = Arena.ofAuto().allocate(sizing.maxFrameBytes(), 64);
        this.gatherSegment = Arena.ofAuto().allocate(sizing.maxFrameBytes(), 64);
        this.dropLog = new DropLog(counters, sizing.maxPorts());
    }

    @Override
    public String roleName() {
        return "asicemu-dataplane";
    }

    /**
     * Queues a command for the data-plane thread (any thread).
     *
     * @param command a pre-validated change.
     */
    public void submit(final DataPlaneCommand command) {
        final java.time.Instant now = java.time.Instant.now();
        commands.add(new QueuedCommand(command, clock.nowNs(), now.getEpochSecond() * 1_000_000_000L + now.getNano()));
        final Runnable wake = wakeUp;
        if (wake != null) {
            wake.run();
        }
    }

    /**
     * Sets what {@link #submit} calls after queuing a command, so a live loop blocked in poll/epoll wakes up to apply
     * it (for example a write to an eventfd it polls). Any thread; the callback must not block.
     *
     * @param callback the wake-up, or null for none.
     */
    public void wakeUp(final Runnable callback) {
        this.wakeUp = callback;
    }

    /** @return how many commands have been applied so far (any thread). */
    public long appliedCommands() {
        return applied;
    }

    /**
     * @return how many frames the data plane has taken from its ports' RX rings so far (any thread; a value at most one
     *     batch old), e.g. to tell an idle data plane from a forwarding one.
     */
    public long framesReceived() {
        return framesReceived.getOpaque();
    }

    /**
     * Parks the calling thread until the data plane applied command {@code sequence}, at most {@code maxNanos}
     * (callers loop on {@link #appliedCommands()}). One waiter at a time is woken as soon as the duty cycle that
     * applied its command ends (one unpark per cycle that applied any, no lock); a second, concurrent waiter parks
     * for {@code fallbackNanos} instead. A control write then costs the data plane's reaction time, not a polling
     * period.
     *
     * @param sequence      a command sequence number (as {@link #appliedCommands()} counts).
     * @param maxNanos      the longest park (the caller's deadline).
     * @param fallbackNanos the park of a waiter that is not the registered one.
     */
    public void parkUntilApplied(final long sequence, final long maxNanos, final long fallbackNanos) {
        final Thread self = Thread.currentThread();
        if (!appliedWaiter.compareAndSet(null, self)) {
            LockSupport.parkNanos(this, Math.min(maxNanos, fallbackNanos));
            return;
        }
        try {
            // registered before reading applied: a drain that missed the registration published its count first
            if (applied < sequence) {
                LockSupport.parkNanos(this, maxNanos);
            }
        } finally {
            appliedWaiter.compareAndSet(self, null);
        }
    }

    // ---- called by commands, on the data-plane thread ----

    /**
     * Installs a complete new set of tables, its traffic manager and the packet store sized for that traffic
     * manager's buffer; queued packets of the old traffic manager are dropped and the old store's memory is freed.
     *
     * @param newTables the tables.
     * @param newTm the traffic manager built for them.
     * @param newStore the cell store for newTm ({@link PacketBuffer#cellsFor}).
     */
    public void onInstall(final ForwardingTables newTables, final TrafficManager newTm, final PacketBuffer newStore) {
        if (tm != null) {
            for (int p = 0; p < tm.portCount(); p++) {
                for (int h = tm.dequeue(Long.MAX_VALUE / 2, p);
                        h != TrafficManager.NO_PACKET;
                        h = tm.dequeue(Long.MAX_VALUE / 2, p)) {
                    buffer.release(h);
                }
            }
        }
        if (buffer != null && buffer != newStore) {
            buffer.close();
        }
        buffer = newStore;
        tables = newTables;
        tm = newTm;
        java.util.Arrays.fill(linkState, false); // every port "comes up" again for the new groups
        seenGroupEpoch = -1;
        ingress.tables(newTables);
        egress.use(newTables, newTm, newStore, ports);
    }

    /**
     * Attaches (or with null detaches) the port at an index.
     *
     * @param index the port index.
     * @param port the port, or null.
     */
    public void onAttachPort(final int index, final Port port) {
        if (kickPending[index] && ports[index] != null) {
            ports[index].flush(); // frames already counted out leave before the port goes
        }
        kickPending[index] = false;
        ports[index] = port;
        batches[index] = port == null ? null : new RxBatch(sizing.batchSize());
        if (port == null && linkState[index] && tables != null) {
            linkChanged(index, false, clock.nowNs()); // the duty cycle visits attached ports only
            applyWatchPorts();
        }
        attachedCount = 0;
        for (int p = 0; p < ports.length; p++) {
            if (ports[p] != null) {
                attached[attachedCount++] = p;
            }
        }
    }

    /** @return the current tables (data-plane thread only; commands edit them). */
    public ForwardingTables tables() {
        return tables;
    }

    /** @return the traffic manager (data-plane thread only). */
    public TrafficManager trafficManager() {
        return tm;
    }

    /** @return the packet store in force, or null before the first configuration (data-plane thread only). */
    public PacketBuffer packetBuffer() {
        return buffer;
    }

    /** @return the ARP/ND resolver (data-plane thread only). */
    public NeighborResolver resolver() {
        return resolver;
    }

    /**
     * The traffic manager's PFC frame sink: builds the 802.1Qbb frame and sends it ahead of data.
     *
     * @param nowNs the time of the decision.
     * @param port the port.
     * @param classEnableVector the class-enable vector.
     * @param quanta pause quanta per priority.
     */
    public void onPfcFrame(final long nowNs, final int port, final int classEnableVector, final int[] quanta) {
        final Port p = ports[port];
        if (p == null || tables == null) {
            return;
        }
        final long srcMac = tables.routerMac();
        final int length = MacControlFrames.writePfc(scratch, 0, srcMac, classEnableVector, quanta, false);
        // a full TX ring is handed to the kernel first (transmitReady flushes it), so a pause frame is not refused
        // behind data frames the kernel would take now
        if (p.transmitReady() && p.transmit(scratch, 0, length, nowNs)) {
            countOut(port, length, true);
            flushDue(port, nowNs);
        }
    }

    /**
     * The traffic manager's drop sink: frees the slot of a packet dropped after admission.
     *
     * @param nowNs the time.
     * @param handle the slot.
     * @param port the egress port.
     * @param queue the queue.
     * @param reason the TM's reason.
     */
    public void onTmDrop(final long nowNs, final int handle, final int port, final int queue, final int reason) {
        buffer.release(handle);
        counters.addDrop(port, reason == TrafficManager.DROP_WRED ? DropReason.WRED : DropReason.PFC_WATCHDOG);
        counters.addPort(port, PortStat.IF_OUT_DISCARDS, 1);
    }

    /**
     * Makes every port that comes up (attached with its link up, or its link coming back) announce its router
     * interface's IPv4 address with a gratuitous ARP request, as a Linux-based switch with {@code arp_notify=1}
     * (SONiC's setting) does. For live ports, where hosts wait on their ARP retry timer; replay leaves it off, so a
     * capture's output holds only what its input caused. Call before the agent runs.
     *
     * @param announce whether to.
     */
    public void announceOnLinkUp(final boolean announce) {
        this.announceOnLinkUp = announce;
    }

    /**
     * A port's router interface got a new IPv4 address while the port is up (a running-config change): it announces
     * it as a port coming up does ({@link #announceOnLinkUp}), so hosts on the link learn the new gateway at once. A
     * port that is down announces when it comes up. Data-plane thread (a control command).
     *
     * @param port the port.
     */
    public void announceAddress(final int port) {
        if (announceOnLinkUp && port >= 0 && port < linkState.length && linkState[port] && tables != null) {
            resolver.announce(port, clock.nowNs());
        }
    }

    // ---- the duty cycle ----

    @Override
    public int doWork() {
        final long nowNs = clock.nowNs();
        if (tables == null) {
            return drainCommands(false); // the first configuration
        }
        // Commands queued before the frames waiting in the rings arrived apply now; those queued after a waiting frame
        // arrived apply at the end of the cycle, once it is forwarded by the tables as they were when it came (on a
        // loaded machine the data-plane thread may run only after a controller's next write was queued).
        int work = drainCommands(true);
        final long fromNs = previousNowNs == Long.MIN_VALUE ? nowNs : previousNowNs;
        work += timers(nowNs);
        work += linkChanges(nowNs);
        work += transmitDue(fromNs, nowNs);
        work += injections(nowNs);
        int received = 0;
        for (int i = 0; i < attachedCount; i++) {
            final int p = attached[i];
            received += receive(p, ports[p], nowNs);
        }
        work += received;
        work += transmitDue(nowNs, nowNs);
        // Flush what was transmitted; a port whose flush is one system call is held while frames keep arriving
        // (TX_KICK_DELAY_NS). A cycle that received nothing flushes all, so none is held when the loop goes to sleep.
        for (int i = 0; i < attachedCount; i++) {
            final int p = attached[i];
            if (kickPending[p]
                    && (received == 0
                            || nowNs - kickPendingSinceNs[p] >= TX_KICK_DELAY_NS
                            || !ports[p].flushIsOneSystemCall())) {
                kickPending[p] = false;
                ports[p].flush();
            }
        }
        work += drainCommands(false);
        previousNowNs = nowNs;
        return work;
    }

    /**
     * Applies queued commands in order, at most {@link #COMMAND_LIMIT}.
     *
     * @param notPastWaitingFrames whether to stop at the first command queued after a frame still waiting in an
     *     attached port's ring arrived.
     */
    private int drainCommands(final boolean notPastWaitingFrames) {
        int n = 0;
        QueuedCommand queued;
        while (n < COMMAND_LIMIT && (queued = commands.peek()) != null) {
            if (notPastWaitingFrames && frameWaitingSince(queued)) {
                break;
            }
            commands.poll();
            queued.command().apply(this);
            n++;
            applied = applied + 1;
        }
        if (n > 0) {
            final Thread waiter = appliedWaiter.get();
            if (waiter != null) {
                LockSupport.unpark(waiter);
            }
        }
        return n;
    }

    private boolean frameWaitingSince(final QueuedCommand queued) {
        for (int i = 0; i < attachedCount; i++) {
            if (ports[attached[i]].rxWaitingSince(queued.queuedNs(), queued.queuedEpochNs())) {
                return true;
            }
        }
        return false;
    }

    private int timers(final long nowNs) {
        int work = tm.poll(nowNs);
        if (nowNs - nextAgingNs >= 0) {
            // age as of the last due sweep instant, so that a replay jumping over idle time in one step ages exactly
            // what sweeps at every interval would have (no frame arrived in between to refresh an entry)
            // (the first sweep, nextAgingNs still 0, runs now)
            final long sweepNs = nextAgingNs == 0
                    ? nowNs
                    : nextAgingNs + (nowNs - nextAgingNs) / AGING_INTERVAL_NS * AGING_INTERVAL_NS;
            // a sweep of a table with no learned entry removes nothing: skip it (32k slots are ~0.7 ms of an idle
            // switch's CPU every second) but keep the sweep instants on the same grid
            if (tables.fdb().dynamicSize() > 0) {
                work += tables.fdb()
                        .age(sweepNs, tables.fdbAgeTimeNs(), tables.fdb().slotCount());
            }
            nextAgingNs = sweepNs + AGING_INTERVAL_NS;
        }
        if (nowNs - nextPortLossNs >= 0) {
            collectPortLosses();
            dropLog.check(nowNs, ports);
            nextPortLossNs = nowNs + PORT_LOSS_INTERVAL_NS;
            portLossesToFold = false;
        }
        return work;
    }

    /**
     * Folds what ports lost before the pipeline saw it into the counters: RX ring overflow (the kernel's
     * PACKET_STATISTICS, one syscall per port) and frames too large for the port. Every 100 ms, not per packet.
     */
    private void collectPortLosses() {
        for (int i = 0; i < attachedCount; i++) {
            final int p = attached[i];
            final long overflow = ports[p].takeRxOverflowDrops();
            if (overflow > 0) {
                counters.addDrops(p, DropReason.RX_RING_OVERFLOW, overflow);
                counters.addPort(p, PortStat.IF_IN_DISCARDS, overflow);
            }
            final long oversize = ports[p].takeRxOversizeDrops();
            if (oversize > 0) {
                counters.addDrops(p, DropReason.RX_FRAME_TOO_LARGE, oversize);
                counters.addPort(p, PortStat.IF_IN_DISCARDS, oversize);
                counters.addPort(p, PortStat.ETHER_RX_OVERSIZE_PKTS, oversize);
            }
        }
    }

    /** Port up/down (link or admin): flush the port's learned MACs and take it out of (or back into) ECMP groups. */
    private int linkChanges(final long nowNs) {
        int changes = 0;
        for (int i = 0; i < attachedCount; i++) {
            final int p = attached[i];
            final boolean up = ports[p].linkUp() && tables.portAdminUp(p);
            if (up != linkState[p]) {
                linkChanged(p, up, nowNs);
                changes++;
            }
        }
        if (changes > 0 || tables.groupEpoch() != seenGroupEpoch) {
            seenGroupEpoch = tables.groupEpoch();
            applyWatchPorts();
        }
        return changes;
    }

    private void linkChanged(final int p, final boolean up, final long nowNs) {
        linkState[p] = up;
        if (!up) {
            tables.fdb().flushDynamic(p);
        } else {
            resolver.portUp();
            if (announceOnLinkUp) {
                resolver.announce(p, nowNs);
            }
        }
        for (int g = 0; g < sizing.maxGroups(); g++) {
            final io.asicemu.flowlet.LoadBalanceGroup group = tables.group(g);
            if (group != null) {
                group.portUp(p, up);
            }
        }
    }

    /** Members with a watch port are live only while their egress port and their watch port are both up. */
    private void applyWatchPorts() {
        for (int g = 0; g < sizing.maxGroups(); g++) {
            final int[] watch = tables.groupWatchPorts(g);
            final io.asicemu.flowlet.LoadBalanceGroup group = tables.group(g);
            if (watch == null || group == null) {
                continue;
            }
            for (int m = 0; m < watch.length; m++) {
                final int own = group.memberPort(m);
                final boolean live = own >= 0
                        && own < linkState.length
                        && linkState[own]
                        && (watch[m] < 0 || watch[m] < linkState.length && linkState[watch[m]]);
                if (group.members().isUp(m) != live) {
                    group.memberUp(m, live);
                }
            }
        }
    }

    /** Frames were handed to {@code port}'s {@link Port#transmit} at {@code nowNs}: it is flushed at this cycle's end or later. */
    private void flushDue(final int port, final long nowNs) {
        if (!kickPending[port]) {
            kickPending[port] = true;
            kickPendingSinceNs[port] = nowNs;
        }
    }

    private int receive(final int index, final Port port, final long nowNs) {
        if (!port.linkUp()) {
            return 0;
        }
        final RxBatch batch = batches[index];
        final int n = port.receive(batch, nowNs);
        if (n == 0) {
            portLossesToFold |= port.hasUnreportedRxDrops();
            return 0;
        }
        // a ring overflows only while frames arrive: fold the kernel's count within PORT_LOSS_INTERVAL_NS of them
        portLossesToFold = true;
        framesReceived.setOpaque(framesReceived.getPlain() + n);
        final IngressStage stage = ingress;
        stage.parseAll(index, batch, n); // the batch as a vector: parse all, look up all, then decide + enqueue
        stage.lookUpAll(n);
        final Verdict v = verdict;
        for (int i = 0; i < n; i++) {
            stage.decide(i, index, nowNs, v);
            carryOut(index, batch.segment(i), batch.offset(i), batch.length(i), nowNs, v);
        }
        stage.countRouteHits();
        port.release(batch);
        return n;
    }

    /** One frame at a time (PacketOut through ingress): decide, then carry out. */
    private void process(
            final int port, final MemorySegment segment, final long offset, final int length, final long nowNs) {
        final Verdict v = verdict;
        ingress.process(port, segment, offset, length, nowNs, v);
        carryOut(port, segment, offset, length, nowNs, v);
    }

    /** Carries out the ingress decision for the frame just decided: mirror, CPU copy, rewrite, send / punt / drop. */
    private void carryOut(
            final int port,
            final MemorySegment segment,
            final long offset,
            final int length,
            final long nowNs,
            final Verdict v) {
        if (v.mirrorSession >= 0) {
            egress.mirror(v, segment, offset, length, nowNs);
        }
        if (v.copyReason != null) {
            punt(port, segment, offset, length, v.copyReason.index(), v.cpuQueue, nowNs);
        }
        if (v.action == Verdict.UNICAST || v.action == Verdict.FLOOD) {
            ingress.rewrite(v);
        }
        switch (v.action) {
            case Verdict.UNICAST, Verdict.FLOOD -> egress.send(v, segment, offset, length, nowNs);
            case Verdict.PUNT -> punt(port, segment, offset, length, v.punt.index(), v.cpuQueue, nowNs);
            case Verdict.CONSUMED -> consumed(port, v, nowNs);
            default -> {
                counters.addDrop(port, v.drop == null ? DropReason.MALFORMED_FRAME : v.drop);
                counters.addPort(port, PortStat.IF_IN_DISCARDS, 1);
            }
        }
    }

    private void punt(
            final int port,
            final MemorySegment segment,
            final long offset,
            final int length,
            final int reason,
            final int cpuQueue,
            final long nowNs) {
        if (tables.coppMeters().color(cpuQueue, length, nowNs) == io.asicemu.pipeline.table.AclMeters.RED) {
            counters.addDrop(port, DropReason.COPP_METER_RED); // CoPP: the CPU queue's meter polices punts
            counters.addPort(port, PortStat.IF_IN_DISCARDS, 1);
            return;
        }
        if (cpu.punt(segment, offset, length, port, reason, nowNs)) {
            counters.addPunt(port, io.asicemu.pipeline.counter.PuntReason.of(reason));
        } else {
            counters.addDrop(port, DropReason.CPU_QUEUE_FULL);
            counters.addPort(port, PortStat.IF_IN_DISCARDS, 1);
        }
    }

    private void consumed(final int port, final Verdict v, final long nowNs) {
        counters.addConsumed(port, v.consumed);
        final ParseResult p = ingress.parsed();
        if (p.pfc() && port < tm.portCount()) {
            for (int i = 0; i < 8; i++) {
                pfcQuanta[i] = p.pfcQuanta(i);
            }
            tm.onPfcReceived(nowNs, port, p.pfcClassEnableVector(), pfcQuanta);
        }
    }

    private void countRefusedInjections(final int port, final long frames) {
        if (port < counters.portCount()) {
            counters.addDrops(port, DropReason.PACKET_OUT_QUEUE_FULL, frames);
            counters.addPort(port, PortStat.IF_OUT_DISCARDS, frames);
        }
    }

    private int injections(final long nowNs) {
        cpu.drainRefusals(refusalSink);
        int n = 0;
        CpuPort.Injection injection;
        while (n < INJECT_LIMIT && (injection = cpu.pollInjected()) != null) {
            n++;
            final byte[] frame = injection.frame();
            final int port = injection.port();
            if (port < 0 || port >= ports.length || ports[port] == null) {
                dropLog.packetOutWithoutPort(); // the P4Runtime layer refuses unknown ports; counted for the rest
                continue;
            }
            if (frame.length > injectSegment.byteSize()
                    || (!injection.throughIngress()
                            && !Port.fitsMtu(MemorySegment.ofArray(frame), 0, frame.length, ports[port].mtu()))) {
                counters.addDrop(port, DropReason.PACKET_OUT_REFUSED);
                counters.addPort(port, PortStat.IF_OUT_DISCARDS, 1);
                counters.addPort(port, PortStat.ETHER_TX_OVERSIZE_PKTS, 1);
                continue;
            }
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, injectSegment, 0, frame.length);
            if (injection.throughIngress()) {
                process(port, injectSegment, 0, frame.length, nowNs);
            } else if (!ports[port].linkUp()) {
                counters.addDrop(port, DropReason.OUT_EGRESS_LINK_DOWN);
                counters.addPort(port, PortStat.IF_OUT_DISCARDS, 1);
            } else if (ports[port].transmit(injectSegment, 0, frame.length, nowNs)) {
                countOut(port, frame.length, (NetworkOrder.u8(injectSegment, 0) & 1) != 0);
                flushDue(port, nowNs);
            } else {
                counters.addDrop(port, DropReason.TX_RING_FULL);
                counters.addPort(port, PortStat.IF_OUT_ERRORS, 1);
            }
        }
        return n;
    }

    /** Starts every frame whose start time falls in [fromNs, nowNs] on every port. */
    private int transmitDue(final long fromNs, final long nowNs) {
        final TrafficManager t = tm;
        // read once per call, not per frame: tables change only between batches
        final io.asicemu.flowlet.ars.PortQuality quality = tables.portQuality();
        int work = 0;
        for (int i = 0; i < attachedCount; i++) {
            final int p = attached[i];
            if (p >= t.portCount()) {
                break;
            }
            final Port port = ports[p];
            transmitDueOn(t, p, port, quality, fromNs, nowNs);
            work += sentUcast + sentNonUcast;
            if (sentUcast + sentNonUcast != 0) { // the port's out counters, written once for its frames of this call
                flushDue(p, nowNs);
                counters.addPort(p, PortStat.IF_OUT_OCTETS, sentOctets);
                if (sentUcast != 0) {
                    counters.addPort(p, PortStat.IF_OUT_UCAST_PKTS, sentUcast);
                }
                if (sentNonUcast != 0) {
                    counters.addPort(p, PortStat.IF_OUT_NON_UCAST_PKTS, sentNonUcast);
                }
            }
            work += attemptsFailed;
        }
        return work;
    }

    /**
     * Starts every due frame of one port, summing what left in {@link #sentOctets}, {@link #sentUcast} and
     * {@link #sentNonUcast} (frames dequeued but not sent — MTU, TX ring full — in {@link #attemptsFailed}).
     */
    private void transmitDueOn(
            final TrafficManager t,
            final int p,
            final Port port,
            final io.asicemu.flowlet.ars.PortQuality quality,
            final long fromNs,
            final long nowNs) {
        sentOctets = 0;
        sentUcast = 0;
        sentNonUcast = 0;
        attemptsFailed = 0;
        long startNs = fromNs;
        txBlocked[p] = false;
        while (true) {
            final long readyNs = t.nextTransmitNs(startNs, p);
            if (readyNs - nowNs > 0) {
                break;
            }
            if (!port.transmitReady()) {
                txBlocked[p] = true; // the frame stays queued in the TM: only the buffer model drops
                break;
            }
            final int handle = t.dequeue(readyNs, p, departure);
            if (handle == TrafficManager.NO_PACKET) {
                break;
            }
            startNs = readyNs;
            if (departure.marked()) {
                markCe(handle);
            }
            transmit(p, port, handle, departure.txEndNs(), quality);
        }
    }

    private void transmit(
            final int index,
            final Port port,
            final int handle,
            final long txEndNs,
            final io.asicemu.flowlet.ars.PortQuality quality) {
        final int length = buffer.length(handle);
        if (!Port.fitsMtu(buffer.memory(), buffer.offset(handle), length, port.mtu())) {
            counters.addDrop(index, DropReason.OUT_EXCEEDS_L2_MTU); // the link's MTU shrank while it was queued
            counters.addPort(index, PortStat.IF_OUT_DISCARDS, 1);
            counters.addPort(index, PortStat.ETHER_TX_OVERSIZE_PKTS, 1);
            buffer.release(handle);
            attemptsFailed++;
            return;
        }
        final MemorySegment from;
        final long at;
        if (buffer.isContiguous(handle)) {
            from = buffer.memory();
            at = buffer.offset(handle);
        } else {
            buffer.gather(handle, gatherSegment, 0);
            from = gatherSegment;
            at = 0;
        }
        if (!port.linkUp()) {
            counters.addDrop(index, DropReason.OUT_EGRESS_LINK_DOWN); // a down link, not a full ring
            counters.addPort(index, PortStat.IF_OUT_DISCARDS, 1);
            attemptsFailed++;
        } else if (port.transmit(from, at, length, txEndNs)) {
            sentOctets += length;
            if (isNonUnicast(handle)) {
                sentNonUcast++;
            } else {
                sentUcast++;
            }
            if (quality != null) { // flowlet path quality: bytes sent (past load), queue left behind (future load)
                quality.onTransmit(index, length);
                quality.queueBytes(index, Math.max(0, departure.depthBytes() - length));
            }
        } else {
            counters.addDrop(index, DropReason.TX_RING_FULL);
            counters.addPort(index, PortStat.IF_OUT_ERRORS, 1);
            attemptsFailed++;
        }
        buffer.release(handle);
    }

    private boolean isNonUnicast(final int handle) {
        return (NetworkOrder.u8(buffer.memory(), buffer.offset(handle)) & 1) != 0;
    }

    private void countOut(final int port, final int length, final boolean nonUnicast) {
        counters.addPort(port, PortStat.IF_OUT_OCTETS, length);
        counters.addPort(port, nonUnicast ? PortStat.IF_OUT_NON_UCAST_PKTS : PortStat.IF_OUT_UCAST_PKTS, 1);
    }

    /** ECN = CE on the buffered copy (the traffic manager decided to mark at dequeue); the IP header is in cell 0. */
    private void markCe(final int handle) {
        final int l3 = buffer.l3OffsetOf(handle);
        if (l3 < 0) {
            return;
        }
        FrameRewriter.markCe(buffer.memory(), buffer.offset(handle) + l3, buffer.ipVersionOf(handle));
    }

    /**
     * The earliest emulated time at which a cycle has timed work: a frame may start on a port, a traffic-manager
     * timer, FDB aging (while learned entries exist) or the fold of the ports' losses (after frames arrived) is due. Receive events are not included (the caller knows its ports' next frames).
     *
     * @return the deadline in emulated ns, or {@link Long#MAX_VALUE} if nothing is pending.
     */
    public long nextDeadlineNs() {
        if (tm == null) {
            return Long.MAX_VALUE;
        }
        final long base = previousNowNs == Long.MIN_VALUE ? 0 : previousNowNs;
        // an idle switch has no timed work of its own: aging only while learned entries exist (their sweeps stay on
        // the one-second grid), the fold of the ports' losses only after frames arrived
        long deadline = tm.nextDeadlineNs();
        if (tables != null && tables.fdb().dynamicSize() > 0) {
            deadline = Math.min(deadline, nextAgingNs);
        }
        if (portLossesToFold) {
            deadline = Math.min(deadline, nextPortLossNs);
        }
        for (int i = 0; i < attachedCount && attached[i] < tm.portCount(); i++) {
            final int p = attached[i];
            final long transmitNs = tm.nextTransmitNs(base, p);
            // a port whose TX ring was full: try again a little later rather than spin while the kernel drains it
            deadline = Math.min(deadline, txBlocked[p] ? Math.max(transmitNs, base + TX_RETRY_NS) : transmitNs);
        }
        return deadline;
    }

    /**
     * @return whether any frame waits in the traffic manager (data-plane thread; the replay runs until none does).
     */
    public boolean hasQueuedPackets() {
        if (tm == null) {
            return false;
        }
        for (int p = 0; p < tm.portCount(); p++) {
            if (ports[p] != null && tm.nextTransmitNs(0, p) != Long.MAX_VALUE) {
                return true;
            }
        }
        return false;
    }

    /** @return the counters. */
    public Counters counters() {
        return counters;
    }

    /** @return the CPU port. */
    public CpuPort cpuPort() {
        return cpu;
    }

    @Override
    public void onClose() {
        if (buffer != null) {
            buffer.close();
        }
    }
}
