package io.asicemu.pipeline.table;

/**
 * The settings of one two-rate three-color meter (RFC 2698 trTCM, colour-blind): committed and peak information
 * rates in units per second and their burst sizes in units, where a unit is a byte or a packet as the meter says.
 * Validated on construction, so a meter the data plane gets is always valid. Immutable control value.
 *
 * @param cir committed information rate (units/s), {@code >= 0}.
 * @param cbs committed burst size (units), {@code > 0}.
 * @param pir peak information rate (units/s), {@code >= cir}.
 * @param pbs peak burst size (units), {@code > 0}.
 */
public record AclMeterConfig(long cir, long cbs, long pir, long pbs) {
    /** Token counts are kept in unit·ns (units × 10⁹), so a burst may hold at most this many units. */
    public static final long MAX_BURST = Long.MAX_VALUE / AclMeters.NS_PER_SECOND;
    /** The highest rate a meter takes (units per second; 100 Tb/s in bytes). */
    public static final long MAX_RATE = 12_500_000_000_000L;

    /**
     * @throws IllegalArgumentException naming the first bad setting.
     */
    public AclMeterConfig {
        if (cir < 0 || pir < 0) {
            throw new IllegalArgumentException("meter rates must not be negative (cir " + cir + ", pir " + pir + ")");
        }
        if (pir < cir) {
            throw new IllegalArgumentException("meter pir " + pir + " is below cir " + cir + " (RFC 2698: PIR >= CIR)");
        }
        if (cbs <= 0 || pbs <= 0) {
            throw new IllegalArgumentException("meter bursts must be > 0 (RFC 2698), got cbs " + cbs + ", pbs " + pbs);
        }
        if (cbs > MAX_BURST || pbs > MAX_BURST || pir > MAX_RATE) {
            throw new IllegalArgumentException("meter bursts above " + MAX_BURST + " or rates above " + MAX_RATE
                    + " are beyond the pipeline's meters");
        }
    }
}
