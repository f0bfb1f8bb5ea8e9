package io.asicemu.pipeline.control;

/**
 * A table update was refused and nothing of its batch was applied. Carries a closed outcome code (mapped by
 * P4Runtime to canonical gRPC codes) and the index of the failing update inside its batch.
 */
public final class TableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why an update failed. */
    public enum Code {
        /** A field is malformed or out of range. */
        INVALID_ARGUMENT,
        /** Modify or delete of an entry that does not exist, or a reference to a missing object. */
        NOT_FOUND,
        /** Insert of an entry that exists. */
        ALREADY_EXISTS,
        /** A table is full. */
        RESOURCE_EXHAUSTED,
        /** No configuration has been applied yet. */
        FAILED_PRECONDITION
    }

    private final Code code;
    private final int index;

    /**
     * @param code the outcome.
     * @param index the failing update's index in its batch.
     * @param message what is wrong.
     */
    public TableException(final Code code, final int index, final String message) {
        super("update " + index + ": " + code + ": " + message);
        this.code = code;
        this.index = index;
    }

    /** @return the outcome. */
    public Code code() {
        return code;
    }

    /** @return the failing update's index. */
    public int index() {
        return index;
    }
}
