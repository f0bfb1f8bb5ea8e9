package io.asicemu.switchd;

import io.asicemu.operator.ConfigAccess.ConfigRefusedException;
import io.asicemu.operator.RedisConfigDb;
import io.asicemu.pipeline.config.ConfigDb;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One edit of the running CONFIG_DB in Redis form, as the operator's writes make it (HSET, HDEL, DEL, a MULTI/EXEC of
 * them, {@code config load}): a map over the running config that records the keys the edit touched and leaves the
 * rest where it is. {@link #applyTo} turns the touched keys into the next {@link ConfigDb}, which shares every table the
 * edit did not change with the running one, so an HSET on a WRED profile costs that profile's table, not a copy and a
 * conversion of 100k static routes.
 * <p>
 * Reading a key through {@link #get} hands out a mutable copy of its hash (the edit may change it in place), so reads
 * count as touches; a touched key whose hash ends as it began changes nothing. Iteration (KEYS inside an EXEC) walks
 * the whole config. One thread: the edit's.
 */
final class ConfigEdit extends AbstractMap<String, Map<String, String>> {
    private final RedisConfigDb base;
    /** Touched keys → their hash now (mutable), or null when deleted; in the order touched. */
    private final Map<String, Map<String, String>> touched = new LinkedHashMap<>();
    /** Keys deleted at some point: one that comes back goes after the table's other keys, as in Redis' order. */
    private final Set<String> deleted = new HashSet<>();

    ConfigEdit(final RedisConfigDb base) {
        this.base = base;
    }

    @Override
    public Map<String, String> get(final Object key) {
        if (!(key instanceof String k)) {
            return null;
        }
        if (touched.containsKey(k)) {
            return touched.get(k);
        }
        final Map<String, String> hash = base.get(k);
        if (hash == null) {
            return null;
        }
        final Map<String, String> copy = new LinkedHashMap<>(hash);
        touched.put(k, copy);
        return copy;
    }

    @Override
    public boolean containsKey(final Object key) {
        return touched.containsKey(key) ? touched.get(key) != null : base.containsKey(key);
    }

    @Override
    public Map<String, String> put(final String key, final Map<String, String> hash) {
        final Map<String, String> old = get(key);
        touched.put(key, hash);
        return old;
    }

    @Override
    public Map<String, String> remove(final Object key) {
        final Map<String, String> old = get(key);
        if (old != null) {
            final String k = (String) key;
            touched.remove(k);
            touched.put(k, null); // moves it after the keys touched before: a key set again comes last
            deleted.add(k);
        }
        return old;
    }

    @Override
    public Set<Entry<String, Map<String, String>>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, Map<String, String>>> iterator() {
                final Map<String, Map<String, String>> all = new LinkedHashMap<>();
                for (final Map.Entry<String, Map<String, String>> e : base.entrySet()) {
                    if (!touched.containsKey(e.getKey())) {
                        all.put(e.getKey(), e.getValue());
                    }
                }
                touched.forEach((k, v) -> {
                    if (v != null) {
                        all.put(k, v);
                    }
                });
                return all.entrySet().iterator();
            }

            @Override
            public int size() {
                int n = base.size();
                for (final Map.Entry<String, Map<String, String>> t : touched.entrySet()) {
                    final boolean was = base.containsKey(t.getKey());
                    n += (t.getValue() != null ? 1 : 0) - (was ? 1 : 0);
                }
                return n;
            }
        };
    }

    /**
     * The next CONFIG_DB: {@code running} with the touched keys as the edit left them, in the tables they belong to;
     * every other table shared with {@code running}.
     *
     * @param running the running config this edit was made on ({@code base} is its Redis form).
     * @return the next config, or null when no key ends different from how it began.
     * @throws ConfigRefusedException for a key that is not {@code TABLE|key}, or a field set both as a list and not.
     */
    ConfigDb applyTo(final ConfigDb running) {
        final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>();
        final Map<String, Set<String>> lists = new HashMap<>();
        for (final Map.Entry<String, Map<String, String>> t : touched.entrySet()) {
            final String redisKey = t.getKey();
            final int bar = redisKey.indexOf('|');
            if (bar <= 0 || bar == redisKey.length() - 1) {
                if (t.getValue() == null) {
                    continue; // deleting what cannot exist changes nothing
                }
                throw new ConfigRefusedException(redisKey + ": CONFIG_DB keys are TABLE|key");
            }
            final String table = redisKey.substring(0, bar);
            final String key = redisKey.substring(bar + 1);
            final Map<String, String> before = running.table(table).get(key);
            final Set<String> listFields = new HashSet<>();
            final Map<String, String> after =
                    t.getValue() == null ? null : fields(table, key, t.getValue(), listFields);
            if (after == null
                    ? before == null
                    : after.equals(before) && listFields.equals(listFields(running, table, key, before))) {
                continue;
            }
            final Map<String, Map<String, String>> keys =
                    tables.computeIfAbsent(table, x -> new LinkedHashMap<>(running.table(table)));
            if (after == null || deleted.contains(redisKey)) {
                keys.remove(key);
            }
            if (after != null) {
                keys.put(key, after);
            }
            final Set<String> tableLists = lists.computeIfAbsent(table, x -> listsOf(running, table));
            tableLists.removeIf(l ->
                    l.startsWith(table + "|" + key + "|") && l.indexOf('|', table.length() + key.length() + 2) < 0);
            for (final String field : listFields) {
                tableLists.add(table + "|" + key + "|" + field);
            }
        }
        if (tables.isEmpty()) {
            return null;
        }
        final Set<String> replacedLists = new HashSet<>();
        lists.values().forEach(replacedLists::addAll);
        tables.replaceAll((table, keys) -> keys.isEmpty() ? null : keys); // Redis has no empty hash, no empty table
        return running.withTables(tables, replacedLists, true);
    }

    /** A hash in Redis form as CONFIG_DB fields: {@code field@} is a list, SONiC's placeholder {@code NULL} dropped. */
    static Map<String, String> fields(
            final String table, final String key, final Map<String, String> hash, final Set<String> lists) {
        final Map<String, String> fields = new LinkedHashMap<>();
        hash.forEach((field, value) -> {
            if (field.equals("NULL")) {
                return; // SONiC's placeholder: a key without fields
            }
            final boolean list = field.endsWith("@");
            final String name = list ? field.substring(0, field.length() - 1) : field;
            if (fields.containsKey(name)) {
                throw new ConfigRefusedException(table + "|" + key + "|" + name + ": set both as a list (" + name
                        + "@) and as a string (" + name + "); HDEL one of them");
            }
            fields.put(name, value);
            if (list) {
                lists.add(name);
            }
        });
        return fields;
    }

    private static Set<String> listFields(
            final ConfigDb db, final String table, final String key, final Map<String, String> fields) {
        final Set<String> out = new HashSet<>();
        if (fields != null) {
            for (final String field : fields.keySet()) {
                if (db.isList(table, key, field)) {
                    out.add(field);
                }
            }
        }
        return out;
    }

    private static Set<String> listsOf(final ConfigDb db, final String table) {
        final Set<String> out = new HashSet<>();
        for (final String list : db.listValues()) {
            if (list.startsWith(table + "|")) {
                out.add(list);
            }
        }
        return out;
    }
}
