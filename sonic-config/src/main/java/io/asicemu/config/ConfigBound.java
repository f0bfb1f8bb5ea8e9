package io.asicemu.config;

/**
 * Every numeric CONFIG_DB field's accepted range, in one place: what a real switch ASIC could hold, so that no
 * value can overflow the arithmetic behind it (a BUFFER_POOL size near 2^62 once overflowed the threshold
 * arithmetic and dropped frames as "buffer full"). Parsers read numbers only through {@link #parse}.
 * <p>
 * Byte quantities are bounded by {@link #BUFFER_BYTES} (64 GiB: above the largest deep-buffer ASIC's HBM,
 * Jericho2's 8 GB, so every real config fits, and 2^36 times any cell or packet count stays far below 2^63).
 * Rates are bounded by the fastest port, 1.6 Tb/s (IEEE 802.3dj). Times and counts follow SONiC's YANG models
 * (sonic-buffer-*.yang, sonic-pfcwd.yang, sonic-scheduler.yang, sonic-port.yang) where they state a range.
 * The table {@code docs/CONFIG.md} lists the same bounds for users.
 */
public enum ConfigBound {
    /** PORT speed, Mb/s: 1 Mb/s to 1.6 Tb/s. */
    PORT_SPEED_MBPS(1, 1_600_000),
    /** PORT mtu, bytes: the IPv4 minimum to the jumbo frames SONiC allows (sonic-port.yang). */
    PORT_MTU(68, 9216),
    /** PORT index: the front-panel position; no ASIC has more than 4,096 ports. */
    PORT_INDEX(0, 4095),
    /** Buffer sizes, thresholds, xon/xoff, WRED thresholds and burst sizes, bytes: 0 to 64 GiB. */
    BUFFER_BYTES(0, 1L << 36),
    /** Shaper rates (cir, pir), bytes per second: 0 to 1.6 Tb/s. */
    RATE_BYTES_PER_S(0, 200_000_000_000L),
    /** BUFFER_PROFILE dynamic_th: the alpha exponent, 2^-8..2^7 (SAI). */
    DYNAMIC_TH(-8, 7),
    /** WRED drop probability, percent. */
    PERCENT(0, 100),
    /** SCHEDULER weight (sonic-scheduler.yang). */
    SCHEDULER_WEIGHT(1, 100),
    /** SCHEDULER priority (sonic-scheduler.yang). */
    SCHEDULER_PRIORITY(0, 9),
    /** PFC_WD POLL_INTERVAL, ms (sonic-pfcwd.yang). */
    PFC_WD_POLL_MS(100, 1000),
    /** PFC_WD detection_time, ms (sonic-pfcwd.yang). */
    PFC_WD_DETECTION_MS(100, 5000),
    /** PFC_WD restoration_time, ms (sonic-pfcwd.yang). */
    PFC_WD_RESTORATION_MS(100, 60000),
    /** SWITCH fdb_aging_time, seconds. */
    FDB_AGING_S(1, 1_000_000),
    /** VLAN ids usable for a VLAN (0 and 4095 are reserved). */
    VLAN_ID(1, 4094),
    /** ECMP/WCMP member weight (STATIC_ROUTE weight). */
    WCMP_WEIGHT(1, 65535),
    /** ACL_RULE PRIORITY. */
    ACL_PRIORITY(0, 999_999),
    /** ARS load thresholds and weights (ARS_PROFILE), in the profile's load units. */
    ARS_LOAD(0, Integer.MAX_VALUE);

    private final long min;
    private final long max;

    ConfigBound(final long min, final long max) {
        this.min = min;
        this.max = max;
    }

    /** @return the smallest accepted value. */
    public long min() {
        return min;
    }

    /** @return the largest accepted value. */
    public long max() {
        return max;
    }

    /**
     * Parses a decimal integer and checks it against this bound.
     *
     * @param table the table, for the error.
     * @param key the key, for the error.
     * @param field the field, for the error.
     * @param text the value as CONFIG_DB holds it.
     * @return the value.
     * @throws ConfigException naming the field if the text is not an integer or is out of range.
     */
    public long parse(final String table, final String key, final String field, final String text) {
        final long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (final NumberFormatException e) {
            throw new ConfigException(table, key, field, "not an integer: '" + text + "'");
        }
        return check(table, key, field, value);
    }

    /**
     * @param table the table, for the error.
     * @param key the key, for the error.
     * @param field the field, for the error.
     * @param value a value.
     * @return the value, if in range.
     * @throws ConfigException naming the field if it is out of range.
     */
    public long check(final String table, final String key, final String field, final long value) {
        if (value < min || value > max) {
            throw new ConfigException(table, key, field, value + " outside " + min + ".." + max + " (" + name() + ")");
        }
        return value;
    }
}
