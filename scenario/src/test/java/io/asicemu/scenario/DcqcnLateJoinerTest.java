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
 * A flow joining a DCQCN flow 10 ms later, with the paper's settings at 100G (Kmin 5 kB, Kmax 200 kB, Pmax 1 %):
 * how fast the gap between the two flows closes, checked against the discrete AIMD model in which the DCQCN authors
 * analysed DCQCN's convergence (Zhu et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY",
 * CoNEXT 2016: the convergence theorem and its proof in the appendix). There the rate gap of
 * two flows shrinks by {@code (1 − α* / 2)} per AIMD cycle of {@code ΔT*} timer periods, where {@code α*} and
 * {@code ΔT*} solve {@code α = (1−g)^(ΔT−1)·((1−g)α + g)} and {@code ΔT = 2 + (t/2 + C/(2·N·R_AI))·α}; the time
 * constant is therefore set by R_AI. The model is computed here from those equations; the scenario runs the
 * endpoint model and the switch. Measured 2026-12-01: τ 69.6 ms (model 75.4 ms) with R_AI = 40 Mb/s, 17.8 ms (model
 * 20.6 ms) with 160 Mb/s. The aim, within ±5 % of fair share in tens of milliseconds, is not what these
 * settings give at 100G: rdma-endpoint/DCQCN.md, "A flow joining later".
 */
class DcqcnLateJoinerTest {
    private static final double TIMER_S = 55e-6;
    private static final double G = 1.0 / 256;

    @TempDir
    Path out;

    @Test
    void withThePapersSettingsTheGapClosesAtTheRateOfTheAuthorsDiscreteModel() throws IOException {
        double predicted = timeConstantMs(100e9, 2, 40e6, 200e3);
        double measured = gapTimeConstantMs(run("late_joiner_paper.json"));
        System.out.printf(
                "late joiner, R_AI 40 Mb/s: gap time constant %.1f ms, discrete model %.1f ms%n", measured, predicted);
        assertThat(predicted).as("the model's own number for these settings").isBetween(70.0, 80.0);
        assertThat(measured)
                .as("ms, time constant of the gap between the flows' 2 ms means, 10-60 ms")
                .isBetween(0.7 * predicted, 1.3 * predicted);
    }

    @Test
    void aLargerAdditiveIncreaseClosesTheGapAsMuchFasterAsTheModelSays() throws IOException {
        double predicted = timeConstantMs(100e9, 2, 160e6, 200e3);
        double measured = gapTimeConstantMs(run("late_joiner_rai160.json"));
        System.out.printf(
                "late joiner, R_AI 160 Mb/s: gap time constant %.1f ms, discrete model %.1f ms%n", measured, predicted);
        assertThat(measured)
                .as("ms, time constant of the gap between the flows' 2 ms means, 10-60 ms")
                .isBetween(0.7 * predicted, 1.3 * predicted);
    }

    private Path run(String scenario) {
        Scenario.Result r = Scenario.run(IncastScenarioTest.resource(scenario), out);
        assertThat(r.pfcFramesSent()).isZero();
        assertThat(r.flows())
                .allSatisfy(f -> assertThat(f.packetsRetransmitted()).isZero());
        return out.resolve("rates.csv");
    }

    /**
     * The discrete model's time constant (ms) of the rate gap: fixed point of α and ΔT, then
     * {@code ΔT*·τ' / −ln(1 − α* / 2)}; t, the periods the queue takes to reach Kmax, from the appendix's bound.
     */
    static double timeConstantMs(double capacityBps, int flows, double raiBps, double kmaxBytes) {
        double t = (-1 + Math.sqrt(1 + 8 * kmaxBytes * 8 / (flows * raiBps * TIMER_S))) / 2;
        double alpha = 0.5;
        double cycle = 0;
        for (int i = 0; i < 10_000; i++) {
            cycle = 2 + (t / 2 + capacityBps / (2 * flows * raiBps)) * alpha;
            double next = Math.pow(1 - G, cycle - 1) * ((1 - G) * alpha + G);
            alpha = (alpha + next) / 2;
        }
        return cycle * TIMER_S / -Math.log(1 - alpha / 2) * 1e3;
    }

    /** Least-squares slope of ln|gap| over 2 ms windows from the join (10 ms) to the end (60 ms). */
    private static double gapTimeConstantMs(Path ratesCsv) throws IOException {
        TreeMap<Double, double[]> goodput = new TreeMap<>();
        List<String> lines = Files.readAllLines(ratesCsv);
        for (String line : lines.subList(1, lines.size())) {
            String[] c = line.split(",");
            goodput.computeIfAbsent(Double.parseDouble(c[0]), k -> new double[2])[c[1].equals("f1") ? 0 : 1] =
                    Double.parseDouble(c[3]);
        }
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        int n = 0;
        for (double from = 10_000; from + 2_000 <= 60_000; from += 2_000) {
            double[] sum = new double[2];
            int k = 0;
            for (double[] v : goodput.subMap(from, false, from + 2_000, true).values()) {
                sum[0] += v[0];
                sum[1] += v[1];
                k++;
            }
            double x = (from + 1_000) / 1e3;
            double y = Math.log(Math.abs(sum[0] - sum[1]) / k);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            n++;
        }
        double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        assertThat(slope).as("the gap closes").isNegative();
        return -1 / slope;
    }
}
