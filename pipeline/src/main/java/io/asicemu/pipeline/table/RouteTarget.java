package io.asicemu.pipeline.table;

/**
 * Encodes what a route points at into the LPM value: a 3-bit kind and a 20-bit id. Static helpers only.
 */
public final class RouteTarget {
    /** Forward to one next hop (id = next-hop id). */
    public static final int NEXT_HOP = 1;
    /** Forward through an ECMP/WCMP group (id = group id). */
    public static final int GROUP = 2;
    /** A connected subnet: resolve the destination itself as a neighbor (id = router interface). */
    public static final int CONNECTED = 3;
    /** One of the switch's own addresses: to the CPU (id unused). */
    public static final int LOCAL = 4;
    /** Drop (blackhole). */
    public static final int DROP = 5;
    /** Largest id. */
    public static final int MAX_ID = (1 << 20) - 1;

    private RouteTarget() {}

    /**
     * @param kind a kind constant.
     * @param id an id 0..{@link #MAX_ID}.
     * @return the LPM value (never 0).
     */
    public static int encode(final int kind, final int id) {
        return (kind << 20) | id;
    }

    /**
     * @param value an LPM value.
     * @return its kind (0 for "no route").
     */
    public static int kind(final int value) {
        return value >>> 20;
    }

    /**
     * @param value an LPM value.
     * @return its id.
     */
    public static int id(final int value) {
        return value & MAX_ID;
    }
}
