package io.asicemu.pipeline.dataplane;

import io.asicemu.pipeline.counter.Counters;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.port.Port;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs drops rate-limited, never per packet: the agent's 100 ms timer calls {@link #check}; at most once every
 * {@link #INTERVAL_NS} it writes one WARN line per port whose drop counters grew since the last line, with the growth
 * per reason (SAI names). Reads the counters, so the data path stays free of logging; allocates only when it logs.
 * <p>
 * Not thread safe: the data-plane thread only.
 */
final class DropLog {
    /** Least time between two log rounds (emulated ns). */
    static final long INTERVAL_NS = 10_000_000_000L;

    private static final Logger LOG = LoggerFactory.getLogger(DropLog.class);

    private final Counters counters;
    private final long[] logged;
    private long nextLogNs = Long.MIN_VALUE;
    private long packetOutsWithoutPort;
    private long packetOutsWithoutPortLogged;

    DropLog(final Counters counters, final int maxPorts) {
        this.counters = counters;
        this.logged = new long[maxPorts * DropReason.count()];
    }

    /** A PacketOut named no attached port (the P4Runtime layer refuses those; other injectors may not). */
    void packetOutWithoutPort() {
        packetOutsWithoutPort++;
    }

    void check(final long nowNs, final Port[] ports) {
        if (nextLogNs != Long.MIN_VALUE && nowNs - nextLogNs < 0 || !LOG.isWarnEnabled()) {
            return;
        }
        boolean wrote = false;
        for (int p = 0; p < ports.length && p < counters.portCount(); p++) {
            StringBuilder line = null;
            for (int r = 0; r < DropReason.count(); r++) {
                final long now = counters.drops(p, DropReason.of(r));
                final int slot = p * DropReason.count() + r;
                if (now != logged[slot]) {
                    if (line == null) {
                        line = new StringBuilder();
                    } else {
                        line.append(", ");
                    }
                    line.append(DropReason.of(r).counterName()).append(" +").append(now - logged[slot]);
                    logged[slot] = now;
                }
            }
            if (line != null) {
                LOG.warn(
                        "port {} dropped frames since the last report: {}",
                        ports[p] != null ? ports[p].name() : "#" + p,
                        line);
                wrote = true;
            }
        }
        if (packetOutsWithoutPort != packetOutsWithoutPortLogged) {
            LOG.warn(
                    "{} PacketOuts named no attached port and were dropped",
                    packetOutsWithoutPort - packetOutsWithoutPortLogged);
            packetOutsWithoutPortLogged = packetOutsWithoutPort;
            wrote = true;
        }
        if (wrote) {
            nextLogNs = nowNs + INTERVAL_NS;
        }
    }
}
