package io.asicemu.tm.counter;

/**
 * The traffic manager's counters as plain long slots, written only by the data-plane thread. Layout: per queue
 * {@code ((port*8+queue)*QueueStat.COUNT + stat)}, per PG {@code ((port*8+pg)*PgStat.COUNT + stat)}, per port and
 * priority {@code ((port*8+prio)*PfcStat.COUNT + stat)}, per pool {@code (pool*PoolStat.COUNT + stat)}.
 * Not thread safe: read through {@link TmCountersSnapshot#copyFrom(TmCounters)} on the data thread.
 */
public final class TmCounters {
    /** Slot of PACKETS in a queue record. */
    public static final int Q_PACKETS = QueueStat.PACKETS.ordinal();
    /** Slot of BYTES. */
    public static final int Q_BYTES = QueueStat.BYTES.ordinal();
    /** Slot of DROPPED_PACKETS. */
    public static final int Q_DROPPED_PACKETS = QueueStat.DROPPED_PACKETS.ordinal();
    /** Slot of DROPPED_BYTES. */
    public static final int Q_DROPPED_BYTES = QueueStat.DROPPED_BYTES.ordinal();
    /** Slot of WRED_ECN_MARKED_PACKETS. */
    public static final int Q_ECN_MARKED_PACKETS = QueueStat.WRED_ECN_MARKED_PACKETS.ordinal();
    /** Slot of WRED_ECN_MARKED_BYTES. */
    public static final int Q_ECN_MARKED_BYTES = QueueStat.WRED_ECN_MARKED_BYTES.ordinal();
    /** Slot of WRED_DROPPED_PACKETS. */
    public static final int Q_WRED_DROPPED_PACKETS = QueueStat.WRED_DROPPED_PACKETS.ordinal();
    /** Slot of WRED_DROPPED_BYTES. */
    public static final int Q_WRED_DROPPED_BYTES = QueueStat.WRED_DROPPED_BYTES.ordinal();
    /** Slot of CURR_OCCUPANCY_BYTES. */
    public static final int Q_OCCUPANCY = QueueStat.CURR_OCCUPANCY_BYTES.ordinal();
    /** Slot of SHARED_WATERMARK_BYTES. */
    public static final int Q_SHARED_WATERMARK = QueueStat.SHARED_WATERMARK_BYTES.ordinal();
    /** Slot of PAUSE_STATUS. */
    public static final int Q_PAUSE_STATUS = QueueStat.PAUSE_STATUS.ordinal();

    /** Slot of PG PACKETS. */
    public static final int PG_PACKETS = PgStat.PACKETS.ordinal();
    /** Slot of PG BYTES. */
    public static final int PG_BYTES = PgStat.BYTES.ordinal();
    /** Slot of PG DROPPED_PACKETS. */
    public static final int PG_DROPPED_PACKETS = PgStat.DROPPED_PACKETS.ordinal();
    /** Slot of PG CURR_OCCUPANCY_BYTES. */
    public static final int PG_OCCUPANCY = PgStat.CURR_OCCUPANCY_BYTES.ordinal();
    /** Slot of PG SHARED_CURR_OCCUPANCY_BYTES. */
    public static final int PG_SHARED_OCCUPANCY = PgStat.SHARED_CURR_OCCUPANCY_BYTES.ordinal();
    /** Slot of PG XOFF_ROOM_CURR_OCCUPANCY_BYTES. */
    public static final int PG_XOFF_OCCUPANCY = PgStat.XOFF_ROOM_CURR_OCCUPANCY_BYTES.ordinal();
    /** Slot of PG WATERMARK_BYTES. */
    public static final int PG_WATERMARK = PgStat.WATERMARK_BYTES.ordinal();
    /** Slot of PG SHARED_WATERMARK_BYTES. */
    public static final int PG_SHARED_WATERMARK = PgStat.SHARED_WATERMARK_BYTES.ordinal();
    /** Slot of PG XOFF_ROOM_WATERMARK_BYTES. */
    public static final int PG_XOFF_WATERMARK = PgStat.XOFF_ROOM_WATERMARK_BYTES.ordinal();

    /** Slot of PFC RX_PKTS. */
    public static final int PFC_RX = PfcStat.RX_PKTS.ordinal();
    /** Slot of PFC TX_PKTS. */
    public static final int PFC_TX = PfcStat.TX_PKTS.ordinal();
    /** Slot of PFC RX_PAUSE_DURATION (quanta). */
    public static final int PFC_RX_DURATION = PfcStat.RX_PAUSE_DURATION.ordinal();
    /** Slot of PFC RX_PAUSE_DURATION_US. */
    public static final int PFC_RX_DURATION_US = PfcStat.RX_PAUSE_DURATION_US.ordinal();
    /** Slot of PFC ON2OFF_RX_PKTS. */
    public static final int PFC_ON2OFF = PfcStat.ON2OFF_RX_PKTS.ordinal();

    final long[] queue;
    final long[] pg;
    final long[] pfc;
    final long[] pool;
    final int portCount;
    final int poolCount;

    /**
     * @param portCount number of ports.
     * @param poolCount number of buffer pools.
     */
    public TmCounters(final int portCount, final int poolCount) {
        this.portCount = portCount;
        this.poolCount = poolCount;
        queue = new long[portCount * 8 * QueueStat.COUNT];
        pg = new long[portCount * 8 * PgStat.COUNT];
        pfc = new long[portCount * 8 * PfcStat.COUNT];
        pool = new long[Math.max(1, poolCount) * PoolStat.COUNT];
    }

    /** @return the queue slots (data thread only). */
    public long[] queueSlots() {
        return queue;
    }

    /** @return the PG slots (data thread only). */
    public long[] pgSlots() {
        return pg;
    }

    /** @return the per-port, per-priority PFC slots (data thread only). */
    public long[] pfcSlots() {
        return pfc;
    }

    /** @return the pool slots (data thread only). */
    public long[] poolSlots() {
        return pool;
    }

    /** @return number of ports. */
    public int portCount() {
        return portCount;
    }

    /** @return number of pools. */
    public int poolCount() {
        return poolCount;
    }
}
