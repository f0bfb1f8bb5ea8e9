package io.asicemu.switchd;

import io.asicemu.config.ConfigException;
import io.asicemu.scenario.Scenario;
import io.asicemu.scenario.ScenarioException;
import io.asicemu.scenario.ScenarioFootprint;
import io.asicemu.scenario.Sweep;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code scenario}: a small fabric in one process, in virtual time: RoCEv2 hosts with DCQCN and real switch
 * pipelines joined by cables; or, with {@code --sweep}, the same scenario under several settings side by side.
 */
@Command(
        name = "scenario",
        mixinStandardHelpOptions = true,
        description =
                "Run a virtual-time fabric scenario (hosts with DCQCN, switches with their config_db.json) and "
                        + "write report.html, CSV series and summary.txt; with --sweep, run a sweep file and write sweep.html/csv.")
final class ScenarioCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "scenario (or, with --sweep, sweep) JSON file")
    private Path file;

    @Option(
            names = "--out-dir",
            paramLabel = "DIR",
            description = "where results are written (default: <FILE without .json>-results beside FILE)")
    private Path outDir;

    @Option(names = "--sweep", description = "FILE is a sweep: a scenario plus variants and/or a config grid")
    private boolean sweep;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /**
     * Says, once, which switch ports the scenario leaves admin down, and refuses (before anything runs or is written)
     * a scenario whose estimated heap exceeds this JVM's, naming the {@code -Xmx} it needs.
     *
     * @param footprint the scenario's footprint.
     * @param maxHeapBytes this JVM's maximum heap.
     * @param err where the warnings and the refusal go.
     * @return whether it may run.
     */
    static boolean fits(final ScenarioFootprint footprint, final long maxHeapBytes, final PrintWriter err) {
        for (final String warning : footprint.adminDown()) {
            err.println("scenario: warning: switch " + warning);
        }
        if (footprint.heapBytes() > maxHeapBytes) {
            err.println("scenario: " + footprint.switches() + " switches, " + footprint.hosts() + " hosts, "
                    + footprint.samples() + " samples need a Java heap of about " + (footprint.heapBytes() >> 20)
                    + " MiB, this JVM has " + (maxHeapBytes >> 20) + " MiB: run it with ASIC_EMU_JAVA_OPTS=-Xmx"
                    + footprint.heapOption() + " (or fewer hosts, a shorter durationUs or a longer sampleUs;"
                    + " scenario/README.md \"Memory\")");
            err.flush();
            return false;
        }
        err.flush();
        return true;
    }

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (!Files.isReadable(file)) {
            err.println("scenario: cannot read " + file);
            return 2;
        }
        final Path dir = outDir != null
                ? outDir
                : file.toAbsolutePath()
                        .resolveSibling(file.getFileName().toString().replaceFirst("\\.json$", "") + "-results");
        try {
            if (!fits(ScenarioFootprint.of(file, sweep), Runtime.getRuntime().maxMemory(), err)) {
                return 2;
            }
            if (sweep) {
                final List<Sweep.Row> rows = Sweep.run(file, dir);
                for (final Sweep.Row row : rows) {
                    final Scenario.Result r = row.result();
                    out.printf(
                            Locale.ROOT,
                            "%-40s %s  P99 FCT %.3f us  ECN %d  CNP %d  PFC %d  paused %.3f us%n",
                            row.label(),
                            r.allComplete() ? "complete" : "INCOMPLETE",
                            r.messageFctPercentileNs(99) / 1e3,
                            r.ecnMarked(),
                            r.cnpsSent(),
                            r.pfcFramesSent(),
                            r.dataPausedNs() / 1e3);
                }
                out.println("scenario: sweep of " + rows.size() + " runs; " + dir.resolve("sweep.html"));
            } else {
                final long startNs = System.nanoTime();
                final Scenario.Result r = Scenario.run(file, dir);
                final double wallS = (System.nanoTime() - startNs) / 1e9;
                out.print(Files.readString(dir.resolve("summary.txt")));
                out.printf(
                        Locale.ROOT,
                        "scenario: %.1f s wall, %.0f simulated frames/s; %s%n",
                        wallS,
                        r.framesOnWire() / wallS,
                        dir.resolve("report.html"));
            }
            out.flush();
            return 0;
        } catch (final ScenarioException | ConfigException e) {
            err.println("scenario: " + e.getMessage());
            return 2;
        } catch (final java.io.IOException e) {
            err.println("scenario: " + e.getMessage());
            return 1;
        }
    }
}
