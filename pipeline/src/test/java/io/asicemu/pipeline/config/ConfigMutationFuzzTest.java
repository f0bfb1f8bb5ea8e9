package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Structured config mutation (issue 14): the shipped configs with fields deleted, values replaced by hostile text,
 * unknown fields and tables added, keys mangled and tables dropped, applied whole to a pipeline. Every result either
 * loads or is refused with a {@link io.asicemu.config.ConfigException} naming where; no other exception escapes
 * any of the three section parsers (pipeline, traffic manager, flowlets).
 */
class ConfigMutationFuzzTest {
    private static final List<Path> SEEDS = List.of(
            Path.of("../switchd/src/main/resources/io/asicemu/switchd/demo/config_db.json"),
            Path.of("../docker/labs/leaf-spine/configs/leaf1.json"),
            Path.of("src/test/resources/io/asicemu/pipeline/replay/lossless_incast_config_db.json"));

    private static final List<String> HOSTILE = List.of(
            "",
            " ",
            "-1",
            "0",
            "abc",
            "99999999999999999999",
            "4294967296",
            "9223372036854775808",
            "1e3",
            "0x10",
            "NaN",
            "true",
            "1.5",
            "ÿ",
            "Ethernet9999",
            "10.0.0.1/33",
            "02:00:00:00:00",
            "3-",
            "-3",
            "0-7",
            "1,,2",
            "../../x",
            "[\"a\"]",
            "\u0000");

    enum Kind {
        DELETE_FIELD,
        REPLACE_VALUE,
        ADD_FIELD,
        ADD_TABLE,
        MANGLE_KEY,
        DROP_TABLE,
        DROP_KEY
    }

    record Mutation(Kind kind, int table, int key, int field, int value) {}

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Mutation> one = Combinators.combine(
                        Arbitraries.of(Kind.class),
                        Arbitraries.integers().between(0, 10_000),
                        Arbitraries.integers().between(0, 10_000),
                        Arbitraries.integers().between(0, 10_000),
                        Arbitraries.integers().between(0, 10_000))
                .as(Mutation::new);
        return one.list().ofMinSize(1).ofMaxSize(4);
    }

    @Property(tries = 300)
    void everyMutatedConfigLoadsOrIsRefusedNamingWhere(
            @ForAll("mutations") List<Mutation> mutations, @ForAll("seeds") Path seed) {
        final Map<String, Map<String, Map<String, String>>> tables =
                deepCopy(ConfigDb.load(seed).tables());
        for (final Mutation m : mutations) {
            apply(tables, m);
        }
        final ConfigDb db = new ConfigDb(tables);
        final ManualClock clock = new ManualClock(0);
        try (Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of())) {
            try {
                SwitchConfig.of(pipeline.control()).applyConfig(db);
            } catch (final io.asicemu.config.ConfigException e) {
                assertThat(e.getMessage()).as("a refusal names where").isNotBlank();
                assertThat(e.table() + e.key() + e.field() + e.reason()).isNotBlank();
            }
        }
    }

    @Provide
    Arbitrary<Path> seeds() {
        return Arbitraries.of(SEEDS);
    }

    private static void apply(final Map<String, Map<String, Map<String, String>>> tables, final Mutation m) {
        final List<String> names = new ArrayList<>(tables.keySet());
        if (m.kind() == Kind.ADD_TABLE || names.isEmpty()) {
            tables.put(
                    "NO_SUCH_TABLE_" + m.table() % 3,
                    new LinkedHashMap<>(Map.of("k", new LinkedHashMap<>(Map.of("f", "v")))));
            return;
        }
        final String table = names.get(m.table() % names.size());
        if (m.kind() == Kind.DROP_TABLE) {
            tables.remove(table);
            return;
        }
        final Map<String, Map<String, String>> rows = tables.get(table);
        final List<String> keys = new ArrayList<>(rows.keySet());
        if (keys.isEmpty()) {
            return;
        }
        final String key = keys.get(m.key() % keys.size());
        switch (m.kind()) {
            case DROP_KEY -> rows.remove(key);
            case MANGLE_KEY -> {
                final Map<String, String> row = rows.remove(key);
                rows.put(key + HOSTILE.get(m.value() % HOSTILE.size()), row);
            }
            default -> {
                final Map<String, String> row = rows.get(key);
                final List<String> fields = new ArrayList<>(row.keySet());
                final String hostile = HOSTILE.get(m.value() % HOSTILE.size());
                if (m.kind() == Kind.ADD_FIELD || fields.isEmpty()) {
                    row.put("no_such_field_" + m.field() % 3, hostile);
                    return;
                }
                final String field = fields.get(m.field() % fields.size());
                if (m.kind() == Kind.DELETE_FIELD) {
                    row.remove(field);
                } else {
                    row.put(field, hostile);
                }
            }
        }
    }

    private static Map<String, Map<String, Map<String, String>>> deepCopy(
            final Map<String, Map<String, Map<String, String>>> tables) {
        final Map<String, Map<String, Map<String, String>>> copy = new LinkedHashMap<>();
        tables.forEach((t, rows) -> {
            final Map<String, Map<String, String>> r = new LinkedHashMap<>();
            rows.forEach((k, fields) -> r.put(k, new LinkedHashMap<>(fields)));
            copy.put(t, r);
        });
        return copy;
    }
}
