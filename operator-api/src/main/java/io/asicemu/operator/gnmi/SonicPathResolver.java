package io.asicemu.operator.gnmi;

import io.asicemu.operator.SonicDatabases;
import io.grpc.Status;
import io.grpc.StatusException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Resolves a gNMI path against SONiC's databases as SONiC's telemetry server (sonic-gnmi's {@code DbClient} and its
 * virtual paths) does, over the same {@link SonicDatabases} the Redis front serves: one mapping, no second copy.
 * <p>
 * The path's first element is a table; the prefix's {@code target} names the database ({@code COUNTERS_DB},
 * {@code CONFIG_DB}, {@code STATE_DB}). Keys are joined with the database's separator ({@code :} in COUNTERS_DB,
 * {@code |} elsewhere), so {@code CONFIG_DB PORT/Ethernet0} is the hash {@code PORT|Ethernet0}:
 * <ul>
 *   <li>{@code TABLE}: every {@code TABLE<sep>key} hash as one object keyed by the rest of the key (in COUNTERS_DB a
 *       table that is one hash, such as {@code COUNTERS_PORT_NAME_MAP}, is that hash);
 *   <li>{@code TABLE/k1[/k2]}: the hash {@code TABLE<sep>k1[<sep>k2]} when it exists, else the field named by the last
 *       element of the hash named by the others, as a string;
 *   <li>COUNTERS_DB's virtual paths: {@code COUNTERS/Ethernet0} (the port's {@code COUNTERS:oid:…} hash through
 *       {@code COUNTERS_PORT_NAME_MAP}), {@code COUNTERS/Ethernet*} (every port, keyed by name),
 *       {@code COUNTERS/<port>/Queues} (its queues, keyed {@code Ethernet0:3}), {@code COUNTERS/<port>/Pfcwd} (its
 *       PFC-enabled queues), {@code COUNTERS/<port>/<field>} (one field; keyed by port for a wildcard).
 * </ul>
 * A path that names nothing is NOT_FOUND; a malformed one INVALID_ARGUMENT. Values are Redis strings, as SONiC sends
 * them. Stateless; any thread.
 */
final class SonicPathResolver {
    /** The databases by the names SONiC's telemetry uses as targets. */
    static final Map<String, Integer> TARGETS = Map.of(
            "COUNTERS_DB", SonicDatabases.COUNTERS_DB,
            "CONFIG_DB", SonicDatabases.CONFIG_DB,
            "STATE_DB", SonicDatabases.STATE_DB);

    /** SONiC databases asic-emu does not publish (a clear NOT_FOUND rather than "not a database"). */
    private static final Set<String> UNPUBLISHED = Set.of(
            "APPL_DB",
            "ASIC_DB",
            "LOGLEVEL_DB",
            "PFC_WD_DB",
            "FLEX_COUNTER_DB",
            "SNMP_OVERLAY_DB",
            "APPL_STATE_DB",
            "EVENT_DB",
            "OTHERS");

    private SonicPathResolver() {}

    /**
     * What a path names: either one field ({@link #scalar}) or an object of fields, or of keys to objects of fields
     * ({@link #keyed}).
     *
     * @param scalar the field's value, or null for an object.
     * @param object the object (empty for a scalar): field → value, or key → (field → value) when {@code keyed}.
     * @param keyed whether the object's values are objects.
     */
    record Resolved(String scalar, SortedMap<String, Object> object, boolean keyed) {
        static Resolved field(final String value) {
            return new Resolved(value, Collections.emptySortedMap(), false);
        }
    }

    /**
     * @param target the prefix's target.
     * @return the database number.
     * @throws StatusException INVALID_ARGUMENT without a target or with an unknown one, NOT_FOUND for a SONiC
     *     database that is not published.
     */
    static int database(final String target) throws StatusException {
        final Integer db = TARGETS.get(target);
        if (db != null) {
            return db;
        }
        if (target.isEmpty()) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("the prefix has no target: set it to the database, one of " + TARGETS.keySet()
                            + " (as SONiC's telemetry; OpenConfig paths are not served)")
                    .asException();
        }
        if (UNPUBLISHED.contains(target)) {
            throw Status.NOT_FOUND
                    .withDescription(
                            "target " + target + " is not published by asic-emu; it serves " + TARGETS.keySet())
                    .asException();
        }
        throw Status.INVALID_ARGUMENT
                .withDescription("target " + target + " is not a SONiC database; use one of " + TARGETS.keySet())
                .asException();
    }

    /**
     * @param dbs the databases of one snapshot.
     * @param db the database number ({@link #database}).
     * @param elems the path's element names (prefix then path).
     * @return what the path names.
     * @throws StatusException NOT_FOUND if it names nothing, INVALID_ARGUMENT if it has no element.
     */
    static Resolved resolve(final SonicDatabases dbs, final int db, final List<String> elems) throws StatusException {
        if (elems.isEmpty()) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("the path names no table (SONiC paths are TABLE[/KEY...][/FIELD])")
                    .asException();
        }
        for (final String elem : elems) {
            if (elem.isEmpty()) {
                throw Status.INVALID_ARGUMENT
                        .withDescription("empty path element in " + String.join("/", elems))
                        .asException();
            }
        }
        final Map<String, Map<String, String>> data = dbs.db(db);
        if (db == SonicDatabases.COUNTERS_DB && elems.get(0).equals("COUNTERS") && elems.size() >= 2) {
            final Resolved virtual = countersVirtual(dbs, elems);
            if (virtual != null) {
                return virtual;
            }
        }
        final String sep = db == SonicDatabases.COUNTERS_DB ? ":" : "|";
        final String table = elems.get(0);
        if (elems.size() == 1) {
            return table(data, db, table, sep);
        }
        final String whole = String.join(sep, elems);
        final Map<String, String> hash = data.get(whole);
        if (hash != null) {
            return object(hash);
        }
        final String key = String.join(sep, elems.subList(0, elems.size() - 1));
        final String field = elems.get(elems.size() - 1);
        final Map<String, String> owner = data.get(key);
        if (owner != null && owner.containsKey(field)) {
            return Resolved.field(owner.get(field));
        }
        throw notFound(
                db,
                elems,
                "no hash " + whole + (owner == null ? " nor " + key : " and no field " + field + " in " + key));
    }

    private static Resolved table(
            final Map<String, Map<String, String>> data, final int db, final String table, final String sep)
            throws StatusException {
        final Map<String, String> single = data.get(table);
        if (single != null && db == SonicDatabases.COUNTERS_DB && !table.equals("COUNTERS")) {
            return object(single);
        }
        final SortedMap<String, Object> out = new TreeMap<>();
        final String start = table + sep;
        final Iterable<Map.Entry<String, Map<String, String>>> entries = data
                        instanceof NavigableMap<String, Map<String, String>> sorted
                ? sorted.subMap(start, true, start + Character.MAX_VALUE, false).entrySet()
                : data.entrySet(); // CONFIG_DB, held per table: filtered below
        for (final Map.Entry<String, Map<String, String>> e : entries) {
            if (e.getKey().startsWith(start)) {
                out.put(e.getKey().substring(start.length()), new TreeMap<>(e.getValue()));
            }
        }
        if (out.isEmpty()) {
            throw notFound(db, List.of(table), "no table " + table);
        }
        return new Resolved(null, out, true);
    }

    /** COUNTERS/<port or port*>[/Queues|Pfcwd|field], or null when the second element names no port. */
    private static Resolved countersVirtual(final SonicDatabases dbs, final List<String> elems) throws StatusException {
        if (elems.size() > 3) {
            return null;
        }
        final Map<String, Map<String, String>> counters = dbs.db(SonicDatabases.COUNTERS_DB);
        final Map<String, String> portOids = counters.getOrDefault("COUNTERS_PORT_NAME_MAP", Map.of());
        final String portElem = elems.get(1);
        final boolean wildcard = portElem.endsWith("*");
        final String portPrefix = wildcard ? portElem.substring(0, portElem.length() - 1) : null;
        if (!wildcard && !portOids.containsKey(portElem)) {
            return null;
        }
        final SortedMap<String, String> ports = new TreeMap<>();
        portOids.forEach((name, oid) -> {
            if (wildcard ? name.startsWith(portPrefix) : name.equals(portElem)) {
                ports.put(name, oid);
            }
        });
        final String what = elems.size() == 3 ? elems.get(2) : null;
        final SortedMap<String, Object> out = new TreeMap<>();
        if (what == null) {
            if (!wildcard) {
                return object(counters.getOrDefault("COUNTERS:" + ports.get(portElem), Map.of()));
            }
            ports.forEach(
                    (name, oid) -> out.put(name, new TreeMap<>(counters.getOrDefault("COUNTERS:" + oid, Map.of()))));
            return new Resolved(null, out, true);
        }
        if (what.equals("Queues") || what.equals("Pfcwd")) {
            final Map<String, String> queueOids = counters.getOrDefault("COUNTERS_QUEUE_NAME_MAP", Map.of());
            final Map<String, Map<String, String>> state = dbs.db(SonicDatabases.STATE_DB);
            queueOids.forEach((queue, oid) -> {
                final String port = queue.substring(0, queue.lastIndexOf(':'));
                // the PFC watchdog watches the PFC-enabled queues: those STATE_DB has a storm state for
                if (ports.containsKey(port) && (what.equals("Queues") || state.containsKey("PFC_WD_STORM|" + queue))) {
                    out.put(queue, new TreeMap<>(counters.getOrDefault("COUNTERS:" + oid, Map.of())));
                }
            });
            return new Resolved(null, out, true);
        }
        if (!wildcard) {
            final String value = counters.getOrDefault("COUNTERS:" + ports.get(portElem), Map.of())
                    .get(what);
            if (value == null) {
                throw notFound(SonicDatabases.COUNTERS_DB, elems, portElem + " has no counter " + what);
            }
            return Resolved.field(value);
        }
        ports.forEach((name, oid) -> {
            final String value =
                    counters.getOrDefault("COUNTERS:" + oid, Map.of()).get(what);
            if (value != null) {
                out.put(name, new TreeMap<>(Map.of(what, value)));
            }
        });
        return new Resolved(null, out, true);
    }

    private static Resolved object(final Map<String, String> hash) {
        return new Resolved(null, new TreeMap<>(hash), false);
    }

    private static StatusException notFound(final int db, final List<String> elems, final String why) {
        String target = "db " + db;
        for (final Map.Entry<String, Integer> e : TARGETS.entrySet()) {
            if (e.getValue() == db) {
                target = e.getKey();
            }
        }
        return Status.NOT_FOUND
                .withDescription(target + " " + String.join("/", elems) + ": " + why)
                .asException();
    }
}
