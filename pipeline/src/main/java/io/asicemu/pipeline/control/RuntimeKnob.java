package io.asicemu.pipeline.control;

/**
 * A setting of the running chip that a controller may change without re-applying the configuration (P4Runtime
 * registers and the QoS map tables), with the index it takes. Port indexes are the pipeline's; queue and PG indexes
 * are {@code port * 8 + queue} and {@code port * 8 + pg}.
 */
public enum RuntimeKnob {
    /** WRED/ECN Kmin of an egress queue, bytes (all colours); index port*8+queue. */
    ECN_MIN_THRESHOLD_BYTES(Scope.QUEUE),
    /** WRED/ECN Kmax of an egress queue, bytes (0 = the maximum buffer size); index port*8+queue. */
    ECN_MAX_THRESHOLD_BYTES(Scope.QUEUE),
    /** WRED/ECN Pmax of an egress queue, percent 0..100; index port*8+queue. */
    ECN_MAX_PROBABILITY_PERCENT(Scope.QUEUE),
    /** BUFFER_PROFILE xoff (headroom) of an ingress PG, bytes; index port*8+pg. */
    PFC_XOFF_BYTES(Scope.QUEUE),
    /** BUFFER_PROFILE xon of an ingress PG, bytes; index port*8+pg. */
    PFC_XON_BYTES(Scope.QUEUE),
    /** PFC_WD detection_time of a port, ms 100..5000 and at least POLL_INTERVAL; index port. */
    PFC_WATCHDOG_DETECTION_MS(Scope.PORT),
    /** PFC_WD restoration_time of a port, ms 100..60000 and at least POLL_INTERVAL, 0 = never; index port. */
    PFC_WATCHDOG_RESTORATION_MS(Scope.PORT),
    /** Flowlet idle time of every group, ns 16 µs..32 ms; index 0. */
    FLOWLET_IDLE_TIME_NS(Scope.SWITCH),
    /** ECMP hash seed (u32); index 0. */
    HASH_SEED(Scope.SWITCH),
    /**
     * Selection mode of a next-hop group, index = pipeline group id: 0 hash (enhanced_ecmp: the RDMA hash object
     * for RoCEv2 when one is configured; a static_hash group also reads 0), 1 flowlet_quality, 2 flowlet_random,
     * 3 per_packet_spray.
     */
    GROUP_SELECTION_MODE(Scope.GROUP),
    /** DSCP → TC entry on every port (-1 = none: the configured maps apply); index DSCP 0..63. */
    DSCP_TO_TC(Scope.DSCP),
    /** PCP → TC entry on every port (-1 = none); index PCP 0..7. */
    DOT1P_TO_TC(Scope.EIGHT),
    /** TC → queue entry on every port (-1 = none); index TC 0..7. */
    TC_TO_QUEUE(Scope.EIGHT),
    /** TC → PG entry on every port (-1 = none); index TC 0..7. */
    TC_TO_PG(Scope.EIGHT);

    /** What the index counts. */
    enum Scope {
        QUEUE, PORT, SWITCH, DSCP, EIGHT, GROUP
    }

    private final Scope scope;

    RuntimeKnob(final Scope scope) {
        this.scope = scope;
    }

    Scope scope() {
        return scope;
    }

    int size(final int ports, final int groups) {
        return switch (scope) {
            case GROUP -> groups;
            case QUEUE -> ports * 8;
            case PORT -> ports;
            case SWITCH -> 1;
            case DSCP -> 64;
            case EIGHT -> 8;
        };
    }

    /** @return true for the QoS map entries. */
    public boolean isQosMap() {
        return scope == Scope.DSCP || scope == Scope.EIGHT;
    }
}
