package io.asicemu.pipeline.table;

import java.util.Arrays;

/**
 * QoS classification as SONiC configures it, resolved per port: DSCP_TO_TC_MAP (or DOT1P_TO_TC_MAP for tagged frames
 * on ports bound to one) → traffic class → TC_TO_QUEUE_MAP and TC_TO_PRIORITY_GROUP_MAP. A port without a DSCP map
 * uses {@code PORT_QOS_MAP|global}'s, if any; without any map TC is 0, the queue is the TC (capped at 7) and the PG
 * is 0.
 * <p>
 * Not thread safe: built by the control side, then owned (read) by the data-plane thread.
 */
public final class QosMaps {
    /** Traffic classes (SONiC tc_type 0..15). */
    public static final int TC_COUNT = 16;

    private final int maxPorts;
    private final byte[] dscpToTc;
    private final boolean[] hasDscp;
    private final byte[] dot1pToTc;
    private final boolean[] hasDot1p;
    private final byte[] tcToQueue;
    private final byte[] tcToPg;

    /** @return bytes of the per-port maps. */
    long reservedBytes() {
        return ForwardingTables.bytes(dscpToTc)
                + ForwardingTables.bytes(hasDscp)
                + ForwardingTables.bytes(dot1pToTc)
                + ForwardingTables.bytes(hasDot1p)
                + ForwardingTables.bytes(tcToQueue)
                + ForwardingTables.bytes(tcToPg);
    }

    /**
     * Default classification on every port.
     *
     * @param maxPorts ports.
     */
    public QosMaps(final int maxPorts) {
        this.maxPorts = maxPorts;
        dscpToTc = new byte[maxPorts * 64];
        hasDscp = new boolean[maxPorts];
        dot1pToTc = new byte[maxPorts * 8];
        hasDot1p = new boolean[maxPorts];
        tcToQueue = new byte[maxPorts * TC_COUNT];
        tcToPg = new byte[maxPorts * TC_COUNT];
        for (int p = 0; p < maxPorts; p++) {
            for (int tc = 0; tc < TC_COUNT; tc++) {
                tcToQueue[p * TC_COUNT + tc] = (byte) Math.min(tc, 7);
            }
        }
    }

    private QosMaps(final QosMaps base) {
        maxPorts = base.maxPorts;
        dscpToTc = base.dscpToTc.clone();
        hasDscp = base.hasDscp.clone();
        dot1pToTc = base.dot1pToTc.clone();
        hasDot1p = base.hasDot1p.clone();
        tcToQueue = base.tcToQueue.clone();
        tcToPg = base.tcToPg.clone();
    }

    /**
     * A copy with switch-wide entries (P4Runtime's QoS map tables) over these maps: an entry applies on every port
     * and replaces what the port's configured map gives for that key; a DSCP (PCP) entry makes every port classify
     * by DSCP (PCP), keys without an entry then keep the port's configured value (0 where the port had no map).
     * Control path (allocates); this object is not changed.
     *
     * @param dscp 64 TCs by DSCP, -1 = no entry.
     * @param dot1p 8 TCs by PCP, -1 = no entry.
     * @param queue 8 queues by TC 0..7, -1 = no entry.
     * @param pg 8 PGs by TC 0..7, -1 = no entry.
     * @return the new maps.
     */
    public QosMaps withEntries(final int[] dscp, final int[] dot1p, final int[] queue, final int[] pg) {
        final QosMaps m = new QosMaps(this);
        for (int p = 0; p < maxPorts; p++) {
            for (int d = 0; d < 64; d++) {
                if (dscp[d] >= 0) {
                    m.dscpToTc[p * 64 + d] = (byte) dscp[d];
                    m.hasDscp[p] = true;
                }
            }
            for (int d = 0; d < 8; d++) {
                if (dot1p[d] >= 0) {
                    m.dot1pToTc[p * 8 + d] = (byte) dot1p[d];
                    m.hasDot1p[p] = true;
                }
                if (queue[d] >= 0) {
                    m.tcToQueue[p * TC_COUNT + d] = (byte) queue[d];
                }
                if (pg[d] >= 0) {
                    m.tcToPg[p * TC_COUNT + d] = (byte) pg[d];
                }
            }
        }
        return m;
    }

    /**
     * @param port a port.
     * @param map 64 TCs indexed by DSCP, or null to unbind.
     */
    public void dscpToTc(final int port, final int[] map) {
        hasDscp[port] = map != null;
        for (int d = 0; d < 64; d++) {
            dscpToTc[port * 64 + d] = (byte) (map == null ? 0 : map[d]);
        }
    }

    /**
     * @param port a port.
     * @param map 8 TCs indexed by PCP, or null to unbind.
     */
    public void dot1pToTc(final int port, final int[] map) {
        hasDot1p[port] = map != null;
        for (int d = 0; d < 8; d++) {
            dot1pToTc[port * 8 + d] = (byte) (map == null ? 0 : map[d]);
        }
    }

    /**
     * @param port a port.
     * @param map 16 queues indexed by TC, or null for the default (identity, capped at 7).
     */
    public void tcToQueue(final int port, final int[] map) {
        for (int tc = 0; tc < TC_COUNT; tc++) {
            tcToQueue[port * TC_COUNT + tc] = (byte) (map == null ? Math.min(tc, 7) : map[tc]);
        }
    }

    /**
     * @param port a port.
     * @param map 16 PGs indexed by TC, or null for the default (all 0).
     */
    public void tcToPg(final int port, final int[] map) {
        Arrays.fill(tcToPg, port * TC_COUNT, (port + 1) * TC_COUNT, (byte) 0);
        if (map != null) {
            for (int tc = 0; tc < TC_COUNT; tc++) {
                tcToPg[port * TC_COUNT + tc] = (byte) map[tc];
            }
        }
    }

    /**
     * Classifies a frame.
     *
     * @param port the ingress port.
     * @param tagged whether the frame carried a VLAN tag.
     * @param pcp the tag's PCP.
     * @param isIp whether the frame is IPv4 or IPv6.
     * @param dscp the DSCP.
     * @return the traffic class.
     */
    public int trafficClass(final int port, final boolean tagged, final int pcp, final boolean isIp, final int dscp) {
        if (tagged && hasDot1p[port]) {
            return dot1pToTc[port * 8 + pcp];
        }
        if (isIp && hasDscp[port]) {
            return dscpToTc[port * 64 + dscp];
        }
        return 0;
    }

    /**
     * @param port the port whose map applies.
     * @param tc a traffic class.
     * @return the egress queue.
     */
    public int queue(final int port, final int tc) {
        return tcToQueue[port * TC_COUNT + tc];
    }

    /**
     * @param port the ingress port.
     * @param tc a traffic class.
     * @return the ingress priority group.
     */
    public int priorityGroup(final int port, final int tc) {
        return tcToPg[port * TC_COUNT + tc];
    }

    /** @return ports covered. */
    public int maxPorts() {
        return maxPorts;
    }
}
