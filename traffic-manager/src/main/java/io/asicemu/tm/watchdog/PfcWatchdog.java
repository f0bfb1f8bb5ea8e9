package io.asicemu.tm.watchdog;

import io.asicemu.tm.buffer.QueueStore;
import io.asicemu.tm.config.PfcWdAction;
import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.PgStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCounters;
import io.asicemu.tm.pfc.PfcGenerator;
import io.asicemu.tm.pfc.PfcPauseTimers;

/**
 * SONiC's PFC watchdog (reference §2), polled every POLL_INTERVAL of emulated time starting one interval after
 * start. Watched queues are those of {@code pfcwd_sw_enable} on ports with a PFC_WD entry (queue index == priority).
 * The first poll only records the last values. While the storm predicate holds, {@code time_left} (initially
 * detection_time) is compared with the poll time and, if larger, decreased by it; a storm is declared when
 * {@code time_left <= poll}, i.e. on the ceil(T/poll)-th consecutive qualifying poll; a miss resets it. From the next
 * poll on, a stormed drop/forward queue restores after ceil(Tr/poll) consecutive polls with ΔPFC_RX_PKTS == 0 (a
 * frame resets the count; no restoration_time: never). An alert queue is restored at the first poll where the
 * predicate fails. Actions: drop = ingress (port, PG q) and egress (queue q) drops, pause no longer honoured and PFC
 * no longer generated; forward = pause not honoured, PFC not generated; alert = status and counters only.
 * BIG_RED_SWITCH applies the drop handler to every watched queue and disables detection.
 * Not thread safe: data-plane thread only; no allocation.
 */
public final class PfcWatchdog {
    private final StormPredicate predicate;
    private final long pollNs;
    private final long pollUs;
    private final boolean bigRedSwitch;
    private final boolean[] watched;
    private final PfcWdAction[] action;
    private final long[] detectionUs;
    private final long[] restorationUs;
    private final long[] timeLeftUs;
    private final long[] restoreLeftUs;
    private final boolean[] stormed;
    private final boolean[] initialized;
    private final long[] lastRx;
    private final long[] lastOn2Off;
    private final boolean[] lastPaused;
    private final long[] lastTxPackets;
    private final long[] lastDurationUs;
    private final long[] baseTx;
    private final long[] baseTxDrop;
    private final long[] baseRx;
    private final long[] baseRxDrop;
    private final int[] dropMask;
    private final PfcPauseTimers pause;
    private final PfcGenerator generator;
    private final QueueStore queues;
    private final long[] qSlots;
    private final long[] pgSlots;
    private final long[] pfcSlots;
    private long nextPollNs;
    /** The last poll found no watched queue stormed or paused. */
    private boolean quiescent;
    /** When the last poll ran (its own instant). */
    private long lastPollNs = Long.MIN_VALUE;

    /**
     * @param portCount      ports.
     * @param predicate      storm test.
     * @param pollIntervalMs POLL_INTERVAL.
     * @param bigRedSwitch   BIG_RED_SWITCH enabled.
     * @param watchedMask    per port: watched queues (0 = no PFC_WD entry).
     * @param actions        per port action (null when not watched).
     * @param detectionMs    per port detection_time.
     * @param restorationMs  per port restoration_time, -1 = never.
     * @param startNs        emulated start time.
     * @param pause          reception timers.
     * @param generator      PFC generator.
     * @param queues         queue store.
     * @param counters       counters.
     */
    public PfcWatchdog(
            final int portCount,
            final StormPredicate predicate,
            final int pollIntervalMs,
            final boolean bigRedSwitch,
            final int[] watchedMask,
            final PfcWdAction[] actions,
            final int[] detectionMs,
            final int[] restorationMs,
            final long startNs,
            final PfcPauseTimers pause,
            final PfcGenerator generator,
            final QueueStore queues,
            final TmCounters counters) {
        this.predicate = predicate;
        this.pollNs = pollIntervalMs * 1_000_000L;
        this.pollUs = pollIntervalMs * 1_000L;
        this.bigRedSwitch = bigRedSwitch;
        final int n = portCount * 8;
        watched = new boolean[n];
        action = new PfcWdAction[n];
        detectionUs = new long[n];
        restorationUs = new long[n];
        timeLeftUs = new long[n];
        restoreLeftUs = new long[n];
        stormed = new boolean[n];
        initialized = new boolean[n];
        lastRx = new long[n];
        lastOn2Off = new long[n];
        lastPaused = new boolean[n];
        lastTxPackets = new long[n];
        lastDurationUs = new long[n];
        baseTx = new long[n];
        baseTxDrop = new long[n];
        baseRx = new long[n];
        baseRxDrop = new long[n];
        dropMask = new int[portCount];
        this.pause = pause;
        this.generator = generator;
        this.queues = queues;
        qSlots = counters.queueSlots();
        pgSlots = counters.pgSlots();
        pfcSlots = counters.pfcSlots();
        for (int p = 0; p < portCount; p++) {
            for (int q = 0; q < 8; q++) {
                final int i = p * 8 + q;
                if ((watchedMask[p] & (1 << q)) != 0 && null != actions[p]) {
                    watched[i] = true;
                    action[i] = actions[p];
                    detectionUs[i] = detectionMs[p] * 1000L;
                    restorationUs[i] = restorationMs[p] < 0 ? -1 : restorationMs[p] * 1000L;
                    timeLeftUs[i] = detectionUs[i];
                    if (bigRedSwitch) {
                        applyAction(p, q, PfcWdAction.DROP, true);
                    }
                }
            }
        }
        boolean anyWatched = false;
        for (final boolean w : watched) {
            anyWatched |= w;
        }
        // Nothing to watch, nothing to poll: an idle switch without PFC_WD sleeps instead of waking every poll.
        nextPollNs = anyWatched ? startNs + pollNs : Long.MAX_VALUE;
    }

    /**
     * Runtime change of a port's detection and restoration times (P4Runtime registers; data-plane thread, between
     * packet batches). As if PFC_WD were re-configured: a watched queue that is not stormed restarts its detection
     * count (time_left = detection_time), a stormed one restarts its restoration count. Ports without a PFC_WD
     * entry are left alone.
     *
     * @param port          port.
     * @param detectionMs   detection_time.
     * @param restorationMs restoration_time, -1 = never restore.
     */
    public void setTimes(final int port, final int detectionMs, final int restorationMs) {
        for (int q = 0; q < 8; q++) {
            final int i = port * 8 + q;
            if (!watched[i]) {
                continue;
            }
            detectionUs[i] = detectionMs * 1000L;
            restorationUs[i] = restorationMs < 0 ? -1 : restorationMs * 1000L;
            if (stormed[i]) {
                restoreLeftUs[i] = restorationUs[i];
            } else {
                timeLeftUs[i] = detectionUs[i];
            }
        }
    }

    /** @return the next poll time. */
    public long nextDeadlineNs() {
        // At rest — the last poll found no watched queue stormed or paused, and no PFC frame paused a queue since —
        // a poll changes nothing but its own bookkeeping, so there is no deadline: an idle switch sleeps instead of
        // waking every POLL_INTERVAL, and the poll that runs once something happens (a frame wakes the data plane)
        // catches up on the missed ones in one step, as a gap in replay does (poll()).
        if (quiescent && pause.latestPauseEndNs() <= lastPollNs) {
            return Long.MAX_VALUE;
        }
        return nextPollNs;
    }

    /**
     * Run every poll due at or before nowNs, each at its own poll instant.
     *
     * @param nowNs emulated time.
     * @return polls run.
     */
    public int poll(final long nowNs) {
        int polls = 0;
        while (nextPollNs <= nowNs) {
            quiescent = runPoll(nextPollNs);
            lastPollNs = nextPollNs;
            nextPollNs += pollNs;
            polls++;
            if (quiescent && nextPollNs <= nowNs) {
                // Nothing stormed or paused, and no counter moves within this call: every further poll up to nowNs
                // would find the state this one left, so a gap of any length costs one poll (virtual-time replay).
                nextPollNs += ((nowNs - nextPollNs) / pollNs + 1) * pollNs;
            }
        }
        return polls;
    }

    /** @return whether the watchdog is at rest after this poll: no watched queue stormed or paused. */
    private boolean runPoll(final long pollTimeNs) {
        pause.settleAll(pollTimeNs);
        boolean quiescent = true;
        for (int i = 0; i < watched.length; i++) {
            if (!watched[i]) {
                continue;
            }
            final int port = i >> 3;
            final int q = i & 7;
            final int ps = i * PfcStat.COUNT;
            final long rx = pfcSlots[ps + TmCounters.PFC_RX];
            final long on2off = pfcSlots[ps + TmCounters.PFC_ON2OFF];
            final long durUs = pfcSlots[ps + TmCounters.PFC_RX_DURATION_US];
            final long txPackets = qSlots[i * QueueStat.COUNT + TmCounters.Q_PACKETS];
            final boolean paused = (pause.pausedQueueMask(pollTimeNs, port) & (1 << q)) != 0;
            if (initialized[i] && !bigRedSwitch) {
                evaluate(i, port, q, rx, on2off, durUs, txPackets, paused);
            }
            initialized[i] = true;
            lastRx[i] = rx;
            lastOn2Off[i] = on2off;
            lastPaused[i] = paused;
            lastTxPackets[i] = txPackets;
            lastDurationUs[i] = durUs;
            quiescent &= bigRedSwitch || !paused && !stormed[i];
        }
        return quiescent;
    }

    private void evaluate(
            final int i,
            final int port,
            final int q,
            final long rx,
            final long on2off,
            final long durUs,
            final long txPackets,
            final boolean paused) {
        final boolean storm;
        if (predicate == StormPredicate.BROADCOM) {
            storm = rx - lastRx[i] > 0 && on2off - lastOn2Off[i] == 0 && lastPaused[i] && paused;
        } else {
            storm = queues.queueBytes(i) > 0
                    && txPackets - lastTxPackets[i] == 0
                    && (durUs - lastDurationUs[i]) * 100 > 99 * pollUs;
        }
        if (!stormed[i]) {
            if (!storm) {
                timeLeftUs[i] = detectionUs[i];
            } else if (timeLeftUs[i] <= pollUs) {
                onStorm(i, port, q);
            } else {
                timeLeftUs[i] -= pollUs;
            }
            return;
        }
        if (action[i] == PfcWdAction.ALERT) {
            if (!storm) {
                onRestore(i, port, q);
            }
            return;
        }
        commitStats(i, port, q);
        if (restorationUs[i] < 0) {
            return;
        }
        if (rx - lastRx[i] != 0) {
            restoreLeftUs[i] = restorationUs[i];
        } else if (restoreLeftUs[i] <= pollUs) {
            onRestore(i, port, q);
        } else {
            restoreLeftUs[i] -= pollUs;
        }
    }

    private void onStorm(final int i, final int port, final int q) {
        stormed[i] = true;
        restoreLeftUs[i] = restorationUs[i];
        final int s = i * QueueStat.COUNT;
        qSlots[s + QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED.ordinal()]++;
        qSlots[s + QueueStat.PFC_WD_STATUS.ordinal()] = 1;
        if (action[i] != PfcWdAction.ALERT) {
            qSlots[s + QueueStat.PFC_WD_QUEUE_STATS_TX_PACKETS_LAST.ordinal()] = 0;
            qSlots[s + QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST.ordinal()] = 0;
            qSlots[s + QueueStat.PFC_WD_QUEUE_STATS_RX_PACKETS_LAST.ordinal()] = 0;
            qSlots[s + QueueStat.PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST.ordinal()] = 0;
            final int pg = (port * 8 + q) * PgStat.COUNT;
            baseTx[i] = qSlots[s + TmCounters.Q_PACKETS];
            baseTxDrop[i] = qSlots[s + TmCounters.Q_DROPPED_PACKETS];
            baseRx[i] = pgSlots[pg + TmCounters.PG_PACKETS];
            baseRxDrop[i] = pgSlots[pg + TmCounters.PG_DROPPED_PACKETS];
        }
        applyAction(port, q, action[i], true);
    }

    private void onRestore(final int i, final int port, final int q) {
        if (action[i] != PfcWdAction.ALERT) {
            commitStats(i, port, q);
        }
        stormed[i] = false;
        timeLeftUs[i] = detectionUs[i];
        final int s = i * QueueStat.COUNT;
        qSlots[s + QueueStat.PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED.ordinal()]++;
        qSlots[s + QueueStat.PFC_WD_STATUS.ordinal()] = 0;
        applyAction(port, q, action[i], false);
    }

    private void commitStats(final int i, final int port, final int q) {
        final int s = i * QueueStat.COUNT;
        final int pg = (port * 8 + q) * PgStat.COUNT;
        final long tx = qSlots[s + TmCounters.Q_PACKETS];
        final long txDrop = qSlots[s + TmCounters.Q_DROPPED_PACKETS];
        final long rx = pgSlots[pg + TmCounters.PG_PACKETS];
        final long rxDrop = pgSlots[pg + TmCounters.PG_DROPPED_PACKETS];
        add(s, QueueStat.PFC_WD_QUEUE_STATS_TX_PACKETS, QueueStat.PFC_WD_QUEUE_STATS_TX_PACKETS_LAST, tx - baseTx[i]);
        add(
                s,
                QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS,
                QueueStat.PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST,
                txDrop - baseTxDrop[i]);
        add(s, QueueStat.PFC_WD_QUEUE_STATS_RX_PACKETS, QueueStat.PFC_WD_QUEUE_STATS_RX_PACKETS_LAST, rx - baseRx[i]);
        add(
                s,
                QueueStat.PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS,
                QueueStat.PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST,
                rxDrop - baseRxDrop[i]);
        baseTx[i] = tx;
        baseTxDrop[i] = txDrop;
        baseRx[i] = rx;
        baseRxDrop[i] = rxDrop;
    }

    private void add(final int s, final QueueStat total, final QueueStat last, final long delta) {
        qSlots[s + total.ordinal()] += delta;
        qSlots[s + last.ordinal()] += delta;
    }

    private void applyAction(final int port, final int q, final PfcWdAction a, final boolean on) {
        if (a == PfcWdAction.ALERT) {
            return;
        }
        final int prio = 1 << q;
        pause.honour(port, prio, !on);
        generator.disable(port, prio, on);
        if (a == PfcWdAction.DROP) {
            dropMask[port] = on ? dropMask[port] | prio : dropMask[port] & ~prio;
        }
    }

    /**
     * @param port port.
     * @return bit q set when queue q (and ingress PG q) of the port drops all traffic.
     */
    public int dropMask(final int port) {
        return dropMask[port];
    }

    /**
     * @param port port.
     * @param q    queue.
     * @return true while the queue is stormed.
     */
    public boolean isStormed(final int port, final int q) {
        return stormed[port * 8 + q];
    }
}
