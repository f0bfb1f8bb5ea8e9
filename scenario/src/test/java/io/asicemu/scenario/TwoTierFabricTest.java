package io.asicemu.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped 16-host two-tier example, with a shorter workload: six switches forward, both spines carry traffic. */
class TwoTierFabricTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("user.dir")).resolve("examples");

    @TempDir
    Path out;

    @Test
    void aPermutationCrossesTheFabricOverBothSpines() {
        ScenarioSpec shipped = ScenarioSpec.load(EXAMPLES.resolve("fabric16.json"));
        var perm = new ScenarioSpec.WorkloadSpec(
                "permutation",
                "perm",
                shipped.hosts().stream().map(ScenarioSpec.HostSpec::name).toList(),
                null,
                null,
                0,
                0,
                4,
                4,
                List.of(List.of(262_144.0, 0.0), List.of(262_144.0, 1.0)),
                20);
        ScenarioSpec spec = new ScenarioSpec(
                shipped.name(),
                shipped.seed(),
                2_000,
                shipped.sampleUs(),
                shipped.dcqcn(),
                shipped.host(),
                shipped.switches(),
                shipped.hosts(),
                shipped.links(),
                List.of(),
                List.of(perm),
                List.of());

        Scenario.Result r = Scenario.run(spec, EXAMPLES, out);

        assertThat(r.allComplete()).isTrue();
        assertThat(r.framesLostOnCables()).isZero();
        assertThat(r.hosts()).allSatisfy(h -> assertThat(h.controlQueueDrops()).isZero());
        assertThat(r.messages()).hasSize(16 * 4 * 4);
        assertThat(r.flows())
                .allSatisfy(f -> assertThat(f.packetsRetransmitted()).isZero());
        assertThat(r.queues()).allSatisfy(q -> assertThat(q.dropped()).isZero());
        for (String spine : List.of("spine1", "spine2")) {
            long forwarded = r.queues().stream()
                    .filter(q -> q.switchName().equals(spine))
                    .mapToLong(Scenario.QueueResult::packets)
                    .sum();
            assertThat(forwarded).as(spine).isPositive();
        }
        // Cross-leaf flows met the 2:1 uplinks: marks, and as many CNPs answered as received.
        assertThat(r.ecnMarked()).isPositive();
        assertThat(r.flows()).allSatisfy(f -> assertThat(f.cnpsSent()).isEqualTo(f.cnpsReceived()));
    }
}
