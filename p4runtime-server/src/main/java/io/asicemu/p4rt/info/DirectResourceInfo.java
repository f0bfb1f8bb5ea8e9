package io.asicemu.p4rt.info;

/** A direct counter or meter attached to one table. Immutable. */
public record DirectResourceInfo(int id, String name, int tableId, CounterUnit unit) {}
