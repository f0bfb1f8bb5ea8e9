package io.asicemu.pipeline.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The raw CONFIG_DB, shaped as SONiC stores it: table → key → field → value, every value a string (list fields, JSON
 * arrays in config_db.json, become one comma-joined string, as Redis stores {@code field@}). Immutable; the traffic
 * manager and flowlet engines parse their own tables from {@link #tables()}.
 *
 * @param tables table → key → field → value.
 */
public record ConfigDb(Map<String, Map<String, Map<String, String>>> tables) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Copies deeply and freezes. */
    public ConfigDb {
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
     * Reads a config_db.json file.
     *
     * @param file the file.
     * @return the store.
     * @throws ConfigException if the JSON is not shaped as CONFIG_DB.
     */
    public static ConfigDb load(final Path file) {
        try {
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
            throw new ConfigException("", "", "", "not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException("", "", "", "config_db.json must be an object of tables");
        }
        final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>();
        for (final Iterator<Map.Entry<String, JsonNode>> t = root.fields(); t.hasNext(); ) {
            final Map.Entry<String, JsonNode> table = t.next();
            if (!table.getValue().isObject()) {
                throw new ConfigException(table.getKey(), "", "", "a table must be an object of keys");
            }
            final Map<String, Map<String, String>> keys = new LinkedHashMap<>();
            for (final Iterator<Map.Entry<String, JsonNode>> k = table.getValue().fields(); k.hasNext(); ) {
                final Map.Entry<String, JsonNode> key = k.next();
                if (!key.getValue().isObject()) {
                    throw new ConfigException(table.getKey(), key.getKey(), "", "a key must be an object of fields");
                }
                final Map<String, String> fields = new LinkedHashMap<>();
                for (final Iterator<Map.Entry<String, JsonNode>> f = key.getValue().fields(); f.hasNext(); ) {
                    final Map.Entry<String, JsonNode> field = f.next();
                    fields.put(field.getKey(), text(table.getKey(), key.getKey(), field.getKey(), field.getValue()));
                }
                keys.put(key.getKey(), fields);
            }
            tables.put(table.getKey(), keys);
        }
        return new ConfigDb(tables);
    }

    private static String text(final String table, final String key, final String field, final JsonNode value) {
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isArray()) {
            final StringBuilder joined = new StringBuilder();
            for (final JsonNode item : value) {
                if (!item.isValueNode()) {
                    throw new ConfigException(table, key, field, "list items must be strings");
                }
                if (!joined.isEmpty()) {
                    joined.append(',');
                }
                joined.append(item.asText());
            }
            return joined.toString();
        }
        if (value.isValueNode() && !value.isNull()) {
            return value.asText();
        }
        throw new ConfigException(table, key, field, "values must be strings");
    }
}
