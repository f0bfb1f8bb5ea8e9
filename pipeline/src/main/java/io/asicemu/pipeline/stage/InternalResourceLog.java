package io.asicemu.pipeline.stage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs an internal resource (the packet store's cells, the traffic manager's descriptors) running out before the
 * buffer model refused a frame: that is a sizing bug, so it is reported, but at most once per second of emulated time
 * (with the count since the last report), never once per packet. The frames themselves are counted under their own
 * drop reason by the caller. Not thread safe: data-plane thread only; allocates only when it logs.
 */
final class InternalResourceLog {
    private static final Logger LOG = LoggerFactory.getLogger(InternalResourceLog.class);
    private static final long INTERVAL_NS = 1_000_000_000L;

    private long nextLogNs = Long.MIN_VALUE;
    private long suppressed;

    /**
     * @param resource what ran out.
     * @param port the egress port of the refused frame.
     * @param nowNs emulated time.
     */
    void exhausted(final String resource, final int port, final long nowNs) {
        if (nextLogNs != Long.MIN_VALUE && nowNs - nextLogNs < 0) {
            suppressed++;
            return;
        }
        LOG.error(
                "{} ran out before the buffer model refused a frame (egress port {}; {} more since the last report):"
                        + " a sizing bug, frames counted as an internal-resource drop",
                resource,
                port,
                suppressed);
        suppressed = 0;
        nextLogNs = nowNs + INTERVAL_NS;
    }
}
