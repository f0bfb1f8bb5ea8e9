package io.asicemu.flowlet.config;

import io.asicemu.flowlet.ars.QualitySettings;

/**
 * Typed {@code ARS_PROFILE|<name>} (SONiC Local ARS HLD shape). Units: {@code sampling_interval} µs;
 * past-load values Mb/s per 10G scaling unit; future-load values KiB queued (the HLD leaves units to the ASIC;
 * these are ours). Min/max 0/0 means "derive", as in the HLD: we use {@link QualitySettings} defaults. Immutable.
 *
 * @param name                name.
 * @param samplingIntervalUs  sampling interval (default 16).
 * @param pastLoadMinValue    past-load band-7 bound.
 * @param pastLoadMaxValue    past-load band-0 bound.
 * @param pastLoadWeight      past-load EWMA weight (default 16).
 * @param futureLoadMinValue  future-load band-7 bound.
 * @param futureLoadMaxValue  future-load band-0 bound.
 * @param futureLoadWeight    future-load EWMA weight (default 16).
 * @param maxFlows            HLD {@code max_flows} (0 = per ARS object).
 * @param defaultArsObject    HLD {@code default_ars_object}, or null.
 * @param ipv4Enable          HLD {@code ipv4_enable}.
 * @param ipv6Enable          HLD {@code ipv6_enable}.
 * @param randomSeed          SAI ARS_RANDOM_SEED (our field {@code ars_random_seed}).
 */
public record ArsProfileConfig(
        String name,
        long samplingIntervalUs,
        long pastLoadMinValue,
        long pastLoadMaxValue,
        int pastLoadWeight,
        long futureLoadMinValue,
        long futureLoadMaxValue,
        int futureLoadWeight,
        long maxFlows,
        String defaultArsObject,
        boolean ipv4Enable,
        boolean ipv6Enable,
        long randomSeed) {
    /**
     * @return the concluded path-quality settings.
     */
    public QualitySettings qualitySettings() {
        final boolean derivePast = pastLoadMinValue == 0 && pastLoadMaxValue == 0;
        final boolean deriveFuture = futureLoadMinValue == 0 && futureLoadMaxValue == 0;
        return new QualitySettings(
                samplingIntervalUs * 1000,
                pastLoadWeight,
                futureLoadWeight,
                derivePast ? QualitySettings.DEFAULT_PAST_LOAD_MIN_MBPS : pastLoadMinValue,
                derivePast ? QualitySettings.DEFAULT_PAST_LOAD_MAX_MBPS : pastLoadMaxValue,
                deriveFuture ? QualitySettings.DEFAULT_FUTURE_LOAD_MIN_BYTES : futureLoadMinValue * 1024,
                deriveFuture ? QualitySettings.DEFAULT_FUTURE_LOAD_MAX_BYTES : futureLoadMaxValue * 1024);
    }
}
