package io.asicemu.tm.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SONiC's generic lossless defaults as CONFIG_DB tables (reference §1.3): the AZURE maps, pfc_enable "3,4",
 * DWRR 14/15 schedulers, WRED_PROFILE AZURE_LOSSLESS (Tomahawk values: green_min 250000), the Tomahawk BALANCED
 * buffer pools and profiles, the lossless PG profile {@code pg_lossless_<speed>_<cable>_profile} (the
 * pg_profile_lookup.ini row for 100G 5m/40m/300m; other speeds from {@link HeadroomCalculator}), and the
 * {@code config pfcwd start_default} watchdog (200/200 ms, poll 200 ms, drop). Control path; allocates.
 */
public final class SonicDefaults {
    private SonicDefaults() {}

    /**
     * @param ports     port names.
     * @param speedMbps speed of every port.
     * @param cableM    cable length of every port in metres.
     * @return mutable CONFIG_DB tables.
     */
    public static Map<String, Map<String, Map<String, String>>> genericLossless(
            final List<String> ports, final long speedMbps, final int cableM) {
        final Map<String, Map<String, Map<String, String>>> db = new LinkedHashMap<>();
        final Map<String, String> identity = new LinkedHashMap<>();
        for (int i = 0; i < 8; i++) {
            identity.put(Integer.toString(i), Integer.toString(i));
        }
        put(db, "MAP_PFC_PRIORITY_TO_QUEUE", "AZURE", identity);
        put(db, "TC_TO_QUEUE_MAP", "AZURE", identity);
        final Map<String, String> tcToPg = new LinkedHashMap<>();
        for (int tc = 0; tc < 8; tc++) {
            tcToPg.put(Integer.toString(tc), tc == 3 || tc == 4 || tc == 7 ? Integer.toString(tc) : "0");
        }
        put(db, "TC_TO_PRIORITY_GROUP_MAP", "AZURE", tcToPg);
        put(db, "SCHEDULER", "scheduler.0", Map.of("type", "DWRR", "weight", "14"));
        put(db, "SCHEDULER", "scheduler.1", Map.of("type", "DWRR", "weight", "15"));
        final Map<String, String> wred = new LinkedHashMap<>();
        for (final String c : new String[] {"green", "yellow", "red"}) {
            wred.put("wred_" + c + "_enable", "true");
            wred.put(c + "_min_threshold", c.equals("green") ? "250000" : "1048576");
            wred.put(c + "_max_threshold", "2097152");
            wred.put(c + "_drop_probability", "5");
        }
        wred.put("ecn", "ecn_all");
        put(db, "WRED_PROFILE", "AZURE_LOSSLESS", wred);
        putTomahawkPoolsAndProfiles(db);
        final String lossless = "pg_lossless_" + speedMbps + "_" + cableM + "m_profile";
        put(db, "BUFFER_PROFILE", lossless, losslessProfile(speedMbps, cableM));
        final Map<String, String> cable = new LinkedHashMap<>();
        for (final String p : ports) {
            put(db, "PORT", p, Map.of("speed", Long.toString(speedMbps), "mtu", "9100"));
            cable.put(p, cableM + "m");
            put(
                    db,
                    "PORT_QOS_MAP",
                    p,
                    Map.of(
                            "tc_to_pg_map",
                            "AZURE",
                            "pfc_to_queue_map",
                            "AZURE",
                            "tc_to_queue_map",
                            "AZURE",
                            "pfc_enable",
                            "3,4",
                            "pfcwd_sw_enable",
                            "3,4"));
            put(db, "QUEUE", p + "|3-4", Map.of("scheduler", "scheduler.1", "wred_profile", "AZURE_LOSSLESS"));
            put(db, "QUEUE", p + "|0-2", Map.of("scheduler", "scheduler.0"));
            put(db, "QUEUE", p + "|5-6", Map.of("scheduler", "scheduler.0"));
            put(db, "BUFFER_PG", p + "|0", Map.of("profile", "ingress_lossy_profile"));
            put(db, "BUFFER_PG", p + "|3-4", Map.of("profile", lossless));
            put(db, "BUFFER_QUEUE", p + "|3-4", Map.of("profile", "egress_lossless_profile"));
            put(db, "BUFFER_QUEUE", p + "|0-2", Map.of("profile", "egress_lossy_profile"));
            put(db, "BUFFER_QUEUE", p + "|5-6", Map.of("profile", "egress_lossy_profile"));
            put(db, "PFC_WD", p, Map.of("action", "drop", "detection_time", "200", "restoration_time", "200"));
        }
        put(db, "CABLE_LENGTH", "AZURE", cable);
        put(db, "PFC_WD", "GLOBAL", Map.of("POLL_INTERVAL", "200"));
        return db;
    }

    /** The CONFIG_DB tables that make up a buffer configuration. */
    public static final List<String> BUFFER_TABLES =
            List.of("BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE");

    private static final long[] HEADROOM_SPEEDS = {10_000, 25_000, 40_000, 50_000, 100_000, 200_000, 400_000, 800_000};

    /**
     * The buffer a switch has when CONFIG_DB carries no BUFFER_* table at all, so that one congested port cannot
     * starve the others (a real switch's default MMU configuration never lets one queue take the whole buffer).
     * Shaped like SONiC's generic defaults (reference §1.3: {@code buffers_config.j2} with the Tomahawk
     * {@code buffers_defaults_t1.j2} values), with dynamic thresholds:
     * <ul>
     * <li>pools {@code ingress_lossless_pool} 10,875,072 B (dynamic, xoff 4,194,112 B), {@code egress_lossy_pool}
     * 9,243,812 B (dynamic), {@code egress_lossless_pool} 15,982,720 B (static);</li>
     * <li>profiles {@code ingress_lossy_profile} (size 0, dynamic_th 3), {@code egress_lossy_profile} (size 1518,
     * dynamic_th 3), {@code egress_lossless_profile} (size 1518, static_th 15,982,720) and, per port speed and
     * cable length ({@code CABLE_LENGTH}, default 40 m), {@code pg_lossless_<speed>_<cable>m_profile} as
     * {@link #genericLossless} makes it (dynamic_th 0, headroom xoff);</li>
     * <li>BUFFER_PG: the port's {@code pfc_enable} priorities get the lossless profile, every other PG the lossy
     * one; BUFFER_QUEUE: the {@code pfc_enable} queues get {@code egress_lossless_profile}, every other queue
     * {@code egress_lossy_profile}. SONiC leaves PGs 1-2, 5-7 and queue 7 to the SAI default; here they share the
     * lossy profiles, so every PG and queue has a limit.</li>
     * </ul>
     * A lossy queue then holds at most 8/9 of the free egress_lossy_pool (alpha = 2^3), leaving room for the others.
     *
     * @param tables CONFIG_DB tables (not modified).
     * @return the same tables when any BUFFER_* table is present, else a copy with the default buffer added.
     */
    public static Map<String, Map<String, Map<String, String>>> withDefaultBuffers(
            final Map<String, Map<String, Map<String, String>>> tables) {
        for (final String t : BUFFER_TABLES) {
            if (tables.containsKey(t) && !tables.get(t).isEmpty()) {
                return tables;
            }
        }
        final Map<String, Map<String, Map<String, String>>> db = new LinkedHashMap<>(tables);
        putTomahawkPoolsAndProfiles(db);
        final Map<String, Map<String, String>> ports = tables.getOrDefault("PORT", Map.of());
        final Map<String, Map<String, String>> qos = tables.getOrDefault("PORT_QOS_MAP", Map.of());
        final Map<String, String> cables =
                tables.getOrDefault("CABLE_LENGTH", Map.of()).getOrDefault("AZURE", Map.of());
        for (final Map.Entry<String, Map<String, String>> port : ports.entrySet()) {
            final String name = port.getKey();
            final String speed = port.getValue().get("speed");
            final int lossless = pfcEnableMask(qos.getOrDefault(name, Map.of()).get("pfc_enable"));
            String losslessName = null;
            if (lossless != 0 && speed != null) {
                final long speedMbps = Long.parseLong(speed.trim());
                final int cableM = cableMetres(cables.get(name));
                losslessName = "pg_lossless_" + speedMbps + "_" + cableM + "m_profile";
                put(db, "BUFFER_PROFILE", losslessName, losslessProfile(headroomSpeed(speedMbps), cableM));
            }
            for (int i = 0; i < 8; i++) {
                final boolean isLossless = losslessName != null && (lossless & (1 << i)) != 0;
                put(
                        db,
                        "BUFFER_PG",
                        name + "|" + i,
                        Map.of("profile", isLossless ? losslessName : "ingress_lossy_profile"));
                put(
                        db,
                        "BUFFER_QUEUE",
                        name + "|" + i,
                        Map.of("profile", isLossless ? "egress_lossless_profile" : "egress_lossy_profile"));
            }
        }
        return db;
    }

    private static int pfcEnableMask(final String pfcEnable) {
        int mask = 0;
        if (pfcEnable == null || pfcEnable.isBlank()) {
            return 0;
        }
        for (final String p : pfcEnable.split(",")) {
            final String t = p.trim();
            if (t.length() == 1 && t.charAt(0) >= '0' && t.charAt(0) <= '7') {
                mask |= 1 << (t.charAt(0) - '0');
            }
        }
        return mask;
    }

    private static int cableMetres(final String cable) {
        if (cable == null || !cable.trim().matches("[0-9]{1,5}m")) {
            return 40; // Tomahawk buffers_defaults_t1.j2 default cable length (reference §1.3)
        }
        return Integer.parseInt(cable.trim().substring(0, cable.trim().length() - 1));
    }

    /** The IEEE pause-response table has a row per standard speed; other speeds use the next faster row. */
    private static long headroomSpeed(final long speedMbps) {
        for (final long s : HEADROOM_SPEEDS) {
            if (speedMbps <= s) {
                return s;
            }
        }
        return HEADROOM_SPEEDS[HEADROOM_SPEEDS.length - 1];
    }

    private static Map<String, String> losslessProfile(final long speedMbps, final int cableM) {
        final String xoff;
        if (speedMbps == 100_000 && (cableM == 5 || cableM == 40 || cableM == 300)) {
            // Tomahawk pg_profile_lookup.ini rows (reference §1.3).
            xoff = cableM == 5 ? "165568" : cableM == 40 ? "177632" : "268736";
            return Map.of(
                    "pool",
                    "ingress_lossless_pool",
                    "size",
                    "1248",
                    "xon",
                    "2288",
                    "xoff",
                    xoff,
                    "dynamic_th",
                    "0",
                    "xon_offset",
                    "2288");
        }
        final HeadroomCalculator.Headroom h =
                HeadroomCalculator.compute(speedMbps, cableM, 9100, 1024, 50, 256, 0, 0, 2288, true);
        return Map.of(
                "pool",
                "ingress_lossless_pool",
                "size",
                Long.toString(h.sizeBytes()),
                "xon",
                Long.toString(h.xonBytes()),
                "xoff",
                Long.toString(h.xoffBytes()),
                "dynamic_th",
                "0",
                "xon_offset",
                "2288");
    }

    private static void put(
            final Map<String, Map<String, Map<String, String>>> db,
            final String table,
            final String key,
            final Map<String, String> fields) {
        db.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key, new LinkedHashMap<>(fields));
    }

    /** SONiC's Tomahawk pools and the lossy/lossless egress and ingress-lossy profiles (sonic-buildimage TH tables). */
    private static void putTomahawkPoolsAndProfiles(final Map<String, Map<String, Map<String, String>>> db) {
        put(
                db,
                "BUFFER_POOL",
                "ingress_lossless_pool",
                Map.of("size", "10875072", "type", "ingress", "mode", "dynamic", "xoff", "4194112"));
        put(db, "BUFFER_POOL", "egress_lossy_pool", Map.of("size", "9243812", "type", "egress", "mode", "dynamic"));
        put(db, "BUFFER_POOL", "egress_lossless_pool", Map.of("size", "15982720", "type", "egress", "mode", "static"));
        put(
                db,
                "BUFFER_PROFILE",
                "ingress_lossy_profile",
                Map.of("pool", "ingress_lossless_pool", "size", "0", "dynamic_th", "3"));
        put(
                db,
                "BUFFER_PROFILE",
                "egress_lossless_profile",
                Map.of("pool", "egress_lossless_pool", "size", "1518", "static_th", "15982720"));
        put(
                db,
                "BUFFER_PROFILE",
                "egress_lossy_profile",
                Map.of("pool", "egress_lossy_pool", "size", "1518", "dynamic_th", "3"));
    }
}
