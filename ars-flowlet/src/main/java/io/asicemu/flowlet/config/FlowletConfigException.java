package io.asicemu.flowlet.config;

import io.asicemu.config.ConfigException;
import java.io.Serial;

/**
 * A rejected hashing/ARS configuration value, naming the CONFIG_DB table, key and field at fault
 * (message {@code "TABLE|key|field: reason"}). Thrown only on the control path, before anything is applied.
 * A {@link ConfigException}: callers catch that one type; this subclass only says the flowlet parser refused.
 */
public final class FlowletConfigException extends ConfigException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param table  CONFIG_DB table, such as {@code SWITCH_HASH}.
     * @param key    entry key, such as {@code GLOBAL}.
     * @param field  field name, such as {@code ecmp_hash_algorithm} (may be empty for a whole-entry problem).
     * @param reason what is wrong and what would be accepted.
     */
    public FlowletConfigException(final String table, final String key, final String field, final String reason) {
        super(table, key, field, reason);
    }
}
