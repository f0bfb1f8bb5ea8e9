package io.asicemu.tm.wred;

/**
 * SplitMix64 pseudo-random generator (Steele, Lea, Flood 2014): seedable, so WRED runs reproduce. Not thread safe:
 * owned by the data-plane thread; no allocation.
 */
public final class SplitMix64 {
    private long state;

    /** @param seed initial state. */
    public SplitMix64(final long seed) {
        state = seed;
    }

    /** @return the next 64 random bits. */
    public long nextLong() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return a uniform double in [0, 1). */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }
}
