package io.asicemu.pipeline.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
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

    /**
     * Jackson's streaming parser, not a tree from databind's {@code ObjectMapper}: CONFIG_DB is three levels of objects
     * of strings, and setting up databind (its type factory, date formats, serializer caches) was a third of the CPU the
     * switch's main thread spends from the command line to the data plane (docs/LAB.md session 11).
     */
    private static final JsonFactory JSON = JsonFactory.builder()
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

    /**
     * Copies deeply and freezes, except tables that come frozen from another store ({@link #table}, {@link #tables()}
     * of a {@code ConfigDb}): those are shared, so a store made from another with one table changed costs that table.
     */
    public ConfigDb {
        listValues = Set.copyOf(listValues);
        final Map<String, Map<String, Map<String, String>>> copy = new LinkedHashMap<>();
        tables.forEach((table, keys) -> copy.put(table, FrozenTable.of(keys)));
        tables = Collections.unmodifiableMap(copy);
    }

    /**
     * This store with some tables replaced, the others shared (not copied): what a CONFIG_DB edit costs is the tables
     * it touches, whatever the size of the rest (100k static routes stay one shared table while a WRED profile
     * changes).
     *
     * @param replaced table → its keys → fields, whole (an empty map: an empty table); null removes the table. A new
     *     table comes after the others.
     * @param replacedLists {@code TABLE|key|field} of every list value in the replaced tables (their entries in
     *     {@link #listValues} are dropped, these added).
     * @param json the new store's {@link #fromJson}.
     * @return the new store.
     */
    public ConfigDb withTables(
            final Map<String, Map<String, Map<String, String>>> replaced,
            final Set<String> replacedLists,
            final boolean json) {
        final Map<String, Map<String, Map<String, String>>> next = new LinkedHashMap<>(tables);
        replaced.forEach((table, keys) -> {
            if (keys == null) {
                next.remove(table);
            } else {
                next.put(table, keys);
            }
        });
        final Set<String> lists = new HashSet<>(replacedLists);
        for (final String list : listValues) {
            if (!replaced.containsKey(list.substring(0, list.indexOf('|')))) {
                lists.add(list);
            }
        }
        return new ConfigDb(next, lists, json);
    }

    /**
     * One table, deeply immutable. Only this class makes them, so a table that is one was frozen here and can be
     * shared between stores as it is.
     */
    private static final class FrozenTable extends java.util.AbstractMap<String, Map<String, String>> {
        private final Map<String, Map<String, String>> keys;

        private FrozenTable(final Map<String, Map<String, String>> keys) {
            this.keys = keys;
        }

        static FrozenTable of(final Map<String, Map<String, String>> keys) {
            if (keys instanceof FrozenTable frozen) {
                return frozen;
            }
            final Map<String, Map<String, String>> k = new LinkedHashMap<>();
            keys.forEach((key, fields) -> k.put(key, Collections.unmodifiableMap(new LinkedHashMap<>(fields))));
            return new FrozenTable(Collections.unmodifiableMap(k));
        }

        @Override
        public Map<String, String> get(final Object key) {
            return keys.get(key);
        }

        @Override
        public boolean containsKey(final Object key) {
            return keys.containsKey(key);
        }

        @Override
        public int size() {
            return keys.size();
        }

        @Override
        public Set<String> keySet() {
            return keys.keySet();
        }

        @Override
        public java.util.Collection<Map<String, String>> values() {
            return keys.values();
        }

        @Override
        public Set<Entry<String, Map<String, String>>> entrySet() {
            return keys.entrySet();
        }

        @Override
        public void forEach(final java.util.function.BiConsumer<? super String, ? super Map<String, String>> action) {
            keys.forEach(action);
        }
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
        try (JsonParser parser = JSON.createParser(json)) {
            final JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new ConfigException("", "", "", "config_db.json must be an object of tables");
            }
            final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>();
            final Set<String> lists = new HashSet<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                final String table = parser.currentName();
                if (parser.nextToken() != JsonToken.START_OBJECT) {
                    throw new ConfigException(table, "", "", "a table must be an object of keys");
                }
                final Map<String, Map<String, String>> keys = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    final String key = parser.currentName();
                    if (parser.nextToken() != JsonToken.START_OBJECT) {
                        throw new ConfigException(table, key, "", "a key must be an object of fields");
                    }
                    final Map<String, String> fields = new LinkedHashMap<>();
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        final String field = parser.currentName();
                        final JsonToken value = parser.nextToken();
                        fields.put(field, text(parser, table, key, field));
                        if (value == JsonToken.START_ARRAY) {
                            lists.add(table + "|" + key + "|" + field);
                        }
                    }
                    keys.put(key, fields);
                }
                tables.put(table, keys);
            }
            if (parser.nextToken() != null) {
                throw new ConfigException(
                        "",
                        "",
                        "",
                        "not valid JSON: more after the object of tables at line "
                                + parser.currentTokenLocation().getLineNr());
            }
            return new ConfigDb(tables, lists, true);
        } catch (final JsonProcessingException e) {
            throw new ConfigException(
                    "",
                    "",
                    "",
                    "not valid JSON: " + e.getOriginalMessage()
                            + (e.getLocation() == null
                                    ? ""
                                    : " at line " + e.getLocation().getLineNr()));
        } catch (final IOException e) {
            throw new UncheckedIOException(e); // a String source has nothing to fail but its syntax
        }
    }

    /** The value at the parser's current token as CONFIG_DB's string (a list joined by commas); past it after. */
    private static String text(final JsonParser parser, final String table, final String key, final String field)
            throws IOException {
        final JsonToken value = parser.currentToken();
        if (value == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (value == JsonToken.START_ARRAY) {
            final StringBuilder joined = new StringBuilder();
            for (JsonToken item = parser.nextToken(); item != JsonToken.END_ARRAY; item = parser.nextToken()) {
                if (item != JsonToken.VALUE_STRING) {
                    throw new ConfigException(table, key, field, "list items must be strings: " + shown(parser));
                }
                if (!joined.isEmpty()) {
                    joined.append(',');
                }
                joined.append(parser.getText());
            }
            return joined.toString();
        }
        // CONFIG_DB holds strings (Redis hashes): a JSON number or boolean is a hand-written config's mistake, and
        // reading it as text would hide it (a speed of 1e5 is not "100000").
        throw new ConfigException(
                table, key, field, "values must be strings (CONFIG_DB holds strings), not " + shown(parser));
    }

    /** A refused value as written: a scalar's text, or what kind of structure it is. */
    private static String shown(final JsonParser parser) throws IOException {
        return switch (parser.currentToken()) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            default -> parser.getText();
        };
    }
}
