package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44: a 128-host scenario under the launcher's default heap (switchd/jvm.options, 256 MiB) either runs or is
 * refused at once naming the heap it needs; it never runs out of memory midway. Each case is its own JVM with those
 * flags, as {@code bin/asic-emu} starts it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScenarioHeapTest {
    private static final Path JVM_OPTIONS =
            Path.of("..").toAbsolutePath().normalize().resolve("switchd/jvm.options");
    private static final int LEAVES = 8;
    private static final int HOSTS_PER_LEAF = 16;

    @TempDir
    Path dir;

    /** 8 leaves of 16 hosts each (128 hosts), every port up; one flow between two hosts of the first leaf. */
    private Path scenario(final String durationField) throws Exception {
        final List<String> switches = new ArrayList<>();
        final List<String> hosts = new ArrayList<>();
        for (int leaf = 1; leaf <= LEAVES; leaf++) {
            final StringBuilder port = new StringBuilder();
            final StringBuilder iface = new StringBuilder();
            for (int p = 0; p < HOSTS_PER_LEAF; p++) {
                final String name = "Ethernet" + 4 * p;
                port.append(p == 0 ? "" : ", ")
                        .append('"')
                        .append(name)
                        .append("\": {\"speed\": \"100000\", \"admin_status\": \"up\"}");
                iface.append(p == 0 ? "" : ", ")
                        .append('"')
                        .append(name)
                        .append("\": {}, \"")
                        .append(name)
                        .append("|10.")
                        .append(leaf)
                        .append('.')
                        .append(p + 1)
                        .append(".1/24\": {}");
                hosts.add("{\"name\": \"h" + leaf + "_" + (p + 1) + "\", \"mac\": \"02:00:00:00:"
                        + String.format("%02x:%02x", leaf, p + 1) + "\", \"ip\": \"10." + leaf + "." + (p + 1)
                        + ".2\", \"attach\": \"leaf" + leaf + ":" + name + "\", \"cableNs\": 500}");
            }
            Files.writeString(
                    dir.resolve("leaf" + leaf + ".json"),
                    "{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:ae:00:00:01:0" + leaf + "\"}},"
                            + " \"PORT\": {" + port + "}, \"INTERFACE\": {" + iface + "}}");
            switches.add("{\"name\": \"leaf" + leaf + "\", \"config\": \"leaf" + leaf + ".json\"}");
        }
        return Files.writeString(
                dir.resolve("scenario128.json"),
                "{\"name\": \"hosts128\", \"seed\": 1, " + durationField + " \"sampleUs\": 20, \"switches\": ["
                        + String.join(", ", switches) + "], \"hosts\": [" + String.join(", ", hosts) + "],"
                        + " \"flows\": [{\"name\": \"f\", \"from\": \"h1_1\", \"to\": \"h1_2\", \"bytes\": 65536,"
                        + " \"startUs\": 0, \"qps\": 1, \"messages\": 1}]}");
    }

    private ProcessRunner.Result scenarioWithLauncherHeap(final Path file, final Path out) {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        return ProcessRunner.run(
                dir,
                Duration.ofSeconds(100),
                List.of(
                        java,
                        "@" + JVM_OPTIONS,
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "scenario",
                        file.toString(),
                        "--out-dir",
                        out.toString()));
    }

    @Test
    void shouldRefuseAtOnceNamingTheHeapWhenA128HostScenarioDoesNotFitTheDefaultHeap() throws Exception {
        final Path out = dir.resolve("out");
        final long startNs = System.nanoTime();
        final ProcessRunner.Result r = scenarioWithLauncherHeap(scenario("\"durationUs\": 20000,"), out);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(2);
        assertThat(r.stderr().strip())
                .doesNotContain("\n")
                .isEqualTo("scenario: 8 switches, 128 hosts, 1002 samples need a Java heap of about 512 MiB, this JVM"
                        + " has 256 MiB: run it with ASIC_EMU_JAVA_OPTS=-Xmx512m (or fewer hosts, a shorter"
                        + " durationUs or a longer sampleUs; scenario/README.md \"Memory\")");
        assertThat(out).as("nothing ran").doesNotExist();
        assertThat(elapsedMs).as("refused before building the fabric").isLessThan(15_000);
    }

    @Test
    void shouldRunWithTheDefaultHeapWhenA128HostScenarioIsShort() throws Exception {
        final Path out = dir.resolve("out");
        final ProcessRunner.Result r = scenarioWithLauncherHeap(scenario("\"durationUs\": 100,"), out);
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
        assertThat(r.stdout()).contains("every message acknowledged").contains("report.html");
        assertThat(r.stderr()).isEmpty();
    }
}
