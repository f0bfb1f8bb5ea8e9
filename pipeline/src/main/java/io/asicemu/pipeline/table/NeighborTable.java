package io.asicemu.pipeline.table;

import java.util.Arrays;

/**
 * Neighbors (ARP and NDP entries): IP address → MAC and router interface. Static entries come from config
 * ({@code NEIGH}) or P4Runtime; dynamic ones are learned from ARP/ND answers the switch receives. Open addressing over
 * (high, low) address pairs plus a family tag; an IPv4 address is the low 32 bits of {@code low} with
 * {@code high} 0, and the family tag keeps it apart from the IPv6 address with the same bits.
 * <p>
 * Not thread safe: owned by the data-plane thread.
 */
public final class NeighborTable {
    /** Returned by {@link #find} when there is no entry. */
    public static final int MISSING = -1;
    /** Marks an IPv6 key. */
    public static final int V6_TAG = 1;

    private final int mask;
    private final long[] highs;
    private final long[] lows;
    private final byte[] families;
    private final boolean[] used;
    private final long[] macs;
    private final int[] rifs;
    private final boolean[] statics;
    private final long[] hitPackets;
    private final long[] hitBytes;
    private final int capacity;
    private int size;
    /**
     * Changes whenever an address may have moved to another slot or left the table (an entry added, removed or the
     * table cleared), never on a MAC/RIF update in place: a slot cached with the version it was found at stays right
     * until this changes ({@link ForwardingTables#nextHopNeighbor}). Starts at 1 so 0 can mean "nothing cached".
     */
    private long layoutVersion = 1;

    /**
     * @param capacity the most neighbors.
     */
    public NeighborTable(final int capacity) {
        this.capacity = capacity;
        final int slots = Integer.highestOneBit(Math.max(16, capacity * 2 - 1)) << 1;
        mask = slots - 1;
        highs = new long[slots];
        lows = new long[slots];
        families = new byte[slots];
        used = new boolean[slots];
        macs = new long[slots];
        rifs = new int[slots];
        statics = new boolean[slots];
        hitPackets = new long[slots];
        hitBytes = new long[slots];
    }

    /** @return bytes of the slot arrays (sized from the capacity when built). */
    long reservedBytes() {
        return ForwardingTables.bytes(highs)
                + ForwardingTables.bytes(lows)
                + ForwardingTables.bytes(families)
                + ForwardingTables.bytes(used)
                + ForwardingTables.bytes(macs)
                + ForwardingTables.bytes(rifs)
                + ForwardingTables.bytes(statics)
                + ForwardingTables.bytes(hitPackets)
                + ForwardingTables.bytes(hitBytes);
    }

    private static int hash(final long high, final long low, final boolean v6) {
        long h = (high * 0x9E37_79B9_7F4A_7C15L) ^ (low * 0xC2B2_AE3D_27D4_EB4FL) ^ (v6 ? 0x165667B19E3779F9L : 0);
        h ^= h >>> 29;
        return (int) (h ^ (h >>> 32));
    }

    private int probe(final long high, final long low, final boolean v6) {
        final byte family = (byte) (v6 ? V6_TAG : 0);
        int i = hash(high, low, v6) & mask;
        while (used[i]) {
            if (highs[i] == high && lows[i] == low && families[i] == family) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1 - i;
    }

    /**
     * @param high address high bits (0 for IPv4).
     * @param low address low bits.
     * @param v6 whether the address is IPv6.
     * @return the entry slot, or {@link #MISSING}.
     */
    public int find(final long high, final long low, final boolean v6) {
        final int i = probe(high, low, v6);
        return i >= 0 ? i : MISSING;
    }

    /**
     * @param slot a slot from {@link #find}.
     * @return the neighbor's MAC.
     */
    public long mac(final int slot) {
        return macs[slot];
    }

    /**
     * @param slot a slot from {@link #find}.
     * @return the router interface the neighbor sits behind.
     */
    public int rif(final int slot) {
        return rifs[slot];
    }

    /**
     * @param slot a slot from {@link #find}.
     * @return whether the entry is static.
     */
    public boolean isStatic(final int slot) {
        return statics[slot];
    }

    /**
     * Adds or replaces a neighbor. A dynamic update never replaces a static entry.
     *
     * @param high address high bits.
     * @param low address low bits.
     * @param v6 whether IPv6.
     * @param mac the MAC.
     * @param rif the router interface.
     * @param isStatic whether the entry is static.
     * @return false if full, or if a dynamic update met a static entry.
     */
    public boolean put(
            final long high, final long low, final boolean v6, final long mac, final int rif, final boolean isStatic) {
        int i = probe(high, low, v6);
        if (i >= 0) {
            if (statics[i] && !isStatic) {
                return false;
            }
        } else {
            if (size >= capacity) {
                return false;
            }
            i = -1 - i;
            used[i] = true;
            highs[i] = high;
            lows[i] = low;
            families[i] = (byte) (v6 ? V6_TAG : 0);
            hitPackets[i] = 0;
            hitBytes[i] = 0;
            size++;
            layoutVersion++;
        }
        macs[i] = mac;
        rifs[i] = rif;
        statics[i] = isStatic;
        return true;
    }

    /**
     * Removes a neighbor.
     *
     * @param high address high bits.
     * @param low address low bits.
     * @param v6 whether IPv6.
     * @return whether it existed.
     */
    public boolean remove(final long high, final long low, final boolean v6) {
        final int slot = probe(high, low, v6);
        if (slot < 0) {
            return false;
        }
        int hole = slot;
        int i = (slot + 1) & mask;
        while (used[i]) {
            final int home = hash(highs[i], lows[i], families[i] == V6_TAG) & mask;
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                highs[hole] = highs[i];
                lows[hole] = lows[i];
                families[hole] = families[i];
                macs[hole] = macs[i];
                rifs[hole] = rifs[i];
                statics[hole] = statics[i];
                hitPackets[hole] = hitPackets[i];
                hitBytes[hole] = hitBytes[i];
                hole = i;
            }
            i = (i + 1) & mask;
        }
        used[hole] = false;
        size--;
        layoutVersion++;
        return true;
    }

    /**
     * Counts a packet forwarded to a neighbor (data path).
     *
     * @param slot a slot from {@link #find}.
     * @param bytes the frame's length.
     */
    public void countHit(final int slot, final int bytes) {
        hitPackets[slot]++;
        hitBytes[slot] += bytes;
    }

    /**
     * Visits every entry with its hit counters (control-side dumps, on the data-plane thread).
     *
     * @param visitor receives each entry.
     */
    public void forEachCounted(final CountedVisitor visitor) {
        for (int i = 0; i <= mask; i++) {
            if (used[i]) {
                visitor.entry(highs[i], lows[i], families[i] == V6_TAG, hitPackets[i], hitBytes[i]);
            }
        }
    }

    /** Receives neighbor addresses with their hit counters. */
    @FunctionalInterface
    public interface CountedVisitor {
        /**
         * @param high address high bits.
         * @param low address low bits.
         * @param v6 whether IPv6.
         * @param packets packets forwarded to it.
         * @param bytes bytes forwarded to it.
         */
        void entry(long high, long low, boolean v6, long packets, long bytes);
    }

    /** Removes every entry. */
    public void clear() {
        Arrays.fill(used, false);
        size = 0;
        layoutVersion++;
    }

    /** @return the layout version: it changes whenever {@link #find}'s answer for some address may change. */
    public long layoutVersion() {
        return layoutVersion;
    }

    /** @return entries in the table. */
    public int size() {
        return size;
    }

    /**
     * Visits every entry (control-side dumps).
     *
     * @param visitor receives each entry.
     */
    public void forEach(final Visitor visitor) {
        for (int i = 0; i <= mask; i++) {
            if (used[i]) {
                visitor.entry(highs[i], lows[i], families[i] == V6_TAG, macs[i], rifs[i], statics[i]);
            }
        }
    }

    /** Receives neighbor entries. */
    @FunctionalInterface
    public interface Visitor {
        /**
         * @param high address high bits.
         * @param low address low bits.
         * @param v6 whether IPv6.
         * @param mac the MAC.
         * @param rif the router interface.
         * @param isStatic whether static.
         */
        void entry(long high, long low, boolean v6, long mac, int rif, boolean isStatic);
    }
}
