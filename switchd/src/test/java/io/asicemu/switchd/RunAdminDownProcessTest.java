package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 44 on {@code run}: its start-up log names the ports the config leaves admin down, once, and says nothing of
 * it when they are up. The ports are mapped to interfaces that do not exist, so no host interface is touched.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RunAdminDownProcessTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                ";1",
                ", \"admin_status\": \"down\";1",
                ", \"admin_status\": \"up\";0",
            })
    void shouldLogTheAdminDownPortsOnceWhenTheConfigLeavesThemDown(final String adminStatus, final int warnings)
            throws Exception {
        final Path config = Files.writeString(
                dir.resolve("config_db.json"),
                "{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:aa:00:00:00:01\"}},"
                        + " \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"" + (adminStatus == null ? "" : adminStatus)
                        + "}}}");
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process process = new ProcessBuilder(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "run",
                        "--config",
                        config.toString(),
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--p4runtime-port",
                        "0")
                .redirectErrorStream(true)
                .start();
        final StringBuilder log = new StringBuilder();
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            // the per-port state lines come last in the start-up log, after the admin-down warning
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                log.append(line).append('\n');
                if (line.contains("asic-emu live: port Ethernet0")) {
                    break;
                }
            }
        } finally {
            process.toHandle().destroy();
            process.waitFor(30, TimeUnit.SECONDS);
            process.destroyForcibly();
        }
        assertThat(log.toString()).contains("asic-emu live: port Ethernet0");
        final long found = log.toString()
                .lines()
                .filter(l -> l.contains(
                        "asic-emu live: every port is admin down (PORT admin_status missing or \"down\": SONiC's "
                                + "default), so it drops every frame (ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN) and sends"
                                + " nothing: Ethernet0; set \"admin_status\": \"up\" in its PORT entry to forward"))
                .count();
        assertThat(found).as(log.toString()).isEqualTo(warnings);
        assertThat(log.toString().contains("admin down")).as(log.toString()).isEqualTo(warnings > 0);
    }
}
