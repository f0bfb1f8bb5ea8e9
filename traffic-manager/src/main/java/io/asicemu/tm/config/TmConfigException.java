package io.asicemu.tm.config;

/**
 * A CONFIG_DB value the traffic manager refuses, naming the table, key and field, e.g.
 * {@code WRED_PROFILE|AZURE_LOSSLESS|green_min_threshold: min 3000000 > max 2097152}.
 */
public final class TmConfigException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String key;
    private final String field;

    /**
     * @param table  CONFIG_DB table name.
     * @param key    key inside the table.
     * @param field  field name (may be empty when the key as a whole is wrong).
     * @param reason what is wrong.
     */
    public TmConfigException(final String table, final String key, final String field, final String reason)
    {
        super(table + "|" + key + (field.isEmpty() ? "" : "|" + field) + ": " + reason);
        this.table = table;
        this.key = key;
        this.field = field;
    }

    /** @return the table name. */
    public String table()
    {
        return table;
    }

    /** @return the key. */
    public String key()
    {
        return key;
    }

    /** @return the field, or the empty string. */
    public String field()
    {
        return field;
    }
}
