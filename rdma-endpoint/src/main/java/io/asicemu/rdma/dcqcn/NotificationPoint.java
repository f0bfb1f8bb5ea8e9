package io.asicemu.rdma.dcqcn;

/**
 * The DCQCN notification point of one receiving queue pair: answers CE-marked packets with at most one CNP per
 * {@code min_time_between_cnps} (the paper's N). The NICs leave the scope open; one instance per QP is the paper's
 * per-flow scope, and a host that wants the per-port scope shares one instance among its QPs (DCQCN.md).
 * Time is an input; single-threaded.
 */
public final class NotificationPoint {
    private final long minGapNs;
    private long lastCnpNs;
    private boolean sentBefore;
    private long ceMarkedPackets;
    private long cnpsSent;

    public NotificationPoint(DcqcnParameters params) {
        this.minGapNs = params.minTimeBetweenCnpsUs() * 1_000L;
    }

    /**
     * A packet of this QP arrived with ECN = CE.
     *
     * @return true when a CNP must be sent now
     */
    public boolean onCeMarked(long nowNs) {
        ceMarkedPackets++;
        if (sentBefore && nowNs - lastCnpNs < minGapNs) {
            return false;
        }
        sentBefore = true;
        lastCnpNs = nowNs;
        cnpsSent++;
        return true;
    }

    public long ceMarkedPackets() {
        return ceMarkedPackets;
    }

    public long cnpsSent() {
        return cnpsSent;
    }
}
