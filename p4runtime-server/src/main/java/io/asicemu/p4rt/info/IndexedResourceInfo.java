package io.asicemu.p4rt.info;

/**
 * An indexed extern (counter, meter or register array) of {@code size} cells; {@code bitwidth} is the cell width of
 * a register and 0 otherwise. Immutable.
 */
public record IndexedResourceInfo(int id, String name, long size, int bitwidth, CounterUnit unit) {}
