package io.asicemu.p4rt.info;

/** Match kinds of a table key field, as P4Info names them. */
public enum MatchKind {
    EXACT,
    LPM,
    TERNARY,
    RANGE,
    OPTIONAL;

    /** @return true when a table with such a field needs a priority (TCAM semantics). */
    public boolean needsPriority() {
        return this == TERNARY || this == RANGE || this == OPTIONAL;
    }
}
