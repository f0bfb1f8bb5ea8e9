package io.asicemu.p4rt.adapter;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One Write's view of a map of the model: the map before the Write is fetched on first use, reads go to it until the
 * Write's first change copies it, and {@link #changed()} says whether that happened. A Write that never touches the
 * map costs nothing for it: before, every Write copied every ACL table and id map, so a single-update Write cost grew
 * with the state (issue 15's write speed). Not thread safe: one per Write, under the backend's monitor.
 *
 * @param <K> the key.
 * @param <V> the value.
 */
final class StagedMap<K, V> extends AbstractMap<K, V> {
    private final Supplier<? extends Map<K, V>> source;
    private final UnaryOperator<Map<K, V>> copier;
    /** The map before the Write, once fetched; never changed through this view. */
    private Map<K, V> before;
    /** The Write's own copy, from its first change on. */
    private Map<K, V> copy;

    /**
     * @param source the map before the Write (called at most once, at first use).
     * @param copier makes the Write's changeable copy of it; the identity when {@code source} already hands out a
     *     fresh map that nobody else holds.
     */
    StagedMap(final Supplier<? extends Map<K, V>> source, final UnaryOperator<Map<K, V>> copier) {
        this.source = source;
        this.copier = copier;
    }

    /** @return whether the Write changed the map (it then holds its own copy). */
    boolean changed() {
        return copy != null;
    }

    private Map<K, V> view() {
        if (copy != null) {
            return copy;
        }
        if (before == null) {
            before = source.get();
        }
        return before;
    }

    private Map<K, V> changeable() {
        if (copy == null) {
            copy = copier.apply(view());
        }
        return copy;
    }

    @Override
    public V get(final Object key) {
        return view().get(key);
    }

    @Override
    public boolean containsKey(final Object key) {
        return view().containsKey(key);
    }

    @Override
    public int size() {
        return view().size();
    }

    @Override
    public boolean isEmpty() {
        return view().isEmpty();
    }

    @Override
    public V put(final K key, final V value) {
        return changeable().put(key, value);
    }

    @Override
    public V remove(final Object key) {
        return changeable().remove(key);
    }

    @Override
    public void clear() {
        changeable().clear();
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return copy != null
                ? copy.entrySet()
                : Collections.unmodifiableMap(view()).entrySet();
    }

    @Override
    public Set<K> keySet() {
        return copy != null ? copy.keySet() : Collections.unmodifiableSet(view().keySet());
    }

    @Override
    public Collection<V> values() {
        return copy != null ? copy.values() : Collections.unmodifiableCollection(view().values());
    }
}
