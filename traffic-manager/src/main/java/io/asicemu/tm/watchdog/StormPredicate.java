package io.asicemu.tm.watchdog;

/** Which platform's storm test the watchdog runs each poll (reference §2.2). */
public enum StormPredicate {
    /**
     * {@code pfc_detect_broadcom.lua}: ΔPFC_RX_PKTS &gt; 0, ΔON2OFF_RX_PKTS == 0, and PAUSE_STATUS true at the last and
     * at this poll.
     */
    BROADCOM,
    /**
     * {@code pfc_detect_mellanox.lua}: CURR_OCCUPANCY_BYTES &gt; 0, ΔQUEUE PACKETS == 0, and ΔRX_PAUSE_DURATION_US
     * &gt; 0.99 × poll interval.
     */
    MELLANOX
}
