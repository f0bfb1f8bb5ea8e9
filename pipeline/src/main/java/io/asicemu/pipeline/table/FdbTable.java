package io.asicemu.pipeline.table;

/**
 * The L2 forwarding database: (VLAN, MAC) → port, with learned entries that age out and static ones that do not.
 * Open addressing with linear probing over parallel primitive arrays and backward-shift deletion, so lookups,
 * learning and aging allocate nothing.
 * <p>
 * Not thread safe: owned by the data-plane thread, which learns on receive and ages entries from a timer; static
 * entries arrive as commands.
 */
public final class FdbTable {
    /** Returned by {@link #lookup} when the (VLAN, MAC) is unknown. */
    public static final int MISSING = -1;
    /** The "port" of a static entry whose action is drop: frames to it are discarded. */
    public static final int DROP_PORT = -2;
    /** The last-hit time of a static entry no packet has matched yet. */
    public static final long NEVER_HIT = Long.MIN_VALUE;

    private static final long EMPTY = -1L;

    private final int mask;
    private final long[] keys;
    private final int[] ports;
    private final long[] lastSeenNs;
    private final boolean[] statics;
    private final int capacity;
    private int size;
    /** Learned entries: while there are none, aging has nothing to do (and an idle switch need not wake for it). */
    private int dynamicSize;

    private int agingCursor;

    /**
     * @param capacity the most entries the table holds (learning stops when full, as a hardware table's does).
     */
    public FdbTable(final int capacity) {
        this.capacity = capacity;
        int slots = Integer.highestOneBit(Math.max(16, capacity * 2 - 1)) << 1;
        mask = slots - 1;
        keys = new long[slots];
        java.util.Arrays.fill(keys, EMPTY);
        ports = new int[slots];
        lastSeenNs = new long[slots];
        statics = new boolean[slots];
    }

    /** @return bytes of the slot arrays (sized from the capacity when built). */
    long reservedBytes() {
        return ForwardingTables.bytes(keys)
                + ForwardingTables.bytes(ports)
                + ForwardingTables.bytes(lastSeenNs)
                + ForwardingTables.bytes(statics);
    }

    /**
     * @param vlanId the VLAN (0 for a port without VLAN).
     * @param mac the MAC (low 48 bits).
     * @return the key of the pair.
     */
    public static long key(final int vlanId, final long mac) {
        return ((long) (vlanId & 0xfff) << 48) | (mac & 0xffff_ffff_ffffL);
    }

    private static int hash(final long key) {
        final long h = key * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private int find(final long key) {
        int i = hash(key) & mask;
        while (true) {
            final long k = keys[i];
            if (k == key) {
                return i;
            }
            if (k == EMPTY) {
                return -1 - i;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * @param vlanId the VLAN.
     * @param mac the destination MAC.
     * @return the port, or {@link #MISSING}.
     */
    public int lookup(final int vlanId, final long mac) {
        final int i = find(key(vlanId, mac));
        return i >= 0 ? ports[i] : MISSING;
    }

    /**
     * Forwarding lookup: as {@link #lookup(int, long)}, and a static entry records the hit (its idle timer, for
     * controllers that asked to hear of idle entries; dynamic entries age by their source, not by hits).
     *
     * @param vlanId the VLAN.
     * @param mac the destination MAC.
     * @param nowNs the time.
     * @return the port, or {@link #MISSING}.
     */
    public int lookup(final int vlanId, final long mac, final long nowNs) {
        final int i = find(key(vlanId, mac));
        if (i < 0) {
            return MISSING;
        }
        if (statics[i]) {
            lastSeenNs[i] = nowNs;
        }
        return ports[i];
    }

    /**
     * Learns (or refreshes, or moves) a dynamic entry; a static entry for the same key is left alone.
     *
     * @param vlanId the VLAN.
     * @param mac the source MAC.
     * @param port the port it was seen on.
     * @param nowNs the time it was seen.
     * @return true if a new entry was made or an entry moved port.
     */
    public boolean learn(final int vlanId, final long mac, final int port, final long nowNs) {
        final long key = key(vlanId, mac);
        final int i = find(key);
        if (i >= 0) {
            if (statics[i]) {
                return false;
            }
            lastSeenNs[i] = nowNs;
            if (ports[i] != port) {
                ports[i] = port;
                return true;
            }
            return false;
        }
        if (size >= capacity) {
            return false;
        }
        final int slot = -1 - i;
        keys[slot] = key;
        ports[slot] = port;
        lastSeenNs[slot] = nowNs;
        statics[slot] = false;
        size++;
        dynamicSize++;
        return true;
    }

    /**
     * Adds or replaces a static entry (never ages, never moves by learning).
     *
     * @param vlanId the VLAN.
     * @param mac the MAC.
     * @param port the port.
     * @return false if the table is full.
     */
    public boolean putStatic(final int vlanId, final long mac, final int port) {
        final long key = key(vlanId, mac);
        int i = find(key);
        if (i < 0) {
            if (size >= capacity) {
                return false;
            }
            i = -1 - i;
            keys[i] = key;
            size++;
            lastSeenNs[i] = NEVER_HIT;
        } else if (!statics[i]) {
            lastSeenNs[i] = NEVER_HIT;
            dynamicSize--;
        }
        ports[i] = port;
        statics[i] = true;
        return true;
    }

    /**
     * Removes an entry, static or dynamic.
     *
     * @param vlanId the VLAN.
     * @param mac the MAC.
     * @return whether it existed.
     */
    public boolean remove(final int vlanId, final long mac) {
        final int i = find(key(vlanId, mac));
        if (i < 0) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /**
     * Removes every dynamic entry learned on a port (link down, port removed) or, with port -1, every dynamic entry.
     *
     * @param port the port, or -1 for all.
     * @return how many entries were removed.
     */
    public int flushDynamic(final int port) {
        int removed = 0;
        for (int i = 0; i <= mask; ) {
            if (keys[i] != EMPTY && !statics[i] && (port < 0 || ports[i] == port)) {
                removeAt(i);
                removed++;
            } else {
                i++;
            }
        }
        return removed;
    }

    /**
     * Removes the dynamic entries of a VLAN (VLAN removed) or of one port in it (membership removed).
     *
     * @param vlanId the VLAN.
     * @param port the port, or -1 for every port.
     * @return how many entries were removed.
     */
    public int flushVlan(final int vlanId, final int port) {
        int removed = 0;
        for (int i = 0; i <= mask; ) {
            if (keys[i] != EMPTY
                    && !statics[i]
                    && (int) (keys[i] >>> 48) == (vlanId & 0xfff)
                    && (port < 0 || ports[i] == port)) {
                removeAt(i);
                removed++;
            } else {
                i++;
            }
        }
        return removed;
    }

    /**
     * Ages a bounded slice of the table: removes dynamic entries not seen for {@code ageTimeNs}. Called from a timer;
     * successive calls sweep the whole table.
     *
     * @param nowNs the current time.
     * @param ageTimeNs the aging time.
     * @param slots how many slots to examine this call.
     * @return how many entries aged out.
     */
    public int age(final long nowNs, final long ageTimeNs, final int slots) {
        int aged = 0;
        for (int n = 0; n < slots; n++) {
            final int i = agingCursor;
            if (keys[i] != EMPTY && !statics[i] && nowNs - lastSeenNs[i] >= ageTimeNs) {
                removeAt(i); // the slot now holds a shifted entry (or empty): examine it again
                aged++;
            } else {
                agingCursor = (agingCursor + 1) & mask;
            }
        }
        return aged;
    }

    /** @return the number of slots (an aging sweep of this many slots covers the table). */
    public int slotCount() {
        return mask + 1;
    }

    /** @return learned (dynamic) entries in the table: the ones aging may remove. */
    public int dynamicSize() {
        return dynamicSize;
    }

    /** @return entries in the table. */
    public int size() {
        return size;
    }

    /**
     * Visits every entry (control-side dumps; allocation is the visitor's business).
     *
     * @param visitor receives vlan, mac, port and whether the entry is static.
     */
    public void forEach(final Visitor visitor) {
        for (int i = 0; i <= mask; i++) {
            if (keys[i] != EMPTY) {
                visitor.entry((int) (keys[i] >>> 48), keys[i] & 0xffff_ffff_ffffL, ports[i], statics[i]);
            }
        }
    }

    /**
     * Visits every static entry with the time a packet last matched it ({@link #NEVER_HIT} if none has).
     *
     * @param visitor receives the entry's {@link #key} and its last-hit time.
     */
    public void forEachStaticHit(final HitVisitor visitor) {
        for (int i = 0; i <= mask; i++) {
            if (keys[i] != EMPTY && statics[i]) {
                visitor.entry(keys[i], lastSeenNs[i]);
            }
        }
    }

    /** Receives static FDB entries' last-hit times. */
    @FunctionalInterface
    public interface HitVisitor {
        /**
         * @param key the entry's {@link #key(int, long)}.
         * @param lastHitNs when a packet last matched it, or {@link #NEVER_HIT}.
         */
        void entry(long key, long lastHitNs);
    }

    /** Receives FDB entries. */
    @FunctionalInterface
    public interface Visitor {
        /**
         * @param vlanId the VLAN.
         * @param mac the MAC.
         * @param port the port.
         * @param isStatic whether the entry is static.
         */
        void entry(int vlanId, long mac, int port, boolean isStatic);
    }

    private void removeAt(final int slot) {
        if (!statics[slot]) {
            dynamicSize--;
        }
        int hole = slot;
        int i = (slot + 1) & mask;
        while (keys[i] != EMPTY) {
            final int home = hash(keys[i]) & mask;
            // Move entry i into the hole if its home is not cyclically in (hole, i].
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                keys[hole] = keys[i];
                ports[hole] = ports[i];
                lastSeenNs[hole] = lastSeenNs[i];
                statics[hole] = statics[i];
                hole = i;
            }
            i = (i + 1) & mask;
        }
        keys[hole] = EMPTY;
        size--;
    }
}
