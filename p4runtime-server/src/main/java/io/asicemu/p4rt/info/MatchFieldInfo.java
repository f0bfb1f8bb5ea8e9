package io.asicemu.p4rt.info;

/** One key field of a table: P4Info {@code MatchField}. Immutable. */
public record MatchFieldInfo(int id, String name, int bitwidth, MatchKind kind) {}
