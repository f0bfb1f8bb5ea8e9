package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code asic-emu scenario} on the shipped examples, and its answers to bad input. */
@Timeout(300)
class ScenarioCommandTest {
    private static final Path EXAMPLES =
            Path.of(System.getProperty("user.dir")).resolveSibling("scenario").resolve("examples");

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        final CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void theShippedIncastExampleRunsAndWritesItsReport() throws Exception {
        final int exit =
                run("scenario", EXAMPLES.resolve("incast_ecn_before_pfc.json").toString(), "--out-dir", dir.toString());
        assertThat(exit).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("every message acknowledged", "0 PFC frames sent", "report.html");
        assertThat(Files.readString(dir.resolve("report.html"))).contains("<svg");
        assertThat(dir.resolve("flows.csv")).exists();
    }

    @Test
    void theShippedSweepRunsEveryVariant() {
        final int exit = run(
                "scenario",
                "--sweep",
                EXAMPLES.resolve("sweep_dcqcn_vs_none.json").toString(),
                "--out-dir",
                dir.toString());
        assertThat(exit).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("dcqcn-paper", "no-cc", "sweep of 2 runs");
        assertThat(dir.resolve("sweep.html")).exists();
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws Exception {
        final Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"durationUs\": 10, \"flws\": []}");
        assertThat(run("scenario", bad.toString(), "--out-dir", dir.resolve("o").toString()))
                .isEqualTo(2);
        assertThat(err.toString().strip())
                .startsWith("scenario: ")
                .contains("flws")
                .doesNotContain("\n");
        assertThat(run("scenario", dir.resolve("missing.json").toString())).isEqualTo(2);
    }
}
