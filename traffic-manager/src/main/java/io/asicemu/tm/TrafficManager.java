package io.asicemu.tm;

import io.asicemu.tm.buffer.BufferAccounting;
import io.asicemu.tm.buffer.QueueStore;
import io.asicemu.tm.config.BufferPoolConfig;
import io.asicemu.tm.config.BufferProfileConfig;
import io.asicemu.tm.config.PfcWdAction;
import io.asicemu.tm.config.PortConfig;
import io.asicemu.tm.config.SchedulerConfig;
import io.asicemu.tm.config.TmConfig;
import io.asicemu.tm.config.WredProfileConfig;
import io.asicemu.tm.counter.PgStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCounters;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.tm.pfc.PfcFrameSink;
import io.asicemu.tm.pfc.PfcGenerator;
import io.asicemu.tm.pfc.PfcPauseTimers;
import io.asicemu.tm.scheduler.PortClock;
import io.asicemu.tm.scheduler.PortScheduler;
import io.asicemu.tm.watchdog.PfcWatchdog;
import io.asicemu.tm.wred.SplitMix64;
import io.asicemu.tm.wred.WredTable;
import java.util.ArrayList;
import java.util.List;

/**
 * The traffic manager: shared buffer, ingress PGs, 8 egress queues per port, WRED/ECN, PFC generation and reception,
 * the PFC watchdog, schedulers and port serialization.
 * <pre>
 *  admit(now, inPort, pg, outPort, queue, bytes, ecn, handle)
 *     PG accounting (reserved → shared → headroom)  ── spill on a lossless PG ─→ PfcFrameSink (XOFF)
 *     queue accounting, ring push
 *  nextTransmitNs(now, port) → when the port may start a frame (serialization, shaper, pause)
 *  dequeue(now, port, verdict) → handle; verdict: queue, bytes, ECN, marked, WRED depth, end of transmission
 *     scheduler (STRICT, then DWRR/WRR) over non-empty, un-paused queues
 *     WRED/ECN on the instantaneous queue ── drop ─→ DropSink; mark → ECN = CE
 *     release PG (may send XON) and queue, start serialization → handle
 *  onPfcReceived(now, port, vector, quanta[8]) → pause timers of the port's egress queues
 *  poll(now) / nextDeadlineNs() → PFC refresh frames, watchdog polls
 *  snapshot(now, into) → counters with SAI / COUNTERS_DB names
 * </pre>
 * All times are emulated nanoseconds supplied by the caller; there are no clock reads. Time dilation, if any, is
 * applied by whoever owns the clock. Not thread safe: every method runs on the data-plane thread; admit, dequeue,
 * nextTransmitNs, onPfcReceived and poll allocate nothing.
 */
public final class TrafficManager {
    /** dequeue found nothing to send. */
    public static final int NO_PACKET = -1;
    /** Admitted; the TM now owns the handle until dequeue returns it or the DropSink gets it. */
    public static final int ADMITTED = 0;
    /** Ingress PG had no room (lossy limit, or lossless headroom exhausted). */
    public static final int DROP_INGRESS = 1;
    /** Egress queue over its limit. */
    public static final int DROP_EGRESS = 2;
    /**
     * No packet descriptor was free. Descriptors are sized to the device buffer's cells, so this is a bug, never a
     * buffer rule: callers count it under its own reason.
     */
    public static final int DROP_QUEUE_FULL = 3;
    /** PFC watchdog drop action (or BIG_RED_SWITCH). */
    public static final int DROP_PFCWD = 4;
    /** WRED drop (at dequeue, or at admit with {@code TmOptions.wredAtEnqueue}). */
    public static final int DROP_WRED = 5;

    /**
     * The device buffer when the configuration has no BUFFER_POOL at all: SONiC's Tomahawk egress_lossless_pool
     * (15,982,720 B, the pool that spans the whole buffer; reference §1.3).
     */
    public static final long UNCONFIGURED_BUFFER_BYTES = 15_982_720L;

    private static final int MAX_DROPS_PER_DEQUEUE = 64;
    private static final int MARKED_BIT = 1 << 23;

    private final int portCount;
    private final List<String> poolNames;
    private final TmCounters counters;
    private final BufferAccounting buffers;
    private final QueueStore queues;
    private final WredTable wred;
    private final PfcGenerator generator;
    private final PfcPauseTimers pause;
    private final PfcWatchdog watchdog;
    private final PortScheduler scheduler;
    private final PortClock clock;
    private final DropSink dropSink;
    private final long[] qSlots;
    private final long[] pgSlots;
    private final boolean wredAtEnqueue;

    /** Filled by the two-argument {@link #dequeue(long, int)}, whose callers want only the handle. */
    private final DequeueVerdict discarded = new DequeueVerdict();

    /**
     * Compile a configuration into data-path state (allocates; control path).
     *
     * @param config   parsed CONFIG_DB tables.
     * @param options  emulator settings.
     * @param pfcSink  where generated PFC frames go.
     * @param dropSink where handles of packets dropped after admission go.
     * @param startNs  emulated start time (first watchdog poll at start + POLL_INTERVAL).
     */
    public TrafficManager(
            final TmConfig config,
            final TmOptions options,
            final PfcFrameSink pfcSink,
            final DropSink dropSink,
            final long startNs) {
        portCount = config.ports().size();
        this.dropSink = dropSink;
        poolNames = new ArrayList<>(config.pools().keySet());
        final long[] poolSizes = new long[poolNames.size()];
        final long[] poolXoffs = new long[poolNames.size()];
        for (int i = 0; i < poolSizes.length; i++) {
            final BufferPoolConfig p = config.pools().get(poolNames.get(i));
            poolSizes[i] = p.sizeBytes();
            poolXoffs[i] = p.xoffBytes();
        }
        counters = new TmCounters(portCount, poolSizes.length);
        qSlots = counters.queueSlots();
        pgSlots = counters.pgSlots();
        buffers = new BufferAccounting(options.cellBytes(), portCount, poolSizes, poolXoffs, counters);
        wred = new WredTable(
                portCount * 8, options.wredDropAboveMax(), new SplitMix64(options.wredSeed()), options.wredWeight());
        wredAtEnqueue = options.wredAtEnqueue();

        final long[] speed = new long[portCount];
        final int[] honour = new int[portCount];
        final int[][] prioToQueue = new int[portCount][];
        final long[] refresh = new long[portCount];
        final int[] pgPrioMask = new int[portCount * 8];
        final long[] pgXon = new long[portCount * 8];
        final long[] pgXonOffset = new long[portCount * 8];
        final int[] wdMask = new int[portCount];
        final PfcWdAction[] wdAction = new PfcWdAction[portCount];
        final int[] wdDetect = new int[portCount];
        final int[] wdRestore = new int[portCount];
        for (final PortConfig p : config.ports()) {
            final int port = p.index();
            speed[port] = p.speedMbps();
            honour[port] = p.pfcAsym() ? 0xFF : p.pfcEnableMask();
            prioToQueue[port] = p.pfcPriorityToQueue();
            refresh[port] = options.pfcRefreshNs() > 0
                    ? options.pfcRefreshNs()
                    : Math.max(1, PfcPauseTimers.pauseNs(options.pfcQuanta(), p.speedMbps()) / 2);
            for (int prio = 0; prio < 8; prio++) {
                if ((p.pfcEnableMask() & (1 << prio)) != 0) {
                    pgPrioMask[port * 8 + p.tcToPg()[prio]] |= 1 << prio;
                }
            }
            configurePort(config, p, pgXon, pgXonOffset);
            if (null != p.pfcWd()) {
                wdMask[port] = p.pfcwdSwEnableMask();
                wdAction[port] = p.pfcWd().action();
                wdDetect[port] = p.pfcWd().detectionTimeMs();
                wdRestore[port] = p.pfcWd().restorationTimeMs();
            }
        }
        buffers.deviceLimitBytes(deviceBufferBytes(buffers));
        queues = new QueueStore(
                portCount, (int) Math.min(Integer.MAX_VALUE - 8, buffers.deviceLimitBytes() / options.cellBytes()));
        scheduler = new PortScheduler(portCount, queues);
        for (final PortConfig p : config.ports()) {
            configureSchedulers(config, options, p);
        }
        clock = new PortClock(speed, options.wireOverheadBytes(), startNs);
        for (final PortConfig p : config.ports()) {
            if (null != p.shaperScheduler()) {
                final SchedulerConfig s = config.schedulers().get(p.shaperScheduler());
                if (s.pirBytesPerSec() > 0) {
                    clock.shaper(p.index(), s.pirBytesPerSec(), s.pbsBytes() > 0 ? s.pbsBytes() : 9216);
                }
            }
        }
        pause = new PfcPauseTimers(speed, honour, prioToQueue, counters);
        generator = new PfcGenerator(
                portCount, pfcSink, clock, options.pfcQuanta(), refresh, pgPrioMask, pgXon, pgXonOffset, counters);
        watchdog = new PfcWatchdog(
                portCount,
                options.stormPredicate(),
                config.pollIntervalMs(),
                config.bigRedSwitch(),
                wdMask,
                wdAction,
                wdDetect,
                wdRestore,
                startNs,
                pause,
                generator,
                queues,
                counters);
    }

    /**
     * The device buffer: the PG and queue rules' own bound when they have one (then it never binds), else the whole
     * configured buffer, else (no BUFFER_POOL at all) {@link #UNCONFIGURED_BUFFER_BYTES}.
     */
    private static long deviceBufferBytes(final BufferAccounting buffers) {
        final long bound = buffers.modelBoundBytes();
        if (bound != Long.MAX_VALUE) {
            return Math.max(bound, buffers.cellBytes());
        }
        final long configured = buffers.configuredBytes();
        return configured > 0 ? configured : UNCONFIGURED_BUFFER_BYTES;
    }

    private void configurePort(
            final TmConfig config, final PortConfig p, final long[] pgXon, final long[] pgXonOffset) {
        final int port = p.index();
        for (int i = 0; i < 8; i++) {
            final int idx = port * 8 + i;
            final String pgProfile = p.pgProfile()[i];
            if (null != pgProfile) {
                final BufferProfileConfig bp = config.profiles().get(pgProfile);
                buffers.configurePg(
                        idx,
                        poolNames.indexOf(bp.pool()),
                        bp.sizeBytes(),
                        bp.staticThBytes(),
                        bp.dynamicTh(),
                        bp.xoffBytes());
                pgXon[idx] = bp.xonBytes();
                pgXonOffset[idx] = bp.xonOffsetBytes();
            }
            final String qProfile = p.queueProfile()[i];
            if (null != qProfile) {
                final BufferProfileConfig bp = config.profiles().get(qProfile);
                buffers.configureQueue(
                        idx, poolNames.indexOf(bp.pool()), bp.sizeBytes(), bp.staticThBytes(), bp.dynamicTh());
            }
            final String w = p.queueWredProfile()[i];
            if (null != w) {
                final WredProfileConfig wp = config.wredProfiles().get(w);
                wred.configure(
                        idx,
                        wp.minThresholdBytes(),
                        wp.maxThresholdBytes(),
                        wp.dropProbabilityPercent(),
                        wp.enabled(),
                        wp.ecnMarkColourMask());
            }
        }
    }

    private void configureSchedulers(final TmConfig config, final TmOptions options, final PortConfig p) {
        final int port = p.index();
        for (int i = 0; i < 8; i++) {
            final String s = p.queueScheduler()[i];
            if (null != s) {
                final SchedulerConfig sc = config.schedulers().get(s);
                final int type = switch (sc.type()) {
                    case STRICT -> PortScheduler.STRICT;
                    case DWRR -> PortScheduler.DWRR;
                    case WRR -> PortScheduler.WRR;
                };
                scheduler.configure(port, i, type, sc.weight(), options.dwrrQuantumBytesPerWeight());
            }
        }
    }

    /**
     * Runtime WRED/ECN change of one egress queue (P4Runtime registers tm.ecn_*): Kmin, Kmax and Pmax for all three
     * colours, as re-configuring the queue's WRED_PROFILE would give (see {@link WredTable#setThresholds}). Call on
     * the data-plane thread between packet batches; allocates nothing. Values are validated by the caller.
     *
     * @param port        egress port.
     * @param queue       queue 0..7.
     * @param minBytes    Kmin.
     * @param maxBytes    Kmax (0 = the maximum buffer size).
     * @param probPercent Pmax 0..100.
     */
    public void setWred(
            final int port, final int queue, final long minBytes, final long maxBytes, final int probPercent) {
        wred.setThresholds(port * 8 + queue, minBytes, maxBytes, probPercent);
    }

    /**
     * Runtime WRED/ECN change of one colour of one egress queue (the per-colour P4Runtime registers tm.ecn_* and
     * knobs): the other colours keep their values, as re-configuring the queue's WRED_PROFILE with this colour's
     * fields changed would give (see {@link WredTable#setColourThresholds}). Data-plane thread, between packet
     * batches; allocates nothing. Values are validated by the caller.
     *
     * @param port        egress port.
     * @param queue       queue 0..7.
     * @param colour      {@link WredProfileConfig#GREEN}, {@link WredProfileConfig#YELLOW} or
     *                    {@link WredProfileConfig#RED}.
     * @param minBytes    Kmin.
     * @param maxBytes    Kmax (0 = the maximum buffer size).
     * @param probPercent Pmax 0..100.
     */
    public void setWredColour(
            final int port,
            final int queue,
            final int colour,
            final long minBytes,
            final long maxBytes,
            final int probPercent) {
        wred.setColourThresholds(port * 8 + queue, colour, minBytes, maxBytes, probPercent);
    }

    /**
     * Copies the WRED/ECN settings in force for one colour of one egress queue (see {@link WredTable#settings}): what
     * the data path decides with, for a control-side read. Data-plane thread (or whoever owns the TM).
     *
     * @param port   egress port.
     * @param queue  queue 0..7.
     * @param colour 0 green, 1 yellow, 2 red.
     * @param out    receives Kmin, Kmax (0 = maximum buffer), Pmax percent, enabled (1/0), ECN marks (1/0).
     */
    public void wredSettings(final int port, final int queue, final int colour, final long[] out) {
        wred.settings(port * 8 + queue, colour, out);
    }

    /**
     * Runtime PFC threshold change of one ingress PG (P4Runtime registers tm.pfc_xoff_bytes / tm.pfc_xon_bytes): the
     * BUFFER_PROFILE {@code xoff} (headroom above the PG's reserved + shared limit; spilling past that limit is
     * still what sends XOFF) and {@code xon} (XON when the PG's occupancy falls to it). Data-plane thread, between
     * packet batches; allocates nothing.
     *
     * @param port      ingress port.
     * @param pg        PG 0..7.
     * @param xoffBytes headroom bytes.
     * @param xonBytes  XON threshold bytes.
     */
    public void setPfcThresholds(final int port, final int pg, final long xoffBytes, final long xonBytes) {
        buffers.setPgHeadroomLimit(port * 8 + pg, xoffBytes);
        generator.setXon(port * 8 + pg, xonBytes);
    }

    /**
     * Runtime PFC watchdog times of a port's watched queues (see {@link PfcWatchdog#setTimes}). Data-plane thread.
     *
     * @param port          port.
     * @param detectionMs   detection_time.
     * @param restorationMs restoration_time, -1 = never.
     */
    public void setWatchdogTimes(final int port, final int detectionMs, final int restorationMs) {
        watchdog.setTimes(port, detectionMs, restorationMs);
    }

    /**
     * Admit a green packet; see {@link #admit(long, int, int, int, int, int, int, int, int)}.
     *
     * @param nowNs   emulated time.
     * @param inPort  ingress port.
     * @param pg      ingress PG 0..7.
     * @param outPort egress port.
     * @param queue   egress queue 0..7.
     * @param bytes   frame length without FCS.
     * @param ecn     IP ECN bits 0..3.
     * @param handle  caller's packet handle.
     * @return {@link #ADMITTED} or a DROP_* reason.
     */
    public int admit(
            final long nowNs,
            final int inPort,
            final int pg,
            final int outPort,
            final int queue,
            final int bytes,
            final int ecn,
            final int handle) {
        return admit(nowNs, inPort, pg, outPort, queue, bytes, ecn, 0, handle);
    }

    /**
     * Admit a packet into the buffer. On a DROP_* result the handle stays with the caller.
     *
     * @param nowNs   emulated time.
     * @param inPort  ingress port.
     * @param pg      ingress PG 0..7.
     * @param outPort egress port.
     * @param queue   egress queue 0..7.
     * @param bytes   frame length without FCS.
     * @param ecn     IP ECN bits 0..3 (0 for non-IP).
     * @param colour  0 green, 1 yellow, 2 red.
     * @param handle  caller's packet handle.
     * @return {@link #ADMITTED} or a DROP_* reason.
     */
    public int admit(
            final long nowNs,
            final int inPort,
            final int pg,
            final int outPort,
            final int queue,
            final int bytes,
            final int ecn,
            final int colour,
            final int handle) {
        final int pgi = inPort * 8 + pg;
        final int qi = outPort * 8 + queue;
        final int ps = pgi * PgStat.COUNT;
        final int qs = qi * QueueStat.COUNT;
        pgSlots[ps + TmCounters.PG_PACKETS]++;
        pgSlots[ps + TmCounters.PG_BYTES] += bytes;
        if ((watchdog.dropMask(inPort) & (1 << pg)) != 0) {
            pgSlots[ps + TmCounters.PG_DROPPED_PACKETS]++;
            return DROP_PFCWD;
        }
        if ((watchdog.dropMask(outPort) & (1 << queue)) != 0) {
            queueDrop(qs, bytes);
            return DROP_PFCWD;
        }
        final int charged = buffers.chargedBytes(bytes);
        final boolean lossless = generator.isLossless(pgi);
        final int inBucket = buffers.ingressBucket(pgi, charged, lossless);
        if (lossless && inBucket >= BufferAccounting.HEADROOM || lossless && inBucket == BufferAccounting.REJECT) {
            generator.onSpill(nowNs, pgi, buffers.pgNonHeadroomOccupancy(pgi));
        }
        if (inBucket == BufferAccounting.REJECT) {
            pgSlots[ps + TmCounters.PG_DROPPED_PACKETS]++;
            return DROP_INGRESS;
        }
        final int egBucket = buffers.egressBucket(qi, charged);
        if (egBucket == BufferAccounting.REJECT || !buffers.fitsDevice(charged)) {
            queueDrop(qs, bytes);
            return DROP_EGRESS;
        }
        if (queues.isFull(qi)) {
            queueDrop(qs, bytes);
            return DROP_QUEUE_FULL;
        }
        int ecnBits = ecn & 3;
        int markedBit = 0;
        if (wredAtEnqueue && wred.isActive(qi)) {
            final int verdict = wred.decide(qi, queues.queueBytes(qi) + charged, ecnBits, colour);
            if (verdict == WredTable.DROP) {
                qSlots[qs + TmCounters.Q_WRED_DROPPED_PACKETS]++;
                qSlots[qs + TmCounters.Q_WRED_DROPPED_BYTES] += bytes;
                queueDrop(qs, bytes);
                return DROP_WRED;
            }
            if (verdict == WredTable.MARK) {
                ecnBits = WredTable.CE;
                markedBit = MARKED_BIT;
                qSlots[qs + TmCounters.Q_ECN_MARKED_PACKETS]++;
                qSlots[qs + TmCounters.Q_ECN_MARKED_BYTES] += bytes;
            }
        }
        buffers.charge(pgi, inBucket, qi, egBucket, charged);
        queues.push(qi, handle, bytes, charged, inPort | pg << 16 | ecnBits << 19 | (colour & 3) << 21 | markedBit);
        qSlots[qs + TmCounters.Q_OCCUPANCY] = queues.queueBytes(qi);
        return ADMITTED;
    }

    private void queueDrop(final int qs, final int bytes) {
        qSlots[qs + TmCounters.Q_DROPPED_PACKETS]++;
        qSlots[qs + TmCounters.Q_DROPPED_BYTES] += bytes;
    }

    /**
     * Earliest time at or after nowNs when {@link #dequeue} on the port can return a packet, given serialization,
     * the shaper and pause timers; Long.MAX_VALUE when the port's queues are empty.
     *
     * @param nowNs emulated time.
     * @param port  egress port.
     * @return emulated ns.
     */
    public long nextTransmitNs(final long nowNs, final int port) {
        final int nonEmpty = queues.nonEmptyMask(port);
        if (nonEmpty == 0) {
            return Long.MAX_VALUE;
        }
        final long t = clock.readyNs(nowNs, port);
        if ((nonEmpty & ~pause.pausedQueueMask(t, port)) != 0) {
            return t;
        }
        return clock.readyNs(pause.resumeNs(t, port, nonEmpty), port);
    }

    /**
     * {@link #dequeue(long, int, DequeueVerdict)} for a caller that needs only the handle (draining a port).
     *
     * @param nowNs emulated time (the frame starts now).
     * @param port  egress port.
     * @return the packet handle, or {@link #NO_PACKET}.
     */
    public int dequeue(final long nowNs, final int port) {
        return dequeue(nowNs, port, discarded);
    }

    /**
     * Start the next frame on a port if it may transmit at nowNs: picks a queue, applies WRED/ECN on the queue depth
     * (drops go to the DropSink and the next packet is tried), releases the buffer and starts serialization.
     *
     * @param nowNs   emulated time (the frame starts now).
     * @param port    egress port.
     * @param verdict overwritten with the frame's queue, bytes, ECN bits, mark, WRED depth and end of transmission
     *                (the caller's reused instance; nothing is allocated).
     * @return the packet handle, or {@link #NO_PACKET}.
     */
    public int dequeue(final long nowNs, final int port, final DequeueVerdict verdict) {
        verdict.none();
        for (int attempt = 0; attempt < MAX_DROPS_PER_DEQUEUE; attempt++) {
            if (clock.readyNs(nowNs, port) > nowNs) {
                return NO_PACKET;
            }
            final int nonEmpty = queues.nonEmptyMask(port);
            if (nonEmpty == 0) {
                return NO_PACKET;
            }
            final int q = scheduler.select(port, nonEmpty & ~pause.pausedQueueMask(nowNs, port));
            if (q < 0) {
                return NO_PACKET;
            }
            final int qi = port * 8 + q;
            final int slot = queues.headSlot(qi);
            final int handle = queues.handle(slot);
            final int bytes = queues.bytes(slot);
            final int charged = queues.charged(slot);
            final int meta = queues.meta(slot);
            final long depth = queues.queueBytes(qi);
            queues.pop(qi);
            release(nowNs, qi, meta, charged);
            final int qs = qi * QueueStat.COUNT;
            verdict.taken(q, depth);
            if ((watchdog.dropMask(port) & (1 << q)) != 0) {
                queueDrop(qs, bytes);
                dropSink.onDropped(nowNs, handle, port, q, DROP_PFCWD);
                continue;
            }
            int ecn = (meta >> 19) & 3;
            boolean marked = (meta & MARKED_BIT) != 0;
            if (!wredAtEnqueue && wred.isActive(qi)) {
                final int decision = wred.decide(qi, depth, ecn, (meta >> 21) & 3);
                if (decision == WredTable.DROP) {
                    qSlots[qs + TmCounters.Q_WRED_DROPPED_PACKETS]++;
                    qSlots[qs + TmCounters.Q_WRED_DROPPED_BYTES] += bytes;
                    queueDrop(qs, bytes);
                    dropSink.onDropped(nowNs, handle, port, q, DROP_WRED);
                    continue;
                }
                if (decision == WredTable.MARK) {
                    ecn = WredTable.CE;
                    marked = true;
                    qSlots[qs + TmCounters.Q_ECN_MARKED_PACKETS]++;
                    qSlots[qs + TmCounters.Q_ECN_MARKED_BYTES] += bytes;
                }
            }
            scheduler.onServed(port, q, bytes);
            qSlots[qs + TmCounters.Q_PACKETS]++;
            qSlots[qs + TmCounters.Q_BYTES] += bytes;
            verdict.started(handle, bytes, ecn, marked, clock.transmit(nowNs, port, bytes));
            return handle;
        }
        return NO_PACKET;
    }

    private void release(final long nowNs, final int qi, final int meta, final int charged) {
        final int pgi = (meta & 0xFFFF) * 8 + ((meta >> 16) & 7);
        buffers.release(pgi, qi, charged);
        generator.onRelease(nowNs, pgi, buffers.pgOccupancy(pgi));
        qSlots[qi * QueueStat.COUNT + TmCounters.Q_OCCUPANCY] = queues.queueBytes(qi);
    }

    /**
     * A PFC frame arrived on a port: pause its egress queues (MAP_PFC_PRIORITY_TO_QUEUE) for quanta × 512 bit times;
     * a newer frame replaces the remaining time, quanta 0 resumes at once; the frame on the wire finishes.
     *
     * @param nowNs             emulated time.
     * @param port              the port the frame came in on.
     * @param classEnableVector bit n: quanta[n] valid.
     * @param quanta            8 quanta (read during the call only).
     */
    public void onPfcReceived(final long nowNs, final int port, final int classEnableVector, final int[] quanta) {
        pause.onPfcReceived(nowNs, port, classEnableVector, quanta);
    }

    /**
     * Fire due timers: PFC refresh frames and watchdog polls (each poll evaluated at its own instant).
     *
     * @param nowNs emulated time.
     * @return work done (frames + polls).
     */
    public int poll(final long nowNs) {
        return generator.poll(nowNs) + watchdog.poll(nowNs);
    }

    /** @return the earliest timer deadline ({@link #poll} is due then). */
    public long nextDeadlineNs() {
        return Math.min(generator.nextDeadlineNs(), watchdog.nextDeadlineNs());
    }

    /**
     * Copy all counters, bringing pause durations and PAUSE_STATUS up to nowNs. Call on the data thread; the copy may
     * then be published to readers.
     *
     * @param nowNs emulated time.
     * @param into  destination (from {@link #newSnapshot()}).
     */
    public void snapshot(final long nowNs, final TmCountersSnapshot into) {
        pause.settleAll(nowNs);
        for (int port = 0; port < portCount; port++) {
            final int paused = pause.pausedQueueMask(nowNs, port);
            for (int q = 0; q < 8; q++) {
                qSlots[(port * 8 + q) * QueueStat.COUNT + TmCounters.Q_PAUSE_STATUS] = (paused >> q) & 1;
            }
        }
        into.copyFrom(counters);
    }

    /** @return a snapshot sized for this TM. */
    public TmCountersSnapshot newSnapshot() {
        return new TmCountersSnapshot(portCount, poolNames.size());
    }

    /**
     * @param poolName BUFFER_POOL name.
     * @return index for {@link TmCountersSnapshot#pool}, or -1.
     */
    public int poolIndex(final String poolName) {
        return poolNames.indexOf(poolName);
    }

    /** @return the cell size every packet is charged and stored in. */
    public int cellBytes() {
        return buffers.cellBytes();
    }

    /**
     * @return the device buffer in bytes (whole cells): the most the admitted packets can hold at once. A packet
     *     store with this many bytes in cells of {@link #cellBytes()} (plus room for the one frame being admitted)
     *     never runs out before the buffer rules refuse a packet.
     */
    public long bufferBytes() {
        return buffers.deviceLimitBytes();
    }

    /** @return bytes (whole cells) the admitted packets hold now. */
    public long bufferUsedBytes() {
        return buffers.deviceUsedBytes();
    }

    /** @return heap bytes of the per-packet descriptors (5 ints per packet the buffer can hold). */
    public long descriptorBytes() {
        return (long) queues.capacity() * 5 * Integer.BYTES;
    }

    /** @return number of ports. */
    public int portCount() {
        return portCount;
    }

    /**
     * @param port  port.
     * @param queue queue.
     * @return packets queued.
     */
    public int queuedPackets(final int port, final int queue) {
        return queues.count(port * 8 + queue);
    }

    /**
     * @param port port.
     * @param pg   PG.
     * @return true while the PG is in XOFF.
     */
    public boolean isXoff(final int port, final int pg) {
        return generator.isXoff(port * 8 + pg);
    }

    /**
     * @param port  port.
     * @param queue queue.
     * @return true while the watchdog has the queue stormed.
     */
    public boolean isStormed(final int port, final int queue) {
        return watchdog.isStormed(port, queue);
    }
}
