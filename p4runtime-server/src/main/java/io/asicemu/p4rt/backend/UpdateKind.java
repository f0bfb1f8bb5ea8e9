package io.asicemu.p4rt.backend;

/** The kind of one update of a write batch. */
public enum UpdateKind {
    INSERT,
    MODIFY,
    DELETE
}
