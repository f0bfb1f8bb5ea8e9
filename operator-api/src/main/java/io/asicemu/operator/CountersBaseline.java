package io.asicemu.operator;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@code sonic-clear counters} the way SONiC does it: on the client side. Clearing saves the current counters to a
 * file; the {@code show} views then print each counter minus its saved value (or the raw value if it went down: the
 * switch restarted). The switch's own counters never change. Watermarks, occupancies and statuses are not counters
 * and are never subtracted. Also asic-emu's DB 15 counters of {@code show ecmp} / {@code show ars}: each group's
 * flowlet counters and each member's packets and bytes (a group's occupancy, mode and bands are levels, not counted).
 */
public final class CountersBaseline {
    /** The counters of an {@code ECMP_GROUP|<id>} hash (DB 15). */
    static final List<String> GROUP_COUNTERS =
            List.of("new_flowlets", "flowlet_reassignments", "table_full_fallbacks", "no_member_drops");
    /** The counters of an {@code ECMP_GROUP_MEMBER|<id>|<m>} hash (DB 15). */
    static final List<String> MEMBER_COUNTERS = List.of("packets", "bytes");

    private final Properties saved;

    private CountersBaseline(final Properties saved) {
        this.saved = saved;
    }

    /** @return no baseline: views print raw values. */
    public static CountersBaseline none() {
        return new CountersBaseline(new Properties());
    }

    /**
     * @param file a baseline saved by {@link #save}; a missing file is no baseline.
     * @return the baseline.
     * @throws IOException if the file exists but cannot be read.
     */
    public static CountersBaseline load(final Path file) throws IOException {
        final Properties p = new Properties();
        if (Files.exists(file)) {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(in);
            }
        }
        return new CountersBaseline(p);
    }

    /**
     * Saves every counter of every {@code COUNTERS:<oid>} hash the views read.
     *
     * @param reader the switch.
     * @param file where (parent directories are created).
     * @throws IOException if the switch or the file fails.
     */
    public static void save(final CountersReader reader, final Path file) throws IOException {
        final Properties p = new Properties();
        for (final String map :
                new String[] {"COUNTERS_PORT_NAME_MAP", "COUNTERS_QUEUE_NAME_MAP", "COUNTERS_PG_NAME_MAP"}) {
            for (final String oid :
                    reader.hgetall(SonicDatabases.COUNTERS_DB, map).values()) {
                reader.hgetall(SonicDatabases.COUNTERS_DB, "COUNTERS:" + oid).forEach((field, value) -> {
                    if (isCounter(field)) {
                        p.setProperty(oid + "|" + field, value);
                    }
                });
            }
        }
        for (final String group :
                reader.hgetall(SonicDatabases.ASICEMU_DB, "ECMP_GROUP_NAME_MAP").keySet()) {
            final String key = "ECMP_GROUP|" + group;
            final Map<String, String> g = reader.hgetall(SonicDatabases.ASICEMU_DB, key);
            saveFields(p, key, g, GROUP_COUNTERS);
            long members;
            try {
                members = Long.parseLong(g.getOrDefault("members", "0"));
            } catch (final NumberFormatException e) {
                members = 0;
            }
            for (long m = 0; m < members && m < 65_536; m++) {
                final String member = "ECMP_GROUP_MEMBER|" + group + "|" + m;
                saveFields(p, member, reader.hgetall(SonicDatabases.ASICEMU_DB, member), MEMBER_COUNTERS);
            }
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, "asic-emu clear counters: the values the show views subtract");
        }
    }

    private static void saveFields(
            final Properties p, final String key, final Map<String, String> hash, final List<String> fields) {
        for (final String field : fields) {
            final String value = hash.get(field);
            if (value != null) {
                p.setProperty(key + "|" + field, value);
            }
        }
    }

    /** @return whether the field counts events (so clearing applies), as opposed to a level or a status. */
    static boolean isCounter(final String field) {
        return !field.contains("WATERMARK") && !field.contains("OCCUPANCY") && !field.endsWith("_STATUS");
    }

    /**
     * @param oid the object.
     * @param field the stat.
     * @param hash the object's current hash.
     * @return the value since the baseline, 0 if absent; null if the field is absent from the hash.
     */
    Long since(final String oid, final String field, final Map<String, String> hash) {
        final String text = hash.get(field);
        if (text == null) {
            return null;
        }
        final long now;
        try {
            now = Long.parseLong(text);
        } catch (final NumberFormatException e) {
            return null;
        }
        final String base = saved.getProperty(oid + "|" + field);
        if (base == null || !isCounter(field)) {
            return now;
        }
        final long before = Long.parseLong(base);
        return now >= before ? now - before : now;
    }
}
