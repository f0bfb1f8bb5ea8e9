package io.asicemu.pipeline.buffer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A reference admission model written from the rules alone (reference §1.2 BUFFER_POOL/BUFFER_PROFILE semantics,
 * §6.3 headroom; traffic-manager README "Model choices"), plainly and without the traffic manager's code: objects
 * and maps, every occupancy a sum kept per bucket, every limit recomputed at each decision.
 * <ul>
 * <li>A frame of b bytes takes max(1, ceil(b / cell)) cells; all accounting is in those cells.</li>
 * <li>Ingress PG with a profile: reserved while reserved + cells ≤ size; else shared while the pool's shared use
 * stays ≤ the pool size and the PG's shared use ≤ static_th, or ≤ α × (pool size − pool shared use) with
 * α = 2^dynamic_th; else, for a lossless PG (its priority is in pfc_enable), headroom while ≤ the profile's xoff and,
 * when the pool has an xoff, the pool's headroom use ≤ it; else dropped at ingress. Without a profile: no limit.</li>
 * <li>Egress queue: the same without headroom; dropped at egress when it does not fit, or when the device buffer
 * (the rules' own bound; if neither side has one, all configured pools with their headroom and all reserved sizes) is full.</li>
 * <li>A frame leaving gives back its PG cells headroom first, then shared, then reserved; its queue cells shared
 * first, then reserved.</li>
 * </ul>
 * Test code, not thread safe.
 */
final class ReferenceAdmissionModel {
    /** Admitted. */
    static final int ADMIT = 0;
    /** Refused by the ingress PG rules. */
    static final int DROP_INGRESS = 1;
    /** Refused by the egress queue rules or the device buffer. */
    static final int DROP_EGRESS = 2;

    record Pool(long sizeBytes, long xoffBytes) {}

    /** A BUFFER_PROFILE: staticTh −1 for dynamic. */
    record Profile(int pool, long sizeBytes, long staticThBytes, int dynamicTh, long xoffBytes) {}

    private static final class Bucket {
        final Profile profile;
        long reserved;
        long shared;
        long headroom;

        Bucket(final Profile profile) {
            this.profile = profile;
        }
    }

    private record Held(String pg, String queue, long cells) {}

    private final long cell;
    private final List<Pool> pools;
    private final long[] poolShared;
    private final long[] poolHeadroom;
    private final Map<String, Bucket> pgs = new HashMap<>();
    private final Map<String, Bucket> queues = new HashMap<>();
    private final Map<String, Boolean> lossless = new HashMap<>();
    private final Map<Integer, Held> held = new HashMap<>();
    private long deviceCells;
    private long deviceUsed;
    private long deviceDrops;

    ReferenceAdmissionModel(final int cellBytes, final List<Pool> pools) {
        this.cell = cellBytes;
        this.pools = List.copyOf(pools);
        this.poolShared = new long[pools.size()];
        this.poolHeadroom = new long[pools.size()];
    }

    private static String key(final int port, final int index) {
        return port + "/" + index;
    }

    void pg(final int port, final int pg, final Profile profile, final boolean isLossless) {
        pgs.put(key(port, pg), new Bucket(profile));
        lossless.put(key(port, pg), isLossless);
    }

    void queue(final int port, final int queue, final Profile profile) {
        queues.put(key(port, queue), new Bucket(profile));
    }

    private long cellsOf(final long bytes) {
        return bytes / cell; // a byte limit holds the whole cells that fit under it
    }

    /** Derives the device buffer once every PG and queue is declared. */
    void seal() {
        final long in = side(new ArrayList<>(pgs.values()), true);
        final long out = side(new ArrayList<>(queues.values()), false);
        long device = Math.min(in, out);
        if (device == Long.MAX_VALUE) {
            // The whole configured buffer: pools with their headroom, plus every profile's reserved size.
            final Map<Integer, Long> headroomByPool = new HashMap<>();
            device = 0;
            for (final Bucket b : pgs.values()) {
                if (b.profile != null) {
                    device += cellsOf(b.profile.sizeBytes());
                    headroomByPool.merge(b.profile.pool(), cellsOf(b.profile.xoffBytes()), Long::sum);
                }
            }
            for (final Bucket b : queues.values()) {
                device += b.profile == null ? 0 : cellsOf(b.profile.sizeBytes());
            }
            for (int p = 0; p < pools.size(); p++) {
                device += cellsOf(pools.get(p).sizeBytes()) + headroom(p, headroomByPool.getOrDefault(p, 0L));
            }
            if (device == 0) {
                device = cellsOf(io.asicemu.tm.TrafficManager.UNCONFIGURED_BUFFER_BYTES);
            }
        }
        deviceCells = Math.max(1, device);
    }

    private long side(final List<Bucket> buckets, final boolean ingress) {
        final Map<Integer, Long> headroomByPool = new HashMap<>();
        long total = 0;
        for (final Bucket b : buckets) {
            if (b.profile == null) {
                return Long.MAX_VALUE;
            }
            total += cellsOf(b.profile.sizeBytes());
            if (ingress) {
                headroomByPool.merge(b.profile.pool(), cellsOf(b.profile.xoffBytes()), Long::sum);
            }
        }
        final boolean[] used = new boolean[pools.size()];
        buckets.forEach(b -> used[b.profile.pool()] = true);
        for (int p = 0; p < used.length; p++) {
            if (used[p]) {
                total += cellsOf(pools.get(p).sizeBytes()) + headroom(p, headroomByPool.getOrDefault(p, 0L));
            }
        }
        return total;
    }

    /** A pool's headroom: its xoff when set (at most what its PGs' xoff add up to), else its PGs' xoff. */
    private long headroom(final int pool, final long pgHeadroomCells) {
        final long poolXoff = cellsOf(pools.get(pool).xoffBytes());
        return poolXoff > 0 ? Math.min(poolXoff, pgHeadroomCells) : pgHeadroomCells;
    }

    long deviceBytes() {
        return deviceCells * cell;
    }

    private long sharedLimitCells(final Profile p) {
        if (p.staticThBytes() >= 0) {
            return cellsOf(p.staticThBytes());
        }
        final long freeBytes = pools.get(p.pool()).sizeBytes() - poolShared[p.pool()] * cell;
        final long limitBytes = p.dynamicTh() >= 0 ? freeBytes << p.dynamicTh() : freeBytes >> -p.dynamicTh();
        return Math.floorDiv(limitBytes, cell);
    }

    private boolean fitsShared(final Bucket b, final long cells) {
        return poolShared[b.profile.pool()] + cells
                        <= cellsOf(pools.get(b.profile.pool()).sizeBytes())
                && b.shared + cells <= sharedLimitCells(b.profile);
    }

    /**
     * @return {@link #ADMIT}, {@link #DROP_INGRESS} or {@link #DROP_EGRESS}; an admitted frame is held under handle.
     */
    int admit(final int handle, final int inPort, final int pg, final int outPort, final int queue, final int bytes) {
        final long cells = Math.max(1, (bytes + cell - 1) / cell);
        final String pgKey = key(inPort, pg);
        final String qKey = key(outPort, queue);
        final Bucket in = pgs.get(pgKey);
        final Bucket out = queues.get(qKey);
        int inBucket = 1; // shared (also for a PG without a profile: it is not limited)
        if (in.profile != null) {
            if (in.reserved + cells <= cellsOf(in.profile.sizeBytes())) {
                inBucket = 0;
            } else if (fitsShared(in, cells)) {
                inBucket = 1;
            } else if (lossless.get(pgKey)
                    && in.headroom + cells <= cellsOf(in.profile.xoffBytes())
                    && (pools.get(in.profile.pool()).xoffBytes() == 0
                            || poolHeadroom[in.profile.pool()] + cells
                                    <= cellsOf(pools.get(in.profile.pool()).xoffBytes()))) {
                inBucket = 2;
            } else {
                return DROP_INGRESS;
            }
        }
        int outBucket = 1;
        if (out.profile != null) {
            if (out.reserved + cells <= cellsOf(out.profile.sizeBytes())) {
                outBucket = 0;
            } else if (fitsShared(out, cells)) {
                outBucket = 1;
            } else {
                return DROP_EGRESS;
            }
        }
        if (deviceUsed + cells > deviceCells) {
            deviceDrops++;
            return DROP_EGRESS;
        }
        charge(in, inBucket, cells);
        charge(out, outBucket, cells);
        deviceUsed += cells;
        held.put(handle, new Held(pgKey, qKey, cells));
        return ADMIT;
    }

    private void charge(final Bucket b, final int bucket, final long cells) {
        switch (bucket) {
            case 0 -> b.reserved += cells;
            case 1 -> {
                b.shared += cells;
                if (b.profile != null) {
                    poolShared[b.profile.pool()] += cells;
                }
            }
            default -> {
                b.headroom += cells;
                poolHeadroom[b.profile.pool()] += cells;
            }
        }
    }

    /** A held frame left (transmitted or dropped after admission). */
    void release(final int handle) {
        final Held h = held.remove(handle);
        if (h == null) {
            throw new IllegalStateException("not held: " + handle);
        }
        final Bucket in = pgs.get(h.pg());
        long left = h.cells();
        final long fromHeadroom = Math.min(left, in.headroom);
        in.headroom -= fromHeadroom;
        left -= fromHeadroom;
        final long fromShared = Math.min(left, in.shared);
        in.shared -= fromShared;
        left -= fromShared;
        in.reserved -= left;
        if (in.profile != null) {
            poolHeadroom[in.profile.pool()] -= fromHeadroom;
            poolShared[in.profile.pool()] -= fromShared;
        }
        final Bucket out = queues.get(h.queue());
        final long outShared = Math.min(h.cells(), out.shared);
        out.shared -= outShared;
        out.reserved -= h.cells() - outShared;
        if (out.profile != null) {
            poolShared[out.profile.pool()] -= outShared;
        }
        deviceUsed -= h.cells();
    }

    /** @return cells of a queue (reserved + shared). */
    long queueCells(final int port, final int queue) {
        final Bucket b = queues.get(key(port, queue));
        return b.reserved + b.shared;
    }

    /** @return frames refused because the device buffer was full. */
    long deviceDrops() {
        return deviceDrops;
    }

    int heldCount() {
        return held.size();
    }
}
