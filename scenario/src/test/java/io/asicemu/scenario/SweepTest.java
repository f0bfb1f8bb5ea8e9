package io.asicemu.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepTest {
    @TempDir
    Path out;

    /**
     * 8 senders each post 25 RDMA WRITEs of 64 KiB with exponential gaps (mean 30 µs, 140 Gb/s offered) to one
     * 100G receiver. With DCQCN the senders slow down on CNPs and PFC pauses them far less than without it.
     */
    @Test
    void anEightToOneIncastWithAndWithoutDcqcnSideBySide() throws IOException {
        List<Sweep.Row> rows = Sweep.run(IncastScenarioTest.resource("sweep_dcqcn_vs_none.json"), out);

        assertThat(rows).extracting(Sweep.Row::label).containsExactly("dcqcn-paper", "no-cc");
        Scenario.Result dcqcn = rows.get(0).result();
        Scenario.Result none = rows.get(1).result();
        for (Scenario.Result r : List.of(dcqcn, none)) {
            assertThat(r.allComplete()).isTrue();
            assertThat(r.messages()).hasSize(200);
            assertThat(r.queues()).allSatisfy(q -> assertThat(q.dropped()).isZero());
            assertThat(r.flows())
                    .allSatisfy(f -> assertThat(f.packetsRetransmitted()).isZero());
            assertThat(r.flows()).allSatisfy(f -> assertThat(f.bytes()).isEqualTo(25 * 65_536L));
        }
        assertThat(dcqcn.cnpsSent()).isPositive();
        assertThat(none.cnpsSent()).isZero();
        assertThat(none.pfcFramesSent()).isPositive();
        assertThat(dcqcn.dataPausedNs()).isLessThan(none.dataPausedNs() / 2);
        assertThat(dcqcn.ecnMarked()).isLessThan(none.ecnMarked());

        List<String> csv = Files.readAllLines(out.resolve("sweep.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(1)).startsWith("dcqcn-paper,true,");
        assertThat(Files.readString(out.resolve("sweep.html"))).contains("<svg", "dcqcn-paper/report.html");
        assertThat(out.resolve("no-cc").resolve("report.html")).exists();
    }

    @Test
    void aGridRunsEveryCombinationOfTheConfigFields() throws IOException {
        List<Sweep.Row> rows = Sweep.run(IncastScenarioTest.resource("sweep_wred_grid.json"), out);

        assertThat(rows)
                .extracting(Sweep.Row::label)
                .containsExactly(
                        "green_min_threshold=5000,green_max_threshold=200000,green_drop_probability=1",
                        "green_min_threshold=5000,green_max_threshold=200000,green_drop_probability=10",
                        "green_min_threshold=50000,green_max_threshold=200000,green_drop_probability=1",
                        "green_min_threshold=50000,green_max_threshold=200000,green_drop_probability=10");
        assertThat(rows).allSatisfy(r -> assertThat(r.result().allComplete()).isTrue());
        // The knob reached the switch: the runs differ in what was marked.
        assertThat(rows.stream().map(r -> r.result().ecnMarked()).distinct().count())
                .isGreaterThan(1);
        assertThat(Files.readAllLines(out.resolve("sweep.csv"))).hasSize(5);
    }
}
