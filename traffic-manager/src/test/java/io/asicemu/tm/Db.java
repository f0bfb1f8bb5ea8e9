package io.asicemu.tm;

import io.asicemu.tm.config.TmConfig;
import io.asicemu.tm.config.TmConfigParser;
import java.util.LinkedHashMap;
import java.util.Map;

/** Test builder of CONFIG_DB-shaped tables. */
public final class Db {
    public final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>();
    public final Map<String, Integer> portIndex = new LinkedHashMap<>();

    /** @param portCount ports Ethernet0, Ethernet4, ... at 100G. */
    public static Db ports(final int portCount) {
        final Db db = new Db();
        for (int i = 0; i < portCount; i++) {
            final String name = port(i);
            db.portIndex.put(name, i);
            db.put("PORT", name, "speed", "100000");
        }
        return db;
    }

    public static String port(final int i) {
        return "Ethernet" + (i * 4);
    }

    /** @param kv field, value, field, value ... */
    public Db put(final String table, final String key, final String... kv) {
        final Map<String, String> f = tables.computeIfAbsent(table, t -> new LinkedHashMap<>())
                .computeIfAbsent(key, k -> new LinkedHashMap<>());
        for (int i = 0; i < kv.length; i += 2) {
            f.put(kv[i], kv[i + 1]);
        }
        return this;
    }

    public TmConfig parse() {
        return TmConfigParser.parse(tables, portIndex);
    }
}
