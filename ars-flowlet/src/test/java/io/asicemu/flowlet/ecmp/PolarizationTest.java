package io.asicemu.flowlet.ecmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.TestReport;
import io.asicemu.flowlet.config.DeviceRole;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import io.asicemu.flowlet.hash.SplitMix64;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Issue 5 "Must show": two tiers hashing the same fields. A leaf spreads flows over 4 spines; each spine spreads
 * what it receives over its own 4 ECMP links. With equal seeds the spine sees only flows whose hash already
 * selected it, so it uses one link (polarization); with SONiC's role seeds and offsets (Leaf 10/10, Spine 25/0) it
 * uses all four.
 */
class PolarizationTest {
    private static final int FLOWS = 100_000;
    private static final int FANOUT = 4;

    @Test
    void shouldPolarizeSpineLinksWhenLeafAndSpineShareSeedAndNotWithRoleSeeds() {
        final double equal = spineLinkImbalance(0, 0, 0, 0);
        final double roles = spineLinkImbalance(
                DeviceRole.LEAF.hashSeed(),
                DeviceRole.LEAF.hashOffset(),
                DeviceRole.SPINE.hashSeed(),
                DeviceRole.SPINE.hashOffset());
        // Seeds alone, without the Leaf offset: CRC is affine in its initial register, so for equal-length keys a
        // different seed XORs a constant into the output and the spine's choice stays a function of the leaf's.
        final double seedsOnly = spineLinkImbalance(DeviceRole.LEAF.hashSeed(), 0, DeviceRole.SPINE.hashSeed(), 0);

        TestReport.line(
                "polarization worst spine link max/mean: equal seeds %.3f;"
                        + " role seeds (leaf 10/10, spine 25/0) %.3f;"
                        + " seeds without offset (leaf 10/0, spine 25/0) %.3f",
                equal, roles, seedsOnly);
        assertThat(equal).isEqualTo(4.0);
        assertThat(roles).isLessThanOrEqualTo(1.05);
        assertThat(seedsOnly).isEqualTo(4.0);
    }

    private static double spineLinkImbalance(
            final int leafSeed, final int leafOffset, final int spineSeed, final int spineOffset) {
        final long mask = HashField.fiveTupleMask();
        final HashEngine leaf = new HashEngine(HashAlgorithm.CRC, mask, 0, leafSeed, leafOffset, 1);
        final HashEngine spine = new HashEngine(HashAlgorithm.CRC, mask, 0, spineSeed, spineOffset, 1);
        final EcmpMembers leafUplinks = new EcmpMembers(new int[] {0, 1, 2, 3}, new int[] {1, 1, 1, 1}, false, 0);
        final EcmpMembers spineUplinks = new EcmpMembers(new int[] {0, 1, 2, 3}, new int[] {1, 1, 1, 1}, false, 0);
        final long[] spineLinkFlows = new long[FANOUT * FANOUT];
        final SplitMix64 random = new SplitMix64(7);
        final HashKey key = new HashKey();
        for (int i = 0; i < FLOWS; i++) {
            final long r = random.nextLong();
            key.ipv4FiveTuple((int) r, (int) (r >>> 32), 6, random.nextInt() & 0xFFFF, random.nextInt() & 0xFFFF);
            final int spineIndex = leafUplinks.select(leaf.hash(key));
            final int link = spineUplinks.select(spine.hash(key));
            spineLinkFlows[spineIndex * FANOUT + link]++;
        }
        // The worst spine's max/mean over its own links: 4.0 means it uses one link of four.
        double worst = 0;
        for (int s = 0; s < FANOUT; s++) {
            worst = Math.max(
                    worst,
                    LowEntropyRoceTest.maxOverMean(
                            Arrays.copyOfRange(spineLinkFlows, s * FANOUT, s * FANOUT + FANOUT)));
        }
        return worst;
    }
}
