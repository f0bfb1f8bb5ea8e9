package io.asicemu.pipeline.counter;

/**
 * Why a received frame ended inside the switch without being forwarded, punted or dropped: link-level control frames
 * the MAC acts on and neighbor answers the switch's own resolver learns from. With these, every frame that enters a
 * port is accounted for: in = out + Σ drops + Σ punts + Σ consumed. SAI names where SAI has one, {@code ASICEMU_}
 * extensions otherwise. Never reorder: the ordinal is the counter index.
 */
public enum ConsumeReason {
    /** An 802.3x PAUSE frame (MAC control opcode 0x0001); the emulated MAC honours no global pause, only PFC. */
    PAUSE("SAI_PORT_STAT_PAUSE_RX_PKTS"),
    /**
     * An 802.1Qbb PFC frame (opcode 0x0101), handed to the traffic manager. One per frame; the per-priority
     * {@code SAI_PORT_STAT_PFC_n_RX_PKTS} counters of the traffic manager count each enabled priority.
     */
    PFC("ASICEMU_PORT_STAT_PFC_RX_FRAMES"),
    /** An ARP reply or IPv6 neighbor advertisement for the switch, learned by its standalone resolver. */
    NEIGHBOR_ANSWER("ASICEMU_PORT_STAT_NEIGHBOR_ANSWER_RX_PKTS");

    private static final ConsumeReason[] VALUES = values();
    private final String counterName;

    ConsumeReason(final String counterName) {
        this.counterName = counterName;
    }

    /** @return the COUNTERS_DB-style name. */
    public String counterName() {
        return counterName;
    }

    /** @return how many reasons there are. */
    public static int count() {
        return VALUES.length;
    }

    /**
     * @param index a counter index.
     * @return its reason.
     */
    public static ConsumeReason of(final int index) {
        return VALUES[index];
    }
}
