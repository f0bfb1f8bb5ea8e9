package io.asicemu.config;

import java.io.Serial;

/**
 * A configuration was refused and nothing of it was applied: the one error type of every CONFIG_DB parser (the
 * pipeline's compiler, the traffic manager's and the flowlet engine's section parsers) and of the control model's
 * validation. The message names the place as SONiC does, {@code TABLE|key|field: reason}; key and field are empty
 * when the problem is the table or the key as a whole, and a problem with the document as a whole (not JSON, too
 * large) is the reason alone. The CLI prints exactly that line and exits 2.
 * <p>
 * The modules' own subclasses ({@code TmConfigException}, {@code FlowletConfigException}, the pipeline's
 * {@code ConfigException}) only say which parser refused; callers catch this type.
 */
public class ConfigException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String key;
    private final String field;
    private final String reason;

    /**
     * @param table the CONFIG_DB table ("" if the document as a whole is wrong).
     * @param key the key ("" if the problem is the table itself).
     * @param field the field ("" if the problem is the key).
     * @param reason what is wrong and, where it helps, what would be accepted.
     */
    public ConfigException(final String table, final String key, final String field, final String reason) {
        super(
                table.isEmpty() && key.isEmpty() && field.isEmpty()
                        ? reason
                        : table + "|" + key + "|" + field + ": " + reason);
        this.table = table;
        this.key = key;
        this.field = field;
        this.reason = reason;
    }

    /** @return the table. */
    public String table() {
        return table;
    }

    /** @return the key, or "". */
    public String key() {
        return key;
    }

    /** @return the field, or "". */
    public String field() {
        return field;
    }

    /** @return what is wrong, without the place. */
    public String reason() {
        return reason;
    }
}
