package io.asicemu.operator;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * CONFIG_DB in Redis form ({@code TABLE|key} → field → value), held per table: a running config that changed in one
 * table shares every other table's map with the version before it, so converting it, comparing it with the last
 * one (keyspace notifications) and editing it cost the changed table, not the whole config (100k static routes stay
 * one shared table while a WRED threshold changes). Immutable; any thread.
 */
public final class RedisConfigDb extends AbstractMap<String, Map<String, String>> {
    private final Map<String, Map<String, Map<String, String>>> tables;
    private final int size;

    /**
     * @param tables table → key → hash, each in Redis form: kept as they are (not copied, so that versions share
     *     them), never to be changed again.
     */
    public RedisConfigDb(final Map<String, Map<String, Map<String, String>>> tables) {
        final Map<String, Map<String, Map<String, String>>> copy = new LinkedHashMap<>();
        int n = 0;
        for (final Map.Entry<String, Map<String, Map<String, String>>> t : tables.entrySet()) {
            if (!t.getValue().isEmpty()) {
                copy.put(t.getKey(), t.getValue());
                n += t.getValue().size();
            }
        }
        this.tables = Collections.unmodifiableMap(copy);
        this.size = n;
    }

    /** @return table → key → hash (the tables with at least one key). */
    public Map<String, Map<String, Map<String, String>>> tables() {
        return tables;
    }

    @Override
    public Map<String, String> get(final Object key) {
        if (!(key instanceof String k)) {
            return null;
        }
        final int bar = k.indexOf('|');
        if (bar <= 0) {
            return null;
        }
        final Map<String, Map<String, String>> table = tables.get(k.substring(0, bar));
        return table == null ? null : table.get(k.substring(bar + 1));
    }

    @Override
    public boolean containsKey(final Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<String, Map<String, String>>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, Map<String, String>>> iterator() {
                final Iterator<Map.Entry<String, Map<String, Map<String, String>>>> t =
                        tables.entrySet().iterator();
                return new Iterator<>() {
                    private String table;
                    private Iterator<Map.Entry<String, Map<String, String>>> keys = Collections.emptyIterator();

                    @Override
                    public boolean hasNext() {
                        while (!keys.hasNext() && t.hasNext()) {
                            final Map.Entry<String, Map<String, Map<String, String>>> next = t.next();
                            table = next.getKey();
                            keys = next.getValue().entrySet().iterator();
                        }
                        return keys.hasNext();
                    }

                    @Override
                    public Entry<String, Map<String, String>> next() {
                        if (!hasNext()) {
                            throw new NoSuchElementException();
                        }
                        final Map.Entry<String, Map<String, String>> e = keys.next();
                        return new SimpleImmutableEntry<>(table + "|" + e.getKey(), e.getValue());
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}
