package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.operator.OperatorRedisServer;
import io.asicemu.operator.SnapshotCache;
import io.asicemu.operator.SwitchSnapshot;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code asic-emu show} / {@code clear counters} as a user types them: every view, bad words, no switch. */
class ShowCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args) {
        final CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private static SwitchSnapshot oneQueuePacket(final long packets) {
        final List<Map<String, String>> queues = new ArrayList<>();
        final List<Map<String, String>> pgs = new ArrayList<>();
        for (int i = 0; i < SwitchSnapshot.CLASSES; i++) {
            queues.add(Map.of("SAI_QUEUE_STAT_PACKETS", Long.toString(packets), "PFC_WD_STATUS", "operational"));
            pgs.add(Map.of());
        }
        return new SwitchSnapshot(
                0,
                List.of(new SwitchSnapshot.Port(
                        "Ethernet0", true, Map.of("SAI_PORT_STAT_IF_OUT_UCAST_PKTS", packets), queues, pgs, Map.of())),
                Map.of(),
                Map.of("PORT_QOS_MAP|Ethernet0", Map.of("pfc_enable", "3,4")),
                Map.of(),
                Map.of(),
                List.of());
    }

    @Test
    void everyViewPrintsAndClearCountersSubtracts(@TempDir final Path dir) throws Exception {
        final long[] packets = {1234};
        try (OperatorRedisServer server = OperatorRedisServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                new SnapshotCache(() -> oneQueuePacket(packets[0]), Duration.ofMillis(1)),
                null,
                OperatorRedisServer.Limits.defaults())) {
            final String port = Integer.toString(server.port());
            final String baseline = dir.toString();
            for (final String view : List.of(
                    "interfaces counters",
                    "pfc counters",
                    "queue counters",
                    "queue wredcounters",
                    "queue watermark unicast",
                    "priority-group watermark headroom",
                    "priority-group watermark shared",
                    "pfcwd stats")) {
                final List<String> args = new ArrayList<>(List.of("show"));
                args.addAll(List.of(view.split(" ")));
                args.addAll(List.of("-p", port, "--baseline-dir", baseline, "--empty"));
                assertThat(run(args.toArray(String[]::new)))
                        .as(view + ": " + err)
                        .isZero();
            }
            assertThat(out.toString()).contains("Ethernet0    UC3           1,234");
            assertThat(run("clear", "counters", "-p", port, "--baseline-dir", baseline))
                    .isZero();
            assertThat(out.toString()).contains("Cleared counters");
            assertThat(Files.list(dir).toList()).hasSize(1);
            packets[0] = 1300;
            Thread.sleep(5);
            out.getBuffer().setLength(0);
            assertThat(run("show", "queue", "counters", "-p", port, "--baseline-dir", baseline))
                    .isZero();
            assertThat(out.toString()).contains("Ethernet0    UC3              66");
        }
    }

    @Test
    void anUnknownViewIsOneLineAndExit2() {
        assertThat(run("show", "queue", "nonsense")).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("show: no view `queue nonsense`; one of: interfaces counters")
                .hasLineCount(1);
        assertThat(run("clear", "everything")).isEqualTo(2);
    }

    @Test
    void noSwitchIsOneLineAndExit1() throws Exception {
        final int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        assertThat(run("show", "pfc", "counters", "-p", Integer.toString(closed)))
                .isEqualTo(1);
        assertThat(err.toString())
                .startsWith("show: cannot reach the switch's Redis port at 127.0.0.1:" + closed)
                .hasLineCount(1);
    }
}
