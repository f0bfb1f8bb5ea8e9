package io.asicemu.tm.pfc;

import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.TmCounters;

/**
 * Reception side of PFC (reference §6.2): per port and priority a pause timer of quanta × 512 bit times at the port
 * speed, rounded up to whole ns. A newer frame replaces the remaining time, quanta 0 resumes at once. A queue is
 * paused while any honoured priority mapped to it (MAP_PFC_PRIORITY_TO_QUEUE) has time left; the frame already on
 * the wire is not affected because pause only stops new transmissions. Honoured priorities are {@code pfc_enable}
 * (all eight with {@code pfc_asym on}, as orchagent sets PRIORITY_FLOW_CONTROL_RX to 0xFF), minus those the watchdog
 * cleared. Keeps SAI_PORT_STAT_PFC_n_RX_PKTS, ON2OFF_RX_PKTS, RX_PAUSE_DURATION (quanta) and _US.
 * Not thread safe: data-plane thread only; no allocation.
 */
public final class PfcPauseTimers {
    private final long[] speedMbps;
    private final int[] honourMask;
    private final int[] configuredHonourMask;
    private final int[] queuePriorityMask;
    private final int[] prioToQueue;
    private final long[] untilNs;
    private final long[] frameStartNs;
    private final int[] frameQuanta;
    private final int[] countedQuanta;
    private final long[] accountedNs;
    private final long[] durationNs;
    /** Per port: no pause timer runs past this time (may be stale-high after quanta 0; then the scan decides). */
    private final long[] portMaxUntilNs;

    private final long[] pfcSlots;

    /**
     * @param speedMbps          per-port speed.
     * @param honourMask         per-port priorities honoured on receive.
     * @param priorityToQueue    per port, 8 entries: priority → queue.
     * @param counters           counters.
     */
    public PfcPauseTimers(
            final long[] speedMbps, final int[] honourMask, final int[][] priorityToQueue, final TmCounters counters) {
        final int ports = speedMbps.length;
        this.speedMbps = speedMbps.clone();
        this.honourMask = honourMask.clone();
        this.configuredHonourMask = honourMask.clone();
        queuePriorityMask = new int[ports * 8];
        prioToQueue = new int[ports * 8];
        for (int p = 0; p < ports; p++) {
            for (int prio = 0; prio < 8; prio++) {
                queuePriorityMask[p * 8 + priorityToQueue[p][prio]] |= 1 << prio;
                prioToQueue[p * 8 + prio] = priorityToQueue[p][prio];
            }
        }
        untilNs = new long[ports * 8];
        frameStartNs = new long[ports * 8];
        frameQuanta = new int[ports * 8];
        countedQuanta = new int[ports * 8];
        accountedNs = new long[ports * 8];
        durationNs = new long[ports * 8];
        portMaxUntilNs = new long[ports];
        pfcSlots = counters.pfcSlots();
    }

    /**
     * @param quanta    pause quanta.
     * @param speedMbps port speed.
     * @return quanta × 512 bit times in ns, rounded up.
     */
    public static long pauseNs(final long quanta, final long speedMbps) {
        final long num = quanta * 512_000L;
        return (num + speedMbps - 1) / speedMbps;
    }

    /**
     * A PFC frame arrived on a port.
     *
     * @param nowNs             emulated time.
     * @param port              port index.
     * @param classEnableVector bit n: quanta[n] valid.
     * @param quanta            8 quanta values.
     */
    public void onPfcReceived(final long nowNs, final int port, final int classEnableVector, final int[] quanta) {
        for (int prio = 0; prio < 8; prio++) {
            if ((classEnableVector & (1 << prio)) == 0) {
                continue;
            }
            final int i = port * 8 + prio;
            final int s = i * PfcStat.COUNT;
            pfcSlots[s + TmCounters.PFC_RX]++;
            settle(i, nowNs);
            final int q = quanta[prio] & 0xFFFF;
            if (q == 0) {
                untilNs[i] = Math.min(untilNs[i], nowNs);
                continue;
            }
            if (untilNs[i] <= nowNs) {
                pfcSlots[s + TmCounters.PFC_ON2OFF]++;
            }
            frameStartNs[i] = nowNs;
            accountedNs[i] = nowNs;
            frameQuanta[i] = q;
            countedQuanta[i] = 0;
            untilNs[i] = nowNs + pauseNs(q, speedMbps[port]);
            portMaxUntilNs[port] = Math.max(portMaxUntilNs[port], untilNs[i]);
        }
    }

    private void settle(final int i, final long nowNs) {
        final long until = untilNs[i];
        if (accountedNs[i] >= until) {
            return;
        }
        final long end = Math.min(nowNs, until);
        if (end <= accountedNs[i]) {
            return;
        }
        durationNs[i] += end - accountedNs[i];
        accountedNs[i] = end;
        final long speed = speedMbps[i >> 3];
        final int elapsedQ = end >= until
                ? frameQuanta[i]
                : (int) Math.min(frameQuanta[i], (end - frameStartNs[i]) * speed / 512_000L);
        final int s = i * PfcStat.COUNT;
        pfcSlots[s + TmCounters.PFC_RX_DURATION] += elapsedQ - countedQuanta[i];
        countedQuanta[i] = elapsedQ;
        pfcSlots[s + TmCounters.PFC_RX_DURATION_US] = durationNs[i] / 1000;
    }

    /**
     * Bring the pause-duration counters of every port up to {@code nowNs}.
     *
     * @param nowNs emulated time.
     */
    public void settleAll(final long nowNs) {
        for (int i = 0; i < untilNs.length; i++) {
            settle(i, nowNs);
        }
    }

    /**
     * Bring one port's pause-duration counters up to {@code nowNs}.
     *
     * @param nowNs emulated time.
     * @param port  port.
     */
    public void settlePort(final long nowNs, final int port) {
        for (int i = port * 8; i < port * 8 + 8; i++) {
            settle(i, nowNs);
        }
    }

    /** @return the latest instant until which any port's priority is paused by a received frame (0: none yet). */
    public long latestPauseEndNs() {
        long latest = 0;
        for (final long until : portMaxUntilNs) {
            latest = Math.max(latest, until);
        }
        return latest;
    }

    /**
     * @param nowNs emulated time.
     * @param port  port.
     * @return bit q set when egress queue q may not start a frame at nowNs.
     */
    public int pausedQueueMask(final long nowNs, final int port) {
        if (portMaxUntilNs[port] <= nowNs) {
            return 0;
        }
        int mask = 0;
        final int honour = honourMask[port];
        for (int prio = 0; prio < 8; prio++) {
            if ((honour & (1 << prio)) != 0 && untilNs[port * 8 + prio] > nowNs) {
                mask |= prioQueueBit(port, prio);
            }
        }
        return mask;
    }

    private int prioQueueBit(final int port, final int prio) {
        return 1 << prioToQueue[port * 8 + prio];
    }

    /**
     * @param nowNs    emulated time.
     * @param port     port.
     * @param queueBit queues of interest.
     * @return the earliest time any honoured pause on those queues ends, or {@code nowNs} when none is active.
     */
    public long resumeNs(final long nowNs, final int port, final int queueBit) {
        long earliest = Long.MAX_VALUE;
        for (int q = 0; q < 8; q++) {
            if ((queueBit & (1 << q)) == 0) {
                continue;
            }
            long queueResume = nowNs;
            final int prios = queuePriorityMask[port * 8 + q] & honourMask[port];
            for (int prio = 0; prio < 8; prio++) {
                if ((prios & (1 << prio)) != 0) {
                    queueResume = Math.max(queueResume, untilNs[port * 8 + prio]);
                }
            }
            earliest = Math.min(earliest, queueResume);
        }
        return earliest == Long.MAX_VALUE ? nowNs : earliest;
    }

    /**
     * @param port port.
     * @param prio priority.
     * @return the time the priority's pause timer ends (≤ now when not paused).
     */
    public long pausedUntilNs(final int port, final int prio) {
        return untilNs[port * 8 + prio];
    }

    /**
     * Watchdog hook: stop or resume honouring pause for priorities.
     *
     * @param port     port.
     * @param prioMask priorities.
     * @param honour   true to honour.
     */
    public void honour(final int port, final int prioMask, final boolean honour) {
        honourMask[port] =
                honour ? honourMask[port] | (prioMask & configuredHonourMask[port]) : honourMask[port] & ~prioMask;
    }

    /** @param port port. @return honoured priorities. */
    public int honourMask(final int port) {
        return honourMask[port];
    }

    /** @param port port. @param q queue. @return priorities mapped to the queue. */
    public int queuePriorityMask(final int port, final int q) {
        return queuePriorityMask[port * 8 + q];
    }
}
