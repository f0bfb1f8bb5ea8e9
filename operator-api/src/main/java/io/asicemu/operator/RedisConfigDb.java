package io.asicemu.operator;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * CONFIG_DB in Redis form ({@code TABLE|key} → field → value), held per table: a running config that changed in one
 * table shares every other table, and what was derived from it (its keys in order), with the version before it, so
 * converting it, comparing it with the last one (keyspace notifications), editing it and serving it in key order
 * (KEYS, SCAN) cost the changed table, not the whole config (100k static routes stay one shared table while a WRED
 * threshold changes). Iterates in the config's table order; {@link #sorted()} in Redis key order. Immutable; any
 * thread.
 */
public final class RedisConfigDb extends AbstractMap<String, Map<String, String>> {
    /** One table's keys and, once asked for, the same keys sorted: shared by the versions that share the table. */
    private static final class Table {
        final Map<String, Map<String, String>> keys;
        private volatile String[] sorted;

        Table(final Map<String, Map<String, String>> keys) {
            this.keys = keys;
        }

        String[] sorted() {
            String[] s = sorted;
            if (s == null) {
                s = keys.keySet().toArray(new String[0]);
                Arrays.sort(s);
                sorted = s;
            }
            return s;
        }
    }

    private final Map<String, Table> tables;
    private final Map<String, Map<String, Map<String, String>>> view;
    private final int size;
    /** Table names in Redis key order of their keys ({@code TABLE|}), once asked for. */
    private volatile String[] tableOrder;

    /**
     * @param tables table → key → hash, each in Redis form: kept as they are (not copied, so that versions share
     *     them), never to be changed again.
     */
    public RedisConfigDb(final Map<String, Map<String, Map<String, String>>> tables) {
        this(tables, null);
    }

    /**
     * @param tables as {@link #RedisConfigDb(Map)}.
     * @param previous an earlier version, or null: a table it holds as the same object is shared with it, with the
     *     order of its keys.
     */
    public RedisConfigDb(final Map<String, Map<String, Map<String, String>>> tables, final RedisConfigDb previous) {
        final Map<String, Table> held = new LinkedHashMap<>();
        final Map<String, Map<String, Map<String, String>>> keys = new LinkedHashMap<>();
        int n = 0;
        for (final Map.Entry<String, Map<String, Map<String, String>>> t : tables.entrySet()) {
            if (t.getValue().isEmpty()) {
                continue;
            }
            final Table before = previous == null ? null : previous.tables.get(t.getKey());
            held.put(t.getKey(), before != null && before.keys == t.getValue() ? before : new Table(t.getValue()));
            keys.put(t.getKey(), t.getValue());
            n += t.getValue().size();
        }
        this.tables = held;
        this.view = Collections.unmodifiableMap(keys);
        this.size = n;
    }

    /** @return table → key → hash (the tables with at least one key). */
    public Map<String, Map<String, Map<String, String>>> tables() {
        return view;
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
        final Table table = tables.get(k.substring(0, bar));
        return table == null ? null : table.keys.get(k.substring(bar + 1));
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
        return new Entries(false);
    }

    /**
     * @return the same keys in Redis' sorted key order (what KEYS and SCAN walk). Table by table: since {@code |}
     *     sorts after every character of a table name, the keys of a table are contiguous in that order, and the
     *     tables come in the order of {@code TABLE|}.
     */
    public Map<String, Map<String, String>> sorted() {
        return new AbstractMap<>() {
            @Override
            public Map<String, String> get(final Object key) {
                return RedisConfigDb.this.get(key);
            }

            @Override
            public boolean containsKey(final Object key) {
                return RedisConfigDb.this.containsKey(key);
            }

            @Override
            public int size() {
                return size;
            }

            @Override
            public Set<Entry<String, Map<String, String>>> entrySet() {
                return new Entries(true);
            }
        };
    }

    private String[] tableOrder() {
        String[] order = tableOrder;
        if (order == null) {
            order = tables.keySet().stream()
                    .map(t -> t + "|")
                    .sorted()
                    .map(t -> t.substring(0, t.length() - 1))
                    .toArray(String[]::new);
            tableOrder = order;
        }
        return order;
    }

    /** Every key, table by table: in the config's order, or sorted. */
    private final class Entries extends AbstractSet<Entry<String, Map<String, String>>> {
        private final boolean sorted;

        Entries(final boolean sorted) {
            this.sorted = sorted;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public Iterator<Entry<String, Map<String, String>>> iterator() {
            final Iterator<String> names = sorted
                    ? Arrays.asList(tableOrder()).iterator()
                    : tables.keySet().iterator();
            return new Iterator<>() {
                private String table;
                private Table current;
                private Iterator<String> keys = Collections.emptyIterator();

                @Override
                public boolean hasNext() {
                    while (!keys.hasNext() && names.hasNext()) {
                        table = names.next();
                        current = tables.get(table);
                        keys = sorted
                                ? Arrays.asList(current.sorted()).iterator()
                                : current.keys.keySet().iterator();
                    }
                    return keys.hasNext();
                }

                @Override
                public Entry<String, Map<String, String>> next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    final String key = keys.next();
                    return new SimpleImmutableEntry<>(table + "|" + key, current.keys.get(key));
                }
            };
        }
    }
}
