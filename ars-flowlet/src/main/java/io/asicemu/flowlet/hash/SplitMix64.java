package io.asicemu.flowlet.hash;

/**
 * A seeded pseudo-random generator (Steele, Lea and Flood's SplitMix64) for per-packet spraying and random flowlet
 * placement. Replays with the same seed give the same draws. Not thread safe: the data-plane thread owns each
 * instance (no CAS, unlike {@code java.util.Random}).
 */
public final class SplitMix64 {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    /**
     * @param seed the initial state (from configuration, so runs are reproducible).
     */
    public SplitMix64(final long seed) {
        this.state = seed;
    }

    /**
     * @param seed new state; the following draws repeat those made after construction with this seed.
     */
    public void reseed(final long seed) {
        this.state = seed;
    }

    /**
     * @return the next 64 random bits.
     */
    public long nextLong() {
        state += GOLDEN_GAMMA;
        return mix(state);
    }

    /**
     * @return the next 32 random bits.
     */
    public int nextInt() {
        return (int) (nextLong() >>> 32);
    }

    /**
     * @param bound exclusive upper bound, positive.
     * @return a value in [0, bound), by multiply-high (bias below 2^-32 per draw for small bounds).
     */
    public int nextInt(final int bound) {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    /**
     * The SplitMix64 finalizer, also useful to derive independent seeds.
     *
     * @param z input.
     * @return mixed output.
     */
    public static long mix(final long z) {
        long x = z;
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
