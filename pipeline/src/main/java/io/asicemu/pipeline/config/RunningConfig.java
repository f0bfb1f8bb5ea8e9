package io.asicemu.pipeline.config;

import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.pipeline.control.RuntimeKnobs;
import io.asicemu.tm.config.PortConfig;
import io.asicemu.tm.config.TmConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders the CONFIG_DB in force from the control model: the configuration last applied or reconfigured, with what
 * runtime writes (P4Runtime registers, the register map) changed since, so that the operator's CONFIG_DB view and a
 * {@code config save} show the switch as it runs, and feeding that rendering back to
 * {@link SwitchConfig#reconfigure} changes nothing.
 * <p>
 * A knob that is per queue or per PG while its CONFIG_DB value is per profile (WRED_PROFILE thresholds, BUFFER_PROFILE
 * xoff/xon) shows as a profile derived for that queue or PG, as SONiC would need one: {@code <profile>.<port>.<index>}
 * with the profile's fields and the written values, and the QUEUE / BUFFER_PG key covering that queue is split so
 * that only it points at the derived profile (other ports and indexes keep their key and profile). A queue already on
 * its own derived profile has that profile changed in place. PFC_WD times and the ECMP hash seed are per port or per
 * switch in CONFIG_DB too and show as their fields. Not rendered (no CONFIG_DB field holds them): the flowlet idle
 * time written for every group, a group's selection mode, and the switch-wide QoS map entries a controller writes.
 * <p>
 * Stateless; any thread (it reads immutable copies).
 */
public final class RunningConfig {
    public static final String[] COLOURS = {"green", "yellow", "red"};
    static final String[] WRED_SUFFIXES = {"_min_threshold", "_max_threshold", "_drop_probability"};

    private RunningConfig() {}

    /**
     * @param inForce the CONFIG_DB last applied or reconfigured.
     * @param tm its traffic-manager config (which queue and PG uses which profile).
     * @param base the knobs {@code inForce} gives.
     * @param live the knobs in force.
     * @return {@code inForce} with the knobs that differ from {@code base} written into it ({@code inForce} itself
     *     when none differs).
     */
    static ConfigDb render(
            final ConfigDb inForce, final TmConfig tm, final RuntimeKnobs.Values base, final RuntimeKnobs.Values live) {
        if (java.util.Arrays.deepEquals(base.values(), live.values())) {
            return inForce;
        }
        final Map<String, Map<String, Map<String, String>>> tables = renderedTables(inForce);
        final int ports = live.size(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS);
        for (final PortConfig p : tm.ports()) {
            if (p.index() >= ports) {
                continue;
            }
            for (int i = 0; i < 8; i++) {
                final int qi = p.index() * 8 + i;
                final String wred = p.queueWredProfile()[i];
                if (wred != null && wredDiffers(base, live, qi)) {
                    final Map<String, String> fields =
                            derive(tables, tm, "WRED_PROFILE", "QUEUE", "wred_profile", wred, p, i);
                    for (int colour = 0; colour < 3; colour++) {
                        for (int f = 0; f < 3; f++) {
                            fields.put(
                                    COLOURS[colour] + WRED_SUFFIXES[f],
                                    Long.toString(live.value(RuntimeKnob.wred(colour, f), qi)));
                        }
                    }
                }
                final String pg = p.pgProfile()[i];
                if (pg != null
                        && live.applicable(RuntimeKnob.PFC_XOFF_BYTES, qi)
                        && (differs(base, live, RuntimeKnob.PFC_XOFF_BYTES, qi)
                                || differs(base, live, RuntimeKnob.PFC_XON_BYTES, qi))) {
                    final Map<String, String> fields =
                            derive(tables, tm, "BUFFER_PROFILE", "BUFFER_PG", "profile", pg, p, i);
                    fields.put("xoff", Long.toString(live.value(RuntimeKnob.PFC_XOFF_BYTES, qi)));
                    fields.put("xon", Long.toString(live.value(RuntimeKnob.PFC_XON_BYTES, qi)));
                }
            }
            final int port = p.index();
            if (live.applicable(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, port)) {
                final Map<String, String> wd = tables.computeIfAbsent("PFC_WD", t -> new LinkedHashMap<>())
                        .get(p.name());
                if (wd != null && differs(base, live, RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, port)) {
                    wd.put("detection_time", Long.toString(live.value(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, port)));
                }
                if (wd != null && differs(base, live, RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS, port)) {
                    final long restoration = live.value(RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS, port);
                    if (restoration == 0) {
                        // 0 = never restore; CONFIG_DB says that by leaving the field out.
                        wd.remove("restoration_time");
                    } else {
                        wd.put("restoration_time", Long.toString(restoration));
                    }
                }
            }
        }
        if (differs(base, live, RuntimeKnob.HASH_SEED, 0)) {
            tables.computeIfAbsent("SWITCH_HASH", t -> new LinkedHashMap<>())
                    .computeIfAbsent("GLOBAL", k -> new LinkedHashMap<>())
                    .put("ecmp_hash_seed", Long.toString(live.value(RuntimeKnob.HASH_SEED, 0)));
        }
        final java.util.Set<String> lists = new java.util.HashSet<>();
        for (final String list : inForce.listValues()) {
            if (tables.containsKey(list.substring(0, list.indexOf('|')))) {
                lists.add(list);
            }
        }
        return inForce.withTables(tables, lists, inForce.fromJson());
    }

    /** The tables a rendering may change (the knobs' tables), copied mutable; the others stay shared. */
    private static final List<String> RENDERED =
            List.of("WRED_PROFILE", "QUEUE", "BUFFER_PROFILE", "BUFFER_PG", "PFC_WD", "SWITCH_HASH");

    private static Map<String, Map<String, Map<String, String>>> renderedTables(final ConfigDb db) {
        final Map<String, Map<String, Map<String, String>>> out = new LinkedHashMap<>();
        for (final String table : RENDERED) {
            final Map<String, Map<String, String>> keys = db.tables().get(table);
            if (keys != null) {
                final Map<String, Map<String, String>> k = new LinkedHashMap<>();
                keys.forEach((key, fields) -> k.put(key, new LinkedHashMap<>(fields)));
                out.put(table, k);
            }
        }
        return out;
    }

    private static boolean differs(
            final RuntimeKnobs.Values a, final RuntimeKnobs.Values b, final RuntimeKnob k, final int index) {
        return a.value(k, index) != b.value(k, index);
    }

    private static boolean wredDiffers(final RuntimeKnobs.Values a, final RuntimeKnobs.Values b, final int qi) {
        for (int colour = 0; colour < 3; colour++) {
            for (int f = 0; f < 3; f++) {
                if (differs(a, b, RuntimeKnob.wred(colour, f), qi)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Gives one queue (or PG) a profile of its own: the one it already has when nothing else uses it and it is
     * named as derived for it, else a new copy of its profile, and points its key at it.
     *
     * @return the derived profile's fields (mutable, in {@code tables}).
     */
    private static Map<String, String> derive(
            final Map<String, Map<String, Map<String, String>>> tables,
            final TmConfig tm,
            final String profileTable,
            final String assignTable,
            final String field,
            final String profile,
            final PortConfig port,
            final int index) {
        final Map<String, Map<String, String>> profiles =
                tables.computeIfAbsent(profileTable, t -> new LinkedHashMap<>());
        final String suffix = "." + port.name() + "." + index;
        if (profile.endsWith(suffix) && users(tm, assignTable, profile) == 1 && profiles.containsKey(profile)) {
            return profiles.get(profile);
        }
        String name = profile + suffix;
        for (int n = 2; profiles.containsKey(name); n++) {
            name = profile + suffix + "_" + n;
        }
        final Map<String, String> fields = new LinkedHashMap<>(profiles.getOrDefault(profile, Map.of()));
        profiles.put(name, fields);
        pointAt(
                tables.computeIfAbsent(assignTable, t -> new LinkedHashMap<>()),
                field,
                profileTable,
                port.name(),
                index,
                name);
        return fields;
    }

    /** How many queues (QUEUE) or PGs (BUFFER_PG) use a profile. */
    private static int users(final TmConfig tm, final String assignTable, final String profile) {
        int n = 0;
        for (final PortConfig p : tm.ports()) {
            final String[] names = assignTable.equals("QUEUE") ? p.queueWredProfile() : p.pgProfile();
            for (final String s : names) {
                if (profile.equals(s)) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Points one port's index at a profile: the key that covers it (the last with the field, as the parser reads
     * them) is split into the other ports' key, the port's indexes below and above, and the port's own index.
     */
    private static void pointAt(
            final Map<String, Map<String, String>> table,
            final String field,
            final String profileTable,
            final String port,
            final int index,
            final String profile) {
        String covering = null;
        for (final Map.Entry<String, Map<String, String>> e : table.entrySet()) {
            final IndexedKey k = IndexedKey.parse(e.getKey());
            if (k != null
                    && k.ports().contains(port)
                    && k.covers(index)
                    && e.getValue().containsKey(field)) {
                covering = e.getKey();
            }
        }
        if (covering == null) {
            return;
        }
        final Map<String, String> fields = table.get(covering);
        final String old = fields.get(field);
        final String reference =
                old != null && old.startsWith("[") ? "[" + profileTable + "|" + profile + "]" : profile;
        final IndexedKey k = IndexedKey.parse(covering);
        final List<String> others = new ArrayList<>(k.ports());
        others.remove(port);
        final Map<String, Map<String, String>> replacement = new LinkedHashMap<>();
        if (!others.isEmpty()) {
            replacement.put(
                    String.join(",", others) + "|" + IndexedKey.range(k.low(), k.high()), new LinkedHashMap<>(fields));
        }
        if (index > k.low()) {
            replacement.put(port + "|" + IndexedKey.range(k.low(), index - 1), new LinkedHashMap<>(fields));
        }
        final Map<String, String> own = new LinkedHashMap<>(fields);
        own.put(field, reference);
        replacement.put(port + "|" + index, own);
        if (index < k.high()) {
            replacement.put(port + "|" + IndexedKey.range(index + 1, k.high()), new LinkedHashMap<>(fields));
        }
        final Map<String, Map<String, String>> rebuilt = new LinkedHashMap<>();
        for (final Map.Entry<String, Map<String, String>> e : table.entrySet()) {
            if (e.getKey().equals(covering)) {
                replacement.forEach((key, value) -> rebuilt.merge(key, value, (a, b) -> {
                    a.putAll(b);
                    return a;
                }));
            } else {
                rebuilt.merge(e.getKey(), e.getValue(), (a, b) -> {
                    a.putAll(b);
                    return a;
                });
            }
        }
        table.clear();
        table.putAll(rebuilt);
    }

    public static Map<String, Map<String, Map<String, String>>> mutableCopy(final ConfigDb db) {
        final Map<String, Map<String, Map<String, String>>> out = new LinkedHashMap<>();
        db.tables().forEach((table, keys) -> {
            final Map<String, Map<String, String>> k = new LinkedHashMap<>();
            keys.forEach((key, fields) -> k.put(key, new LinkedHashMap<>(fields)));
            out.put(table, k);
        });
        return out;
    }

    /**
     * A QUEUE / BUFFER_PG / BUFFER_QUEUE key: {@code <port>[,<port>…]|<index or low-high>} (the traffic manager's
     * parser reads them the same way: the last {@code |} separates the index range).
     */
    record IndexedKey(List<String> ports, int low, int high) {
        static IndexedKey parse(final String key) {
            final int bar = key.lastIndexOf('|');
            if (bar < 0) {
                return null;
            }
            final String r = key.substring(bar + 1);
            final int dash = r.indexOf('-');
            try {
                final int low = Integer.parseInt(dash < 0 ? r : r.substring(0, dash));
                final int high = dash < 0 ? low : Integer.parseInt(r.substring(dash + 1));
                return new IndexedKey(List.of(key.substring(0, bar).split(",")), low, high);
            } catch (final NumberFormatException e) {
                return null;
            }
        }

        boolean covers(final int index) {
            return index >= low && index <= high;
        }

        static String range(final int low, final int high) {
            return low == high ? Integer.toString(low) : low + "-" + high;
        }
    }
}
