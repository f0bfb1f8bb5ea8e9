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
