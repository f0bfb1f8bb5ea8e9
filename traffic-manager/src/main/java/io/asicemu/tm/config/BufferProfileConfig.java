package io.asicemu.tm.config;

/**
 * One BUFFER_PROFILE entry. Exactly one of {@code staticThBytes} (≥ 0) or {@code dynamicTh} (when
 * {@code staticThBytes} is -1) applies; alpha = 2^dynamicTh over the free shared pool.
 *
 * @param name           profile name.
 * @param pool           BUFFER_POOL name.
 * @param sizeBytes      reserved (guaranteed) bytes.
 * @param staticThBytes  static shared limit in bytes, or -1 for dynamic.
 * @param dynamicTh      dynamic_th (-8..7), used when staticThBytes is -1.
 * @param xonBytes       xon threshold in bytes (ingress PG only).
 * @param xoffBytes      xoff headroom in bytes (ingress PG only; 0 = lossy).
 * @param xonOffsetBytes xon_offset in bytes (0 = not set).
 */
public record BufferProfileConfig(
        String name,
        String pool,
        long sizeBytes,
        long staticThBytes,
        int dynamicTh,
        long xonBytes,
        long xoffBytes,
        long xonOffsetBytes) {
    /** @return true when the shared limit is alpha × free pool. */
    public boolean isDynamic() {
        return staticThBytes < 0;
    }
}
