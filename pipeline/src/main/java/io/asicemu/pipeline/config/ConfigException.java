package io.asicemu.pipeline.config;

import java.io.Serial;

/**
 * A configuration was refused by the pipeline's compiler or the control model; nothing of it was applied. A
 * {@link io.asicemu.config.ConfigException} (the one error type, {@code TABLE|key|field: reason}); callers catch
 * that type, this subclass only says the pipeline refused.
 */
public final class ConfigException extends io.asicemu.config.ConfigException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param table the table.
     * @param key the key ("" if the problem is the table itself).
     * @param field the field ("" if the problem is the key).
     * @param reason what is wrong.
     */
    public ConfigException(final String table, final String key, final String field, final String reason) {
        super(table, key, field, reason);
    }
}
