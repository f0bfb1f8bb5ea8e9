package io.asicemu.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The published DCQCN behaviour (Zhu et al., SIGCOMM 2015) with the paper's settings, written out in the scenario
 * (g = 1/256, K = 55 µs, N = 50 µs, T = 55 µs, B = 10 MB, F = 5, R_AI = 40 Mb/s; switch Kmin 5 kB, Kmax 200 kB,
 * Pmax 1 %): two flows start together into one 100G port. They converge to fair share within tens of milliseconds
 * and stay within ±5 % of it; the link stays busy; the queue settles just above Kmin.
 */
class DcqcnConvergenceTest {
    /** RoCEv2 WRITE of 1,024 B payload: 1,082 B frames (RETH only on the first) plus 24 B preamble, FCS and gap. */
    private static final double ACHIEVABLE_GOODPUT_GBPS = 100.0 * 1024 / (1082 + 24);

    @TempDir
    Path out;

    @Test
    void twoFlowsConvergeToFairShareAndTheQueueSettlesJustAboveKmin() throws IOException {
        Scenario.Result r = Scenario.run(IncastScenarioTest.resource("convergence_paper.json"), out);
        assertThat(r.pfcFramesSent()).isZero();
        assertThat(r.flows())
                .allSatisfy(f -> assertThat(f.packetsRetransmitted()).isZero());

        // goodput per flow per 500 µs sample, averaged over 2 ms windows
        TreeMap<Double, double[]> goodput = new TreeMap<>();
        List<String> rates = Files.readAllLines(out.resolve("rates.csv"));
        for (String line : rates.subList(1, rates.size())) {
            String[] c = line.split(",");
            double t = Double.parseDouble(c[0]);
            goodput.computeIfAbsent(t, k -> new double[2])[c[1].equals("f1") ? 0 : 1] = Double.parseDouble(c[3]);
        }
        // Converged: the 2 ms means of the two flows within ±5 % of their fair share, from some time on.
        double convergedAtUs = Double.NaN;
        for (double t = 0; t <= 58_000; t += 500) {
            double[] w = mean(goodput, t, t + 2_000);
            double fair = (w[0] + w[1]) / 2;
            boolean fairNow = Math.abs(w[0] - fair) <= 0.05 * fair;
            if (fairNow && Double.isNaN(convergedAtUs)) {
                convergedAtUs = t;
            } else if (!fairNow) {
                convergedAtUs = Double.NaN;
            }
        }
        assertThat(convergedAtUs)
                .as("the 2 ms means stay within ±5 %% of fair share from some time on")
                .isNotNaN();
        assertThat(convergedAtUs).as("µs to converge").isLessThan(45_000);

        double[] last = mean(goodput, 45_000, 60_000);
        assertThat(last[0] + last[1])
                .as("utilisation of the 100G port, Gb/s of goodput")
                .isGreaterThanOrEqualTo(0.95 * ACHIEVABLE_GOODPUT_GBPS);

        double queue = Files.readAllLines(out.resolve("queue_depth.csv")).stream()
                .skip(1)
                .map(l -> l.split(","))
                .filter(c -> Double.parseDouble(c[0]) >= 45_000 && c[2].equals("Ethernet8") && c[3].equals("3"))
                .mapToDouble(c -> Double.parseDouble(c[4]))
                .average()
                .orElseThrow();
        assertThat(queue).as("mean queue 45-60 ms, bytes").isGreaterThan(5_000).isLessThan(50_000);
        System.out.printf(
                "converged after %.1f ms; last 15 ms: %.2f / %.2f Gb/s, queue %.0f B%n",
                convergedAtUs / 1e3, last[0], last[1], queue);
    }

    private static double[] mean(TreeMap<Double, double[]> series, double fromUs, double toUs) {
        double[] sum = new double[2];
        int n = 0;
        for (double[] v : series.subMap(fromUs, false, toUs, true).values()) {
            sum[0] += v[0];
            sum[1] += v[1];
            n++;
        }
        return new double[] {sum[0] / n, sum[1] / n};
    }
}
