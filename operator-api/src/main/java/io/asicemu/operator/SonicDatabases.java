package io.asicemu.operator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The Redis databases SONiC tools read, built from a {@link SwitchSnapshot} (and the one before it, for RATES):
 * DB 2 COUNTERS_DB, DB 4 CONFIG_DB, DB 6 STATE_DB, and DB 0 APPL_DB when the switch routes
 * ({@link #withDatabase}: ROUTE_TABLE as fpmsyncd writes it). Every key is a hash, as in SONiC. Immutable once built
 * (APPL_DB's view is live).
 * <p>
 * COUNTERS_DB layout (sonic-utilities' mock counters_db.json): {@code COUNTERS_PORT_NAME_MAP} (name → port oid),
 * {@code COUNTERS_QUEUE_NAME_MAP} ({@code Ethernet0:3} → queue oid) with {@code COUNTERS_QUEUE_INDEX_MAP},
 * {@code _PORT_MAP}, {@code _TYPE_MAP} (every queue is {@code SAI_QUEUE_TYPE_UNICAST}: the traffic manager has 8
 * unicast queues per port), the same three maps for priority groups, {@code COUNTERS_BUFFER_POOL_NAME_MAP},
 * {@code COUNTERS:<oid>} with SAI stat names, {@code RATES:<port oid>} and {@code USER_WATERMARKS:<oid>} /
 * {@code PERSISTENT_WATERMARKS:<oid>} (both the traffic manager's watermark since start: it keeps one), and per ACL
 * rule {@code COUNTERS:<TABLE>:<RULE>} with {@code Packets} and {@code Bytes} (as SONiC's aclshow reads). OIDs carry
 * the SAI object type in their top byte (0x01 port, 0x15 queue, 0x1a PG, 0x18 pool) and are stable for a config.
 * <p>
 * STATE_DB: {@code PORT_TABLE|<port>} ({@code oper_status}, and {@code admin_status}, {@code speed}, {@code mtu} as
 * configured), {@code SWITCH_CAPABILITY|switch}, and ours: {@code PFC_WD_STORM|<port>:<queue>} ({@code status}
 * operational/stormed, {@code detected}, {@code restored}) for each PFC-enabled queue.
 */
public final class SonicDatabases {
    /** SONiC's database numbers (database_config.json): APPL_DB, what the switch's daemons publish (ROUTE_TABLE). */
    public static final int APPL_DB = 0;

    /** COUNTERS_DB. */
    public static final int COUNTERS_DB = 2;
    /** CONFIG_DB. */
    public static final int CONFIG_DB = 4;
    /** STATE_DB. */
    public static final int STATE_DB = 6;
    /**
     * asic-emu's own database (no SONiC database uses 15, the last of a default Redis server's 16): the flowlet
     * engine's groups for {@code show ecmp} / {@code show ars}, so that SONiC's databases hold only SONiC's keys.
     */
    public static final int ASICEMU_DB = 15;

    private static final long PORT_OID = 0x01L << 48;
    private static final long QUEUE_OID = 0x15L << 48;
    private static final long PG_OID = 0x1aL << 48;
    private static final long POOL_OID = 0x18L << 48;

    private final Map<Integer, Map<String, Map<String, String>>> dbs;
    private final SwitchSnapshot snapshot;

    private SonicDatabases(final Map<Integer, Map<String, Map<String, String>>> dbs, final SwitchSnapshot snapshot) {
        this.dbs = dbs;
        this.snapshot = snapshot;
    }

    /** @return the snapshot the databases were built from. */
    public SwitchSnapshot snapshot() {
        return snapshot;
    }

    /**
     * @param db a database number.
     * @return its keys → hash, iterated in key order (empty for a database we do not publish).
     */
    public Map<String, Map<String, String>> db(final int db) {
        return dbs.getOrDefault(db, Collections.emptyNavigableMap());
    }

    /**
     * @param listeners the switch's management listeners.
     * @return these databases with STATE_DB {@code ASICEMU_LISTENER|<name>} for each listener ({@code
     *     connections_open}, {@code connections_refused}, {@code connections_timed_out}, {@code connections_evicted}).
     */
    public SonicDatabases withListeners(final ListenerRegistry listeners) {
        final NavigableMap<String, Map<String, String>> state = new TreeMap<>(db(STATE_DB));
        for (final ListenerCounters c : listeners.listeners()) {
            state.put("ASICEMU_LISTENER|" + c.name(), Collections.unmodifiableMap(ListenerStats.stateFields(c)));
        }
        final Map<Integer, Map<String, Map<String, String>>> all = new java.util.HashMap<>(dbs);
        all.put(STATE_DB, Collections.unmodifiableNavigableMap(state));
        return new SonicDatabases(Map.copyOf(all), snapshot);
    }

    /**
     * @param db a database number.
     * @param keys its keys → hash, sorted (a live read-only view is served as it is: not copied).
     * @return these databases with {@code db} as {@code keys}.
     */
    public SonicDatabases withDatabase(final int db, final Map<String, Map<String, String>> keys) {
        final Map<Integer, Map<String, Map<String, String>>> all = new java.util.HashMap<>(dbs);
        all.put(db, keys);
        return new SonicDatabases(Map.copyOf(all), snapshot);
    }

    /** @return the port's OID text, e.g. {@code oid:0x1000000000001}. */
    static String portOid(final int port) {
        return oid(PORT_OID + port + 1);
    }

    static String queueOid(final int port, final int queue) {
        return oid(QUEUE_OID + port * 16L + queue);
    }

    static String pgOid(final int port, final int pg) {
        return oid(PG_OID + port * 16L + pg);
    }

    private static String oid(final long value) {
        return "oid:0x" + Long.toHexString(value);
    }

    /**
     * @param now the current snapshot.
     * @param previous the one before it (null: rates are 0).
     * @return the databases.
     */
    public static SonicDatabases of(final SwitchSnapshot now, final SwitchSnapshot previous) {
        final NavigableMap<String, Map<String, String>> counters = new TreeMap<>();
        final NavigableMap<String, Map<String, String>> state = new TreeMap<>();
        final Map<String, String> portNames = new LinkedHashMap<>();
        final Map<String, String> queueNames = new LinkedHashMap<>();
        final Map<String, String> queueIndex = new LinkedHashMap<>();
        final Map<String, String> queuePort = new LinkedHashMap<>();
        final Map<String, String> queueType = new LinkedHashMap<>();
        final Map<String, String> pgNames = new LinkedHashMap<>();
        final Map<String, String> pgIndex = new LinkedHashMap<>();
        final Map<String, String> pgPort = new LinkedHashMap<>();
        final List<SwitchSnapshot.Port> ports = now.ports();
        for (int p = 0; p < ports.size(); p++) {
            final SwitchSnapshot.Port port = ports.get(p);
            final String portOid = portOid(p);
            portNames.put(port.name(), portOid);
            final Map<String, String> portStats = new LinkedHashMap<>();
            port.stats().forEach((name, value) -> portStats.put(name, Long.toString(value)));
            portStats.putAll(port.pfc());
            counters.put("COUNTERS:" + portOid, freeze(portStats));
            counters.put("RATES:" + portOid, freeze(rates(port, previous, now)));
            for (int q = 0; q < SwitchSnapshot.CLASSES; q++) {
                final String oid = queueOid(p, q);
                queueNames.put(port.name() + ":" + q, oid);
                queueIndex.put(oid, Integer.toString(q));
                queuePort.put(oid, portOid);
                queueType.put(oid, "SAI_QUEUE_TYPE_UNICAST");
                final Map<String, String> fields = port.queues().get(q);
                counters.put("COUNTERS:" + oid, fields);
                final Map<String, String> watermark = watermarks(fields, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES");
                counters.put("USER_WATERMARKS:" + oid, watermark);
                counters.put("PERSISTENT_WATERMARKS:" + oid, watermark);
            }
            for (int g = 0; g < SwitchSnapshot.CLASSES; g++) {
                final String oid = pgOid(p, g);
                pgNames.put(port.name() + ":" + g, oid);
                pgIndex.put(oid, Integer.toString(g));
                pgPort.put(oid, portOid);
                final Map<String, String> fields = port.priorityGroups().get(g);
                counters.put("COUNTERS:" + oid, fields);
                final Map<String, String> watermark = watermarks(
                        fields,
                        "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES",
                        "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES");
                counters.put("USER_WATERMARKS:" + oid, watermark);
                counters.put("PERSISTENT_WATERMARKS:" + oid, watermark);
            }
            state.put("PORT_TABLE|" + port.name(), freeze(portState(port, now.config())));
            for (final int q : pfcEnabled(now.config(), port.name())) {
                final Map<String, String> fields = port.queues().get(q);
                final Map<String, String> storm = new LinkedHashMap<>();
                storm.put("status", fields.getOrDefault("PFC_WD_STATUS", "operational"));
                storm.put("detected", fields.getOrDefault("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "0"));
                storm.put("restored", fields.getOrDefault("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", "0"));
                state.put("PFC_WD_STORM|" + port.name() + ":" + q, freeze(storm));
            }
        }
        final Map<String, String> poolNames = new LinkedHashMap<>();
        int pool = 0;
        for (final Map.Entry<String, Map<String, String>> e : now.pools().entrySet()) {
            final String oid = oid(POOL_OID + ++pool);
            poolNames.put(e.getKey(), oid);
            counters.put("COUNTERS:" + oid, freeze(e.getValue()));
            final Map<String, String> watermark = watermarks(
                    e.getValue(),
                    "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES",
                    "SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES");
            counters.put("USER_WATERMARKS:" + oid, watermark);
            counters.put("PERSISTENT_WATERMARKS:" + oid, watermark);
        }
        now.aclRules().forEach((rule, stats) -> {
            final Map<String, String> fields = new LinkedHashMap<>();
            stats.forEach((name, value) -> fields.put(name, Long.toString(value)));
            counters.put("COUNTERS:" + rule.replaceFirst("\\|", ":"), freeze(fields));
        });
        counters.put("COUNTERS_PORT_NAME_MAP", freeze(portNames));
        counters.put("COUNTERS_QUEUE_NAME_MAP", freeze(queueNames));
        counters.put("COUNTERS_QUEUE_INDEX_MAP", freeze(queueIndex));
        counters.put("COUNTERS_QUEUE_PORT_MAP", freeze(queuePort));
        counters.put("COUNTERS_QUEUE_TYPE_MAP", freeze(queueType));
        counters.put("COUNTERS_PG_NAME_MAP", freeze(pgNames));
        counters.put("COUNTERS_PG_INDEX_MAP", freeze(pgIndex));
        counters.put("COUNTERS_PG_PORT_MAP", freeze(pgPort));
        counters.put("COUNTERS_BUFFER_POOL_NAME_MAP", freeze(poolNames));
        if (!now.switchCapabilities().isEmpty()) {
            state.put("SWITCH_CAPABILITY|switch", now.switchCapabilities());
        }
        // CONFIG_DB as the running config holds it, per table (keys sorted per table once, shared between versions),
        // not a sorted copy of 100k routes after every change.
        final Map<String, Map<String, String>> config = now.config() instanceof RedisConfigDb held
                ? held.sorted()
                : Collections.unmodifiableNavigableMap(new TreeMap<>(now.config()));
        counters.values().removeIf(Map::isEmpty);
        final NavigableMap<String, Map<String, String>> asicemu = groups(now.arsGroups());
        return new SonicDatabases(
                Map.of(
                        COUNTERS_DB,
                        Collections.unmodifiableNavigableMap(counters),
                        CONFIG_DB,
                        config,
                        STATE_DB,
                        Collections.unmodifiableNavigableMap(state),
                        ASICEMU_DB,
                        Collections.unmodifiableNavigableMap(asicemu)),
                now);
    }

    /**
     * DB 15: {@code ECMP_GROUP_NAME_MAP} (group id → member count), {@code ECMP_GROUP|<id>} (mode, the flowlet
     * counters, table occupancy and capacity), {@code ECMP_GROUP_MEMBER|<id>|<member>} (port, packets, bytes,
     * quality band).
     */
    private static NavigableMap<String, Map<String, String>> groups(final List<SwitchSnapshot.ArsGroup> groups) {
        final NavigableMap<String, Map<String, String>> out = new TreeMap<>();
        final Map<String, String> names = new LinkedHashMap<>();
        for (final SwitchSnapshot.ArsGroup g : groups) {
            names.put(Integer.toString(g.group()), Integer.toString(g.members().size()));
            final Map<String, String> fields = new LinkedHashMap<>();
            fields.put("mode", g.mode());
            fields.put("members", Integer.toString(g.members().size()));
            fields.put("flowlet_reassignments", Long.toString(g.flowletReassignments()));
            fields.put("new_flowlets", Long.toString(g.newFlowlets()));
            fields.put("table_full_fallbacks", Long.toString(g.tableFullFallbacks()));
            fields.put("no_member_drops", Long.toString(g.noMemberDrops()));
            fields.put("flowlet_table_occupancy", Integer.toString(g.flowletTableOccupancy()));
            fields.put("flowlet_table_capacity", Integer.toString(g.flowletTableCapacity()));
            out.put("ECMP_GROUP|" + g.group(), freeze(fields));
            for (int m = 0; m < g.members().size(); m++) {
                final SwitchSnapshot.ArsMember member = g.members().get(m);
                final Map<String, String> mf = new LinkedHashMap<>();
                mf.put("port", member.port());
                mf.put("packets", Long.toString(member.selections()));
                mf.put("bytes", Long.toString(member.bytes()));
                mf.put("quality_band", member.qualityBand() < 0 ? "" : Integer.toString(member.qualityBand()));
                out.put("ECMP_GROUP_MEMBER|" + g.group() + "|" + m, freeze(mf));
            }
        }
        if (!names.isEmpty()) {
            out.put("ECMP_GROUP_NAME_MAP", freeze(names));
        }
        return out;
    }

    private static Map<String, String> watermarks(final Map<String, String> fields, final String... names) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final String name : names) {
            final String value = fields.get(name);
            if (value != null) {
                out.put(name, value);
            }
        }
        return freeze(out);
    }

    private static Map<String, String> rates(
            final SwitchSnapshot.Port port, final SwitchSnapshot previous, final SwitchSnapshot now) {
        SwitchSnapshot.Port before = null;
        if (previous != null) {
            for (final SwitchSnapshot.Port p : previous.ports()) {
                if (p.name().equals(port.name())) {
                    before = p;
                }
            }
        }
        final double seconds = previous == null ? 0 : (now.takenAtNs() - previous.takenAtNs()) / 1e9;
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("RX_BPS", rate(port, before, seconds, "SAI_PORT_STAT_IF_IN_OCTETS"));
        out.put(
                "RX_PPS",
                rate(port, before, seconds, "SAI_PORT_STAT_IF_IN_UCAST_PKTS", "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS"));
        out.put("TX_BPS", rate(port, before, seconds, "SAI_PORT_STAT_IF_OUT_OCTETS"));
        out.put(
                "TX_PPS",
                rate(port, before, seconds, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS", "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS"));
        return out;
    }

    /** Per second between the two snapshots; SONiC's RATES hold bytes/s in *_BPS. */
    private static String rate(
            final SwitchSnapshot.Port now,
            final SwitchSnapshot.Port before,
            final double seconds,
            final String... stats) {
        if (before == null || seconds <= 0) {
            return "0";
        }
        long delta = 0;
        for (final String stat : stats) {
            delta += now.stats().getOrDefault(stat, 0L) - before.stats().getOrDefault(stat, 0L);
        }
        return String.format(java.util.Locale.ROOT, "%.2f", Math.max(0, delta) / seconds);
    }

    private static Map<String, String> portState(
            final SwitchSnapshot.Port port, final Map<String, Map<String, String>> config) {
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("oper_status", port.operUp() ? "up" : "down");
        final Map<String, String> configured = config.getOrDefault("PORT|" + port.name(), Map.of());
        for (final String field : List.of("admin_status", "speed", "mtu")) {
            final String value = configured.get(field);
            if (value != null) {
                out.put(field, value);
            }
        }
        return out;
    }

    /** The queues PORT_QOS_MAP's pfc_enable lists for the port (the ones the PFC watchdog watches). */
    static List<Integer> pfcEnabled(final Map<String, Map<String, String>> config, final String port) {
        final String list =
                config.getOrDefault("PORT_QOS_MAP|" + port, Map.of()).get("pfc_enable");
        if (list == null || list.isBlank()) {
            return List.of();
        }
        final java.util.List<Integer> out = new java.util.ArrayList<>();
        for (final String item : list.split(",")) {
            try {
                final int q = Integer.parseInt(item.trim());
                if (q >= 0 && q < SwitchSnapshot.CLASSES) {
                    out.add(q);
                }
            } catch (final NumberFormatException e) {
                // the config loader refused such values before the switch started; nothing to publish
            }
        }
        return out;
    }

    private static Map<String, String> freeze(final Map<String, String> map) {
        return Collections.unmodifiableMap(map);
    }
}
