package io.asicemu.flowlet.ecmp;

/**
 * How a group picks a member for a packet. A switch has a global default; a group may override it.
 * Immutable.
 */
public enum LoadBalanceMode {
    /** Hash over the default hash object (the 5-tuple by default); RoCE packets get no BTH fields. */
    STATIC_HASH("static_hash"),
    /** Enhanced ECMP: RoCEv2 packets are hashed with the RDMA object (5-tuple + BTH destination QP). */
    ENHANCED_ECMP("enhanced_ecmp"),
    /** Flowlet ARS: a new flowlet goes to a member of the best path-quality band (SAI ARS FLOWLET_QUALITY). */
    FLOWLET_QUALITY("flowlet_quality"),
    /** Flowlet random (LetFlow): a new flowlet goes to a random live member (SAI ARS FLOWLET_RANDOM). */
    FLOWLET_RANDOM("flowlet_random"),
    /** Per-packet spray: every packet goes to a random live member, weighted (SAI hash RANDOM). */
    PER_PACKET_SPRAY("per_packet_spray");

    private static final LoadBalanceMode[] VALUES = values();

    private final String configName;

    LoadBalanceMode(final String configName) {
        this.configName = configName;
    }

    /**
     * @return the name used in configuration (our extension field {@code ecmp_lb_mode} and ARS_NEXTHOP_GROUP).
     */
    public String configName() {
        return configName;
    }

    /**
     * @return true for the two modes that keep a flowlet table.
     */
    public boolean flowlet() {
        return this == FLOWLET_QUALITY || this == FLOWLET_RANDOM;
    }

    /**
     * @param name configuration name, such as {@code "flowlet_quality"}.
     * @return the mode, or null if unknown.
     */
    public static LoadBalanceMode fromConfigName(final String name) {
        for (final LoadBalanceMode mode : VALUES) {
            if (mode.configName.equals(name)) {
                return mode;
            }
        }
        return null;
    }
}
