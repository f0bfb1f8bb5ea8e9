package io.asicemu.flowlet.ars;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Flowlet behaviour in virtual time: a flow stays on its member while gaps are at most the idle time, and a gap
 * longer than the idle time lets it move to the best-quality member.
 */
class FlowletGapTest {
    private static final long IDLE_NS = GroupSettings.DEFAULT_IDLE_TIME_NS;
    private static final long SAMPLE_NS = 16_000;
    private static final int[] PORTS = {0, 1, 2, 3};

    private final HashEngine engine = new HashEngine(
            HashAlgorithm.CRC,
            HashField.fiveTupleMask(),
            HashField.fiveTupleMask() | HashField.RDMA_BTH_DEST_QP.mask(),
            0,
            0,
            1);
    // Weight 1: a band follows the last sample exactly, so the expected member is known without EWMA arithmetic.
    private final PortQuality quality =
            new PortQuality(4, new QualitySettings(SAMPLE_NS, 1, 1, 2_000, 8_000, 8_192, 262_144));
    private final HashKey key = new HashKey()
            .ipv4FiveTuple(0x0A00_0001, 0x0A00_0002, 17, 50_000, 4791)
            .roce(true)
            .bthDestQp(77);

    @Test
    void shouldStayInsideFlowletAndMoveToBestMemberWhenGapExceedsIdleTime() {
        final LoadBalanceGroup group = group(LoadBalanceMode.FLOWLET_QUALITY);
        long nowNs = 1_000_000;
        quality.advance(nowNs);
        final int first = group.select(key, 4096, nowNs);
        final int best = (first + 2) % 4;
        for (int m = 0; m < 4; m++) {
            // The flow's own member becomes the worst (band 0), 'best' stays band 7, the rest sit in the middle.
            quality.queueBytes(PORTS[m], m == first ? 300_000 : m == best ? 0 : 100_000);
        }

        for (final long gapNs : new long[] {1_000, 100_000, 200_000, IDLE_NS - 1, IDLE_NS}) {
            nowNs += gapNs;
            quality.advance(nowNs);
            assertThat(group.select(key, 4096, nowNs)).as("gap %d ns", gapNs).isEqualTo(first);
        }
        assertThat(quality.band(PORTS[first])).isZero();
        assertThat(group.flowletReassignments()).isZero();

        nowNs += IDLE_NS + 1;
        assertThat(group.select(key, 4096, nowNs)).isEqualTo(best);
        assertThat(quality.band(PORTS[best])).isEqualTo(PortQuality.BEST_BAND);
        assertThat(group.flowletReassignments()).isEqualTo(1);
        assertThat(group.counter(io.asicemu.flowlet.GroupCounter.ARS_NEXT_HOP_REASSIGNMENTS))
                .isEqualTo(1);
        assertThat(group.newFlowlets()).isEqualTo(2);
        assertThat(group.counter(io.asicemu.flowlet.GroupCounter.FLOWLETS)).isEqualTo(2);
        assertThat(group.memberSelections(first)).isEqualTo(6);
        assertThat(group.memberSelections(best)).isEqualTo(1);
        assertThat(group.flowletTableOccupancy()).isEqualTo(1);
        assertThat(group.activeFlowlets(nowNs)).isEqualTo(1);
        assertThat(group.activeFlowlets(nowNs + IDLE_NS + 1)).isZero();
    }

    @Property(tries = 200)
    void shouldNeverMoveAFlowWhenEveryGapIsAtMostTheIdleTime(
            @ForAll @Size(min = 1, max = 60) final List<@LongRange(min = 0, max = IDLE_NS) Long> gapsNs,
            @ForAll @Size(min = 60, max = 60) final List<@IntRange(min = 0, max = 400_000) Integer> queueBytes,
            @ForAll final boolean random) {
        final LoadBalanceGroup group = group(random ? LoadBalanceMode.FLOWLET_RANDOM : LoadBalanceMode.FLOWLET_QUALITY);
        long nowNs = 0;
        quality.advance(nowNs);
        final int first = group.select(key, 1500, nowNs);
        for (int i = 0; i < gapsNs.size(); i++) {
            quality.queueBytes(i % 4, queueBytes.get(i));
            nowNs += gapsNs.get(i);
            quality.advance(nowNs);
            assertThat(group.select(key, 1500, nowNs)).isEqualTo(first);
        }
        assertThat(group.flowletReassignments()).isZero();
    }

    @Test
    void shouldMoveInsideAFlowletOnlyWhenItsMemberFails() {
        final LoadBalanceGroup group = group(LoadBalanceMode.FLOWLET_QUALITY);
        quality.advance(0);
        final int first = group.select(key, 1500, 0);

        group.portUp(PORTS[first], false);
        final int moved = group.select(key, 1500, 10_000);

        assertThat(moved).isNotEqualTo(first);
        assertThat(group.flowletReassignments()).isEqualTo(1);
        assertThat(group.select(key, 1500, 20_000)).isEqualTo(moved);
    }

    @Test
    void shouldFallBackToHashingAndCountWhenTheFlowletTableIsFull() {
        final LoadBalanceGroup group = new LoadBalanceGroup(
                GroupSettings.of(LoadBalanceMode.FLOWLET_RANDOM).withFlowlet(4, IDLE_NS),
                PORTS,
                new int[] {1, 1, 1, 1},
                engine,
                quality);
        for (int qp = 0; qp < 8; qp++) {
            group.select(key.bthDestQp(qp), 1500, 1_000);
        }

        assertThat(group.flowletTableCapacity()).isEqualTo(4);
        assertThat(group.flowletTableOccupancy()).isEqualTo(4);
        assertThat(group.tableFullFallbacks()).isEqualTo(4);
        // After the idle time the slots can be reused by new flows.
        group.select(key.bthDestQp(100), 1500, 1_000 + IDLE_NS + 1);
        assertThat(group.tableFullFallbacks()).isEqualTo(4);
    }

    @Test
    void shouldKeyFlowletsByADeterministicHashWhenTheAlgorithmIsRandom() {
        final HashEngine randomEngine = new HashEngine(HashAlgorithm.RANDOM, HashField.fiveTupleMask(), 0, 0, 0, 3);
        final LoadBalanceGroup group = new LoadBalanceGroup(
                GroupSettings.of(LoadBalanceMode.FLOWLET_RANDOM), PORTS, new int[] {1, 1, 1, 1}, randomEngine, quality);
        final int first = group.select(key, 1500, 0);
        for (int i = 1; i <= 100; i++) {
            assertThat(group.select(key, 1500, i * 1_000L)).isEqualTo(first);
        }
        assertThat(group.flowletTableOccupancy()).isEqualTo(1);
    }

    private LoadBalanceGroup group(final LoadBalanceMode mode) {
        return new LoadBalanceGroup(
                GroupSettings.of(mode).withRandomSeed(5), PORTS, new int[] {1, 1, 1, 1}, engine, quality);
    }
}
