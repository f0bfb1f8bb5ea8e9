package io.asicemu.pipeline.counter;

/**
 * Per-port statistics with their SAI names ({@code sai_port_stat_t}, as SONiC's COUNTERS_DB stores them). The ordinal
 * is the index inside a port's counter block; never reorder.
 */
public enum PortStat {
    /** Bytes received. */
    IF_IN_OCTETS("SAI_PORT_STAT_IF_IN_OCTETS"),
    /** Unicast frames received. */
    IF_IN_UCAST_PKTS("SAI_PORT_STAT_IF_IN_UCAST_PKTS"),
    /** Multicast and broadcast frames received. */
    IF_IN_NON_UCAST_PKTS("SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS"),
    /** Broadcast frames received. */
    IF_IN_BROADCAST_PKTS("SAI_PORT_STAT_IF_IN_BROADCAST_PKTS"),
    /** Multicast frames received. */
    IF_IN_MULTICAST_PKTS("SAI_PORT_STAT_IF_IN_MULTICAST_PKTS"),
    /** Frames received and dropped by the pipeline. */
    IF_IN_DISCARDS("SAI_PORT_STAT_IF_IN_DISCARDS"),
    /** Frames received with errors (malformed). */
    IF_IN_ERRORS("SAI_PORT_STAT_IF_IN_ERRORS"),
    /** Frames received longer than the MTU allows. */
    ETHER_RX_OVERSIZE_PKTS("SAI_PORT_STAT_ETHER_RX_OVERSIZE_PKTS"),
    /** Bytes transmitted. */
    IF_OUT_OCTETS("SAI_PORT_STAT_IF_OUT_OCTETS"),
    /** Unicast frames transmitted. */
    IF_OUT_UCAST_PKTS("SAI_PORT_STAT_IF_OUT_UCAST_PKTS"),
    /** Multicast and broadcast frames transmitted. */
    IF_OUT_NON_UCAST_PKTS("SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS"),
    /** Broadcast frames transmitted. */
    IF_OUT_BROADCAST_PKTS("SAI_PORT_STAT_IF_OUT_BROADCAST_PKTS"),
    /** Multicast frames transmitted. */
    IF_OUT_MULTICAST_PKTS("SAI_PORT_STAT_IF_OUT_MULTICAST_PKTS"),
    /** Frames to this port dropped (buffer full, MTU, link down). */
    IF_OUT_DISCARDS("SAI_PORT_STAT_IF_OUT_DISCARDS"),
    /** Frames the port failed to transmit. */
    IF_OUT_ERRORS("SAI_PORT_STAT_IF_OUT_ERRORS"),
    /** Frames dropped at egress for exceeding the MTU. */
    ETHER_TX_OVERSIZE_PKTS("SAI_PORT_STAT_ETHER_TX_OVERSIZE_PKTS"),
    /** Frames received for a protocol the switch does not implement (MAC control with an unknown opcode). */
    IF_IN_UNKNOWN_PROTOS("SAI_PORT_STAT_IF_IN_UNKNOWN_PROTOS");

    private static final PortStat[] VALUES = values();
    private final String counterName;

    PortStat(final String counterName) {
        this.counterName = counterName;
    }

    /** @return the SAI stat name. */
    public String counterName() {
        return counterName;
    }

    /** @return how many stats a port has. */
    public static int count() {
        return VALUES.length;
    }

    /**
     * @param index an ordinal.
     * @return the stat.
     */
    public static PortStat of(final int index) {
        return VALUES[index];
    }
}
