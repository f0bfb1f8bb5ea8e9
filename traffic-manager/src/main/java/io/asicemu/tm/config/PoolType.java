package io.asicemu.tm.config;

/** BUFFER_POOL.type. */
public enum PoolType {
    INGRESS,
    EGRESS,
    BOTH
}
