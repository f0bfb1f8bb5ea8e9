package io.asicemu.tm.config;

/**
 * One WRED_PROFILE entry; arrays are indexed by colour (0 green, 1 yellow, 2 red) and must not be mutated.
 *
 * @param name            profile name.
 * @param minThresholdBytes per-colour Kmin in bytes.
 * @param maxThresholdBytes per-colour Kmax in bytes.
 * @param dropProbabilityPercent per-colour Pmax, 0..100 (default 100).
 * @param enabled         per-colour wred_*_enable.
 * @param ecnMarkColourMask bit c set when colour c marks ECT packets instead of dropping (from {@code ecn}).
 */
public record WredProfileConfig(
        String name,
        long[] minThresholdBytes,
        long[] maxThresholdBytes,
        int[] dropProbabilityPercent,
        boolean[] enabled,
        int ecnMarkColourMask) {
    /** Colour index of green. */
    public static final int GREEN = 0;
    /** Colour index of yellow. */
    public static final int YELLOW = 1;
    /** Colour index of red. */
    public static final int RED = 2;
}
