package io.asicemu.tm.config;

/**
 * One SCHEDULER entry. Shaping uses {@code pirBytesPerSec}/{@code pbsBytes} (0 = unshaped).
 *
 * @param name           scheduler name.
 * @param type           STRICT, DWRR or WRR.
 * @param weight         1..100.
 * @param pirBytesPerSec peak rate in bytes/s, 0 = none.
 * @param pbsBytes       peak burst in bytes, 0 = default (one 9216-byte frame).
 */
public record SchedulerConfig(String name, SchedulerType type, int weight, long pirBytesPerSec, long pbsBytes) {}
