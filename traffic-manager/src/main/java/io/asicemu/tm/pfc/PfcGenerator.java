package io.asicemu.tm.pfc;

import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.TmCounters;
import io.asicemu.tm.scheduler.PortClock;

/**
 * Transmit side of PFC (reference §1.2 BUFFER_PROFILE, §6.2, §6.3). When a lossless ingress PG spills past its
 * reserved + shared limit (its available buffer falls below {@code xoff}), one XOFF frame with the configured quanta
 * goes out on that ingress port for the PG's {@code pfc_enable} priorities; while the PG stays in XOFF the frame is
 * refreshed every {@code refreshNs}; when the PG's occupancy falls to the XON threshold one frame with quanta 0 is
 * sent. XON threshold = {@code xon}, or {@code max(xon, occupancy at XOFF − xon_offset)} when {@code xon_offset > 0}
 * (SAI XON_OFFSET_TH). Each frame takes 64 bytes of the port's wire time right after the frame in flight (the
 * pipeline sends it ahead of queued data). Keeps SAI_PORT_STAT_PFC_n_TX_PKTS. Not thread safe: data-plane thread only;
 * no allocation.
 */
public final class PfcGenerator {
    private final PfcFrameSink sink;
    private final PortClock clock;
    private final int quanta;
    private final long[] refreshNs;
    private final int[] pgPrioMask;
    private final long[] pgXon;
    private final long[] pgXonOffset;
    private final boolean[] pgXoff;
    private final long[] pgXonThreshold;
    private final int[] portXoffPrios;
    private final int[] disabledPrios;
    private final long[] prioDeadlineNs;
    private final int[] frameQuanta = new int[8];
    private final long[] pfcSlots;
    private long nextDeadlineNs = Long.MAX_VALUE;

    /** PFC frame length without FCS (64 on the wire with FCS, reference §6.1). */
    public static final int PFC_FRAME_BYTES = 60;

    /**
     * @param portCount    number of ports.
     * @param sink         where frames go.
     * @param clock        port serialization (PFC frames take wire time).
     * @param quanta       pause quanta of XOFF frames (default 0xFFFF).
     * @param refreshNs    per port refresh period while in XOFF.
     * @param pgPrioMask   per PG index: PFC TX priorities of the PG (0 = lossy).
     * @param pgXon        per PG index: profile xon.
     * @param pgXonOffset  per PG index: profile xon_offset.
     * @param counters     counters.
     */
    public PfcGenerator(
            final int portCount,
            final PfcFrameSink sink,
            final PortClock clock,
            final int quanta,
            final long[] refreshNs,
            final int[] pgPrioMask,
            final long[] pgXon,
            final long[] pgXonOffset,
            final TmCounters counters) {
        this.sink = sink;
        this.clock = clock;
        this.quanta = quanta;
        this.refreshNs = refreshNs.clone();
        this.pgPrioMask = pgPrioMask.clone();
        this.pgXon = pgXon.clone();
        this.pgXonOffset = pgXonOffset.clone();
        pgXoff = new boolean[portCount * 8];
        pgXonThreshold = new long[portCount * 8];
        portXoffPrios = new int[portCount];
        disabledPrios = new int[portCount];
        prioDeadlineNs = new long[portCount * 8];
        java.util.Arrays.fill(prioDeadlineNs, Long.MAX_VALUE);
        pfcSlots = counters.pfcSlots();
    }

    /**
     * @param pgIndex port*8+pg.
     * @return true when the PG is lossless (has PFC priorities not cleared by the watchdog).
     */
    public boolean isLossless(final int pgIndex) {
        return (pgPrioMask[pgIndex] & ~disabledPrios[pgIndex >> 3]) != 0;
    }

    /**
     * A packet of a lossless PG did not fit reserved + shared: enter XOFF unless already there.
     *
     * @param nowNs          emulated time.
     * @param pgIndex        port*8+pg.
     * @param occupancyBytes PG reserved + shared bytes at this moment.
     */
    public void onSpill(final long nowNs, final int pgIndex, final long occupancyBytes) {
        if (pgXoff[pgIndex]) {
            return;
        }
        final int port = pgIndex >> 3;
        final int prios = pgPrioMask[pgIndex] & ~disabledPrios[port];
        if (prios == 0) {
            return;
        }
        pgXoff[pgIndex] = true;
        pgXonThreshold[pgIndex] = pgXonOffset[pgIndex] > 0
                ? Math.max(pgXon[pgIndex], occupancyBytes - pgXonOffset[pgIndex])
                : pgXon[pgIndex];
        portXoffPrios[port] |= prios;
        final long deadline = nowNs + refreshNs[port];
        for (int prio = 0; prio < 8; prio++) {
            if ((prios & (1 << prio)) != 0) {
                prioDeadlineNs[port * 8 + prio] = deadline;
            }
        }
        nextDeadlineNs = Math.min(nextDeadlineNs, deadline);
        send(nowNs, port, prios, quanta);
    }

    /**
     * The PG released bytes: send XON when it has fallen to its XON threshold.
     *
     * @param nowNs          emulated time.
     * @param pgIndex        port*8+pg.
     * @param occupancyBytes PG total bytes after the release.
     */
    public void onRelease(final long nowNs, final int pgIndex, final long occupancyBytes) {
        if (!pgXoff[pgIndex] || occupancyBytes > pgXonThreshold[pgIndex]) {
            return;
        }
        pgXoff[pgIndex] = false;
        final int port = pgIndex >> 3;
        final int prios = pgPrioMask[pgIndex] & portXoffPrios[port];
        portXoffPrios[port] &= ~prios;
        for (int prio = 0; prio < 8; prio++) {
            if ((prios & (1 << prio)) != 0) {
                prioDeadlineNs[port * 8 + prio] = Long.MAX_VALUE;
            }
        }
        if (prios != 0) {
            send(nowNs, port, prios, 0);
        }
    }

    /**
     * Send the refresh frames that are due.
     *
     * @param nowNs emulated time.
     * @return frames sent.
     */
    public int poll(final long nowNs) {
        if (nowNs < nextDeadlineNs) {
            return 0;
        }
        int frames = 0;
        long next = Long.MAX_VALUE;
        for (int port = 0; port < portXoffPrios.length; port++) {
            final int prios = portXoffPrios[port];
            if (prios == 0) {
                continue;
            }
            int due = 0;
            for (int prio = 0; prio < 8; prio++) {
                final int i = port * 8 + prio;
                if ((prios & (1 << prio)) != 0 && prioDeadlineNs[i] <= nowNs) {
                    due |= 1 << prio;
                    prioDeadlineNs[i] = nowNs + refreshNs[port];
                }
                if ((prios & (1 << prio)) != 0) {
                    next = Math.min(next, prioDeadlineNs[i]);
                }
            }
            if (due != 0) {
                send(nowNs, port, due, quanta);
                frames++;
            }
        }
        nextDeadlineNs = next;
        return frames;
    }

    /** @return the next refresh deadline, or Long.MAX_VALUE. */
    public long nextDeadlineNs() {
        return nextDeadlineNs;
    }

    /**
     * Watchdog hook: PFC bit cleared (or set again) on a port for priorities; a cleared priority stops refreshing.
     *
     * @param port     port.
     * @param prioMask priorities.
     * @param disabled true to clear PFC for them.
     */
    public void disable(final int port, final int prioMask, final boolean disabled) {
        disabledPrios[port] = disabled ? disabledPrios[port] | prioMask : disabledPrios[port] & ~prioMask;
        if (disabled) {
            portXoffPrios[port] &= ~prioMask;
            for (int pg = 0; pg < 8; pg++) {
                final int i = port * 8 + pg;
                if (pgXoff[i] && (pgPrioMask[i] & ~disabledPrios[port]) == 0) {
                    pgXoff[i] = false;
                }
            }
        }
    }

    /**
     * Runtime change of a PG's {@code xon} (data-plane thread, between packet batches). A PG in XOFF now resumes at
     * the new value (or, with {@code xon_offset}, at max(new xon, occupancy at XOFF − xon_offset)).
     *
     * @param pgIndex  port*8+pg.
     * @param xonBytes new xon.
     */
    public void setXon(final int pgIndex, final long xonBytes) {
        final long old = pgXon[pgIndex];
        pgXon[pgIndex] = xonBytes;
        if (pgXoff[pgIndex]) {
            pgXonThreshold[pgIndex] = pgXonOffset[pgIndex] > 0 && pgXonThreshold[pgIndex] > old
                    ? Math.max(xonBytes, pgXonThreshold[pgIndex])
                    : xonBytes;
        }
    }

    /**
     * @param pgIndex port*8+pg.
     * @return true while the PG is in XOFF.
     */
    public boolean isXoff(final int pgIndex) {
        return pgXoff[pgIndex];
    }

    private void send(final long nowNs, final int port, final int prios, final int q) {
        for (int prio = 0; prio < 8; prio++) {
            final boolean on = (prios & (1 << prio)) != 0;
            frameQuanta[prio] = on ? q : 0;
            if (on) {
                pfcSlots[(port * 8 + prio) * PfcStat.COUNT + TmCounters.PFC_TX]++;
            }
        }
        clock.transmitControl(nowNs, port, PFC_FRAME_BYTES);
        sink.onPfcFrame(nowNs, port, prios, frameQuanta);
    }
}
