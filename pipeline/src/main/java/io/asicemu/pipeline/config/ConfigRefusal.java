package io.asicemu.pipeline.config;

import io.asicemu.pipeline.control.TableException;

/**
 * A refusal of the control model ({@link TableException}) restated as a config error that names {@code
 * TABLE|key|field}: a config edit has no update index, the key names the place. One wording for every part that
 * stages config changes.
 */
final class ConfigRefusal {
    private ConfigRefusal() {}

    /** Runs {@code update}; a {@link TableException} from it becomes the config error naming the place. */
    static void refuseAs(final String table, final String key, final String field, final Runnable update) {
        try {
            update.run();
        } catch (final TableException e) {
            throw of(table, key, field, e);
        }
    }

    /** The config error naming {@code TABLE|key|field} for a refusal of the control model. */
    static ConfigException of(final String table, final String key, final String field, final TableException e) {
        return new ConfigException(
                table,
                key,
                field,
                "refused by the control model: " + e.getMessage().replaceFirst("^update \\d+: ", ""));
    }
}
