package io.asicemu.flowlet.ars;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One group's flowlet table (SAI ARS MAX_FLOWS, default 512): per flow, the member it was last sent to and when.
 * Keyed by the 32-bit flow hash with linear probing over at most {@link #PROBE_LIMIT} slots; a slot whose flow has
 * been idle longer than the idle time may be taken by a new flow (its flowlet has ended, so no reordering follows).
 * When no slot is free the caller falls back to hashing.
 * <p>
 * A gap is "idle" when {@code nowNs - lastSeenNs > idleTimeNs}, SAI's "(Current time − Observation Time) > Idle
 * Time". No allocation after construction. Not thread safe: data-plane thread only (except
 * {@link #occupiedSlots()}).
 */
public final class FlowletTable {
    /** Slots probed per lookup. */
    public static final int PROBE_LIMIT = 8;
    /** Returned by {@link #lookup} when the table is full along the probe sequence. */
    public static final int TABLE_FULL = -1;
    /** Member of a slot just claimed for a new flow. */
    public static final int NO_MEMBER = -1;

    private static final long VALID = 1L << 32;
    private static final VarHandle OCCUPIED;

    static {
        try {
            OCCUPIED = MethodHandles.lookup().findVarHandle(FlowletTable.class, "occupied", int.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final long[] tags;
    private final int[] members;
    private final long[] lastSeenNs;
    private long idleTimeNs;
    private final int probes;
    private int occupied;

    /**
     * @param capacity   number of flow slots.
     * @param idleTimeNs flowlet idle time.
     */
    public FlowletTable(final int capacity, final long idleTimeNs) {
        if (capacity < 1 || idleTimeNs < 1) {
            throw new IllegalArgumentException("capacity and idle time must be positive");
        }
        this.tags = new long[capacity];
        this.members = new int[capacity];
        this.lastSeenNs = new long[capacity];
        this.idleTimeNs = idleTimeNs;
        this.probes = Math.min(PROBE_LIMIT, capacity);
    }

    /**
     * Find the slot of a flow, or claim one for it (its member is then {@link #NO_MEMBER}).
     *
     * @param flowHash flow hash.
     * @param nowNs    current time.
     * @return slot index, or {@link #TABLE_FULL}.
     */
    public int lookup(final int flowHash, final long nowNs) {
        final long tag = (flowHash & 0xFFFF_FFFFL) | VALID;
        final int capacity = tags.length;
        final int start = Integer.remainderUnsigned(flowHash, capacity);
        int free = TABLE_FULL;
        for (int i = 0; i < probes; i++) {
            int slot = start + i;
            slot = slot >= capacity ? slot - capacity : slot;
            final long t = tags[slot];
            if (t == tag) {
                return slot;
            }
            if (free == TABLE_FULL && (t == 0 || nowNs - lastSeenNs[slot] > idleTimeNs)) {
                free = slot;
            }
        }
        if (free != TABLE_FULL) {
            if (tags[free] == 0) {
                OCCUPIED.setOpaque(this, occupied + 1);
            }
            tags[free] = tag;
            members[free] = NO_MEMBER;
            lastSeenNs[free] = nowNs;
        }
        return free;
    }

    /**
     * @param slot  slot index.
     * @param nowNs current time.
     * @return true if the flow's last packet is at most the idle time ago (the packet continues its flowlet).
     */
    public boolean inFlowlet(final int slot, final long nowNs) {
        return nowNs - lastSeenNs[slot] <= idleTimeNs;
    }

    /**
     * @param slot slot index.
     * @return the member of the flow, or {@link #NO_MEMBER} for a new flow.
     */
    public int member(final int slot) {
        return members[slot];
    }

    /**
     * Record the packet: its member and time.
     *
     * @param slot   slot index.
     * @param member member index.
     * @param nowNs  current time.
     */
    public void record(final int slot, final int member, final long nowNs) {
        members[slot] = member;
        lastSeenNs[slot] = nowNs;
    }

    /**
     * @return slots holding a flow (active or idle, until reused); an opaque read, safe from any thread.
     */
    public int occupiedSlots() {
        return (int) OCCUPIED.getOpaque(this);
    }

    /**
     * Count flows inside a flowlet now (a scan: for control-side reads, not per packet).
     *
     * @param nowNs current time.
     * @return number of active flows.
     */
    public int activeFlows(final long nowNs) {
        int active = 0;
        for (int slot = 0; slot < tags.length; slot++) {
            if (tags[slot] != 0 && nowNs - lastSeenNs[slot] <= idleTimeNs) {
                active++;
            }
        }
        return active;
    }

    /**
     * @return number of slots.
     */
    public int capacity() {
        return tags.length;
    }

    /**
     * Runtime change of the idle time (data-plane thread, between packet batches): from the next packet on, a gap
     * longer than this ends a flowlet. Flows already in the table keep their member and last-seen time.
     *
     * @param newIdleTimeNs idle time, positive.
     */
    public void idleTimeNs(final long newIdleTimeNs) {
        if (newIdleTimeNs < 1) {
            throw new IllegalArgumentException("idle time must be positive");
        }
        this.idleTimeNs = newIdleTimeNs;
    }

    /**
     * @return the idle time.
     */
    public long idleTimeNs() {
        return idleTimeNs;
    }
}
