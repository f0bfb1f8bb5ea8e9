package io.asicemu.tm.counter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A copy of {@link TmCounters} taken on the data thread and safe to hand to other threads after publication (e.g.
 * through a volatile field or a queue). Reusable: {@link #copyFrom(TmCounters)} overwrites it without allocating.
 */
public final class TmCountersSnapshot {
    private final long[] queue;
    private final long[] pg;
    private final long[] pfc;
    private final long[] pool;

    /**
     * @param portCount number of ports.
     * @param poolCount number of pools.
     */
    public TmCountersSnapshot(final int portCount, final int poolCount) {
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
    public void copyFrom(final TmCounters c) {
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
    public long queue(final int port, final int queue, final QueueStat stat) {
        return this.queue[(port * 8 + queue) * QueueStat.COUNT + stat.ordinal()];
    }

    /**
     * @param port port index.
     * @param pg   PG 0..7.
     * @param stat which counter.
     * @return the value.
     */
    public long pg(final int port, final int pg, final PgStat stat) {
        return this.pg[(port * 8 + pg) * PgStat.COUNT + stat.ordinal()];
    }

    /**
     * @param port     port index.
     * @param priority 0..7.
     * @param stat     which counter.
     * @return the value.
     */
    public long pfc(final int port, final int priority, final PfcStat stat) {
        return pfc[(port * 8 + priority) * PfcStat.COUNT + stat.ordinal()];
    }

    /**
     * @param pool pool index (order of {@code TmConfig.pools()}).
     * @param stat which counter.
     * @return the value.
     */
    public long pool(final int pool, final PoolStat stat) {
        return this.pool[pool * PoolStat.COUNT + stat.ordinal()];
    }

    /**
     * The queue's fields as COUNTERS_DB holds them in {@code COUNTERS:<queue_oid>} (decimal strings; PFC_WD_STATUS as
     * operational/stormed, PAUSE_STATUS as true/false). Control path; allocates.
     *
     * @param port  port index.
     * @param queue queue 0..7.
     * @return field → value, in {@link QueueStat} order.
     */
    public Map<String, String> queueFields(final int port, final int queue) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final QueueStat s : QueueStat.values()) {
            final long v = queue(port, queue, s);
            final String text = switch (s) {
                case PFC_WD_STATUS -> v == 0 ? "operational" : "stormed";
                case PAUSE_STATUS -> v == 0 ? "false" : "true";
                default -> Long.toString(v);
            };
            out.put(s.counterName(), text);
        }
        return out;
    }

    /**
     * @param port port index.
     * @param pg   PG 0..7.
     * @return SAI ingress-PG stat name → decimal string. Control path; allocates.
     */
    public Map<String, String> pgFields(final int port, final int pg) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final PgStat s : PgStat.values()) {
            out.put(s.counterName(), Long.toString(pg(port, pg, s)));
        }
        return out;
    }

    /**
     * @param port port index.
     * @return SAI_PORT_STAT_PFC_n_* for n = 0..7 → decimal string. Control path; allocates.
     */
    public Map<String, String> portPfcFields(final int port) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (int prio = 0; prio < 8; prio++) {
            for (final PfcStat s : PfcStat.values()) {
                out.put(s.counterName(prio), Long.toString(pfc(port, prio, s)));
            }
        }
        return out;
    }

    /**
     * @param pool pool index.
     * @return SAI buffer-pool stat name → decimal string. Control path; allocates.
     */
    public Map<String, String> poolFields(final int pool) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final PoolStat s : PoolStat.values()) {
            out.put(s.counterName(), Long.toString(pool(pool, s)));
        }
        return out;
    }
}
