package io.asicemu.pipeline.table;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.agrona.collections.Hashing;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.ObjIntConsumer;
import org.agrona.collections.Object2IntHashMap;

/**
 * Prefix → int with a missing value, for the control model's large route maps (100 k routes and more). An IPv4
 * prefix is one {@code long} key (length in bits 32..37, address below) in a {@link Long2LongHashMap}, whose keys and
 * values sit side by side in one array: a lookup touches one cache line where an object-keyed map also dereferences
 * the stored key of every probed slot (a miss per probe in a map larger than the cache). IPv6 prefixes keep their
 * object key.
 * <p>
 * Also a read-mostly {@link Map} view (boxed, allocating: for tests and the rare whole-table checks).
 * Not thread safe.
 */
public final class PrefixIntMap extends AbstractMap<IpPrefix, Integer> {
    private static final long MISSING = Long.MIN_VALUE;

    private final int missingValue;
    private final Long2LongHashMap v4;
    private final Object2IntHashMap<IpPrefix> v6;

    /**
     * @param missingValue what {@link #getValue}, {@link #put(IpPrefix, int)} and {@link #removeKey} answer for an
     *     absent prefix (never stored).
     */
    public PrefixIntMap(final int missingValue) {
        this.missingValue = missingValue;
        this.v4 = new Long2LongHashMap(16, Hashing.DEFAULT_LOAD_FACTOR, MISSING);
        this.v6 = new Object2IntHashMap<>(16, Hashing.DEFAULT_LOAD_FACTOR, missingValue);
    }

    /** @param other copied. */
    public PrefixIntMap(final PrefixIntMap other) {
        this.missingValue = other.missingValue;
        this.v4 = new Long2LongHashMap(other.v4);
        this.v6 = new Object2IntHashMap<>(other.v6);
    }

    private static long key(final IpPrefix p) {
        return (long) p.length() << 32 | p.low();
    }

    private static IpPrefix prefix(final long key) {
        return new IpPrefix(false, 0, key & 0xffff_ffffL, (int) (key >>> 32));
    }

    private int unwrap(final long v) {
        return v == MISSING ? missingValue : (int) v;
    }

    /**
     * @param p a prefix.
     * @return its value, or the missing value.
     */
    public int getValue(final IpPrefix p) {
        return p.v6() ? v6.getValue(p) : unwrap(v4.get(key(p)));
    }

    /**
     * @param p a prefix.
     * @param value its value (not the missing value).
     * @return the value before, or the missing value.
     */
    public int put(final IpPrefix p, final int value) {
        if (value == missingValue) {
            throw new IllegalArgumentException("cannot store the missing value " + value);
        }
        return p.v6() ? v6.put(p, value) : unwrap(v4.put(key(p), value));
    }

    /**
     * @param p a prefix.
     * @return its value before, or the missing value.
     */
    public int removeKey(final IpPrefix p) {
        return p.v6() ? v6.removeKey(p) : unwrap(v4.remove(key(p)));
    }

    /** Calls {@code action} with every prefix and value (IPv4 prefixes are made for the call). */
    public void forEachInt(final ObjIntConsumer<IpPrefix> action) {
        v4.forEachLong((k, v) -> action.accept(prefix(k), (int) v));
        v6.forEachInt(action);
    }

    @Override
    public int size() {
        return v4.size() + v6.size();
    }

    @Override
    public boolean isEmpty() {
        return v4.isEmpty() && v6.isEmpty();
    }

    @Override
    public void clear() {
        v4.clear();
        v6.clear();
    }

    /**
     * Gives memory back after mass removal (a peer withdrew its full table): a map filled to an eighth of its
     * capacity or less, and larger than a few thousand slots, is rehashed to fit (Agrona's maps never shrink by
     * themselves). Called by the control model after a batch, never per entry.
     */
    public void compactIfSparse() {
        if (v4.capacity() > SPARSE_MIN_CAPACITY && v4.size() * 8 < v4.capacity()) {
            v4.compact();
        }
        if (v6.capacity() > SPARSE_MIN_CAPACITY && v6.size() * 8 < v6.capacity()) {
            v6.compact();
        }
    }

    /** Below this capacity a sparse map is left alone (a few tens of kB). */
    private static final int SPARSE_MIN_CAPACITY = 4096;

    @Override
    public boolean containsKey(final Object key) {
        return key instanceof IpPrefix p && getValue(p) != missingValue;
    }

    @Override
    public Integer get(final Object key) {
        if (!(key instanceof IpPrefix p)) {
            return null;
        }
        final int v = getValue(p);
        return v == missingValue ? null : v;
    }

    @Override
    public Integer put(final IpPrefix key, final Integer value) {
        final int before = put(key, value.intValue());
        return before == missingValue ? null : before;
    }

    @Override
    public Integer remove(final Object key) {
        if (!(key instanceof IpPrefix p)) {
            return null;
        }
        final int before = removeKey(p);
        return before == missingValue ? null : before;
    }

    @Override
    public Set<Map.Entry<IpPrefix, Integer>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<IpPrefix, Integer>> iterator() {
                // a snapshot: the views are for whole-table reads, and removal through them is not offered
                final List<Map.Entry<IpPrefix, Integer>> all = new ArrayList<>(PrefixIntMap.this.size());
                forEachInt((p, v) -> all.add(new AbstractMap.SimpleImmutableEntry<>(p, v)));
                return java.util.Collections.unmodifiableList(all).iterator();
            }

            @Override
            public int size() {
                return PrefixIntMap.this.size();
            }

            @Override
            public boolean contains(final Object o) {
                return o instanceof Map.Entry<?, ?> e
                        && e.getValue() instanceof Integer v
                        && v.equals(PrefixIntMap.this.get(e.getKey()));
            }
        };
    }
}
