package io.asicemu.p4rt.backend;

/** RFC 2698 trTCM settings of a meter cell (rates per second, bursts in the meter's unit). Immutable. */
public record MeterSettings(long cir, long cburst, long pir, long pburst, long eburst) {}
