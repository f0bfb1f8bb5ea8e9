package io.asicemu.p4rt.info;

/** One parameter of an action: P4Info {@code Action.Param}. Immutable. */
public record ParamInfo(int id, String name, int bitwidth) {}
