package io.asicemu.p4rt.backend;

/** Byte and packet counts of a counter cell. Immutable. */
public record CounterValue(long bytes, long packets) {
    public static final CounterValue ZERO = new CounterValue(0, 0);
}
