package io.asicemu.operator;

import java.util.Map;

/** Reads hashes of the switch's databases (over the Redis port, or straight from {@link SonicDatabases}). */
@FunctionalInterface
public interface CountersReader {
    /**
     * @param db the database number ({@link SonicDatabases#COUNTERS_DB}, ...).
     * @param key the key.
     * @return the hash (empty if absent).
     * @throws java.io.IOException if the switch cannot be reached or refuses.
     */
    Map<String, String> hgetall(int db, String key) throws java.io.IOException;

    /**
     * @param dbs databases already built.
     * @return a reader over them.
     */
    static CountersReader of(final SonicDatabases dbs) {
        return (db, key) -> dbs.db(db).getOrDefault(key, Map.of());
    }
}
