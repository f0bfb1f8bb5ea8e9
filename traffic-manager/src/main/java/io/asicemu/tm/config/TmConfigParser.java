package io.asicemu.tm.config;

import io.asicemu.config.ConfigBound;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Parses the traffic-manager tables of a CONFIG_DB-shaped map ({@code table → key → field → value}, every value a
 * string, keys like {@code Ethernet0|3} or {@code Ethernet0,Ethernet4|3-4}) into a {@link TmConfig}, validating the
 * YANG ranges of reference §1.2. Any invalid value throws {@link TmConfigException} naming table, key and field.
 * Tables read: PORT, PORT_QOS_MAP, MAP_PFC_PRIORITY_TO_QUEUE, TC_TO_PRIORITY_GROUP_MAP, SCHEDULER, QUEUE,
 * WRED_PROFILE, BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE, PFC_WD, CABLE_LENGTH.
 * Control-path code: allocates freely, not for the data thread.
 */
public final class TmConfigParser {
    private static final int DEFAULT_POLL_INTERVAL_MS = 100;
    private static final String[] COLOURS = {"green", "yellow", "red"};

    /** A field set meaning "any field name": the key-to-value maps whose fields are the map's keys. */
    public static final Set<String> ANY_FIELD = Set.of("*");

    /**
     * The tables this parser reads and the fields it reads in each; the pipeline's config schema refuses any other
     * field of these tables (a {@code wred_profle} typo once silently turned ECN marking off). PORT and
     * PORT_QOS_MAP are shared with the pipeline, which adds its own fields.
     */
    public static final Map<String, Set<String>> FIELDS = Map.ofEntries(
            Map.entry("PORT", Set.of("speed", "pfc_asym")),
            Map.entry("PORT_QOS_MAP", Set.of("pfc_enable", "pfcwd_sw_enable", "pfc_to_queue_map", "tc_to_pg_map")),
            Map.entry("MAP_PFC_PRIORITY_TO_QUEUE", ANY_FIELD),
            Map.entry("TC_TO_PRIORITY_GROUP_MAP", ANY_FIELD),
            Map.entry("CABLE_LENGTH", ANY_FIELD),
            Map.entry("SCHEDULER", Set.of("type", "weight", "priority", "meter_type", "cir", "pir", "cbs", "pbs")),
            Map.entry("QUEUE", Set.of("scheduler", "wred_profile")),
            Map.entry(
                    "WRED_PROFILE",
                    Set.of(
                            "ecn",
                            "wred_green_enable",
                            "wred_yellow_enable",
                            "wred_red_enable",
                            "green_min_threshold",
                            "green_max_threshold",
                            "green_drop_probability",
                            "yellow_min_threshold",
                            "yellow_max_threshold",
                            "yellow_drop_probability",
                            "red_min_threshold",
                            "red_max_threshold",
                            "red_drop_probability")),
            Map.entry("BUFFER_POOL", Set.of("type", "mode", "size", "xoff")),
            Map.entry("BUFFER_PROFILE", Set.of("pool", "size", "static_th", "dynamic_th", "xon", "xoff", "xon_offset")),
            Map.entry("BUFFER_PG", Set.of("profile")),
            Map.entry("BUFFER_QUEUE", Set.of("profile")),
            Map.entry(
                    "PFC_WD",
                    Set.of(
                            "POLL_INTERVAL",
                            "BIG_RED_SWITCH",
                            "action",
                            "detection_time",
                            "restoration_time",
                            "pfc_stat_history")));

    private final Map<String, Map<String, Map<String, String>>> db;
    private final Map<String, Integer> portIndex;

    private TmConfigParser(
            final Map<String, Map<String, Map<String, String>>> db, final Map<String, Integer> portIndex) {
        this.db = db;
        this.portIndex = portIndex;
    }

    /**
     * Parse and validate.
     *
     * @param db        CONFIG_DB tables.
     * @param portIndex port name → dense index 0..n-1; every port must have a PORT entry with a speed.
     * @return the typed configuration.
     * @throws TmConfigException on the first invalid value.
     */
    public static TmConfig parse(
            final Map<String, Map<String, Map<String, String>>> db, final Map<String, Integer> portIndex) {
        return new TmConfigParser(db, portIndex).parse();
    }

    private Map<String, Map<String, String>> table(final String name) {
        final Map<String, Map<String, String>> t = db.get(name);
        return null == t ? Map.of() : t;
    }

    private TmConfig parse() {
        final int n = portIndex.size();
        final boolean[] seen = new boolean[n];
        for (final Map.Entry<String, Integer> e : portIndex.entrySet()) {
            final int i = e.getValue();
            if (i < 0 || i >= n || seen[i]) {
                throw new IllegalArgumentException("port indices must be dense 0.." + (n - 1) + ": " + e);
            }
            seen[i] = true;
        }

        final Map<String, BufferPoolConfig> pools = parsePools();
        final Map<String, BufferProfileConfig> profiles = parseProfiles(pools);
        final Map<String, WredProfileConfig> wred = parseWred();
        final Map<String, SchedulerConfig> schedulers = parseSchedulers();

        final Map<String, String> global = table("PFC_WD").getOrDefault("GLOBAL", Map.of());
        final int poll = (int) longField(
                "PFC_WD",
                "GLOBAL",
                global,
                "POLL_INTERVAL",
                DEFAULT_POLL_INTERVAL_MS,
                ConfigBound.PFC_WD_POLL_MS.min(),
                ConfigBound.PFC_WD_POLL_MS.max());
        final String brs = global.getOrDefault("BIG_RED_SWITCH", "disable");
        if (!brs.equals("enable") && !brs.equals("disable")) {
            throw new TmConfigException("PFC_WD", "GLOBAL", "BIG_RED_SWITCH", "must be enable or disable: " + brs);
        }

        final PortBuilder[] b = new PortBuilder[n];
        for (final Map.Entry<String, Integer> e : portIndex.entrySet()) {
            b[e.getValue()] = new PortBuilder(e.getKey(), e.getValue());
        }
        parsePorts(b);
        parseQosMaps(b);
        parseBufferAssignments("BUFFER_PG", b, pools, profiles, true);
        parseBufferAssignments("BUFFER_QUEUE", b, pools, profiles, false);
        parseQueues(b, wred, schedulers);
        parsePfcWd(b, poll);
        parseCableLength(b);

        final List<PortConfig> ports = new ArrayList<>(n);
        for (final PortBuilder pb : b) {
            ports.add(pb.build());
        }
        final List<String> warnings = ecnBeforePfcWarnings(ports, pools, profiles, wred);
        return new TmConfig(
                Collections.unmodifiableList(ports),
                Collections.unmodifiableMap(pools),
                Collections.unmodifiableMap(profiles),
                Collections.unmodifiableMap(wred),
                Collections.unmodifiableMap(schedulers),
                poll,
                brs.equals("enable"),
                List.copyOf(warnings));
    }

    private Map<String, BufferPoolConfig> parsePools() {
        final Map<String, BufferPoolConfig> pools = new LinkedHashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                table("BUFFER_POOL").entrySet()) {
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            final PoolType type = switch (required("BUFFER_POOL", key, f, "type")) {
                case "ingress" -> PoolType.INGRESS;
                case "egress" -> PoolType.EGRESS;
                case "both" -> PoolType.BOTH;
                default -> throw new TmConfigException("BUFFER_POOL", key, "type", "must be ingress, egress or both");
            };
            final String mode = required("BUFFER_POOL", key, f, "mode");
            if (!mode.equals("static") && !mode.equals("dynamic")) {
                throw new TmConfigException("BUFFER_POOL", key, "mode", "must be static or dynamic: " + mode);
            }
            required("BUFFER_POOL", key, f, "size");
            final long size = longField("BUFFER_POOL", key, f, "size", 0, 0, ConfigBound.BUFFER_BYTES.max());
            final long xoff = longField("BUFFER_POOL", key, f, "xoff", 0, 0, ConfigBound.BUFFER_BYTES.max());
            pools.put(key, new BufferPoolConfig(key, type, mode.equals("dynamic"), size, xoff));
        }
        return pools;
    }

    private Map<String, BufferProfileConfig> parseProfiles(final Map<String, BufferPoolConfig> pools) {
        final Map<String, BufferProfileConfig> profiles = new LinkedHashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                table("BUFFER_PROFILE").entrySet()) {
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            final String pool = stripRef(required("BUFFER_PROFILE", key, f, "pool"));
            if (!pools.containsKey(pool)) {
                throw new TmConfigException("BUFFER_PROFILE", key, "pool", "no BUFFER_POOL named " + pool);
            }
            required("BUFFER_PROFILE", key, f, "size");
            final long size = longField("BUFFER_PROFILE", key, f, "size", 0, 0, ConfigBound.BUFFER_BYTES.max());
            final boolean hasStatic = f.containsKey("static_th");
            final boolean hasDynamic = f.containsKey("dynamic_th");
            if (hasStatic == hasDynamic) {
                throw new TmConfigException(
                        "BUFFER_PROFILE",
                        key,
                        hasStatic ? "static_th" : "dynamic_th",
                        "exactly one of static_th and dynamic_th is required");
            }
            final long staticTh = hasStatic
                    ? longField("BUFFER_PROFILE", key, f, "static_th", 0, 0, ConfigBound.BUFFER_BYTES.max())
                    : -1;
            final int dynamicTh = hasDynamic
                    ? (int) longField(
                            "BUFFER_PROFILE",
                            key,
                            f,
                            "dynamic_th",
                            0,
                            ConfigBound.DYNAMIC_TH.min(),
                            ConfigBound.DYNAMIC_TH.max())
                    : 0;
            final long xon = longField("BUFFER_PROFILE", key, f, "xon", 0, 0, ConfigBound.BUFFER_BYTES.max());
            final long xoff = longField("BUFFER_PROFILE", key, f, "xoff", 0, 0, ConfigBound.BUFFER_BYTES.max());
            final long xonOffset =
                    longField("BUFFER_PROFILE", key, f, "xon_offset", 0, 0, ConfigBound.BUFFER_BYTES.max());
            profiles.put(key, new BufferProfileConfig(key, pool, size, staticTh, dynamicTh, xon, xoff, xonOffset));
        }
        return profiles;
    }

    private Map<String, WredProfileConfig> parseWred() {
        final Map<String, WredProfileConfig> out = new LinkedHashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                table("WRED_PROFILE").entrySet()) {
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            final long[] min = new long[3];
            final long[] max = new long[3];
            final int[] prob = new int[3];
            final boolean[] enabled = new boolean[3];
            for (int c = 0; c < 3; c++) {
                final String col = COLOURS[c];
                min[c] =
                        longField("WRED_PROFILE", key, f, col + "_min_threshold", 0, 0, ConfigBound.BUFFER_BYTES.max());
                max[c] =
                        longField("WRED_PROFILE", key, f, col + "_max_threshold", 0, 0, ConfigBound.BUFFER_BYTES.max());
                if (min[c] > max[c]) {
                    throw new TmConfigException(
                            "WRED_PROFILE", key, col + "_min_threshold", "min " + min[c] + " > max " + max[c]);
                }
                prob[c] = (int) longField(
                        "WRED_PROFILE",
                        key,
                        f,
                        col + "_drop_probability",
                        100,
                        ConfigBound.PERCENT.min(),
                        ConfigBound.PERCENT.max());
                enabled[c] = boolField("WRED_PROFILE", key, f, "wred_" + col + "_enable", false);
            }
            final String ecn = f.getOrDefault("ecn", "ecn_none");
            final int mask = switch (ecn) {
                case "ecn_none" -> 0;
                case "ecn_green" -> 1;
                case "ecn_yellow" -> 2;
                case "ecn_red" -> 4;
                case "ecn_green_yellow" -> 3;
                case "ecn_green_red" -> 5;
                case "ecn_yellow_red" -> 6;
                case "ecn_all" -> 7;
                default -> throw new TmConfigException("WRED_PROFILE", key, "ecn", "unknown ecn mode " + ecn);
            };
            out.put(key, new WredProfileConfig(key, min, max, prob, enabled, mask));
        }
        return out;
    }

    private Map<String, SchedulerConfig> parseSchedulers() {
        final Map<String, SchedulerConfig> out = new LinkedHashMap<>();
        for (final Map.Entry<String, Map<String, String>> e : table("SCHEDULER").entrySet()) {
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            final String t = f.getOrDefault("type", "WRR").toUpperCase(Locale.ROOT);
            final SchedulerType type = switch (t) {
                case "STRICT" -> SchedulerType.STRICT;
                case "DWRR" -> SchedulerType.DWRR;
                case "WRR" -> SchedulerType.WRR;
                default -> throw new TmConfigException("SCHEDULER", key, "type", "must be DWRR, WRR or STRICT: " + t);
            };
            final int weight = (int) longField(
                    "SCHEDULER",
                    key,
                    f,
                    "weight",
                    1,
                    ConfigBound.SCHEDULER_WEIGHT.min(),
                    ConfigBound.SCHEDULER_WEIGHT.max());
            longField(
                    "SCHEDULER",
                    key,
                    f,
                    "priority",
                    0,
                    ConfigBound.SCHEDULER_PRIORITY.min(),
                    ConfigBound.SCHEDULER_PRIORITY.max());
            final String meter = f.getOrDefault("meter_type", "bytes");
            if (!meter.equals("bytes") && !meter.equals("packets")) {
                throw new TmConfigException("SCHEDULER", key, "meter_type", "must be packets or bytes: " + meter);
            }
            final long cir = longField("SCHEDULER", key, f, "cir", 0, 0, ConfigBound.RATE_BYTES_PER_S.max());
            final long pir = longField("SCHEDULER", key, f, "pir", 0, 0, ConfigBound.RATE_BYTES_PER_S.max());
            final long pbs = longField("SCHEDULER", key, f, "pbs", 0, 0, ConfigBound.BUFFER_BYTES.max());
            longField("SCHEDULER", key, f, "cbs", 0, 0, ConfigBound.BUFFER_BYTES.max());
            if (pir != 0 && pir < cir) {
                throw new TmConfigException("SCHEDULER", key, "pir", "pir " + pir + " < cir " + cir);
            }
            if (pir != 0 && meter.equals("packets")) {
                throw new TmConfigException("SCHEDULER", key, "meter_type", "packet-rate shaping is not modelled");
            }
            out.put(key, new SchedulerConfig(key, type, weight, pir, pbs));
        }
        return out;
    }

    private void parsePorts(final PortBuilder[] b) {
        final Map<String, Map<String, String>> t = table("PORT");
        for (final PortBuilder pb : b) {
            final Map<String, String> f = t.get(pb.name);
            if (null == f) {
                throw new TmConfigException("PORT", pb.name, "speed", "missing PORT entry");
            }
            required("PORT", pb.name, f, "speed");
            pb.speedMbps = longField(
                    "PORT",
                    pb.name,
                    f,
                    "speed",
                    0,
                    ConfigBound.PORT_SPEED_MBPS.min(),
                    ConfigBound.PORT_SPEED_MBPS.max());
            final String asym = f.getOrDefault("pfc_asym", "off");
            if (!asym.equals("on") && !asym.equals("off")) {
                throw new TmConfigException("PORT", pb.name, "pfc_asym", "must be on or off: " + asym);
            }
            pb.pfcAsym = asym.equals("on");
        }
    }

    private void parseQosMaps(final PortBuilder[] b) {
        for (final Map.Entry<String, Map<String, String>> e :
                table("PORT_QOS_MAP").entrySet()) {
            final String key = e.getKey();
            if (key.equals("global")) {
                continue;
            }
            final Map<String, String> f = e.getValue();
            for (final String port : key.split(",")) {
                final PortBuilder pb = b[port("PORT_QOS_MAP", key, port)];
                if (f.containsKey("pfc_enable")) {
                    pb.pfcEnable = priorityMask("PORT_QOS_MAP", key, "pfc_enable", f.get("pfc_enable"));
                }
                if (f.containsKey("pfcwd_sw_enable")) {
                    pb.pfcwdSwEnable = priorityMask("PORT_QOS_MAP", key, "pfcwd_sw_enable", f.get("pfcwd_sw_enable"));
                }
                if (f.containsKey("pfc_to_queue_map")) {
                    pb.pfcToQueue = map8(
                            "MAP_PFC_PRIORITY_TO_QUEUE",
                            stripRef(f.get("pfc_to_queue_map")),
                            "PORT_QOS_MAP",
                            key,
                            "pfc_to_queue_map",
                            7);
                }
                if (f.containsKey("tc_to_pg_map")) {
                    pb.tcToPg = map8(
                            "TC_TO_PRIORITY_GROUP_MAP",
                            stripRef(f.get("tc_to_pg_map")),
                            "PORT_QOS_MAP",
                            key,
                            "tc_to_pg_map",
                            7);
                }
                if (f.containsKey("scheduler")) {
                    pb.shaper = stripRef(f.get("scheduler"));
                    if (!table("SCHEDULER").containsKey(pb.shaper)) {
                        throw new TmConfigException("PORT_QOS_MAP", key, "scheduler", "no SCHEDULER " + pb.shaper);
                    }
                }
            }
        }
    }

    private int[] map8(
            final String mapTable,
            final String name,
            final String table,
            final String key,
            final String field,
            final int maxValue) {
        final Map<String, String> m = table(mapTable).get(name);
        if (null == m) {
            throw new TmConfigException(table, key, field, "no " + mapTable + " named " + name);
        }
        final int[] out = identity();
        for (final Map.Entry<String, String> me : m.entrySet()) {
            final int from = (int) parseLong(mapTable, name, me.getKey(), me.getKey(), 0, 15);
            final int to = (int) parseLong(mapTable, name, me.getKey(), me.getValue(), 0, maxValue);
            if (from < 8) {
                out[from] = to;
            }
        }
        return out;
    }

    private void parseBufferAssignments(
            final String tableName,
            final PortBuilder[] b,
            final Map<String, BufferPoolConfig> pools,
            final Map<String, BufferProfileConfig> profiles,
            final boolean pg) {
        for (final Map.Entry<String, Map<String, String>> e : table(tableName).entrySet()) {
            final String key = e.getKey();
            final int bar = key.lastIndexOf('|');
            if (bar < 0) {
                throw new TmConfigException(tableName, key, "", "key must be <port>|<index or range>");
            }
            final String profile = stripRef(required(tableName, key, e.getValue(), "profile"));
            if (profile.equals("NULL")) {
                throw new TmConfigException(
                        tableName,
                        key,
                        "profile",
                        "NULL (dynamic headroom) is not supported; give a static profile (see HeadroomCalculator)");
            }
            final BufferProfileConfig p = profiles.get(profile);
            if (null == p) {
                throw new TmConfigException(tableName, key, "profile", "no BUFFER_PROFILE named " + profile);
            }
            final PoolType poolType = pools.get(p.pool()).type();
            if (poolType != PoolType.BOTH && poolType != (pg ? PoolType.INGRESS : PoolType.EGRESS)) {
                throw new TmConfigException(
                        tableName,
                        key,
                        "profile",
                        "profile " + profile + " uses " + poolType.name().toLowerCase(Locale.ROOT) + " pool "
                                + p.pool());
            }
            final int[] range = range(tableName, key, key.substring(bar + 1), pg ? 7 : 15);
            for (final String port : key.substring(0, bar).split(",")) {
                final PortBuilder pb = b[port(tableName, key, port)];
                for (int i = range[0]; i <= range[1] && i < 8; i++) {
                    (pg ? pb.pgProfile : pb.queueProfile)[i] = profile;
                }
            }
        }
    }

    private void parseQueues(
            final PortBuilder[] b,
            final Map<String, WredProfileConfig> wred,
            final Map<String, SchedulerConfig> sched) {
        for (final Map.Entry<String, Map<String, String>> e : table("QUEUE").entrySet()) {
            final String key = e.getKey();
            final int bar = key.lastIndexOf('|');
            if (bar < 0) {
                throw new TmConfigException("QUEUE", key, "", "key must be <port>|<queue or range>");
            }
            final Map<String, String> f = e.getValue();
            final int[] range = range("QUEUE", key, key.substring(bar + 1), 15);
            final String s = f.containsKey("scheduler") ? stripRef(f.get("scheduler")) : null;
            if (null != s && !sched.containsKey(s)) {
                throw new TmConfigException("QUEUE", key, "scheduler", "no SCHEDULER named " + s);
            }
            final String w = f.containsKey("wred_profile") ? stripRef(f.get("wred_profile")) : null;
            if (null != w && !wred.containsKey(w)) {
                throw new TmConfigException("QUEUE", key, "wred_profile", "no WRED_PROFILE named " + w);
            }
            for (final String port : key.substring(0, bar).split(",")) {
                final PortBuilder pb = b[port("QUEUE", key, port)];
                for (int q = range[0]; q <= range[1] && q < 8; q++) {
                    if (null != s) {
                        pb.queueScheduler[q] = s;
                    }
                    if (null != w) {
                        pb.queueWred[q] = w;
                    }
                }
            }
        }
    }

    private void parsePfcWd(final PortBuilder[] b, final int pollMs) {
        for (final Map.Entry<String, Map<String, String>> e : table("PFC_WD").entrySet()) {
            final String key = e.getKey();
            if (key.equals("GLOBAL")) {
                continue;
            }
            final Map<String, String> f = e.getValue();
            final PfcWdAction action = switch (f.getOrDefault("action", "drop")) {
                case "drop" -> PfcWdAction.DROP;
                case "forward" -> PfcWdAction.FORWARD;
                case "alert" -> PfcWdAction.ALERT;
                default -> throw new TmConfigException("PFC_WD", key, "action", "must be drop, forward or alert");
            };
            required("PFC_WD", key, f, "detection_time");
            final int detect = (int) longField(
                    "PFC_WD",
                    key,
                    f,
                    "detection_time",
                    0,
                    ConfigBound.PFC_WD_DETECTION_MS.min(),
                    ConfigBound.PFC_WD_DETECTION_MS.max());
            final int restore = f.containsKey("restoration_time")
                    ? (int) longField(
                            "PFC_WD",
                            key,
                            f,
                            "restoration_time",
                            0,
                            ConfigBound.PFC_WD_RESTORATION_MS.min(),
                            ConfigBound.PFC_WD_RESTORATION_MS.max())
                    : -1;
            if (detect < pollMs) {
                throw new TmConfigException("PFC_WD", key, "detection_time", "must be >= POLL_INTERVAL " + pollMs);
            }
            if (restore >= 0 && restore < pollMs) {
                throw new TmConfigException("PFC_WD", key, "restoration_time", "must be >= POLL_INTERVAL " + pollMs);
            }
            final String hist = f.getOrDefault("pfc_stat_history", "disable");
            if (!hist.equals("enable") && !hist.equals("disable")) {
                throw new TmConfigException("PFC_WD", key, "pfc_stat_history", "must be enable or disable");
            }
            b[port("PFC_WD", key, key)].pfcWd = new PfcWdPortConfig(action, detect, restore);
        }
    }

    private void parseCableLength(final PortBuilder[] b) {
        for (final Map.Entry<String, Map<String, String>> e :
                table("CABLE_LENGTH").entrySet()) {
            for (final Map.Entry<String, String> pe : e.getValue().entrySet()) {
                final Integer idx = portIndex.get(pe.getKey());
                if (null == idx) {
                    continue;
                }
                final String v = pe.getValue();
                if (!v.endsWith("m")) {
                    throw new TmConfigException("CABLE_LENGTH", e.getKey(), pe.getKey(), "must be <N>m: " + v);
                }
                b[idx].cableM = (int)
                        parseLong("CABLE_LENGTH", e.getKey(), pe.getKey(), v.substring(0, v.length() - 1), 0, 100_000);
            }
        }
    }

    /**
     * The "ECN before PFC" rule (reference §7): ECN Kmin should lie below the depth at which the ingress PG reaches
     * XOFF, estimated as reserved size + static_th, or reserved size + alpha/(1+alpha) × pool size for a dynamic
     * threshold (one congested PG alone in the pool).
     */
    private static List<String> ecnBeforePfcWarnings(
            final List<PortConfig> ports,
            final Map<String, BufferPoolConfig> pools,
            final Map<String, BufferProfileConfig> profiles,
            final Map<String, WredProfileConfig> wred) {
        final List<String> out = new ArrayList<>();
        for (final PortConfig p : ports) {
            for (int prio = 0; prio < 8; prio++) {
                if ((p.pfcEnableMask() & (1 << prio)) == 0) {
                    continue;
                }
                final String pgProf = p.pgProfile()[p.tcToPg()[prio]];
                final String w = p.queueWredProfile()[p.pfcPriorityToQueue()[prio]];
                if (null == pgProf || null == w) {
                    continue;
                }
                final BufferProfileConfig bp = profiles.get(pgProf);
                final WredProfileConfig wp = wred.get(w);
                if (wp.ecnMarkColourMask() != 0) {
                    final long poolSize = pools.get(bp.pool()).sizeBytes();
                    final double alpha = Math.pow(2, bp.dynamicTh());
                    final long xoffDepth = bp.sizeBytes()
                            + (bp.isDynamic() ? (long) (poolSize * alpha / (1 + alpha)) : bp.staticThBytes());
                    final long kmin = wp.minThresholdBytes()[WredProfileConfig.GREEN];
                    if (kmin > xoffDepth) {
                        out.add("ECN before PFC violated on " + p.name() + " priority " + prio + ": WRED_PROFILE|" + w
                                + " green_min_threshold " + kmin + " > PG XOFF depth " + xoffDepth);
                    }
                }
            }
        }
        return out;
    }

    private int port(final String table, final String key, final String name) {
        final Integer i = portIndex.get(name);
        if (null == i) {
            throw new TmConfigException(table, key, "", "unknown port " + name);
        }
        return i;
    }

    private static int[] range(final String table, final String key, final String s, final int max) {
        final int dash = s.indexOf('-');
        final int lo = (int) parseLong(table, key, "", dash < 0 ? s : s.substring(0, dash), 0, max);
        final int hi = dash < 0 ? lo : (int) parseLong(table, key, "", s.substring(dash + 1), 0, max);
        if (hi < lo) {
            throw new TmConfigException(table, key, "", "range " + s + " is reversed");
        }
        return new int[] {lo, hi};
    }

    private static int priorityMask(final String table, final String key, final String field, final String v) {
        if (!v.matches("([0-7](,[0-7])*)?")) {
            throw new TmConfigException(table, key, field, "must match ([0-7](,[0-7])*)?: " + v);
        }
        int mask = 0;
        for (final String s : v.split(",")) {
            if (!s.isEmpty()) {
                mask |= 1 << Integer.parseInt(s);
            }
        }
        return mask;
    }

    private static String stripRef(final String v) {
        // Older SONiC configs use "[TABLE|name]" references; current ones use the plain name.
        if (v.startsWith("[") && v.endsWith("]")) {
            final int bar = v.indexOf('|');
            return v.substring(bar + 1, v.length() - 1);
        }
        return v;
    }

    private static String required(
            final String table, final String key, final Map<String, String> f, final String field) {
        final String v = f.get(field);
        if (null == v) {
            throw new TmConfigException(table, key, field, "is mandatory");
        }
        return v;
    }

    private static boolean boolField(
            final String table, final String key, final Map<String, String> f, final String field, final boolean dflt) {
        final String v = f.get(field);
        if (null == v) {
            return dflt;
        }
        if (!v.equals("true") && !v.equals("false")) {
            throw new TmConfigException(table, key, field, "must be true or false: " + v);
        }
        return v.equals("true");
    }

    private static long longField(
            final String table,
            final String key,
            final Map<String, String> f,
            final String field,
            final long dflt,
            final long min,
            final long max) {
        final String v = f.get(field);
        return null == v ? dflt : parseLong(table, key, field, v, min, max);
    }

    private static long parseLong(
            final String table, final String key, final String field, final String v, final long min, final long max) {
        final long x;
        try {
            x = Long.parseLong(v.trim());
        } catch (final NumberFormatException ex) {
            throw new TmConfigException(table, key, field, "not an integer: '" + v + "'");
        }
        if (x < min || x > max) {
            throw new TmConfigException(table, key, field, x + " outside " + min + ".." + max);
        }
        return x;
    }

    private static int[] identity() {
        final int[] a = new int[8];
        for (int i = 0; i < 8; i++) {
            a[i] = i;
        }
        return a;
    }

    private static final class PortBuilder {
        final String name;
        final int index;
        long speedMbps;
        boolean pfcAsym;
        int pfcEnable;
        int pfcwdSwEnable = -1;
        int[] pfcToQueue = identity();
        int[] tcToPg = identity();
        final String[] pgProfile = new String[8];
        final String[] queueProfile = new String[8];
        final String[] queueScheduler = new String[8];
        final String[] queueWred = new String[8];
        String shaper;
        PfcWdPortConfig pfcWd;
        int cableM = -1;

        PortBuilder(final String name, final int index) {
            this.name = name;
            this.index = index;
        }

        PortConfig build() {
            return new PortConfig(
                    name,
                    index,
                    speedMbps,
                    pfcAsym,
                    pfcEnable,
                    pfcwdSwEnable < 0 ? pfcEnable : pfcwdSwEnable,
                    pfcToQueue,
                    tcToPg,
                    Arrays.copyOf(pgProfile, 8),
                    Arrays.copyOf(queueProfile, 8),
                    Arrays.copyOf(queueScheduler, 8),
                    Arrays.copyOf(queueWred, 8),
                    shaper,
                    pfcWd,
                    cableM);
        }
    }
}
