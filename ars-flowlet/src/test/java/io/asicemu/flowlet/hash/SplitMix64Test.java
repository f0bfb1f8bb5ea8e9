package io.asicemu.flowlet.hash;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SplitMix64Test {
    @Test
    void shouldMatchTheReferenceSequenceWhenSeededWithZero() {
        // First outputs of Vigna's splitmix64.c (prng.di.unimi.it) with state 0.
        final SplitMix64 random = new SplitMix64(0);

        assertThat(random.nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
        assertThat(random.nextLong()).isEqualTo(0x6E789E6AA1B965F4L);
        assertThat(random.nextLong()).isEqualTo(0x06C45D188009454FL);
    }

    @Test
    void shouldRepeatTheSameDrawsWhenReseeded() {
        final SplitMix64 random = new SplitMix64(42);
        final long first = random.nextLong();
        final int bounded = random.nextInt(7);

        random.reseed(42);

        assertThat(random.nextLong()).isEqualTo(first);
        assertThat(random.nextInt(7)).isEqualTo(bounded).isBetween(0, 6);
    }
}
