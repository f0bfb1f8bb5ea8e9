package io.asicemu.pipeline.config;

/**
 * A configuration was refused; nothing of it was applied. Names the CONFIG_DB table, key and field at fault, as
 * {@code TABLE|key|field: reason}.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final String key;
    private final String field;

    /**
     * @param table the table.
     * @param key the key ("" if the problem is the table itself).
     * @param field the field ("" if the problem is the key).
     * @param reason what is wrong.
     */
    public ConfigException(final String table, final String key, final String field, final String reason) {
        super(table + "|" + key + "|" + field + ": " + reason);
        this.table = table;
        this.key = key;
        this.field = field;
    }

    /** @return the table. */
    public String table() {
        return table;
    }

    /** @return the key. */
    public String key() {
        return key;
    }

    /** @return the field. */
    public String field() {
        return field;
    }
}
