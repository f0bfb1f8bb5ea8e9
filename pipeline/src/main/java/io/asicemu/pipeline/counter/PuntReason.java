package io.asicemu.pipeline.counter;

/**
 * Why a packet went to the CPU port: a stable index into the punt counters and the SAI host-interface trap name
 * ({@code sai_hostif_trap_type_t}). Never reorder: the ordinal is the counter index and the PacketIn metadata value.
 */
public enum PuntReason {
    /** An ARP request. */
    ARP_REQUEST("SAI_HOSTIF_TRAP_TYPE_ARP_REQUEST"),
    /** An ARP reply. */
    ARP_RESPONSE("SAI_HOSTIF_TRAP_TYPE_ARP_RESPONSE"),
    /** IPv6 neighbor discovery (NS, NA, RS, RA). */
    IPV6_NEIGHBOR_DISCOVERY("SAI_HOSTIF_TRAP_TYPE_IPV6_NEIGHBOR_DISCOVERY"),
    /** LLDP. */
    LLDP("SAI_HOSTIF_TRAP_TYPE_LLDP"),
    /** Addressed to one of the switch's own IP addresses. */
    IP2ME("SAI_HOSTIF_TRAP_TYPE_IP2ME"),
    /** An ACL rule trapped the packet (redirect to CPU). */
    ACL_TRAP("ASICEMU_HOSTIF_TRAP_TYPE_ACL_TRAP"),
    /** An ACL rule copied the packet to the CPU (the original goes on). */
    ACL_COPY("ASICEMU_HOSTIF_TRAP_TYPE_ACL_COPY"),
    /** IPv4 TTL or IPv6 hop limit expired (for ICMP time exceeded by a controller). */
    TTL_ERROR("SAI_HOSTIF_TRAP_TYPE_TTL_ERROR");

    private static final PuntReason[] VALUES = values();
    private final String counterName;

    PuntReason(final String counterName) {
        this.counterName = counterName;
    }

    /** @return the SAI trap name. */
    public String counterName() {
        return counterName;
    }

    /** @return the stable index. */
    public int index() {
        return ordinal();
    }

    /** @return how many reasons there are. */
    public static int count() {
        return VALUES.length;
    }

    /**
     * @param index an index.
     * @return its reason.
     */
    public static PuntReason of(final int index) {
        return VALUES[index];
    }
}
