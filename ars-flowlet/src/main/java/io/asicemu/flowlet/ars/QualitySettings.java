package io.asicemu.flowlet.ars;

/**
 * Concluded path-quality settings (SAI ARS_PROFILE shape): how often the inputs are sampled, the EWMA weights of
 * past load (bytes transmitted) and future load (bytes queued), and the ranges quantized into 8 quality bands.
 * <p>
 * A weight {@code w} gives the instantaneous sample a share of 1/w (SAI: "a larger weight means less weight on the
 * instantaneous sample"); w = 1 uses the sample as is. Past-load thresholds are rates in Mb/s per scaling unit
 * (a port's scaling factor counts 10G units, as SAI's 100G:10); future-load thresholds are queued bytes.
 * Immutable.
 *
 * @param samplingIntervalNs  sampling interval of the quality inputs (SAI default 16 µs).
 * @param pastLoadWeight      EWMA weight of the transmitted-bytes sample, 1..
 * @param futureLoadWeight    EWMA weight of the queued-bytes sample, 1..
 * @param pastLoadMinMbps     at or below this normalized rate the past-load band is 7 (best).
 * @param pastLoadMaxMbps     at or above this normalized rate the past-load band is 0 (worst).
 * @param futureLoadMinBytes  at or below this queue depth the future-load band is 7.
 * @param futureLoadMaxBytes  at or above this queue depth the future-load band is 0.
 */
public record QualitySettings(
        long samplingIntervalNs,
        int pastLoadWeight,
        int futureLoadWeight,
        long pastLoadMinMbps,
        long pastLoadMaxMbps,
        long futureLoadMinBytes,
        long futureLoadMaxBytes) {
    /** SAI ARS_PROFILE.SAMPLING_INTERVAL default. */
    public static final long DEFAULT_SAMPLING_INTERVAL_NS = 16_000;
    /** SAI/HLD default past and future load weight. */
    public static final int DEFAULT_WEIGHT = 16;
    /** Our default band range for past load when the profile leaves it 0/0: 20 %..80 % of a 10G unit. */
    public static final long DEFAULT_PAST_LOAD_MIN_MBPS = 2_000;
    /** See {@link #DEFAULT_PAST_LOAD_MIN_MBPS}. */
    public static final long DEFAULT_PAST_LOAD_MAX_MBPS = 8_000;
    /** Our default band range for future load when the profile leaves it 0/0 (bytes queued). */
    public static final long DEFAULT_FUTURE_LOAD_MIN_BYTES = 8_192;
    /** See {@link #DEFAULT_FUTURE_LOAD_MIN_BYTES}. */
    public static final long DEFAULT_FUTURE_LOAD_MAX_BYTES = 1_048_576;

    /**
     * Validate.
     */
    public QualitySettings {
        if (samplingIntervalNs < 1) {
            throw new IllegalArgumentException("samplingIntervalNs must be positive");
        }
        if (pastLoadWeight < 1 || futureLoadWeight < 1) {
            throw new IllegalArgumentException("weights must be >= 1");
        }
        if (pastLoadMaxMbps <= pastLoadMinMbps || futureLoadMaxBytes <= futureLoadMinBytes) {
            throw new IllegalArgumentException("band max must exceed band min");
        }
    }

    /**
     * @return SAI defaults (16 µs, weights 16) with our default band ranges.
     */
    public static QualitySettings defaults() {
        return new QualitySettings(
                DEFAULT_SAMPLING_INTERVAL_NS,
                DEFAULT_WEIGHT,
                DEFAULT_WEIGHT,
                DEFAULT_PAST_LOAD_MIN_MBPS,
                DEFAULT_PAST_LOAD_MAX_MBPS,
                DEFAULT_FUTURE_LOAD_MIN_BYTES,
                DEFAULT_FUTURE_LOAD_MAX_BYTES);
    }
}
