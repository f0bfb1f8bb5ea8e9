package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Issue 44 on {@code scenario}: a switch whose PORTs lack {@code admin_status: up} is named once at start. */
class ScenarioAdminDownTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int scenario(final String adminStatus) throws Exception {
        Files.writeString(dir.resolve("leaf.json"), """
            {"DEVICE_METADATA": {"localhost": {"mac": "02:ae:00:00:01:01"}},
             "PORT": {"Ethernet0": {"speed": "100000"%1$s}, "Ethernet4": {"speed": "100000"%1$s}},
             "INTERFACE": {"Ethernet0": {}, "Ethernet4": {}, "Ethernet0|10.1.1.1/24": {}, "Ethernet4|10.1.2.1/24": {}}}
            """.formatted(adminStatus));
        final Path file = Files.writeString(dir.resolve("s.json"), """
            {"name": "two", "seed": 1, "durationUs": 50, "sampleUs": 10,
             "switches": [{"name": "leaf", "config": "leaf.json"}],
             "hosts": [{"name": "h1", "mac": "02:00:00:00:01:01", "ip": "10.1.1.2", "attach": "leaf:Ethernet0", "cableNs": 500},
                       {"name": "h2", "mac": "02:00:00:00:01:02", "ip": "10.1.2.2", "attach": "leaf:Ethernet4", "cableNs": 500}],
             "flows": [{"name": "f", "from": "h1", "to": "h2", "bytes": 4096, "startUs": 0, "qps": 1, "messages": 1}]}
            """);
        final CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(
                "scenario", file.toString(), "--out-dir", dir.resolve("out").toString());
    }

    @Test
    void shouldNameTheSwitchAndItsAdminDownPortsWhenItsConfigHasNoAdminStatus() throws Exception {
        assertThat(scenario("")).as(err.toString()).isZero();
        assertThat(err.toString())
                .isEqualTo("scenario: warning: switch leaf: every port is admin down (PORT admin_status missing or"
                        + " \"down\": SONiC's default), so they drop every frame"
                        + " (ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN) and send nothing: Ethernet0, Ethernet4; set"
                        + " \"admin_status\": \"up\" in their PORT entries to forward\n");
        assertThat(out.toString()).contains("NOT COMPLETE");
    }

    @Test
    void shouldSayNothingOfAdminStateWhenEveryPortIsUp() throws Exception {
        assertThat(scenario(", \"admin_status\": \"up\"")).as(err.toString()).isZero();
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString()).contains("every message acknowledged");
    }
}
