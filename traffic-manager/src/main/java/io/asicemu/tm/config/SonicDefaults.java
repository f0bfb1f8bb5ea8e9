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
public final class SonicDefaults
{
    private SonicDefaults()
    {
    }

    /**
     * @param ports     port names.
     * @param speedMbps speed of every port.
     * @param cableM    cable length of every port in metres.
     * @return mutable CONFIG_DB tables.
     */
    public static Map<String, Map<String, Map<String, String>>> genericLossless(
        final List<String> ports, final long speedMbps, final int cableM)
    {
        final Map<String, Map<String, Map<String, String>>> db = new LinkedHashMap<>();
        final Map<String, String> identity = new LinkedHashMap<>();
        for (int i = 0; i < 8; i++)
        {
            identity.put(Integer.toString(i), Integer.toString(i));
        }
        put(db, "MAP_PFC_PRIORITY_TO_QUEUE", "AZURE", identity);
        put(db, "TC_TO_QUEUE_MAP", "AZURE", identity);
        final Map<String, String> tcToPg = new LinkedHashMap<>();
        for (int tc = 0; tc < 8; tc++)
        {
            tcToPg.put(Integer.toString(tc), tc == 3 || tc == 4 || tc == 7 ? Integer.toString(tc) : "0");
        }
        put(db, "TC_TO_PRIORITY_GROUP_MAP", "AZURE", tcToPg);
        put(db, "SCHEDULER", "scheduler.0", Map.of("type", "DWRR", "weight", "14"));
        put(db, "SCHEDULER", "scheduler.1", Map.of("type", "DWRR", "weight", "15"));
        final Map<String, String> wred = new LinkedHashMap<>();
        for (final String c : new String[] {"green", "yellow", "red"})
        {
            wred.put("wred_" + c + "_enable", "true");
            wred.put(c + "_min_threshold", c.equals("green") ? "250000" : "1048576");
            wred.put(c + "_max_threshold", "2097152");
            wred.put(c + "_drop_probability", "5");
        }
        wred.put("ecn", "ecn_all");
        put(db, "WRED_PROFILE", "AZURE_LOSSLESS", wred);
        put(db, "BUFFER_POOL", "ingress_lossless_pool",
            Map.of("size", "10875072", "type", "ingress", "mode", "dynamic", "xoff", "4194112"));
        put(db, "BUFFER_POOL", "egress_lossy_pool", Map.of("size", "9243812", "type", "egress", "mode", "dynamic"));
        put(db, "BUFFER_POOL", "egress_lossless_pool",
            Map.of("size", "15982720", "type", "egress", "mode", "static"));
        put(db, "BUFFER_PROFILE", "ingress_lossy_profile",
            Map.of("pool", "ingress_lossless_pool", "size", "0", "dynamic_th", "3"));
        put(db, "BUFFER_PROFILE", "egress_lossless_profile",
            Map.of("pool", "egress_lossless_pool", "size", "1518", "static_th", "15982720"));
        put(db, "BUFFER_PROFILE", "egress_lossy_profile",
            Map.of("pool", "egress_lossy_pool", "size", "1518", "dynamic_th", "3"));
        final String lossless = "pg_lossless_" + speedMbps + "_" + cableM + "m_profile";
        put(db, "BUFFER_PROFILE", lossless, losslessProfile(speedMbps, cableM));
        final Map<String, String> cable = new LinkedHashMap<>();
        for (final String p : ports)
        {
            put(db, "PORT", p, Map.of("speed", Long.toString(speedMbps), "mtu", "9100"));
            cable.put(p, cableM + "m");
            put(db, "PORT_QOS_MAP", p, Map.of("tc_to_pg_map", "AZURE", "pfc_to_queue_map", "AZURE",
                "tc_to_queue_map", "AZURE", "pfc_enable", "3,4", "pfcwd_sw_enable", "3,4"));
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

    private static Map<String, String> losslessProfile(final long speedMbps, final int cableM)
    {
        final String xoff;
        if (speedMbps == 100_000 && (cableM == 5 || cableM == 40 || cableM == 300))
        {
            // Tomahawk pg_profile_lookup.ini rows (reference §1.3).
            xoff = cableM == 5 ? "165568" : cableM == 40 ? "177632" : "268736";
            return Map.of("pool", "ingress_lossless_pool", "size", "1248", "xon", "2288", "xoff", xoff,
                "dynamic_th", "0", "xon_offset", "2288");
        }
        final HeadroomCalculator.Headroom h =
            HeadroomCalculator.compute(speedMbps, cableM, 9100, 1024, 50, 256, 0, 0, 2288, true);
        return Map.of("pool", "ingress_lossless_pool", "size", Long.toString(h.sizeBytes()),
            "xon", Long.toString(h.xonBytes()), "xoff", Long.toString(h.xoffBytes()), "dynamic_th", "0",
            "xon_offset", "2288");
    }

    private static void put(
        final Map<String, Map<String, Map<String, String>>> db, final String table, final String key,
        final Map<String, String> fields)
    {
        db.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key, new LinkedHashMap<>(fields));
    }
}
