package io.asicemu.tm.counter;

/** Per-ingress-PG counters with their SAI names (reference §3.2); ordinal == slot. */
public enum PgStat {
    PACKETS("SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS"),
    BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_BYTES"),
    DROPPED_PACKETS("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"),
    CURR_OCCUPANCY_BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_CURR_OCCUPANCY_BYTES"),
    SHARED_CURR_OCCUPANCY_BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_CURR_OCCUPANCY_BYTES"),
    XOFF_ROOM_CURR_OCCUPANCY_BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_CURR_OCCUPANCY_BYTES"),
    WATERMARK_BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_WATERMARK_BYTES"),
    SHARED_WATERMARK_BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES"),
    XOFF_ROOM_WATERMARK_BYTES("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES");

    /** Number of slots per PG. */
    public static final int COUNT = values().length;

    private final String counterName;

    PgStat(final String counterName) {
        this.counterName = counterName;
    }

    /** @return the SAI stat name. */
    public String counterName() {
        return counterName;
    }
}
