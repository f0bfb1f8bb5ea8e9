package io.asicemu.flowlet;

/**
 * The per-group counters of {@link LoadBalanceGroup}, with stable indices and the SAI stat names SONiC's Local ARS
 * design polls (shared/reference §5.1); the two counters SAI has no name for carry an {@code ASICEMU_} name.
 * Immutable.
 */
public enum GroupCounter {
    /** Flowlets placed on another member than the flow's previous one. */
    ARS_NEXT_HOP_REASSIGNMENTS("SAI_NEXT_HOP_GROUP_ATTR_ARS_NEXT_HOP_REASSIGNMENTS"),
    /** Flowlets started (new flows and flows back from idle). */
    FLOWLETS("ASICEMU_NEXT_HOP_GROUP_FLOWLETS"),
    /** Packets hashed because the flowlet table had no free slot along the probe sequence. */
    FLOWLET_TABLE_FULL_FALLBACKS("ASICEMU_NEXT_HOP_GROUP_FLOWLET_TABLE_FULL"),
    /** Packets dropped because no member was live. */
    ARS_PACKET_DROPS("SAI_NEXT_HOP_GROUP_ATTR_ARS_PACKET_DROPS");

    private final String statName;

    GroupCounter(final String statName) {
        this.statName = statName;
    }

    /**
     * @return the COUNTERS_DB stat name.
     */
    public String statName() {
        return statName;
    }
}
