package io.asicemu.tm.counter;

/**
 * A copy of {@link TmCounters} taken on the data thread and safe to hand to other threads after publication (e.g.
 * through a volatile field or a queue). Reusable: {@link #copyFrom(TmCounters)} overwrites it without allocating.
 */
public final class TmCountersSnapshot
{
    private final long[] queue;
    private final long[] pg;
    private final long[] pfc;
    private final long[] pool;

    /**
     * @param portCount number of ports.
     * @param poolCount number of pools.
     */
    public TmCountersSnapshot(final int portCount, final int poolCount)
    {
        queue = new long[portCount * 8 * QueueStat.COUNT];
        pg = new long[portCount * 8 * PgStat.COUNT];
        pfc = new long[portCount * 8 * PfcStat.COUNT];
        pool = new long[Math.max(1, poolCount) * PoolStat.COUNT];
    }

    /**
     * Copy every slot.
     *
     * @param c live counters (same dimensions).
     */
    public void copyFrom(final TmCounters c)
    {
        System.arraycopy(c.queue, 0, queue, 0, queue.length);
        System.arraycopy(c.pg, 0, pg, 0, pg.length);
        System.arraycopy(c.pfc, 0, pfc, 0, pfc.length);
        System.arraycopy(c.pool, 0, pool, 0, pool.length);
    }

    /**
     * @param port  port index.
     * @param queue queue 0..7.
     * @param stat  which counter.
     * @return the value.
     */
    public long queue(final int port, final int queue, final QueueStat stat)
    {
        return this.queue[(port * 8 + queue) * QueueStat.COUNT + stat.ordinal()];
    }

    /**
     * @param port port index.
     * @param pg   PG 0..7.
     * @param stat which counter.
     * @return the value.
     */
    public long pg(final int port, final int pg, final PgStat stat)
    {
        return this.pg[(port * 8 + pg) * PgStat.COUNT + stat.ordinal()];
    }

    /**
     * @param port     port index.
     * @param priority 0..7.
     * @param stat     which counter.
     * @return the value.
     */
    public long pfc(final int port, final int priority, final PfcStat stat)
    {
        return pfc[(port * 8 + priority) * PfcStat.COUNT + stat.ordinal()];
    }

    /**
     * @param pool pool index (order of {@code TmConfig.pools()}).
     * @param stat which counter.
     * @return the value.
     */
    public long pool(final int pool, final PoolStat stat)
    {
        return this.pool[pool * PoolStat.COUNT + stat.ordinal()];
    }
}
