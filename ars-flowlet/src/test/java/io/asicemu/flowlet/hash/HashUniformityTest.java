package io.asicemu.flowlet.hash;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.TestReport;
import io.asicemu.flowlet.ecmp.EcmpMembers;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 5 "Must show": 100k random 5-tuples over 8 members, max/mean load <= 1.05, for every algorithm.
 */
class HashUniformityTest {
    private static final int FLOWS = 100_000;
    private static final int MEMBERS = 8;
    private static final long[] TUPLE_SEEDS = {1, 2, 3};

    static List<Arguments> algorithmsAndSeeds() {
        final List<Arguments> arguments = new ArrayList<>();
        for (final HashAlgorithm algorithm : HashAlgorithm.values()) {
            for (final long seed : TUPLE_SEEDS) {
                arguments.add(Arguments.of(algorithm, seed));
            }
        }
        return arguments;
    }

    @ParameterizedTest(name = "{0} tuple seed {1}")
    @MethodSource("algorithmsAndSeeds")
    void shouldSpreadRandomFiveTuplesWithinFivePercentWhenHashingOverEightMembers(
            final HashAlgorithm algorithm, final long tupleSeed) {
        final HashEngine engine = new HashEngine(algorithm, HashField.fiveTupleMask(), 0, 0, 0, tupleSeed);

        final double maxOverMean = maxOverMean(engine, tupleSeed);

        TestReport.line("uniformity %-9s tuple-seed %d: max/mean = %.4f", algorithm, tupleSeed, maxOverMean);
        assertThat(maxOverMean).isLessThanOrEqualTo(1.05);
    }

    @Property(tries = 12)
    void shouldStayWithinFivePercentWhenSeedAndOffsetVary(
            @ForAll final int seed, @ForAll @IntRange(max = 255) final int offset, @ForAll final long tupleSeed) {
        for (final HashAlgorithm algorithm : HashAlgorithm.values()) {
            final HashEngine engine = new HashEngine(algorithm, HashField.fiveTupleMask(), 0, seed, offset, tupleSeed);
            assertThat(maxOverMean(engine, tupleSeed))
                    .as("%s seed %d offset %d", algorithm, seed, offset)
                    .isLessThanOrEqualTo(1.05);
        }
    }

    static double maxOverMean(final HashEngine engine, final long tupleSeed) {
        final EcmpMembers members = new EcmpMembers(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, ones(MEMBERS), false, 0);
        final SplitMix64 random = new SplitMix64(tupleSeed);
        final HashKey key = new HashKey();
        final long[] load = new long[MEMBERS];
        for (int i = 0; i < FLOWS; i++) {
            final long r = random.nextLong();
            key.ipv4FiveTuple(
                    (int) r,
                    (int) (r >>> 32),
                    (r & 1) == 0 ? 6 : 17,
                    random.nextInt() & 0xFFFF,
                    random.nextInt() & 0xFFFF);
            load[members.select(engine.hash(key))]++;
        }
        long max = 0;
        for (final long l : load) {
            max = Math.max(max, l);
        }
        return max / ((double) FLOWS / MEMBERS);
    }

    static int[] ones(final int n) {
        final int[] ones = new int[n];
        java.util.Arrays.fill(ones, 1);
        return ones;
    }
}
