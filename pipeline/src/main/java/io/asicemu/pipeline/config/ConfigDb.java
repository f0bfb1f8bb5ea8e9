package io.asicemu.pipeline.config;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The raw CONFIG_DB, shaped as SONiC stores it: table → key → field → value, every value a string (list fields, JSON
 * arrays in config_db.json, become one comma-joined string, as Redis stores {@code field@}). Immutable; the traffic
 * manager and flowlet engines parse their own tables from {@link #tables()}.
 *
 * @param tables table → key → field → value.
 * @param listValues {@code TABLE|key|field} of the values that were JSON arrays.
 * @param fromJson whether it was parsed from config_db.json (so {@link #listValues} says which values were lists).
 */
public record ConfigDb(Map<String, Map<String, Map<String, String>>> tables, Set<String> listValues, boolean fromJson) {
    /** The largest config_db.json read (a real switch's is well under 1 MiB; /dev/zero must not fill the heap). */
    public static final long MAX_FILE_BYTES = 64L << 20;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * A store built in code: the JSON shape of its values (string or array) is unknown and not checked.
     *
     * @param tables table → key → field → value.
     */
    public ConfigDb(final Map<String, Map<String, Map<String, String>>> tables) {
        this(tables, Set.of(), false);
    }

    /** Copies deeply and freezes. */
    public ConfigDb {
        listValues = Set.copyOf(listValues);
        final Map<String, Map<String, Map<String, String>>> copy = new LinkedHashMap<>();
        tables.forEach((table, keys) -> {
            final Map<String, Map<String, String>> k = new LinkedHashMap<>();
            keys.forEach((key, fields) -> k.put(key, Collections.unmodifiableMap(new LinkedHashMap<>(fields))));
            copy.put(table, Collections.unmodifiableMap(k));
        });
        tables = Collections.unmodifiableMap(copy);
    }

    /**
     * @param table a table name.
     * @return its keys (empty if absent).
     */
    public Map<String, Map<String, String>> table(final String table) {
        return tables.getOrDefault(table, Map.of());
    }

    /**
     * @param table a table.
     * @param key a key.
     * @param field a field.
     * @return whether the value was a JSON array in config_db.json (SONiC's leaf-lists).
     */
    public boolean isList(final String table, final String key, final String field) {
        return listValues.contains(table + "|" + key + "|" + field);
    }

    /**
     * Reads a config_db.json file.
     *
     * @param file the file.
     * @return the store.
     * @throws ConfigException if the JSON is not shaped as CONFIG_DB.
     */
    public static ConfigDb load(final Path file) {
        try {
            final long size = Files.size(file);
            if (size > MAX_FILE_BYTES || !Files.isRegularFile(file)) {
                throw new ConfigException(
                        "", "", "", file + " is not a regular file of at most " + MAX_FILE_BYTES + " bytes");
            }
            return parse(Files.readString(file));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses config_db.json text.
     *
     * @param json the text.
     * @return the store.
     * @throws ConfigException if the JSON is not shaped as CONFIG_DB.
     */
    public static ConfigDb parse(final String json) {
        final JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (final com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ConfigException(
                    "",
                    "",
                    "",
                    "not valid JSON: " + e.getOriginalMessage()
                            + (e.getLocation() == null
                                    ? ""
                                    : " at line " + e.getLocation().getLineNr()));
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException("", "", "", "config_db.json must be an object of tables");
        }
        final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>();
        final Set<String> lists = new HashSet<>();
        for (final Map.Entry<String, JsonNode> table : root.properties()) {
            if (!table.getValue().isObject()) {
                throw new ConfigException(table.getKey(), "", "", "a table must be an object of keys");
            }
            final Map<String, Map<String, String>> keys = new LinkedHashMap<>();
            for (final Map.Entry<String, JsonNode> key : table.getValue().properties()) {
                if (!key.getValue().isObject()) {
                    throw new ConfigException(table.getKey(), key.getKey(), "", "a key must be an object of fields");
                }
                final Map<String, String> fields = new LinkedHashMap<>();
                for (final Map.Entry<String, JsonNode> field : key.getValue().properties()) {
                    fields.put(field.getKey(), text(table.getKey(), key.getKey(), field.getKey(), field.getValue()));
                    if (field.getValue().isArray()) {
                        lists.add(table.getKey() + "|" + key.getKey() + "|" + field.getKey());
                    }
                }
                keys.put(key.getKey(), fields);
            }
            tables.put(table.getKey(), keys);
        }
        return new ConfigDb(tables, lists, true);
    }

    private static String text(final String table, final String key, final String field, final JsonNode value) {
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isArray()) {
            final StringBuilder joined = new StringBuilder();
            for (final JsonNode item : value) {
                if (!item.isTextual()) {
                    throw new ConfigException(table, key, field, "list items must be strings: " + item);
                }
                if (!joined.isEmpty()) {
                    joined.append(',');
                }
                joined.append(item.asText());
            }
            return joined.toString();
        }
        // CONFIG_DB holds strings (Redis hashes): a JSON number or boolean is a hand-written config's mistake, and
        // reading it as text would hide it (a speed of 1e5 is not "100000").
        throw new ConfigException(table, key, field, "values must be strings (CONFIG_DB holds strings), not " + value);
    }
}
