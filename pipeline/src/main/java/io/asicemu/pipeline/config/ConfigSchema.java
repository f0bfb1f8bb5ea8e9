package io.asicemu.pipeline.config;

import io.asicemu.flowlet.config.FlowletConfigParser;
import io.asicemu.tm.config.TmConfigParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The CONFIG_DB tables and fields this switch models, gathered from the three parsers that read them (the
 * pipeline's compiler, {@link TmConfigParser#FIELDS} and {@link FlowletConfigParser#FIELDS}), and the check that a
 * config uses nothing else. An unknown table or field is refused by default, naming it: a {@code wred_profle} typo
 * in QUEUE once loaded silently and turned ECN marking off. In lenient mode (for configs taken from a real SONiC,
 * which carry tables we do not model) they are dropped with a warning instead. Fields SONiC uses only to describe
 * (hostname, alias, lanes, …) are accepted and ignored. Stateless.
 */
public final class ConfigSchema {
    /** Descriptive fields accepted and ignored: nothing in the data path depends on them. */
    private static final Map<String, Set<String>> DESCRIPTIVE = Map.of(
            "DEVICE_METADATA",
                    Set.of(
                            "hostname",
                            "hwsku",
                            "platform",
                            "deployment_id",
                            "docker_routing_config_mode",
                            "buffer_model",
                            "default_bgp_status",
                            "default_pfcwd_status",
                            "region",
                            "cloudtype",
                            "timezone",
                            "synchronous_mode"),
            "PORT", Set.of("alias", "lanes", "description", "fec", "autoneg"),
            "VLAN", Set.of("description", "members"),
            "ACL_TABLE", Set.of("type", "policy_desc", "services"),
            "INTERFACE", Set.of("family", "scope"),
            "VLAN_INTERFACE", Set.of("family", "scope"));

    /** Fields the pipeline's compiler reads. */
    private static final Map<String, Set<String>> PIPELINE = Map.ofEntries(
            Map.entry("DEVICE_METADATA", Set.of("mac", "standalone", "type", "bgp_asn", "bgp_router_id")),
            Map.entry("LOOPBACK_INTERFACE", Set.of()),
            Map.entry("BGP_NEIGHBOR", BgpConfig.NEIGHBOR_FIELDS),
            Map.entry("SWITCH", Set.of("fdb_aging_time")),
            Map.entry("PORT", Set.of("speed", "index", "mtu", "admin_status")),
            Map.entry("INTERFACE", Set.of()),
            Map.entry("VLAN_INTERFACE", Set.of()),
            Map.entry("VLAN", Set.of("vlanid")),
            Map.entry("VLAN_MEMBER", Set.of("tagging_mode")),
            Map.entry("NEIGH", Set.of("neigh", "family")),
            Map.entry("STATIC_ROUTE", Set.of("nexthop", "ifname", "weight", "blackhole")),
            Map.entry("ACL_TABLE", Set.of("stage", "ports")),
            Map.entry("ACL_RULE", ConfigCompiler.ACL_MATCH_FIELDS),
            Map.entry("DSCP_TO_TC_MAP", TmConfigParser.ANY_FIELD),
            Map.entry("DOT1P_TO_TC_MAP", TmConfigParser.ANY_FIELD),
            Map.entry("TC_TO_QUEUE_MAP", TmConfigParser.ANY_FIELD),
            Map.entry("TC_TO_PRIORITY_GROUP_MAP", TmConfigParser.ANY_FIELD),
            Map.entry("PORT_QOS_MAP", Set.of("dscp_to_tc_map", "dot1p_to_tc_map", "tc_to_queue_map", "tc_to_pg_map")));

    /** Fields that may be JSON arrays (SONiC leaf-lists); a list-only field must be one. */
    private static final Set<String> MAY_BE_LIST = Set.of("ACL_TABLE|ports", "VLAN|members");

    /** Every known table → every accepted field. */
    public static final Map<String, Set<String>> FIELDS = merge();

    /**
     * The tables that only the engines' parsers read, never the pipeline's compiler: the traffic manager's (buffers,
     * WRED, queues, schedulers, the watchdog) and SWITCH_HASH (the hash engine's; the one field a running switch
     * changes is the seed, a knob). A change confined to them leaves every compiled table as it was, so it is compiled
     * by those parsers alone ({@code ConfigCompiler.recompileEngines}), whatever the size of the route table.
     */
    static final Set<String> ENGINE_ONLY_TABLES = engineOnly();

    private static Set<String> engineOnly() {
        final Set<String> tables = new HashSet<>(TmConfigParser.FIELDS.keySet());
        tables.removeAll(PIPELINE.keySet());
        tables.add(FlowletConfigParser.SWITCH_HASH);
        return Set.copyOf(tables);
    }

    private ConfigSchema() {}

    private static Map<String, Set<String>> merge() {
        final Map<String, Set<String>> all = new HashMap<>();
        for (final Map<String, Set<String>> part :
                List.of(PIPELINE, DESCRIPTIVE, TmConfigParser.FIELDS, FlowletConfigParser.FIELDS)) {
            part.forEach((table, fields) ->
                    all.computeIfAbsent(table, t -> new HashSet<>()).addAll(fields));
        }
        all.replaceAll((table, fields) -> Set.copyOf(fields));
        return Map.copyOf(all);
    }

    /**
     * Checks every table, field and value shape.
     *
     * @param db the store.
     * @param lenient drop unknown tables and fields with a warning instead of refusing them.
     * @param warnings receives one line per dropped table or field (lenient mode only).
     * @return the store to compile: {@code db} itself, or without what lenient mode dropped.
     * @throws ConfigException naming the first unknown table or field (strict mode), or a value of the wrong shape.
     */
    public static ConfigDb check(final ConfigDb db, final boolean lenient, final Consumer<String> warnings) {
        return check(db, db.tables().keySet(), lenient, warnings);
    }

    /**
     * Checks some tables of a store strictly: those a change touched, the others having passed before.
     *
     * @param db the store.
     * @param tables the tables to check (absent ones are fine: a change may remove a table).
     * @throws ConfigException naming the first unknown table or field, or a value of the wrong shape.
     */
    static void checkTables(final ConfigDb db, final Set<String> tables) {
        check(db, tables, false, warning -> {});
    }

    private static ConfigDb check(
            final ConfigDb db, final Set<String> tables, final boolean lenient, final Consumer<String> warnings) {
        final Map<String, Map<String, Map<String, String>>> kept = new LinkedHashMap<>();
        boolean dropped = false;
        for (final Map.Entry<String, Map<String, Map<String, String>>> t :
                db.tables().entrySet()) {
            final String table = t.getKey();
            if (!tables.contains(table)) {
                continue;
            }
            final Set<String> known = FIELDS.get(table);
            if (known == null) {
                if (!lenient) {
                    throw new ConfigException(table, "", "", "unknown table (not modelled; --lenient ignores it)");
                }
                warnings.accept(table + "||: unknown table ignored");
                dropped = true;
                continue;
            }
            final Map<String, Map<String, String>> keys = new LinkedHashMap<>();
            for (final Map.Entry<String, Map<String, String>> k : t.getValue().entrySet()) {
                final Map<String, String> fields = new LinkedHashMap<>();
                for (final Map.Entry<String, String> f : k.getValue().entrySet()) {
                    final String field = f.getKey();
                    if (!known.contains(field) && !known.contains("*")) {
                        if (!lenient) {
                            throw new ConfigException(
                                    table,
                                    k.getKey(),
                                    field,
                                    "unknown field; known: " + new java.util.TreeSet<>(known));
                        }
                        warnings.accept(table + "|" + k.getKey() + "|" + field + ": unknown field ignored");
                        dropped = true;
                        continue;
                    }
                    shape(db, table, k.getKey(), field);
                    fields.put(field, f.getValue());
                }
                keys.put(k.getKey(), fields);
            }
            kept.put(table, keys);
        }
        return dropped ? new ConfigDb(kept, db.listValues(), db.fromJson()) : db;
    }

    private static void shape(final ConfigDb db, final String table, final String key, final String field) {
        if (!db.fromJson()) {
            return;
        }
        final boolean list = db.isList(table, key, field);
        final boolean listOnly =
                table.equals(FlowletConfigParser.SWITCH_HASH) && FlowletConfigParser.LIST_FIELDS.contains(field);
        if (listOnly && !list) {
            throw new ConfigException(table, key, field, "must be a list (a JSON array of field names)");
        }
        if (list && !listOnly && !MAY_BE_LIST.contains(table + "|" + field)) {
            throw new ConfigException(table, key, field, "must be a string, not a list");
        }
    }

    /**
     * @return every known table, sorted (for documentation and tests).
     */
    public static List<String> tables() {
        final List<String> names = new ArrayList<>(FIELDS.keySet());
        names.sort(null);
        return names;
    }
}
