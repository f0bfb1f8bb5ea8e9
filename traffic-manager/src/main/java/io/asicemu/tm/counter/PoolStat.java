package io.asicemu.tm.counter;

/** Per-buffer-pool counters with their SAI names (reference §3.2); ordinal == slot. */
public enum PoolStat {
    CURR_OCCUPANCY_BYTES("SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES"),
    WATERMARK_BYTES("SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"),
    XOFF_ROOM_OCCUPANCY_BYTES("SAI_BUFFER_POOL_STAT_XOFF_ROOM_OCCUPANCY_BYTES"),
    XOFF_ROOM_WATERMARK_BYTES("SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES");

    /** Number of slots per pool. */
    public static final int COUNT = values().length;

    private final String counterName;

    PoolStat(final String counterName) {
        this.counterName = counterName;
    }

    /** @return the SAI stat name. */
    public String counterName() {
        return counterName;
    }
}
