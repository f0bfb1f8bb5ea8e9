package io.asicemu.flowlet.config;

import io.asicemu.config.ConfigBound;
import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses the CONFIG_DB tables this module owns from the store's plain form ({@code table → key → field → value},
 * all strings) into a {@link FlowletConfig}. List fields are comma-joined strings under the field name with or
 * without Redis's {@code @} suffix. Every value is checked; the first bad one throws {@link FlowletConfigException}
 * naming table, key and field, and nothing is returned. Unknown fields are rejected too (typos must not pass).
 * Stateless; control path only.
 */
public final class FlowletConfigParser {
    public static final String SWITCH_HASH = "SWITCH_HASH";
    public static final String DEVICE_METADATA = "DEVICE_METADATA";
    public static final String ARS_PROFILE = "ARS_PROFILE";
    public static final String ARS_OBJECT = "ARS_OBJECT";
    public static final String ARS_INTERFACES = "ARS_INTERFACES";
    public static final String ARS_NEXTHOP_GROUP = "ARS_NEXTHOP_GROUP";
    private static final String GLOBAL = "GLOBAL";

    private static final Set<String> SWITCH_HASH_FIELDS = Set.of(
            "ecmp_hash",
            "ecmp_hash_algorithm",
            "lag_hash",
            "lag_hash_algorithm",
            "ecmp_hash_rdma",
            "lag_hash_rdma",
            "ecmp_hash_seed",
            "ecmp_hash_offset",
            "lag_hash_seed",
            "lag_hash_offset",
            "ecmp_lb_mode",
            "random_seed");
    private static final Set<String> PROFILE_FIELDS = Set.of(
            "algorithm",
            "ars_nhg_path_selector_mode",
            "ars_lag_path_selector_mode",
            "default_ars_object",
            "max_flows",
            "sampling_interval",
            "past_load_min_value",
            "past_load_max_value",
            "past_load_weight",
            "future_load_min_value",
            "future_load_max_value",
            "future_load_weight",
            "current_load_min_value",
            "current_load_max_value",
            "ipv4_enable",
            "ipv6_enable",
            "ars_random_seed");
    private static final Set<String> OBJECT_FIELDS =
            Set.of("assign_mode", "flowlet_idle_time", "max_flows", "primary_path_threshold", "alternative_path_cost");
    private static final Set<String> INTERFACE_FIELDS = Set.of("scaling_factor", "ars_obj_name");
    private static final Set<String> GROUP_FIELDS = Set.of("ars_obj_name", "lb_mode", "resilient", "resilient_buckets");

    /**
     * The tables this parser owns and the fields it reads in each (DEVICE_METADATA is shared: only {@code type} is
     * read here). The pipeline's config schema refuses any other field of these tables.
     */
    public static final Map<String, Set<String>> FIELDS = Map.of(
            SWITCH_HASH, SWITCH_HASH_FIELDS,
            ARS_PROFILE, PROFILE_FIELDS,
            ARS_OBJECT, OBJECT_FIELDS,
            ARS_INTERFACES, INTERFACE_FIELDS,
            ARS_NEXTHOP_GROUP, GROUP_FIELDS);

    /** SWITCH_HASH fields that are lists in config_db.json (JSON arrays, as SONiC's YANG leaf-lists). */
    public static final Set<String> LIST_FIELDS = Set.of("ecmp_hash", "lag_hash", "ecmp_hash_rdma", "lag_hash_rdma");

    private FlowletConfigParser() {}

    /**
     * Parse and cross-check.
     *
     * @param db tables by name; absent tables take defaults.
     * @return the typed configuration.
     * @throws FlowletConfigException naming the first bad table, key and field.
     */
    public static FlowletConfig parse(final Map<String, Map<String, Map<String, String>>> db) {
        final DeviceRole role = deviceRole(db);
        final SwitchHashConfig switchHash = switchHash(db, role);
        final Map<String, ArsObjectConfig> objects = new HashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                table(db, ARS_OBJECT).entrySet()) {
            objects.put(e.getKey(), arsObject(new Entry(ARS_OBJECT, e.getKey(), e.getValue(), OBJECT_FIELDS)));
        }
        final Map<String, Map<String, String>> profiles = table(db, ARS_PROFILE);
        ArsProfileConfig profile = null;
        for (final Map.Entry<String, Map<String, String>> e : profiles.entrySet()) {
            if (profiles.size() > 1) {
                throw new FlowletConfigException(
                        ARS_PROFILE, e.getKey(), "", "a switch has one ARS profile, found " + profiles.size());
            }
            profile = arsProfile(new Entry(ARS_PROFILE, e.getKey(), e.getValue(), PROFILE_FIELDS), objects);
        }
        final Map<String, ArsInterfaceConfig> interfaces = new HashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                table(db, ARS_INTERFACES).entrySet()) {
            final Entry entry = new Entry(ARS_INTERFACES, e.getKey(), e.getValue(), INTERFACE_FIELDS);
            interfaces.put(
                    e.getKey(),
                    new ArsInterfaceConfig(
                            e.getKey(),
                            (int) entry.longValue("scaling_factor", 1, 1, 1000),
                            entry.reference("ars_obj_name", objects)));
        }
        final Map<String, ArsNextHopGroupConfig> groups = new HashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                table(db, ARS_NEXTHOP_GROUP).entrySet()) {
            final Entry entry = new Entry(ARS_NEXTHOP_GROUP, e.getKey(), e.getValue(), GROUP_FIELDS);
            groups.put(
                    e.getKey(),
                    new ArsNextHopGroupConfig(
                            e.getKey(),
                            entry.reference("ars_obj_name", objects),
                            entry.mode("lb_mode", null),
                            entry.bool("resilient", false),
                            (int) entry.longValue(
                                    "resilient_buckets", GroupSettings.DEFAULT_RESILIENT_BUCKETS, 1, 65_536)));
        }
        return new FlowletConfig(role, switchHash, profile, objects, interfaces, groups);
    }

    private static DeviceRole deviceRole(final Map<String, Map<String, Map<String, String>>> db) {
        final Map<String, String> localhost = table(db, DEVICE_METADATA).get("localhost");
        return DeviceRole.fromDeviceType(localhost == null ? null : localhost.get("type"));
    }

    private static SwitchHashConfig switchHash(
            final Map<String, Map<String, Map<String, String>>> db, final DeviceRole role) {
        final Map<String, Map<String, String>> table = table(db, SWITCH_HASH);
        for (final String key : table.keySet()) {
            if (!GLOBAL.equals(key)) {
                throw new FlowletConfigException(SWITCH_HASH, key, "", "the only key is GLOBAL");
            }
        }
        final Entry e = new Entry(SWITCH_HASH, GLOBAL, table.getOrDefault(GLOBAL, Map.of()), SWITCH_HASH_FIELDS);
        final List<HashField> ecmpHash = e.fields("ecmp_hash", SwitchHashConfig.FIVE_TUPLE, false);
        final List<HashField> lagHash = e.fields("lag_hash", SwitchHashConfig.FIVE_TUPLE, false);
        return new SwitchHashConfig(
                ecmpHash,
                e.algorithm("ecmp_hash_algorithm"),
                lagHash,
                e.algorithm("lag_hash_algorithm"),
                e.fields("ecmp_hash_rdma", withDestQp(ecmpHash), true),
                e.fields("lag_hash_rdma", withDestQp(lagHash), true),
                (int) e.longValue("ecmp_hash_seed", role.hashSeed(), 0, 0xFFFF_FFFFL),
                (int) e.longValue("ecmp_hash_offset", role.hashOffset(), 0, 255),
                (int) e.longValue("lag_hash_seed", role.hashSeed(), 0, 0xFFFF_FFFFL),
                (int) e.longValue("lag_hash_offset", role.hashOffset(), 0, 255),
                e.mode("ecmp_lb_mode", LoadBalanceMode.STATIC_HASH),
                e.longValue("random_seed", 0, Long.MIN_VALUE, Long.MAX_VALUE));
    }

    private static List<HashField> withDestQp(final List<HashField> fields) {
        final List<HashField> rdma = new ArrayList<>(fields);
        rdma.add(HashField.RDMA_BTH_DEST_QP);
        return rdma;
    }

    private static ArsProfileConfig arsProfile(final Entry e, final Map<String, ArsObjectConfig> objects) {
        e.oneOf("algorithm", "ewma", Set.of("ewma"));
        e.oneOf("ars_nhg_path_selector_mode", "interface", Set.of("global", "interface", "nexthop"));
        e.oneOf("ars_lag_path_selector_mode", "interface", Set.of("global", "interface"));
        e.longValue("current_load_min_value", 0, ConfigBound.ARS_LOAD.min(), ConfigBound.ARS_LOAD.max());
        e.longValue("current_load_max_value", 0, ConfigBound.ARS_LOAD.min(), ConfigBound.ARS_LOAD.max());
        final ArsProfileConfig profile = new ArsProfileConfig(
                e.key,
                e.longValue("sampling_interval", 16, 1, 1_000_000),
                e.longValue("past_load_min_value", 0, ConfigBound.ARS_LOAD.min(), ConfigBound.ARS_LOAD.max()),
                e.longValue("past_load_max_value", 0, ConfigBound.ARS_LOAD.min(), ConfigBound.ARS_LOAD.max()),
                (int) e.longValue("past_load_weight", 16, 1, 1_000_000),
                e.longValue("future_load_min_value", 0, ConfigBound.ARS_LOAD.min(), ConfigBound.ARS_LOAD.max()),
                e.longValue("future_load_max_value", 0, ConfigBound.ARS_LOAD.min(), ConfigBound.ARS_LOAD.max()),
                (int) e.longValue("future_load_weight", 16, 1, 1_000_000),
                e.longValue("max_flows", 0, 0, 1 << 20),
                e.reference("default_ars_object", objects),
                e.bool("ipv4_enable", true),
                e.bool("ipv6_enable", true),
                e.longValue("ars_random_seed", 0, 0, 0xFFFF_FFFFL));
        e.range("past_load_min_value", profile.pastLoadMinValue(), "past_load_max_value", profile.pastLoadMaxValue());
        e.range(
                "future_load_min_value",
                profile.futureLoadMinValue(),
                "future_load_max_value",
                profile.futureLoadMaxValue());
        return profile;
    }

    private static ArsObjectConfig arsObject(final Entry e) {
        final String mode = e.oneOf(
                "assign_mode",
                "per_flowlet_quality",
                Set.of("per_flowlet_quality", "per_flowlet_random", "per_packet_random"));
        final LoadBalanceMode assignMode = switch (mode) {
            case "per_flowlet_random" -> LoadBalanceMode.FLOWLET_RANDOM;
            case "per_packet_random" -> LoadBalanceMode.PER_PACKET_SPRAY;
            default -> LoadBalanceMode.FLOWLET_QUALITY;
        };
        return new ArsObjectConfig(
                e.key,
                assignMode,
                e.longValue(
                        "flowlet_idle_time",
                        256,
                        GroupSettings.MIN_IDLE_TIME_NS / 1000,
                        GroupSettings.MAX_IDLE_TIME_NS / 1000),
                (int) e.longValue("max_flows", GroupSettings.DEFAULT_FLOWLET_TABLE_SIZE, 1, 1 << 20),
                (int) e.longValue("primary_path_threshold", 16, 0, 7 * 1024),
                (int) e.longValue("alternative_path_cost", 0, 0, 7 * 1024));
    }

    private static Map<String, Map<String, String>> table(
            final Map<String, Map<String, Map<String, String>>> db, final String name) {
        final Map<String, Map<String, String>> table = db.get(name);
        return table == null ? Map.of() : table;
    }

    /** One entry being parsed: every error names its table, key and field. */
    private static final class Entry {
        private final String table;
        private final String key;
        private final Map<String, String> fields;

        Entry(final String table, final String key, final Map<String, String> fields, final Set<String> known) {
            this.table = table;
            this.key = key;
            this.fields = new HashMap<>();
            for (final Map.Entry<String, String> field : fields.entrySet()) {
                final String name = field.getKey().endsWith("@")
                        ? field.getKey().substring(0, field.getKey().length() - 1)
                        : field.getKey();
                if (!known.contains(name)) {
                    throw error(
                            field.getKey(),
                            "unknown field (known: " + known.stream().sorted().toList() + ")");
                }
                if (field.getValue() == null) {
                    throw error(name, "missing value");
                }
                this.fields.put(name, field.getValue().trim());
            }
        }

        FlowletConfigException error(final String field, final String reason) {
            return new FlowletConfigException(table, key, field, reason);
        }

        long longValue(final String field, final long defaultValue, final long min, final long max) {
            final String value = fields.get(field);
            if (value == null) {
                return defaultValue;
            }
            final long parsed;
            try {
                parsed = Long.parseLong(value);
            } catch (final NumberFormatException ex) {
                throw error(field, "'" + value + "' is not an integer");
            }
            if (parsed < min || parsed > max) {
                throw error(field, value + " is outside " + min + ".." + max);
            }
            return parsed;
        }

        boolean bool(final String field, final boolean defaultValue) {
            final String value = fields.get(field);
            if (value == null) {
                return defaultValue;
            }
            return switch (value) {
                case "true" -> true;
                case "false" -> false;
                default -> throw error(field, "'" + value + "' is not true or false");
            };
        }

        String oneOf(final String field, final String defaultValue, final Set<String> allowed) {
            final String value = fields.getOrDefault(field, defaultValue);
            if (!allowed.contains(value)) {
                throw error(
                        field,
                        "'" + value + "' is not one of "
                                + allowed.stream().sorted().toList());
            }
            return value;
        }

        String reference(final String field, final Map<String, ArsObjectConfig> objects) {
            final String value = fields.get(field);
            if (value != null && !objects.containsKey(value)) {
                throw error(field, "no ARS_OBJECT named '" + value + "'");
            }
            return value;
        }

        LoadBalanceMode mode(final String field, final LoadBalanceMode defaultValue) {
            final String value = fields.get(field);
            if (value == null) {
                return defaultValue;
            }
            final LoadBalanceMode mode = LoadBalanceMode.fromConfigName(value);
            if (mode == null) {
                throw error(
                        field,
                        "'" + value + "' is not one of "
                                + Arrays.stream(LoadBalanceMode.values())
                                        .map(LoadBalanceMode::configName)
                                        .toList());
            }
            return mode;
        }

        HashAlgorithm algorithm(final String field) {
            final String value = fields.get(field);
            if (value == null) {
                return HashAlgorithm.CRC;
            }
            final HashAlgorithm algorithm = HashAlgorithm.fromName(value);
            if (algorithm == null) {
                throw error(field, "'" + value + "' is not one of " + Arrays.toString(HashAlgorithm.values()));
            }
            return algorithm;
        }

        List<HashField> fields(final String field, final List<HashField> defaultValue, final boolean rdmaAllowed) {
            final String value = fields.get(field);
            if (value == null) {
                return defaultValue;
            }
            final List<HashField> list = new ArrayList<>();
            for (final String part : value.split(",", -1)) {
                final String name = part.trim();
                final HashField hashField = HashField.fromName(name);
                if (hashField == null) {
                    throw error(field, "'" + name + "' is not a hash field");
                }
                if (hashField.rdma() && !rdmaAllowed) {
                    throw error(field, name + " is an RDMA field: list it in " + field + "_rdma (our extension)");
                }
                if (list.contains(hashField)) {
                    throw error(field, name + " is listed twice");
                }
                list.add(hashField);
            }
            return list;
        }

        void range(final String minField, final long min, final String maxField, final long max) {
            if (!(min == 0 && max == 0) && max <= min) {
                throw error(maxField, max + " must exceed " + minField + " " + min);
            }
        }
    }
}
