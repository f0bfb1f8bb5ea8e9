package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44 on {@code asic-emu health} (docker/image/asic-emu-health, which reads the status file {@link SwitchStatus}
 * writes): a healthy switch whose config leaves ports admin down says which; one whose ports are all up does not.
 */
class HealthAdminDownTest {
    private static final Path HEALTH =
            Path.of("..").toAbsolutePath().normalize().resolve("docker/image/asic-emu-health");

    @TempDir
    Path dir;

    private String health(final List<String> adminDown) throws Exception {
        final Path status = dir.resolve("status");
        new SwitchStatus(status, Map.of("Ethernet0", "eth1", "Ethernet4", "eth2"), 0, "off", adminDown)
                .update(Set.of("eth1", "eth2"));
        final ProcessBuilder builder = new ProcessBuilder("/bin/bash", HEALTH.toString()).redirectErrorStream(true);
        builder.environment().put("ASICEMU_STATUS_FILE", status.toString());
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }

    @Test
    void shouldNameTheAdminDownPortsWhenTheConfigLeavesThemDown() throws Exception {
        assertThat(health(List.of("Ethernet0", "Ethernet4")))
                .isEqualTo("healthy: 2 of 2 data links attached, P4Runtime on off; admin down (PORT admin_status "
                        + "missing or \"down\", SONiC's default: they drop every frame; set \"admin_status\": "
                        + "\"up\"): Ethernet0 Ethernet4\n");
    }

    @Test
    void shouldSayNothingOfAdminStateWhenEveryPortIsUp() throws Exception {
        assertThat(health(List.of())).isEqualTo("healthy: 2 of 2 data links attached, P4Runtime on off\n");
    }
}
