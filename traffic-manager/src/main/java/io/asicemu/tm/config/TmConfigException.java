package io.asicemu.tm.config;

import io.asicemu.config.ConfigException;
import java.io.Serial;

/**
 * A CONFIG_DB value the traffic manager refuses, naming the table, key and field, e.g.
 * {@code WRED_PROFILE|AZURE_LOSSLESS|green_min_threshold: min 3000000 > max 2097152}. A {@link ConfigException}:
 * callers catch that one type; this subclass only says the traffic manager's parser refused.
 */
public final class TmConfigException extends ConfigException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param table  CONFIG_DB table name.
     * @param key    key inside the table.
     * @param field  field name (may be empty when the key as a whole is wrong).
     * @param reason what is wrong.
     */
    public TmConfigException(final String table, final String key, final String field, final String reason) {
        super(table, key, field, reason);
    }
}
