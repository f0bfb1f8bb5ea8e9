package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.control.PipelineControl;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A CONFIG_DB edit confined to the engines' tables and to ports' admin status and MTU is compiled in place
 * ({@link ConfigCompiler#recompileSettings}: the config's routes and tables stay the objects they were) and must do
 * exactly what a whole compile does: random single-field edits (WRED thresholds and probabilities, a queue's profile,
 * PFC_WD times, the hash seed, PORT admin_status and mtu, valid and invalid values) applied one after another to a
 * running switch with static routes end, after every edit, in the knob values and port states that a fresh switch
 * given that edit's config whole has; an edit a whole compile refuses is refused with the same message and changes
 * nothing.
 */
class SettingsEditPropertyTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up", "mtu": "9100"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}, "172.16.0.0/12": {"nexthop": "10.0.1.2"}},
         "WRED_PROFILE": {
           "W1": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "40000",
                  "green_max_threshold": "80000", "green_drop_probability": "10"},
           "W2": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "100000",
                  "green_max_threshold": "200000", "green_drop_probability": "5"}},
         "QUEUE": {"Ethernet0,Ethernet4|3-4": {"wred_profile": "W1"}},
         "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "2000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "100000",
                                         "xoff": "50000", "xon": "20000"}},
         "BUFFER_PG": {"Ethernet0,Ethernet4|3": {"profile": "lossless"}},
         "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}},
         "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"},
                    "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "400"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_hash": ["SRC_IP", "DST_IP"], "ecmp_hash_seed": "7"}}}""";

    /** One field set (or removed, value null) in one key. */
    record Edit(String table, String key, String field, String value) {}

    @Provide
    Arbitrary<List<Edit>> edits() {
        final Arbitrary<String> numbers = Arbitraries.oneOf(
                Arbitraries.integers().between(0, 300_000).map(String::valueOf),
                Arbitraries.of("-1", "abc", "", "4294967296", "1e5"));
        final Arbitrary<Edit> wred = Combinators.combine(
                        Arbitraries.of("W1", "W2"),
                        Arbitraries.of("green_min_threshold", "green_max_threshold", "green_drop_probability"),
                        numbers)
                .as((key, field, value) -> new Edit("WRED_PROFILE", key, field, value));
        final Arbitrary<Edit> queue = Arbitraries.of("W1", "W2", "W3")
                .map(p -> new Edit("QUEUE", "Ethernet0,Ethernet4|3-4", "wred_profile", p));
        final Arbitrary<Edit> watchdog = Combinators.combine(
                        Arbitraries.of("detection_time", "restoration_time"), numbers)
                .as((field, value) -> new Edit("PFC_WD", "Ethernet0", field, value));
        final Arbitrary<Edit> pg = Combinators.combine(Arbitraries.of("xoff", "xon"), numbers)
                .as((field, value) -> new Edit("BUFFER_PROFILE", "lossless", field, value));
        final Arbitrary<Edit> seed = numbers.map(v -> new Edit("SWITCH_HASH", "GLOBAL", "ecmp_hash_seed", v));
        final Arbitrary<Edit> port = Combinators.combine(
                        Arbitraries.of("Ethernet0", "Ethernet4"),
                        Arbitraries.of("admin_status", "mtu"),
                        Arbitraries.of("up", "down", "sideways", "1500", "9100", "68", "70000", null))
                .as((key, field, value) -> new Edit("PORT", key, field, value));
        return Arbitraries.oneOf(wred, queue, watchdog, pg, seed, port)
                .list()
                .ofMinSize(1)
                .ofMaxSize(12);
    }

    @Property(tries = 40)
    void settingsEditsDoWhatAWholeCompileDoes(@ForAll("edits") final List<Edit> edits) {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            final SwitchConfig config = SwitchConfig.of(control);
            final Object routes = config.inForceSetup().routes();
            for (final Edit edit : edits) {
                final ConfigDb running = config.runningConfig();
                final ConfigDb next = edited(running, edit);
                String whole = null;
                try {
                    ConfigCompiler.compile(next, control.sizing(), Map.of());
                } catch (final ConfigException e) {
                    whole = e.getMessage();
                }
                String inPlace = null;
                try {
                    config.reconfigure(next);
                } catch (final ConfigException e) {
                    inPlace = e.getMessage();
                }
                sw.run();
                if (whole != null) {
                    assertThat(inPlace)
                            .as("%s: refused as a whole compile refuses it", edit)
                            .isEqualTo(whole);
                }
                if (inPlace != null) {
                    assertThat(config.runningConfig())
                            .as("%s refused: nothing changed", edit)
                            .isEqualTo(running);
                    continue;
                }
                assertThat(config.inForceSetup().routes())
                        .as("%s: compiled in place, the routes not compiled again", edit)
                        .isSameAs(routes);
                try (SwitchFixture fresh = new SwitchFixture(json(next))) {
                    final PipelineControl f = fresh.pipeline.control();
                    assertThat(control.runtimeKnobs().snapshot().values())
                            .as("%s: the knobs a fresh switch has", edit)
                            .isDeepEqualTo(f.runtimeKnobs().snapshot().values());
                    for (final String p : List.of("Ethernet0", "Ethernet4")) {
                        final int i = control.portIndex(p);
                        assertThat(sw.pipeline.agent().tables().portAdminUp(i))
                                .as("%s: %s admin state", edit, p)
                                .isEqualTo(fresh.pipeline.agent().tables().portAdminUp(i));
                        assertThat(sw.pipeline.agent().tables().portMtu(i))
                                .as("%s: %s MTU", edit, p)
                                .isEqualTo(fresh.pipeline.agent().tables().portMtu(i));
                    }
                }
            }
        }
    }

    @Test
    void aRouteEditIsCompiledWholeAndASpeedChangeStillNeedsAReload() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final SwitchConfig config = SwitchConfig.of(sw.pipeline.control());
            final Object routes = config.inForceSetup().routes();
            config.reconfigure(
                    edited(config.runningConfig(), new Edit("STATIC_ROUTE", "10.9.0.0/16", "nexthop", "10.0.1.2")));
            assertThat(config.inForceSetup().routes()).isNotSameAs(routes).hasSize(((Map<?, ?>) routes).size() + 1);
            assertThatThrownBy(() -> config.reconfigure(
                            edited(config.runningConfig(), new Edit("PORT", "Ethernet4", "speed", "25000"))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("PORT|Ethernet4|speed")
                    .hasMessageContaining("needs config reload");
        }
    }

    /** The running config with one edit, the other tables shared (as the Redis front's edits make it). */
    private static ConfigDb edited(final ConfigDb running, final Edit edit) {
        final Map<String, Map<String, String>> keys = new LinkedHashMap<>(running.table(edit.table()));
        final Map<String, String> fields = new LinkedHashMap<>(keys.getOrDefault(edit.key(), Map.of()));
        if (edit.value() == null) {
            fields.remove(edit.field());
        } else {
            fields.put(edit.field(), edit.value());
        }
        keys.put(edit.key(), fields);
        final Set<String> lists = new java.util.HashSet<>();
        for (final String l : running.listValues()) {
            if (l.startsWith(edit.table() + "|")) {
                lists.add(l);
            }
        }
        return running.withTables(Map.of(edit.table(), keys), lists, running.fromJson());
    }

    /** A store as config_db.json (list values as arrays). */
    private static String json(final ConfigDb db) {
        final StringBuilder out = new StringBuilder("{");
        db.tables().forEach((table, keys) -> {
            out.append(out.length() > 1 ? "," : "").append(quote(table)).append(":{");
            final int t = out.length();
            keys.forEach((key, fields) -> {
                out.append(out.length() > t ? "," : "").append(quote(key)).append(":{");
                final int k = out.length();
                fields.forEach((field, value) -> {
                    out.append(out.length() > k ? "," : "").append(quote(field)).append(':');
                    if (db.isList(table, key, field)) {
                        out.append('[');
                        final String[] items = value.split(",");
                        for (int i = 0; i < items.length; i++) {
                            out.append(i > 0 ? "," : "").append(quote(items[i]));
                        }
                        out.append(']');
                    } else {
                        out.append(quote(value));
                    }
                });
                out.append('}');
            });
            out.append('}');
        });
        return out.append('}').toString();
    }

    private static String quote(final String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
