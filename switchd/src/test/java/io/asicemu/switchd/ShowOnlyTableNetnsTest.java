package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44: {@code asic-emu show …} prints its table and nothing else, also where Netty finds no MAC address to make
 * its machine id from (a network namespace with only {@code lo}, as a container's can look to it): Netty warned there
 * before every table. {@code run} and {@code show} each run as their own JVM inside a new network namespace (root).
 */
@Tag("netns")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShowOnlyTableNetnsTest {
    @TempDir
    Path dir;

    @Test
    void shouldPrintOnlyTheTableWhenNoInterfaceHasAMacAddress() throws Exception {
        final Path config = Files.writeString(dir.resolve("config_db.json"), """
            {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
             "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}}}
            """);
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final String jvm = java + " --enable-native-access=ALL-UNNAMED -cp '" + System.getProperty("java.class.path")
                + "' " + Main.class.getName();
        final String script = String.join(
                "\n",
                "set -u",
                "ip link set lo up",
                jvm + " run --config '" + config + "' --port-map Ethernet0=aeNoSuch0 --p4runtime-port 0"
                        + " --redis-port 16379 > '" + dir.resolve("run.log") + "' 2>&1 &",
                "for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/16379) 2>/dev/null && break; sleep 0.1; done",
                jvm + " show interfaces counters -p 16379 > '" + dir.resolve("show.out") + "' 2> '"
                        + dir.resolve("show.err") + "'",
                "status=$?",
                "kill %1; wait",
                "exit $status");
        final ProcessRunner.Result r =
                ProcessRunner.run(dir, Duration.ofSeconds(100), List.of("unshare", "--net", "bash", "-c", script));
        final String out = Files.readString(dir.resolve("show.out"));
        final String err = Files.readString(dir.resolve("show.err"));
        assertThat(r.exitCode())
                .as(r.stdout() + r.stderr() + out + err + Files.readString(dir.resolve("run.log")))
                .isZero();
        assertThat(err).isEmpty();
        assertThat(out.lines().findFirst().orElseThrow().strip()).startsWith("IFACE    STATE");
        assertThat(out).contains("Ethernet0").doesNotContain("MacAddressUtil").doesNotContain("WARN");
    }
}
