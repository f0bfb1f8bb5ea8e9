package io.asicemu.tm.buffer;

import io.asicemu.tm.counter.PoolStat;
import io.asicemu.tm.counter.TmCounters;

/**
 * Byte accounting of buffer pools, ingress priority groups and egress queues (reference §1.2, §6.3).
 * <p>
 * Every packet is charged in whole cells ({@link #chargedBytes(int)}). An ingress PG charges a packet, whole, to the
 * first bucket that fits: its reserved {@code size}; the shared pool, up to {@code static_th} or
 * {@code alpha × free pool} with {@code alpha = 2^dynamic_th}; and, for a lossless PG only, its headroom
 * ({@code xoff} bytes, further capped by the pool's shared headroom pool when {@code BUFFER_POOL.xoff > 0}).
 * Spilling past reserved + shared is the XOFF point ("available PG buffer below xoff"). Egress queues use reserved +
 * shared the same way without headroom. Releases drain headroom first, then shared, then reserved. A PG or queue
 * without a profile has no limit of its own.
 * <p>
 * Above PGs and queues sits the device buffer ({@link #deviceLimitBytes()}), the memory the chip has: every admitted
 * packet holds its cells there once (a packet is charged to both its PG and its queue, but stored once). The limit is
 * derived from the configuration ({@link #modelBoundBytes}): when every PG and queue has a profile it is exactly the
 * most the PG and queue rules can ever admit together, so it never binds; it binds only for packets that meet no
 * profile on either side, as a chip's total buffer does. Not thread safe: data-plane thread only; no allocation after
 * construction.
 */
public final class BufferAccounting {
    /** Admission refused. */
    public static final int REJECT = -1;
    /** Charged to the reserved (min) bucket. */
    public static final int RESERVED = 0;
    /** Charged to the shared pool. */
    public static final int SHARED = 1;
    /** Charged to headroom (lossless PG after XOFF). */
    public static final int HEADROOM = 2;

    private final int cellBytes;
    private final int cellShift;
    private final long[] poolSize;
    private final long[] poolXoff;
    private final long[] poolShared;
    private final long[] poolHeadroom;

    // per PG index (port*8+pg)
    private final int[] pgPool;
    private final long[] pgReservedLimit;
    private final long[] pgStaticTh;
    private final int[] pgDynamicTh;
    private final long[] pgHeadroomLimit;
    private final long[] pgReserved;
    private final long[] pgShared;
    private final long[] pgHeadroom;

    // per queue index (port*8+queue)
    private final int[] qPool;
    private final long[] qReservedLimit;
    private final long[] qStaticTh;
    private final int[] qDynamicTh;
    private final long[] qReserved;
    private final long[] qShared;

    private final long[] pgSlots;
    private final long[] qSlots;
    private final long[] poolSlots;

    /** ceil(2^32 / cellBytes): n / cellBytes == (n * cellReciprocal) >>> 32 for 0 ≤ n &lt; 2^16 (tested). */
    private final long cellReciprocal;

    private long deviceLimit = Long.MAX_VALUE;
    private long deviceUsed;

    /**
     * @param cellBytes cell size for rounding, ≥ 1.
     * @param portCount number of ports.
     * @param poolSizes shared size per pool.
     * @param poolXoffs shared headroom pool size per pool (0 = none).
     * @param counters  counters to keep occupancy and watermarks in.
     */
    public BufferAccounting(
            final int cellBytes,
            final int portCount,
            final long[] poolSizes,
            final long[] poolXoffs,
            final TmCounters counters) {
        if (cellBytes < 1 || cellBytes > 0xFFFF) {
            throw new IllegalArgumentException("cell size out of range 1..65535: " + cellBytes);
        }
        this.cellBytes = cellBytes;
        cellShift = Integer.bitCount(cellBytes) == 1 ? Integer.numberOfTrailingZeros(cellBytes) : -1;
        cellReciprocal = ((1L << 32) + cellBytes - 1) / cellBytes;
        this.poolSize = poolSizes.clone();
        this.poolXoff = poolXoffs.clone();
        poolShared = new long[poolSizes.length];
        poolHeadroom = new long[poolSizes.length];
        final int n = portCount * 8;
        pgPool = filled(n);
        pgReservedLimit = new long[n];
        pgStaticTh = new long[n];
        pgDynamicTh = new int[n];
        pgHeadroomLimit = new long[n];
        pgReserved = new long[n];
        pgShared = new long[n];
        pgHeadroom = new long[n];
        qPool = filled(n);
        qReservedLimit = new long[n];
        qStaticTh = new long[n];
        qDynamicTh = new int[n];
        qReserved = new long[n];
        qShared = new long[n];
        pgSlots = counters.pgSlots();
        qSlots = counters.queueSlots();
        poolSlots = counters.poolSlots();
    }

    private static int[] filled(final int n) {
        final int[] a = new int[n];
        java.util.Arrays.fill(a, -1);
        return a;
    }

    /**
     * Assign a profile to an ingress PG (control path, before traffic).
     *
     * @param pgIndex       port*8+pg.
     * @param pool          pool index.
     * @param reservedBytes profile size.
     * @param staticThBytes static_th or -1 for dynamic.
     * @param dynamicTh     dynamic_th.
     * @param headroomBytes profile xoff (used only when the PG is lossless).
     */
    public void configurePg(
            final int pgIndex,
            final int pool,
            final long reservedBytes,
            final long staticThBytes,
            final int dynamicTh,
            final long headroomBytes) {
        pgPool[pgIndex] = pool;
        pgReservedLimit[pgIndex] = reservedBytes;
        pgStaticTh[pgIndex] = staticThBytes;
        pgDynamicTh[pgIndex] = dynamicTh;
        pgHeadroomLimit[pgIndex] = headroomBytes;
    }

    /**
     * Runtime change of a PG's headroom limit (profile {@code xoff}); bytes already in headroom stay charged.
     * Data-plane thread, between packet batches.
     *
     * @param pgIndex       port*8+pg.
     * @param headroomBytes new xoff.
     */
    public void setPgHeadroomLimit(final int pgIndex, final long headroomBytes) {
        pgHeadroomLimit[pgIndex] = headroomBytes;
    }

    /**
     * @param pgIndex port*8+pg.
     * @return true when the PG has a BUFFER_PG profile (a pool).
     */
    public boolean hasPgProfile(final int pgIndex) {
        return pgPool[pgIndex] >= 0;
    }

    /**
     * Assign a profile to an egress queue (control path, before traffic).
     *
     * @param queueIndex    port*8+queue.
     * @param pool          pool index.
     * @param reservedBytes profile size.
     * @param staticThBytes static_th or -1 for dynamic.
     * @param dynamicTh     dynamic_th.
     */
    public void configureQueue(
            final int queueIndex,
            final int pool,
            final long reservedBytes,
            final long staticThBytes,
            final int dynamicTh) {
        qPool[queueIndex] = pool;
        qReservedLimit[queueIndex] = reservedBytes;
        qStaticTh[queueIndex] = staticThBytes;
        qDynamicTh[queueIndex] = dynamicTh;
    }

    /**
     * @param bytes frame length.
     * @return bytes rounded up to whole cells (at least one cell: every stored packet takes a cell).
     */
    public int chargedBytes(final int bytes) {
        return cells(bytes) * cellBytes;
    }

    /**
     * @param bytes frame length.
     * @return the cells a frame of that length takes, at least one.
     */
    public int cells(final int bytes) {
        final int n = Math.max(bytes, 1) + cellBytes - 1;
        if (cellShift >= 0) {
            return n >>> cellShift;
        }
        if (n < 0x10000) {
            return (int) ((n * cellReciprocal) >>> 32); // no division on the packet path for 208-byte cells
        }
        return n / cellBytes;
    }

    /** @return the cell size in bytes. */
    public int cellBytes() {
        return cellBytes;
    }

    /**
     * Sets the device buffer (control path, before traffic).
     *
     * @param limitBytes whole cells, in bytes.
     */
    public void deviceLimitBytes(final long limitBytes) {
        deviceLimit = limitBytes / cellBytes * cellBytes;
    }

    /** @return the device buffer in bytes (whole cells). */
    public long deviceLimitBytes() {
        return deviceLimit;
    }

    /** @return bytes (whole cells) the admitted packets hold in the device buffer. */
    public long deviceUsedBytes() {
        return deviceUsed;
    }

    /**
     * @param charged charged bytes of a packet.
     * @return true when the device buffer has room for it.
     */
    public boolean fitsDevice(final long charged) {
        return deviceUsed + charged <= deviceLimit;
    }

    /**
     * The most bytes (whole cells) the PG and queue rules can admit at once: on the ingress side each pool a PG
     * profile uses (its size, plus its headroom: the pool's {@code xoff} when set, else the PGs' {@code xoff}
     * together) and every PG's reserved size; on the egress side each pool a queue profile uses and every queue's
     * reserved size. A side where some PG or queue has no profile has no bound; the result is the smaller side.
     * Runtime raises of a PG's xoff ({@link #setPgHeadroomLimit}) are not included: the device limit caps them.
     *
     * @return the bound, or Long.MAX_VALUE when neither side has one.
     */
    public long modelBoundBytes() {
        return Math.min(sideBound(pgPool, pgReservedLimit, pgHeadroomLimit), sideBound(qPool, qReservedLimit, null));
    }

    /**
     * @return every configured pool's size and headroom (its {@code xoff} when set, else the xoff of the PGs whose
     *     profiles use it; with a pool xoff, at most the PGs' xoff together) plus every profile's reserved size,
     *     whole cells: the whole configured buffer, used as the device buffer when PGs and queues without profiles
     *     leave the rules unbounded (so it binds only once those have filled it).
     */
    public long configuredBytes() {
        final long[] headroomByPool = new long[poolSize.length];
        long sum = 0;
        for (int i = 0; i < pgPool.length; i++) {
            if (pgPool[i] >= 0) {
                sum += floorCells(pgReservedLimit[i]);
                headroomByPool[pgPool[i]] += floorCells(pgHeadroomLimit[i]);
            }
            sum += qPool[i] >= 0 ? floorCells(qReservedLimit[i]) : 0;
        }
        for (int p = 0; p < poolSize.length; p++) {
            sum += floorCells(poolSize[p]) + poolHeadroom(p, headroomByPool[p]);
        }
        return sum;
    }

    private long poolHeadroom(final int pool, final long pgHeadroom) {
        return poolXoff[pool] > 0 ? Math.min(floorCells(poolXoff[pool]), pgHeadroom) : pgHeadroom;
    }

    private long sideBound(final int[] pool, final long[] reserved, final long[] headroom) {
        final boolean[] used = new boolean[poolSize.length];
        final long[] headroomByPool = new long[poolSize.length];
        long sum = 0;
        for (int i = 0; i < pool.length; i++) {
            if (pool[i] < 0) {
                return Long.MAX_VALUE;
            }
            used[pool[i]] = true;
            sum += floorCells(reserved[i]);
            if (headroom != null) {
                headroomByPool[pool[i]] += floorCells(headroom[i]);
            }
        }
        for (int p = 0; p < used.length; p++) {
            if (used[p]) {
                sum += floorCells(poolSize[p]) + poolHeadroom(p, headroomByPool[p]);
            }
        }
        return sum;
    }

    private long floorCells(final long bytes) {
        return Math.max(0, bytes) / cellBytes * cellBytes;
    }

    private long sharedLimit(final int pool, final long staticTh, final int dynamicTh) {
        if (staticTh >= 0) {
            return staticTh;
        }
        final long free = poolSize[pool] - poolShared[pool];
        return dynamicTh >= 0 ? free << dynamicTh : free >> -dynamicTh;
    }

    /**
     * Which bucket an ingress packet fits (no state change).
     *
     * @param pgIndex  port*8+pg.
     * @param charged  charged bytes.
     * @param lossless true when the PG may use headroom.
     * @return {@link #RESERVED}, {@link #SHARED}, {@link #HEADROOM} or {@link #REJECT}.
     */
    public int ingressBucket(final int pgIndex, final long charged, final boolean lossless) {
        final int pool = pgPool[pgIndex];
        if (pool < 0) {
            return SHARED;
        }
        if (pgReserved[pgIndex] + charged <= pgReservedLimit[pgIndex]) {
            return RESERVED;
        }
        if (poolShared[pool] + charged <= poolSize[pool]
                && pgShared[pgIndex] + charged <= sharedLimit(pool, pgStaticTh[pgIndex], pgDynamicTh[pgIndex])) {
            return SHARED;
        }
        if (lossless
                && pgHeadroom[pgIndex] + charged <= pgHeadroomLimit[pgIndex]
                && (poolXoff[pool] == 0 || poolHeadroom[pool] + charged <= poolXoff[pool])) {
            return HEADROOM;
        }
        return REJECT;
    }

    /**
     * Which bucket an egress packet fits (no state change).
     *
     * @param queueIndex port*8+queue.
     * @param charged    charged bytes.
     * @return {@link #RESERVED}, {@link #SHARED} or {@link #REJECT}.
     */
    public int egressBucket(final int queueIndex, final long charged) {
        final int pool = qPool[queueIndex];
        if (pool < 0) {
            return SHARED;
        }
        if (qReserved[queueIndex] + charged <= qReservedLimit[queueIndex]) {
            return RESERVED;
        }
        if (poolShared[pool] + charged <= poolSize[pool]
                && qShared[queueIndex] + charged <= sharedLimit(pool, qStaticTh[queueIndex], qDynamicTh[queueIndex])) {
            return SHARED;
        }
        return REJECT;
    }

    /**
     * Charge an admitted packet at its ingress PG, at its egress queue and in the device buffer. Each pool's counters
     * are written once, after both charges: a pool that both sides charge ends with what two writes would have
     * left (its occupancy only grew, so the watermark of the larger value is the same).
     *
     * @param pgIndex    port*8+pg.
     * @param inBucket   result of {@link #ingressBucket}.
     * @param queueIndex port*8+queue.
     * @param egBucket   result of {@link #egressBucket}.
     * @param charged    charged bytes.
     */
    public void charge(
            final int pgIndex, final int inBucket, final int queueIndex, final int egBucket, final long charged) {
        final int inPool = chargeIngress(pgIndex, charged, inBucket);
        final int egPool = chargeEgress(queueIndex, charged, egBucket);
        if (inPool >= 0) {
            updatePool(inPool);
        }
        if (egPool >= 0 && egPool != inPool) {
            updatePool(egPool);
        }
        deviceUsed += charged;
    }

    /** The ingress PG's part of {@link #charge}; returns the pool it charged (its counters not yet written) or -1. */
    private int chargeIngress(final int pgIndex, final long charged, final int bucket) {
        // Only the bucket charged grows, so only its occupancy, the PG total and their watermarks change; the other
        // buckets' slots already hold their values (every change writes them), as do the pool's when no pool
        // bucket was charged.
        final int pool = pgPool[pgIndex];
        final int s = pgIndex * io.asicemu.tm.counter.PgStat.COUNT;
        int pooled = -1;
        if (bucket == RESERVED) {
            pgReserved[pgIndex] += charged;
        } else if (bucket == SHARED) {
            final long shared = pgShared[pgIndex] + charged;
            pgShared[pgIndex] = shared;
            pgSlots[s + TmCounters.PG_SHARED_OCCUPANCY] = shared;
            pgSlots[s + TmCounters.PG_SHARED_WATERMARK] = Math.max(pgSlots[s + TmCounters.PG_SHARED_WATERMARK], shared);
            if (pool >= 0) {
                poolShared[pool] += charged;
                pooled = pool;
            }
        } else {
            final long headroom = pgHeadroom[pgIndex] + charged;
            pgHeadroom[pgIndex] = headroom;
            pgSlots[s + TmCounters.PG_XOFF_OCCUPANCY] = headroom;
            pgSlots[s + TmCounters.PG_XOFF_WATERMARK] = Math.max(pgSlots[s + TmCounters.PG_XOFF_WATERMARK], headroom);
            poolHeadroom[pool] += charged;
            pooled = pool;
        }
        final long occ = pgReserved[pgIndex] + pgShared[pgIndex] + pgHeadroom[pgIndex];
        pgSlots[s + TmCounters.PG_OCCUPANCY] = occ;
        pgSlots[s + TmCounters.PG_WATERMARK] = Math.max(pgSlots[s + TmCounters.PG_WATERMARK], occ);
        return pooled;
    }

    /** The egress queue's part of {@link #charge}; returns the pool it charged (counters not yet written) or -1. */
    private int chargeEgress(final int queueIndex, final long charged, final int bucket) {
        final int pool = qPool[queueIndex];
        int pooled = -1;
        if (bucket == RESERVED) {
            qReserved[queueIndex] += charged;
        } else {
            qShared[queueIndex] += charged;
            if (pool >= 0) {
                poolShared[pool] += charged;
                pooled = pool;
            }
        }
        final int s = queueIndex * io.asicemu.tm.counter.QueueStat.COUNT;
        qSlots[s + TmCounters.Q_SHARED_WATERMARK] =
                Math.max(qSlots[s + TmCounters.Q_SHARED_WATERMARK], qShared[queueIndex]);
        return pooled;
    }

    /**
     * Release an admitted packet's charge at its ingress PG (headroom first, then shared, then reserved), at its
     * egress queue (shared first, then reserved) and in the device buffer. Each pool's counters are written once,
     * after both releases (they hold current values only).
     *
     * @param pgIndex    port*8+pg.
     * @param queueIndex port*8+queue.
     * @param charged    charged bytes.
     */
    public void release(final int pgIndex, final int queueIndex, final long charged) {
        final int inPool = releaseIngress(pgIndex, charged);
        final int egPool = releaseEgress(queueIndex, charged);
        if (inPool >= 0) {
            poolOccupancyFell(inPool);
        }
        if (egPool >= 0 && egPool != inPool) {
            poolOccupancyFell(egPool);
        }
        deviceUsed -= charged;
    }

    /** The ingress PG's part of {@link #release}; returns the pool it released (counters not yet written) or -1. */
    private int releaseIngress(final int pgIndex, final long charged) {
        final int pool = pgPool[pgIndex];
        long left = charged;
        final long fromHeadroom = Math.min(left, pgHeadroom[pgIndex]);
        pgHeadroom[pgIndex] -= fromHeadroom;
        left -= fromHeadroom;
        final long fromShared = Math.min(left, pgShared[pgIndex]);
        pgShared[pgIndex] -= fromShared;
        left -= fromShared;
        pgReserved[pgIndex] -= left;
        final int s = pgIndex * io.asicemu.tm.counter.PgStat.COUNT;
        pgSlots[s + TmCounters.PG_OCCUPANCY] = pgReserved[pgIndex] + pgShared[pgIndex] + pgHeadroom[pgIndex];
        if (fromShared != 0) {
            pgSlots[s + TmCounters.PG_SHARED_OCCUPANCY] = pgShared[pgIndex];
        }
        if (fromHeadroom != 0) {
            pgSlots[s + TmCounters.PG_XOFF_OCCUPANCY] = pgHeadroom[pgIndex];
        }
        if (pool >= 0 && (fromHeadroom | fromShared) != 0) {
            poolHeadroom[pool] -= fromHeadroom;
            poolShared[pool] -= fromShared;
            return pool;
        }
        return -1;
    }

    /** The egress queue's part of {@link #release}; returns the pool it released (counters not yet written) or -1. */
    private int releaseEgress(final int queueIndex, final long charged) {
        final int pool = qPool[queueIndex];
        final long fromShared = Math.min(charged, qShared[queueIndex]);
        qShared[queueIndex] -= fromShared;
        qReserved[queueIndex] -= charged - fromShared;
        if (pool >= 0 && fromShared != 0) {
            poolShared[pool] -= fromShared;
            return pool;
        }
        return -1;
    }

    /**
     * A release lowered the pool's occupancies: a watermark is at least every value it has seen (each rise writes
     * it), so only the current values change.
     */
    private void poolOccupancyFell(final int pool) {
        final int s = pool * PoolStat.COUNT;
        poolSlots[s + PoolStat.CURR_OCCUPANCY_BYTES.ordinal()] = poolShared[pool];
        poolSlots[s + PoolStat.XOFF_ROOM_OCCUPANCY_BYTES.ordinal()] = poolHeadroom[pool];
    }

    private void updatePool(final int pool) {
        final int s = pool * PoolStat.COUNT;
        final long occ = poolShared[pool];
        poolSlots[s + PoolStat.CURR_OCCUPANCY_BYTES.ordinal()] = occ;
        final int wm = s + PoolStat.WATERMARK_BYTES.ordinal();
        poolSlots[wm] = Math.max(poolSlots[wm], occ);
        poolSlots[s + PoolStat.XOFF_ROOM_OCCUPANCY_BYTES.ordinal()] = poolHeadroom[pool];
        final int xwm = s + PoolStat.XOFF_ROOM_WATERMARK_BYTES.ordinal();
        poolSlots[xwm] = Math.max(poolSlots[xwm], poolHeadroom[pool]);
    }

    /**
     * @param pgIndex port*8+pg.
     * @return total bytes the PG holds (reserved + shared + headroom).
     */
    public long pgOccupancy(final int pgIndex) {
        return pgReserved[pgIndex] + pgShared[pgIndex] + pgHeadroom[pgIndex];
    }

    /**
     * @param pgIndex port*8+pg.
     * @return bytes the PG holds outside headroom.
     */
    public long pgNonHeadroomOccupancy(final int pgIndex) {
        return pgReserved[pgIndex] + pgShared[pgIndex];
    }

    /**
     * @param pgIndex port*8+pg.
     * @return headroom bytes in use.
     */
    public long pgHeadroom(final int pgIndex) {
        return pgHeadroom[pgIndex];
    }

    /**
     * @param pgIndex port*8+pg.
     * @return the PG's headroom limit (profile xoff).
     */
    public long pgHeadroomLimit(final int pgIndex) {
        return pgHeadroomLimit[pgIndex];
    }

    /**
     * @param pool pool index.
     * @return shared bytes in use.
     */
    public long poolShared(final int pool) {
        return poolShared[pool];
    }
}
