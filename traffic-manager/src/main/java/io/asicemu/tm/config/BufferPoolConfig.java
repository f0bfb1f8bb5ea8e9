package io.asicemu.tm.config;

/**
 * One BUFFER_POOL entry. {@code sizeBytes} is the shared pool size (per-PG/queue reserved sizes are outside it, as in
 * SONiC's templates); {@code xoffBytes} is the shared headroom pool size, 0 when headroom is per PG only.
 *
 * @param name      pool name.
 * @param type      ingress, egress or both.
 * @param dynamic   true for mode dynamic.
 * @param sizeBytes shared pool size in bytes.
 * @param xoffBytes shared headroom pool size in bytes, 0 = none.
 */
public record BufferPoolConfig(String name, PoolType type, boolean dynamic, long sizeBytes, long xoffBytes) {}
