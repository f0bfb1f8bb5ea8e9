package io.asicemu.flowlet.ecmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.TestReport;
import io.asicemu.flowlet.hash.SplitMix64;
import org.junit.jupiter.api.Test;

class EcmpMembersTest {
    private static final int HASHES = 60_000;

    @Test
    void shouldSplitInProportionToWeightsWhenWeighted() {
        final EcmpMembers members = new EcmpMembers(new int[] {1, 2, 3}, new int[] {1, 2, 3}, false, 0);
        final long[] load = new long[3];
        final SplitMix64 random = new SplitMix64(3);
        for (int i = 0; i < HASHES; i++) {
            load[members.select(random.nextInt())]++;
        }

        assertThat(members.bucketCount()).isEqualTo(6);
        assertThat(load[0] / (double) HASHES).isCloseTo(1 / 6.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(load[1] / (double) HASHES).isCloseTo(2 / 6.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(load[2] / (double) HASHES).isCloseTo(3 / 6.0, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void shouldLeaveSelectionWhenPortGoesDownAndReturnWhenItComesUp() {
        final EcmpMembers members = new EcmpMembers(new int[] {5, 6, 7, 6}, new int[] {1, 1, 1, 1}, false, 0);

        members.portUp(6, false);

        assertThat(members.liveCount()).isEqualTo(2);
        for (int h = 0; h < 1000; h++) {
            assertThat(members.port(members.select(h * 0x9E3779B1))).isNotEqualTo(6);
        }
        members.portUp(5, false);
        members.portUp(7, false);
        assertThat(members.select(123)).isEqualTo(EcmpMembers.NO_MEMBER);
        members.portUp(6, true);
        assertThat(members.liveCount()).isEqualTo(2);
        assertThat(members.port(members.select(123))).isEqualTo(6);
    }

    @Test
    void shouldMoveOnlyTheFailedMembersFlowsWhenResilient() {
        final EcmpMembers resilient = new EcmpMembers(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, ones(8), true, 256);
        final EcmpMembers plain = new EcmpMembers(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, ones(8), false, 0);
        final int[] hashes = hashes();
        final int[] resilientBefore = select(resilient, hashes);
        final int[] plainBefore = select(plain, hashes);

        resilient.memberUp(3, false);
        plain.memberUp(3, false);
        final int[] resilientAfter = select(resilient, hashes);
        final int[] plainAfter = select(plain, hashes);

        int resilientMoved = 0;
        int plainMoved = 0;
        for (int i = 0; i < hashes.length; i++) {
            if (resilientBefore[i] != 3) {
                assertThat(resilientAfter[i]).isEqualTo(resilientBefore[i]);
            }
            assertThat(resilientAfter[i]).isNotEqualTo(3);
            resilientMoved += resilientBefore[i] != resilientAfter[i] ? 1 : 0;
            plainMoved += plainBefore[i] != plainAfter[i] ? 1 : 0;
        }
        TestReport.line(
                "resilient hashing, 1 of 8 members fails: flows moved resilient %.1f%%, plain ECMP %.1f%%",
                100.0 * resilientMoved / hashes.length, 100.0 * plainMoved / hashes.length);
        assertThat(resilientMoved).isLessThan(hashes.length / 7);
        assertThat(plainMoved).isGreaterThan(hashes.length / 2);
    }

    @Test
    void shouldTakeBackItsShareFromOthersOnlyWhenAResilientMemberReturns() {
        final EcmpMembers members = new EcmpMembers(new int[] {0, 1, 2, 3}, ones(4), true, 64);
        members.memberUp(2, false);
        final int[] before = new int[64];
        for (int b = 0; b < 64; b++) {
            before[b] = members.bucketMember(b);
        }

        members.memberUp(2, true);

        final int[] share = new int[4];
        int changed = 0;
        for (int b = 0; b < 64; b++) {
            share[members.bucketMember(b)]++;
            if (members.bucketMember(b) != before[b]) {
                assertThat(members.bucketMember(b)).isEqualTo(2);
                changed++;
            }
        }
        assertThat(share).containsExactly(16, 16, 16, 16);
        assertThat(changed).isEqualTo(16);
    }

    private static int[] hashes() {
        final SplitMix64 random = new SplitMix64(11);
        final int[] hashes = new int[HASHES];
        for (int i = 0; i < HASHES; i++) {
            hashes[i] = random.nextInt();
        }
        return hashes;
    }

    private static int[] select(final EcmpMembers members, final int[] hashes) {
        final int[] selected = new int[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            selected[i] = members.select(hashes[i]);
        }
        return selected;
    }

    private static int[] ones(final int n) {
        final int[] ones = new int[n];
        java.util.Arrays.fill(ones, 1);
        return ones;
    }

    @Test
    void remainderByMultiplicationEqualsTheDivisionForEveryKindOfValueAndDivisor() {
        final int[] edgeValues = {0, 1, 2, 3, 7, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF};
        final int[] edgeDivisors = {1, 2, 3, 4, 5, 7, 8, 64, 100, 127, 128, 255, 256, 4096, 65_535, 65_536, 0x7FFF_FFFF
        };
        final SplitMix64 random = new SplitMix64(12);
        long checked = 0;
        for (int d = 0; d < 2_000; d++) {
            final int divisor = d < edgeDivisors.length
                    ? edgeDivisors[d]
                    : d % 2 == 0
                            ? 1 + (int) ((random.nextLong() >>> 1) % 70_000)
                            : 1 + (int) ((random.nextLong() >>> 33));
            final long magic = EcmpMembers.magic(divisor);
            for (final int value : edgeValues) {
                assertThat(EcmpMembers.remainder(value, divisor, magic))
                        .as("%d mod %d", value, divisor)
                        .isEqualTo(Integer.remainderUnsigned(value, divisor));
                checked++;
            }
            for (int i = 0; i < 500; i++) {
                final int value = (int) random.nextLong();
                final int expected = Integer.remainderUnsigned(value, divisor);
                if (EcmpMembers.remainder(value, divisor, magic) != expected) {
                    assertThat(EcmpMembers.remainder(value, divisor, magic))
                            .as("%d mod %d", value, divisor)
                            .isEqualTo(expected);
                }
                checked++;
            }
        }
        assertThat(checked).isEqualTo(2_000L * 510);
    }
}
