package io.asicemu.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The series behind the report's PFC and ECMP/ARS plots: PFC pause time per port and priority over time, and the
 * traffic each ECMP/ARS group member carried per period (with flowlets moved), each adding up to the run's totals
 * counted elsewhere (hosts' pause time, switches' PFC frames, the uplink queues' packets), and byte-identical on a
 * rerun.
 */
class ReportSeriesTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("user.dir")).resolve("examples");

    @TempDir
    Path out;

    @Test
    void pfcPauseTimeIsASeriesPerPortAndPriorityThatAddsUpToTheTotals() throws IOException {
        Scenario.Result r = Scenario.run(IncastScenarioTest.resource("incast_pfc_before_ecn.json"), out.resolve("one"));
        Scenario.run(IncastScenarioTest.resource("incast_pfc_before_ecn.json"), out.resolve("two"));
        assertThat(r.pfcFramesSent()).isPositive();

        Map<String, Double> pausedUs = new HashMap<>();
        Map<String, Long> framesSent = new HashMap<>();
        Map<String, Integer> pausedPeriods = new HashMap<>();
        for (String[] c : rows(out.resolve("one").resolve("pfc_over_time.csv"))) {
            String key = c[1] + ":" + c[2] + ":" + c[3];
            double paused = Double.parseDouble(c[4]);
            pausedUs.merge(key, paused, Double::sum);
            framesSent.merge(key, Long.parseLong(c[5]), Long::sum);
            if (paused > 0) {
                pausedPeriods.merge(key, 1, Integer::sum);
            }
        }
        for (Scenario.HostResult h : r.hosts()) {
            if (h.dataPausedNs() > 0) {
                String key = h.name() + ":nic:3";
                assertThat(pausedUs.get(key))
                        .as(key + " µs paused, summed over the periods")
                        .isCloseTo(h.dataPausedNs() / 1e3, org.assertj.core.data.Offset.offset(1e-6));
                assertThat(pausedPeriods.get(key))
                        .as(key + " periods with a pause")
                        .isGreaterThan(10);
            }
        }
        assertThat(r.hosts().stream().filter(h -> h.dataPausedNs() > 0)).hasSize(2);
        for (Scenario.PfcResult p : r.pfc()) {
            String key = p.switchName() + ":" + p.port() + ":" + p.priority();
            assertThat(framesSent.get(key))
                    .as(key + " PFC frames sent, summed over the periods")
                    .isEqualTo(p.framesSent());
        }
        assertThat(Files.readString(out.resolve("one").resolve("report.html"))).contains("<h2>PFC pause time</h2>");
        assertIdentical("pfc_over_time.csv", "ecmp_spread.csv", "flowlets.csv", "rates.csv", "report.html");
    }

    @Test
    void ecmpAndArsSpreadIsASeriesPerGroupMemberThatAddsUpToTheUplinkQueues() throws IOException {
        ScenarioSpec shipped = ScenarioSpec.load(EXAMPLES.resolve("fabric16.json"));
        var perm = new ScenarioSpec.WorkloadSpec(
                "permutation",
                "perm",
                shipped.hosts().stream().map(ScenarioSpec.HostSpec::name).toList(),
                null,
                null,
                0,
                0,
                2,
                4,
                List.of(List.of(65_536.0, 0.0), List.of(65_536.0, 1.0)),
                20);
        ScenarioSpec spec = new ScenarioSpec(
                shipped.name(),
                shipped.seed(),
                1_000,
                shipped.sampleUs(),
                shipped.dcqcn(),
                shipped.host(),
                shipped.switches(),
                shipped.hosts(),
                shipped.links(),
                List.of(),
                List.of(perm),
                List.of());
        // Flowlets on every leaf, so the groups also count flowlets and their moves.
        Map<String, String> flowlets = new HashMap<>();
        for (String leaf : List.of("leaf1", "leaf2", "leaf3", "leaf4")) {
            flowlets.put(leaf + "|SWITCH_HASH|GLOBAL|ecmp_lb_mode", "flowlet_random");
        }
        Scenario.Result r = Scenario.run(spec, EXAMPLES, out.resolve("one"), flowlets);
        Scenario.run(spec, EXAMPLES, out.resolve("two"), flowlets);
        assertThat(r.allComplete()).isTrue();

        Map<String, Long> packetsToMember = new HashMap<>();
        for (String[] c : rows(out.resolve("one").resolve("ecmp_spread.csv"))) {
            packetsToMember.merge(c[1] + ":" + c[3], Long.parseLong(c[4]), Long::sum);
        }
        assertThat(packetsToMember.keySet())
                .as("every leaf spreads over both of its uplinks")
                .containsExactlyInAnyOrder(
                        "leaf1:Ethernet16",
                        "leaf1:Ethernet20",
                        "leaf2:Ethernet16",
                        "leaf2:Ethernet20",
                        "leaf3:Ethernet16",
                        "leaf3:Ethernet20",
                        "leaf4:Ethernet16",
                        "leaf4:Ethernet20");
        for (Map.Entry<String, Long> e : packetsToMember.entrySet()) {
            String[] sp = e.getKey().split(":");
            long queued = r.queues().stream()
                    .filter(q -> q.switchName().equals(sp[0]) && q.port().equals(sp[1]))
                    .mapToLong(Scenario.QueueResult::packets)
                    .sum();
            assertThat(e.getValue())
                    .as(e.getKey() + ": packets the groups sent there = packets its queues took")
                    .isPositive()
                    .isEqualTo(queued);
        }
        long started = 0;
        for (String[] c : rows(out.resolve("one").resolve("flowlets.csv"))) {
            assertThat(c[3]).isEqualTo("FLOWLET_RANDOM");
            started += Long.parseLong(c[4]);
        }
        assertThat(started).as("flowlets started").isPositive();
        String html = Files.readString(out.resolve("one").resolve("report.html"));
        assertThat(html).contains("<h2>ECMP/ARS spread</h2>").contains("<h2>Flowlet reassignments</h2>");
        assertIdentical("ecmp_spread.csv", "flowlets.csv", "pfc_over_time.csv", "report.html");
    }

    private void assertIdentical(String... files) throws IOException {
        for (String file : files) {
            assertThat(Files.readAllBytes(out.resolve("one").resolve(file)))
                    .as(file)
                    .isEqualTo(Files.readAllBytes(out.resolve("two").resolve(file)));
        }
    }

    private static List<String[]> rows(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        return lines.subList(1, lines.size()).stream().map(l -> l.split(",")).toList();
    }
}
