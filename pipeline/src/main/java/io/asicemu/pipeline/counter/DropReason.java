package io.asicemu.pipeline.counter;

/**
 * Why the pipeline dropped a packet: a stable index into the drop counters and the name shown in COUNTERS_DB-style
 * views (SAI's {@code sai_in_drop_reason_t} / {@code sai_out_drop_reason_t} names where SAI has one, our own
 * {@code ASICEMU_} names where it does not). Never reorder: the ordinal is the counter index.
 */
public enum DropReason {
    /** The frame is shorter than an Ethernet header or otherwise unparseable. */
    MALFORMED_FRAME("ASICEMU_IN_DROP_REASON_MALFORMED_FRAME"),
    /** The IP header is invalid (version, length, checksum). */
    IP_HEADER_ERROR("SAI_IN_DROP_REASON_IP_HEADER_ERROR"),
    /** The ingress port is administratively down. */
    PORT_ADMIN_DOWN("ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN"),
    /** The frame is longer than the ingress port's MTU allows. */
    EXCEEDS_L2_MTU("SAI_IN_DROP_REASON_EXCEEDS_L2_MTU"),
    /** The port is not a member of the frame's VLAN. */
    INGRESS_VLAN_FILTER("SAI_IN_DROP_REASON_INGRESS_VLAN_FILTER"),
    /** A tagged frame arrived on a port that accepts only untagged frames, or an untagged one where no VLAN is. */
    VLAN_TAG_NOT_ALLOWED("SAI_IN_DROP_REASON_VLAN_TAG_NOT_ALLOWED"),
    /** The source MAC is multicast. */
    SMAC_MULTICAST("SAI_IN_DROP_REASON_SMAC_MULTICAST"),
    /** The FDB sends the frame back out of the port it came in on. */
    L2_LOOPBACK_FILTER("SAI_IN_DROP_REASON_L2_LOOPBACK_FILTER"),
    /** An ACL rule dropped the packet. */
    ACL_DROP("SAI_IN_DROP_REASON_ACL_ANY"),
    /** IPv4 TTL or IPv6 hop limit would expire. */
    TTL_EXPIRED("SAI_IN_DROP_REASON_TTL"),
    /** The routed packet is larger than the egress router interface's MTU. */
    EXCEEDS_L3_MTU("SAI_IN_DROP_REASON_EXCEEDS_L3_MTU"),
    /** No IPv4 route. */
    LPM4_MISS("SAI_IN_DROP_REASON_LPM4_MISS"),
    /** No IPv6 route. */
    LPM6_MISS("SAI_IN_DROP_REASON_LPM6_MISS"),
    /** The route's action is drop. */
    BLACKHOLE_ROUTE("SAI_IN_DROP_REASON_BLACKHOLE_ROUTE"),
    /** The next hop (or the destination on a connected subnet) has no neighbor entry yet. */
    UNRESOLVED_NEXT_HOP("SAI_IN_DROP_REASON_UNRESOLVED_NEXT_HOP"),
    /** Addressed to the router MAC but neither IPv4 nor IPv6. */
    NON_ROUTABLE("SAI_IN_DROP_REASON_NON_ROUTABLE"),
    /** The egress port's link or admin state is down. */
    EGRESS_LINK_DOWN("SAI_IN_DROP_REASON_L3_EGRESS_LINK_DOWN"),
    /**
     * The buffer model refused the packet: its ingress PG or egress queue was over its limit (reserved, static or
     * dynamic shared threshold, headroom) or the device buffer was full. The traffic manager's PG and queue drop
     * counters say which.
     */
    BUFFER_FULL("ASICEMU_OUT_DROP_REASON_BUFFER_FULL"),
    /** The port's TX ring was full. */
    TX_RING_FULL("ASICEMU_OUT_DROP_REASON_TX_RING_FULL"),
    /** The CPU port's queue was full. */
    CPU_QUEUE_FULL("ASICEMU_IN_DROP_REASON_CPU_QUEUE_FULL"),
    /** A flood or multicast found no port to go to. */
    NO_EGRESS_PORT("ASICEMU_IN_DROP_REASON_NO_EGRESS_PORT"),
    /** WRED dropped the packet, at dequeue or at enqueue (not ECN-capable, or above the drop threshold). */
    WRED("ASICEMU_OUT_DROP_REASON_WRED"),
    /** The PFC watchdog's drop action on a stormed queue (at admission or at dequeue). */
    PFC_WATCHDOG("ASICEMU_OUT_DROP_REASON_PFC_WATCHDOG"),
    /** The ingress ACL rule's meter (RFC 2698 trTCM) marked the packet red. */
    ACL_METER_RED("ASICEMU_IN_DROP_REASON_ACL_METER_RED"),
    /** An egress ACL rule dropped the packet (counted on the egress port). */
    EGRESS_ACL_DROP("ASICEMU_OUT_DROP_REASON_EGRESS_ACL"),
    /** The CPU queue's CoPP meter marked the punted or copied packet red. */
    COPP_METER_RED("ASICEMU_IN_DROP_REASON_COPP_METER_RED"),
    /** A static FDB entry whose action is drop (P4Runtime l2_fdb_table drop) matched the destination. */
    FDB_DROP("SAI_IN_DROP_REASON_FDB_AND_BLACKHOLE_DISCARDS"),
    /**
     * The port's receive ring (the kernel's AF_PACKET RX ring) was full: the frame was lost before the pipeline saw
     * it. Read from the kernel's PACKET_STATISTICS periodically, off the per-packet path.
     */
    RX_RING_OVERFLOW("ASICEMU_IN_DROP_REASON_RX_RING_OVERFLOW"),
    /**
     * The port could not take the frame: larger than its MTU and not a TCP GSO super-frame it can segment (or the
     * port refuses GSO). Dropped by the port before the pipeline saw it.
     */
    RX_FRAME_TOO_LARGE("ASICEMU_IN_DROP_REASON_RX_FRAME_TOO_LARGE"),
    /** A MAC control frame (EtherType 0x8808) with an opcode the MAC does not implement, or truncated. */
    MAC_CONTROL_UNKNOWN("ASICEMU_IN_DROP_REASON_MAC_CONTROL_UNKNOWN_OPCODE"),
    /** A controller's PacketOut was larger than the egress port's MTU, or named no attached port. */
    PACKET_OUT_REFUSED("ASICEMU_OUT_DROP_REASON_PACKET_OUT_REFUSED"),
    /** The packet store had no free cells although the buffer model had room: a sizing bug, logged, never a rule. */
    PACKET_STORE_EXHAUSTED("ASICEMU_OUT_DROP_REASON_PACKET_STORE_EXHAUSTED"),
    /** The traffic manager had no free packet descriptor although the buffer had room: a sizing bug, logged. */
    TM_DESCRIPTORS_EXHAUSTED("ASICEMU_OUT_DROP_REASON_TM_DESCRIPTORS_EXHAUSTED"),
    /**
     * A controller's PacketOut found the injection queue full (the controller sends faster than the data path
     * drains it; it was told with a StreamError RESOURCE_EXHAUSTED). Counted on the PacketOut's port.
     */
    PACKET_OUT_QUEUE_FULL("ASICEMU_OUT_DROP_REASON_PACKET_OUT_QUEUE_FULL"),
    /**
     * The egress port's link went down while the frame waited in its queue (or a PacketOut named a port whose link
     * is down): counted on the egress port, as SAI counts it, not as a TX-ring loss.
     */
    OUT_EGRESS_LINK_DOWN("SAI_OUT_DROP_REASON_L3_EGRESS_LINK_DOWN"),
    /**
     * The frame is larger than the egress port's MTU (the configured one, or the link's if lower; also when the
     * link's MTU shrank while it was queued): counted on the egress port with {@code IF_OUT_DISCARDS} and
     * {@code ETHER_TX_OVERSIZE_PKTS}. SAI has no egress MTU reason ({@code sai_out_drop_reason_t}: L2_ANY,
     * EGRESS_VLAN_FILTER, L3_ANY, L3_EGRESS_LINK_DOWN, TUNNEL_LOOPBACK_PACKET_DROP), hence ours; the ingress
     * {@link #EXCEEDS_L2_MTU} stays for frames over the receiving port's MTU.
     */
    OUT_EXCEEDS_L2_MTU("ASICEMU_OUT_DROP_REASON_EXCEEDS_L2_MTU");

    private static final DropReason[] VALUES = values();
    private final String counterName;

    DropReason(final String counterName) {
        this.counterName = counterName;
    }

    /** @return the COUNTERS_DB-style name. */
    public String counterName() {
        return counterName;
    }

    /** @return the stable counter index. */
    public int index() {
        return ordinal();
    }

    /** @return how many reasons there are. */
    public static int count() {
        return VALUES.length;
    }

    /**
     * @param index a counter index.
     * @return its reason.
     */
    public static DropReason of(final int index) {
        return VALUES[index];
    }
}
