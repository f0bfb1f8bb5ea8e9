package io.asicemu.tm.counter;

/** Per-port, per-priority PFC counters; {@link #counterName(int)} gives e.g. SAI_PORT_STAT_PFC_3_RX_PKTS. */
public enum PfcStat {
    RX_PKTS("RX_PKTS"),
    TX_PKTS("TX_PKTS"),
    /** In pause quanta. */
    RX_PAUSE_DURATION("RX_PAUSE_DURATION"),
    /** In microseconds. */
    RX_PAUSE_DURATION_US("RX_PAUSE_DURATION_US"),
    ON2OFF_RX_PKTS("ON2OFF_RX_PKTS");

    /** Number of slots per (port, priority). */
    public static final int COUNT = values().length;

    private final String suffix;

    PfcStat(final String suffix) {
        this.suffix = suffix;
    }

    /**
     * @param priority 0..7.
     * @return the SAI stat name for that priority.
     */
    public String counterName(final int priority) {
        return "SAI_PORT_STAT_PFC_" + priority + "_" + suffix;
    }
}
