package io.asicemu.p4rt.info;

/** What a counter counts. */
public enum CounterUnit {
    BYTES,
    PACKETS,
    BOTH
}
