package io.asicemu.pipeline.table;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Object2IntHashMap;

/**
 * The control side's map from route prefix to route slot. The LPM stores a slot (1..capacity), and the data path keeps
 * per slot what the route points at and its hit counters ({@code ForwardingTables.routeTarget}), so that every route
 * has its own counter while the LPM stays a plain int trie. Freed slots are reused last-freed-first.
 * <p>
 * A batch reserves slots it has not taken yet with {@link #peekFree(int)} and takes them in {@link #commit}, so a
 * refused batch leaves the allocator as it was; slots it frees are reused within the batch first.
 * <p>
 * Not thread safe: owned by the control thread.
 */
public final class RouteSlots {
    private final int capacity;
    /** Route → slot (0: none); open addressing, IPv4 keys inline (no node, box or key object per route). */
    private final PrefixIntMap slots;

    private int[] free;
    private int freeCount;
    private int highWater;

    /**
     * @param capacity the most routes (IPv4 and IPv6 together).
     */
    public RouteSlots(final int capacity) {
        this(capacity, new PrefixIntMap(0), new int[16], 0, 0);
    }

    private RouteSlots(
            final int capacity, final PrefixIntMap slots, final int[] free, final int freeCount, final int highWater) {
        this.capacity = capacity;
        this.slots = slots;
        this.free = free;
        this.freeCount = freeCount;
        this.highWater = highWater;
    }

    /** @return an independent copy (the control model copies the configuration's allocator). */
    public RouteSlots copy() {
        return new RouteSlots(capacity, new PrefixIntMap(slots), free.clone(), freeCount, highWater);
    }

    /** @return the most routes. */
    public int capacity() {
        return capacity;
    }

    /** @return routes holding a slot. */
    public int size() {
        return slots.size();
    }

    /**
     * @param prefix a route.
     * @return its slot, or 0 if it has none.
     */
    public int slot(final IpPrefix prefix) {
        return slots.getValue(prefix);
    }

    /**
     * The slot the {@code k}-th new route of a batch will take (0-based), without taking it.
     *
     * @param k how many slots the batch reserved before this one.
     * @return the slot, or 0 if the table would be full.
     */
    public int peekFree(final int k) {
        if (k < freeCount) {
            return free[freeCount - 1 - k];
        }
        final int slot = highWater + 1 + (k - freeCount);
        return slot <= capacity ? slot : 0;
    }

    /**
     * Takes a slot for a route now (configuration compile).
     *
     * @param prefix a route without a slot.
     * @return its slot.
     * @throws IllegalStateException when full.
     */
    public int assign(final IpPrefix prefix) {
        final int slot = peekFree(0);
        if (slot == 0) {
            throw new IllegalStateException("route table full: " + capacity + " routes");
        }
        take(1);
        slots.put(prefix, slot);
        return slot;
    }

    /**
     * Records a committed batch.
     *
     * @param reserved how many new slots the batch took with {@link #peekFree} (in order).
     * @param added the batch's new routes → their slots.
     * @param removed routes the batch deleted.
     * @param free slots the batch freed and did not reuse (they become free), a stack: the last freed (at the end)
     *     is released first.
     */
    public void commit(
            final int reserved,
            final Object2IntHashMap<IpPrefix> added,
            final Collection<IpPrefix> removed,
            final IntArrayList free) {
        take(reserved);
        for (final IpPrefix p : removed) {
            slots.removeKey(p);
        }
        added.forEachInt((p, slot) -> slots.put(p, slot));
        for (int i = free.size() - 1; i >= 0; i--) {
            release(free.getInt(i));
        }
        if (!removed.isEmpty()) {
            slots.compactIfSparse();
        }
    }

    private void release(final int slot) {
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = slot;
    }

    private void take(final int count) {
        final int fromFree = Math.min(count, freeCount);
        freeCount -= fromFree;
        highWater += count - fromFree;
    }

    /** @return slot → prefix for every route (allocates; for counter views). */
    public Map<Integer, IpPrefix> bySlot() {
        final Map<Integer, IpPrefix> out = new HashMap<>(slots.size() * 2);
        slots.forEachInt((p, s) -> out.put(s, p));
        return out;
    }
}
