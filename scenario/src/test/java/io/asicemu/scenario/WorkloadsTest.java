package io.asicemu.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class WorkloadsTest {
    @Property(tries = 200)
    void aPermutationSendsAndReceivesOnceAndNeverToItself(
            @ForAll @IntRange(min = 2, max = 64) int n, @ForAll long seed) {
        int[] p = Workloads.derangement(n, new SplittableRandom(seed));
        boolean[] hit = new boolean[n];
        for (int i = 0; i < n; i++) {
            assertThat(p[i]).isNotEqualTo(i);
            assertThat(hit[p[i]]).isFalse();
            hit[p[i]] = true;
        }
    }

    @Test
    void workloadsExpandIntoNamedFlows() {
        var incast = new ScenarioSpec.WorkloadSpec("incast", "in", null, List.of("a", "b"), "c", 100, 5, 2, 3, null, 0);
        var a2a = new ScenarioSpec.WorkloadSpec(
                "all-to-all", "x", List.of("a", "b", "c"), null, null, 10, 0, 1, 1, null, 0);
        var flows = Workloads.expand(List.of(), List.of(incast, a2a), 1);
        assertThat(flows)
                .extracting(ScenarioSpec.FlowSpec::name)
                .containsExactly("in-a-c", "in-b-c", "x-a-b", "x-a-c", "x-b-a", "x-b-c", "x-c-a", "x-c-b");
        assertThat(flows.get(0).qps()).isEqualTo(2);
        assertThat(flows.get(0).startUs()).isEqualTo(5);
    }

    @Test
    void sizesFollowTheCdf() {
        List<List<Double>> cdf = List.of(List.of(1000.0, 0.5), List.of(1000.0, 0.5), List.of(9000.0, 1.0));
        SplittableRandom random = new SplittableRandom(3);
        int small = 0;
        for (int i = 0; i < 20_000; i++) {
            long size = Workloads.drawSize(cdf, random, "f");
            assertThat(size).isBetween(1L, 9000L);
            if (size <= 1000) {
                small++;
            }
        }
        assertThat(small).isBetween(9_700, 10_300);
        assertThatThrownBy(() -> Workloads.validateCdf(List.of(List.of(5.0, 0.5)), "f"))
                .hasMessageContaining("f.sizeCdf: the last probability must be 1");
        assertThatThrownBy(() -> Workloads.validateCdf(List.of(List.of(5.0, 0.5), List.of(4.0, 1.0)), "f"))
                .hasMessageContaining("must not decrease");
    }
}
