package io.asicemu.pipeline.config;

import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.pipeline.control.RuntimeKnobs;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.control.TableException;
import io.asicemu.tm.config.BufferProfileConfig;
import io.asicemu.tm.config.PortConfig;
import io.asicemu.tm.config.TmConfig;
import io.asicemu.tm.config.WredProfileConfig;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a running-config change ({@link SwitchConfig#reconfigure}) does: compares the CONFIG_DB in force (as
 * {@link RunningConfig} renders it) with a validated next one and stages the difference in a {@link TableBatch} as
 * the same knob changes a P4Runtime register write makes, or refuses it, naming {@code TABLE|key|field}, when the
 * difference is in a field the running switch cannot change.
 * <p>
 * Changed at run time: WRED_PROFILE thresholds and drop probabilities, QUEUE {@code wred_profile} (between profiles
 * with the same ECN mode and WRED enables), BUFFER_PROFILE {@code xoff}/{@code xon} and BUFFER_PG {@code profile}
 * (between profiles that differ only there), PFC_WD {@code detection_time}/{@code restoration_time} of a watched
 * port, SWITCH_HASH {@code ecmp_hash_seed}, PORT {@code admin_status}/{@code mtu} (staged by {@code
 * PipelineControl.stagePortSettings}); the tables in {@link #STAGED_BY_PARTS} (routes, neighbors, interfaces, VLANs,
 * the ACL, the QoS maps) are staged object by object by the parts. Every other difference needs a config reload ({@link #reloadReason}
 * says whether SONiC needs one too or asic-emu does not apply that table at run time yet); docs/CONFIG.md keeps the
 * list.
 * <p>
 * Stateless; the control thread.
 */
final class ConfigChanges {
    /** Tables whose keys are {@code <port>[,<port>…]|<index range>}: compared per port and index. */
    private static final Set<String> INDEXED = Set.of("QUEUE", "BUFFER_PG", "BUFFER_QUEUE");
    /**
     * Tables whose differences the parts of the control model stage themselves, object by object
     * ({@link L3ConfigChanges}, {@link L2ConfigChanges}; the ACL whole, {@code PipelineControl.stageAcl}), rather
     * than field by field here.
     */
    static final Set<String> STAGED_BY_PARTS = Set.of(
            "STATIC_ROUTE",
            "NEIGH",
            "INTERFACE",
            "VLAN_INTERFACE",
            "LOOPBACK_INTERFACE",
            "ACL_TABLE",
            "ACL_RULE",
            "VLAN",
            "VLAN_MEMBER",
            "DSCP_TO_TC_MAP",
            "DOT1P_TO_TC_MAP",
            "TC_TO_QUEUE_MAP");

    /** The QoS map tables the pipeline alone reads (TC_TO_PRIORITY_GROUP_MAP is the traffic manager's too). */
    static final List<String> QOS_MAP_TABLES = List.of("DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP");

    /** The PORT_QOS_MAP fields that name them. */
    static final Set<String> QOS_MAP_FIELDS = Set.of("dscp_to_tc_map", "dot1p_to_tc_map", "tc_to_queue_map");

    /** PORT_QOS_MAP reduced to the fields naming the pipeline's maps: key → those fields. */
    static Map<String, Map<String, String>> qosMapFields(final ConfigDb db) {
        final Map<String, Map<String, String>> out = new LinkedHashMap<>();
        db.table("PORT_QOS_MAP").forEach((key, fields) -> {
            final Map<String, String> kept = new LinkedHashMap<>(fields);
            kept.keySet().retainAll(QOS_MAP_FIELDS);
            if (!kept.isEmpty()) {
                out.put(key, kept);
            }
        });
        return out;
    }

    private ConfigChanges() {}

    /**
     * Checks that every difference between {@code current} and {@code next} can be made at run time and stages the
     * knob changes that make it.
     *
     * @param current the CONFIG_DB in force, with runtime writes rendered in it.
     * @param currentTm the traffic-manager config of the configuration last applied (profile enables, ECN modes).
     * @param next the next CONFIG_DB (validated: it compiled).
     * @param nextTm its traffic-manager config.
     * @param live the knobs in force.
     * @param target the knobs {@code next} gives.
     * @param batch receives the changes.
     * @throws ConfigException naming the first field that cannot change at run time.
     */
    static void stage(
            final ConfigDb current,
            final TmConfig currentTm,
            final ConfigDb next,
            final TmConfig nextTm,
            final RuntimeKnobs live,
            final RuntimeKnobs target,
            final TableBatch batch) {
        compareFields(current, next);
        compareQueuesAndPgs(currentTm, nextTm);
        for (final RuntimeKnob k :
                new RuntimeKnob[] {RuntimeKnob.PFC_XOFF_BYTES, RuntimeKnob.PFC_WATCHDOG_DETECTION_MS}) {
            for (int i = 0; i < live.size(k); i++) {
                if (live.applicable(k, i) != target.applicable(k, i)) {
                    // Caught by the field comparison above for every config the parsers accept; kept as the
                    // model's own guard.
                    throw new ConfigException(
                            k == RuntimeKnob.PFC_XOFF_BYTES ? "BUFFER_PG" : "PFC_WD",
                            "",
                            "",
                            "needs config reload: " + k + " " + i + " would change whether it can be tuned");
                }
            }
        }
        try {
            stageKnobs(live, target, batch);
        } catch (final TableException e) {
            throw new ConfigException("", "", "", "refused by the control model: " + e.getMessage());
        }
    }

    private static void stageKnobs(final RuntimeKnobs live, final RuntimeKnobs target, final TableBatch batch) {
        final int queues = live.size(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES);
        for (int qi = 0; qi < queues; qi++) {
            for (int colour = 0; colour < 3; colour++) {
                final RuntimeKnob min = RuntimeKnob.wred(colour, 0);
                final RuntimeKnob max = RuntimeKnob.wred(colour, 1);
                final RuntimeKnob prob = RuntimeKnob.wred(colour, 2);
                final long newMin = target.value(min, qi);
                final long newMax = target.value(max, qi);
                final boolean minChanges = newMin != live.value(min, qi);
                final boolean maxChanges = newMax != live.value(max, qi);
                // Kmin ≤ Kmax holds after each update: lowering Kmax under the current Kmin sets Kmin first.
                if (newMax != 0 && newMax < live.value(min, qi)) {
                    setIf(batch, minChanges, min, qi, newMin);
                    setIf(batch, maxChanges, max, qi, newMax);
                } else {
                    setIf(batch, maxChanges, max, qi, newMax);
                    setIf(batch, minChanges, min, qi, newMin);
                }
                setIf(batch, target.value(prob, qi) != live.value(prob, qi), prob, qi, target.value(prob, qi));
            }
        }
        for (final RuntimeKnob k : new RuntimeKnob[] {
            RuntimeKnob.PFC_XOFF_BYTES,
            RuntimeKnob.PFC_XON_BYTES,
            RuntimeKnob.PFC_WATCHDOG_DETECTION_MS,
            RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS,
            RuntimeKnob.HASH_SEED
        }) {
            for (int i = 0; i < live.size(k); i++) {
                if (target.applicable(k, i)) {
                    setIf(batch, target.value(k, i) != live.value(k, i), k, i, target.value(k, i));
                }
            }
        }
    }

    private static void setIf(
            final TableBatch batch, final boolean changes, final RuntimeKnob k, final int index, final long value) {
        if (changes) {
            batch.setKnob(k, index, value);
        }
    }

    /** Whether a field's change is made at run time (compared per queue/PG below, or staged as a knob). */
    private static boolean live(final String table, final String field) {
        return switch (table) {
            case "QUEUE" -> field.equals("wred_profile");
            case "BUFFER_PG" -> field.equals("profile");
            case "BUFFER_PROFILE" -> field.equals("xoff") || field.equals("xon");
            case "PFC_WD" -> field.equals("detection_time") || field.equals("restoration_time");
            case "SWITCH_HASH" -> field.equals("ecmp_hash_seed");
            case "PORT_QOS_MAP" -> QOS_MAP_FIELDS.contains(field);
            case "PORT" -> field.equals("admin_status") || field.equals("mtu"); // PipelineControl.stagePortSettings
            default -> false;
        };
    }

    /**
     * Every field of both configs, except WRED_PROFILE (compared per queue) and BUFFER_PROFILE keys that only one
     * side has (a profile nobody uses changes nothing; one in use is compared per PG or through the fields that
     * reference it).
     */
    private static void compareFields(final ConfigDb current, final ConfigDb next) {
        final Set<String> tables = new LinkedHashSet<>(next.tables().keySet());
        tables.addAll(current.tables().keySet());
        for (final String table : tables) {
            if (table.equals("WRED_PROFILE")
                    || STAGED_BY_PARTS.contains(table)
                    || current.table(table) == next.table(table)) {
                continue; // (the same table, shared by both stores: nothing differs)
            }
            final Map<String, Map<String, String>> a = expand(table, current.table(table));
            final Map<String, Map<String, String>> b = expand(table, next.table(table));
            final Set<String> keys = new LinkedHashSet<>(b.keySet());
            keys.addAll(a.keySet());
            for (final String key : keys) {
                final Map<String, String> fa = a.get(key);
                final Map<String, String> fb = b.get(key);
                if (table.equals("BUFFER_PROFILE") && (fa == null || fb == null)) {
                    continue;
                }
                if ((fa == null || fb == null) && (fa == null ? fb : fa).isEmpty()) {
                    // A key without fields (INTERFACE|Ethernet8, VLAN_MEMBER|…) is itself the setting.
                    throw new ConfigException(
                            table,
                            key,
                            "",
                            "needs config reload: " + (fa == null ? "adding" : "removing") + " this key: "
                                    + reloadReason(table, ""));
                }
                final Map<String, String> before = fa == null ? Map.of() : fa;
                final Map<String, String> after = fb == null ? Map.of() : fb;
                final Set<String> fields = new LinkedHashSet<>(after.keySet());
                fields.addAll(before.keySet());
                for (final String field : fields) {
                    if (!live(table, field) && !Objects.equals(before.get(field), after.get(field))) {
                        throw new ConfigException(
                                table,
                                key,
                                field,
                                "needs config reload: "
                                        + (fa == null ? "adding this key: " : fb == null ? "removing this key: " : "")
                                        + reloadReason(table, field));
                    }
                }
            }
        }
    }

    /** Indexed tables one entry per port and index (as the parser applies them), others as they are. */
    private static Map<String, Map<String, String>> expand(
            final String table, final Map<String, Map<String, String>> keys) {
        if (!INDEXED.contains(table)) {
            return keys;
        }
        final Map<String, Map<String, String>> out = new LinkedHashMap<>();
        keys.forEach((key, fields) -> {
            final RunningConfig.IndexedKey k = RunningConfig.IndexedKey.parse(key);
            if (k == null) {
                out.put(key, fields);
                return;
            }
            for (final String port : k.ports()) {
                for (int i = k.low(); i <= k.high(); i++) {
                    out.computeIfAbsent(port + "|" + i, x -> new LinkedHashMap<>())
                            .putAll(fields);
                }
            }
        });
        return out;
    }

    /**
     * Queues keep their WRED enables and ECN mode, PGs their profile's pool, size and thresholds: only the values the
     * knobs carry may differ.
     */
    private static void compareQueuesAndPgs(final TmConfig currentTm, final TmConfig nextTm) {
        final Map<Integer, PortConfig> nextPorts = new LinkedHashMap<>();
        nextTm.ports().forEach(p -> nextPorts.put(p.index(), p));
        for (final PortConfig a : currentTm.ports()) {
            final PortConfig b = nextPorts.get(a.index());
            if (b == null) {
                throw new ConfigException("PORT", a.name(), "", "needs config reload: " + reloadReason("PORT", ""));
            }
            for (int i = 0; i < 8; i++) {
                final String key = a.name() + "|" + i;
                final String aw = a.queueWredProfile()[i];
                final String bw = b.queueWredProfile()[i];
                final WredProfileConfig wa =
                        aw == null ? null : currentTm.wredProfiles().get(aw);
                final WredProfileConfig wb =
                        bw == null ? null : nextTm.wredProfiles().get(bw);
                if ((wa == null) != (wb == null)) {
                    throw new ConfigException(
                            "QUEUE",
                            key,
                            "wred_profile",
                            "needs config reload: asic-emu turns WRED on or off on a queue only at load");
                }
                if (wa != null) {
                    String field = null;
                    if (wa.ecnMarkColourMask() != wb.ecnMarkColourMask()) {
                        field = "ecn";
                    } else {
                        for (int c = 0; c < 3 && field == null; c++) {
                            if (wa.enabled()[c] != wb.enabled()[c]) {
                                field = "wred_" + RunningConfig.COLOURS[c] + "_enable";
                            }
                        }
                    }
                    if (field != null) {
                        final String why = "needs config reload: asic-emu sets a queue's ECN mode and WRED enables only"
                                + " at load (" + field + " differs)";
                        throw aw.equals(bw)
                                ? new ConfigException("WRED_PROFILE", bw, field, why)
                                : new ConfigException("QUEUE", key, "wred_profile", why);
                    }
                }
                final String ap = a.pgProfile()[i];
                final String bp = b.pgProfile()[i];
                final BufferProfileConfig pa =
                        ap == null ? null : currentTm.profiles().get(ap);
                final BufferProfileConfig pb =
                        bp == null ? null : nextTm.profiles().get(bp);
                final String differing = pa == null || pb == null ? (pa == pb ? null : "") : pgDifference(pa, pb);
                if (differing != null) {
                    final String why = "needs config reload: a PG's buffer profile changes at run time only in xoff and"
                            + " xon" + (differing.isEmpty() ? "" : " (" + differing + " differs)");
                    throw ap != null && ap.equals(bp)
                            ? new ConfigException("BUFFER_PROFILE", bp, differing, why)
                            : new ConfigException("BUFFER_PG", key, "profile", why);
                }
            }
        }
    }

    /** The first BUFFER_PROFILE field other than xoff/xon in which two profiles differ, or null. */
    private static String pgDifference(final BufferProfileConfig a, final BufferProfileConfig b) {
        if (!a.pool().equals(b.pool())) {
            return "pool";
        }
        if (a.sizeBytes() != b.sizeBytes()) {
            return "size";
        }
        if (a.staticThBytes() != b.staticThBytes()) {
            return "static_th";
        }
        if (a.dynamicTh() != b.dynamicTh()) {
            return "dynamic_th";
        }
        if (a.xonOffsetBytes() != b.xonOffsetBytes()) {
            return "xon_offset";
        }
        return null;
    }

    /**
     * Why a field needs a config reload: a real switch needs one too (the port map, the switch identity, the carving
     * of the packet buffer), or asic-emu does not apply that table at run time yet (SONiC's orchagent does).
     */
    static String reloadReason(final String table, final String field) {
        return switch (table) {
            case "DEVICE_METADATA" -> "the switch's identity and role are set at boot, as on SONiC";
            case "PORT" ->
                switch (field) {
                    case "index", "lanes", "alias", "" ->
                        "the port map (ports, index, lanes) is fixed at boot, as on SONiC (port breakout reloads)";
                    default -> "asic-emu does not apply PORT " + field + " at run time yet (SONiC's portsorch does)";
                };
            case "BUFFER_POOL" -> "the packet buffer is carved into pools at boot";
            default -> "asic-emu does not apply " + table + " changes at run time yet";
        };
    }
}
