package io.asicemu.tm.config;

/** SCHEDULER.type (YANG default WRR). */
public enum SchedulerType {
    STRICT,
    DWRR,
    WRR
}
