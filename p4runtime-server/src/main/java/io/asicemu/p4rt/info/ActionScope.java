package io.asicemu.p4rt.info;

/** Where an action may be used in a table: P4Info {@code ActionRef.Scope}. */
public enum ActionScope {
    TABLE_AND_DEFAULT,
    TABLE_ONLY,
    DEFAULT_ONLY;

    public boolean allowsEntry() {
        return this != DEFAULT_ONLY;
    }

    public boolean allowsDefault() {
        return this != TABLE_ONLY;
    }
}
