package io.asicemu.pipeline.control;

/**
 * A setting of the running chip that a controller may change without re-applying the configuration (P4Runtime
 * registers and the QoS map tables), with the index it takes. Port indexes are the pipeline's; queue and PG indexes
 * are {@code port * 8 + queue} and {@code port * 8 + pg}.
 */
public enum RuntimeKnob {
    /** WRED/ECN Kmin of an egress queue for green packets (WRED_PROFILE green_min_threshold), bytes; index
     *  port*8+queue. */
    ECN_MIN_THRESHOLD_BYTES(Scope.QUEUE, 0, 0),
    /** WRED/ECN Kmax for green (green_max_threshold), bytes (0 = the maximum buffer size); index port*8+queue. */
    ECN_MAX_THRESHOLD_BYTES(Scope.QUEUE, 0, 1),
    /** WRED/ECN Pmax for green (green_drop_probability), percent 0..100; index port*8+queue. */
    ECN_MAX_PROBABILITY_PERCENT(Scope.QUEUE, 0, 2),
    /** WRED/ECN Kmin for yellow packets (yellow_min_threshold), bytes; index port*8+queue. */
    ECN_YELLOW_MIN_THRESHOLD_BYTES(Scope.QUEUE, 1, 0),
    /** WRED/ECN Kmax for yellow (yellow_max_threshold), bytes (0 = the maximum buffer size). */
    ECN_YELLOW_MAX_THRESHOLD_BYTES(Scope.QUEUE, 1, 1),
    /** WRED/ECN Pmax for yellow (yellow_drop_probability), percent 0..100. */
    ECN_YELLOW_MAX_PROBABILITY_PERCENT(Scope.QUEUE, 1, 2),
    /** WRED/ECN Kmin for red packets (red_min_threshold), bytes; index port*8+queue. */
    ECN_RED_MIN_THRESHOLD_BYTES(Scope.QUEUE, 2, 0),
    /** WRED/ECN Kmax for red (red_max_threshold), bytes (0 = the maximum buffer size). */
    ECN_RED_MAX_THRESHOLD_BYTES(Scope.QUEUE, 2, 1),
    /** WRED/ECN Pmax for red (red_drop_probability), percent 0..100. */
    ECN_RED_MAX_PROBABILITY_PERCENT(Scope.QUEUE, 2, 2),
    /** BUFFER_PROFILE xoff (headroom) of an ingress PG, bytes; index port*8+pg. */
    PFC_XOFF_BYTES(Scope.QUEUE, -1, -1),
    /** BUFFER_PROFILE xon of an ingress PG, bytes; index port*8+pg. */
    PFC_XON_BYTES(Scope.QUEUE, -1, -1),
    /** PFC_WD detection_time of a port, ms 100..5000 and at least POLL_INTERVAL; index port. */
    PFC_WATCHDOG_DETECTION_MS(Scope.PORT, -1, -1),
    /** PFC_WD restoration_time of a port, ms 100..60000 and at least POLL_INTERVAL, 0 = never; index port. */
    PFC_WATCHDOG_RESTORATION_MS(Scope.PORT, -1, -1),
    /** Flowlet idle time of every group, ns 16 µs..32 ms; index 0. */
    FLOWLET_IDLE_TIME_NS(Scope.SWITCH, -1, -1),
    /** ECMP hash seed (u32); index 0. */
    HASH_SEED(Scope.SWITCH, -1, -1),
    /**
     * Selection mode of a next-hop group, index = pipeline group id: 0 hash (enhanced_ecmp: the RDMA hash object
     * for RoCEv2 when one is configured; a static_hash group also reads 0), 1 flowlet_quality, 2 flowlet_random,
     * 3 per_packet_spray.
     */
    GROUP_SELECTION_MODE(Scope.GROUP, -1, -1),
    /** DSCP → TC entry on every port (-1 = none: the configured maps apply); index DSCP 0..63. */
    DSCP_TO_TC(Scope.DSCP, -1, -1),
    /** PCP → TC entry on every port (-1 = none); index PCP 0..7. */
    DOT1P_TO_TC(Scope.EIGHT, -1, -1),
    /** TC → queue entry on every port (-1 = none); index TC 0..7. */
    TC_TO_QUEUE(Scope.EIGHT, -1, -1),
    /** TC → PG entry on every port (-1 = none); index TC 0..7. */
    TC_TO_PG(Scope.EIGHT, -1, -1);

    /** What the index counts. */
    enum Scope {
        QUEUE,
        PORT,
        SWITCH,
        DSCP,
        EIGHT,
        GROUP
    }

    /** The WRED/ECN knob of each colour (green, yellow, red) and field (Kmin, Kmax, Pmax). */
    private static final RuntimeKnob[][] WRED = {
        {ECN_MIN_THRESHOLD_BYTES, ECN_MAX_THRESHOLD_BYTES, ECN_MAX_PROBABILITY_PERCENT},
        {ECN_YELLOW_MIN_THRESHOLD_BYTES, ECN_YELLOW_MAX_THRESHOLD_BYTES, ECN_YELLOW_MAX_PROBABILITY_PERCENT},
        {ECN_RED_MIN_THRESHOLD_BYTES, ECN_RED_MAX_THRESHOLD_BYTES, ECN_RED_MAX_PROBABILITY_PERCENT},
    };

    private final Scope scope;
    private final int wredColour;
    private final int wredField;

    RuntimeKnob(final Scope scope, final int wredColour, final int wredField) {
        this.scope = scope;
        this.wredColour = wredColour;
        this.wredField = wredField;
    }

    /** @return 0 green, 1 yellow, 2 red for the WRED/ECN knobs, else -1. */
    int wredColour() {
        return wredColour;
    }

    /** @return 0 Kmin, 1 Kmax, 2 Pmax for the WRED/ECN knobs, else -1. */
    int wredField() {
        return wredField;
    }

    /**
     * @param colour 0 green, 1 yellow, 2 red.
     * @param field 0 Kmin, 1 Kmax, 2 Pmax.
     * @return the WRED/ECN knob of that colour and field.
     */
    public static RuntimeKnob wred(final int colour, final int field) {
        return WRED[colour][field];
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
