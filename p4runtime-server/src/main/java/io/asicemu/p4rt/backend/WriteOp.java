package io.asicemu.p4rt.backend;

/** One validated update of a write batch. Immutable. */
public record WriteOp(UpdateKind kind, P4Entity entity) {}
