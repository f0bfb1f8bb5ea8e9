package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.pcap.PcapWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44 on {@code replay}: the summary gives the replayed span (not the captures' epoch), a config whose ports are
 * admin down says so once at start (and nothing is said when they are up), and a symbolic link among the outputs is
 * refused before anything is written.
 */
class ReplayCommandTest {
    private static final String PORTS_UP = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"}}}
        """;
    private static final String PORTS_WITHOUT_ADMIN_STATUS = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "alias": "etp1", "index": "1"},
                  "Ethernet4": {"speed": "100000", "alias": "etp2", "index": "2"}}}
        """;

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int replay(final String config, final Path outDir) throws Exception {
        final Path configFile = Files.writeString(dir.resolve("config_db.json"), config);
        final Path capture = capture(dir.resolve("in.pcap"));
        final var cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(
                "replay",
                "--config",
                configFile.toString(),
                "--in",
                "Ethernet0=" + capture,
                "--out-dir",
                outDir.toString());
    }

    /** Two broadcast frames of an unknown EtherType, at 1 s and 1.001 s after the epoch (a capture's clock). */
    private static Path capture(final Path file) throws Exception {
        try (Arena arena = Arena.ofConfined();
                PcapWriter writer = new PcapWriter(file)) {
            final MemorySegment frame = arena.allocate(60);
            for (int i = 0; i < 6; i++) {
                frame.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) 0xff);
            }
            frame.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 6, (byte) 0x02);
            frame.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 12, (byte) 0x88);
            frame.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 13, (byte) 0xb5); // local experimental EtherType
            writer.write(frame, 0, 60, 1_000_000_000L);
            writer.write(frame, 0, 60, 1_001_000_000L);
        }
        return file;
    }

    @Test
    void shouldPrintTheReplayedSpanNotTheCapturesEpochWhenTheCaptureStartsAtOneSecond() throws Exception {
        assertThat(replay(PORTS_UP, dir.resolve("out"))).as(err.toString()).isZero();
        final String summary =
                out.toString().strip().lines().reduce((a, b) -> b).orElseThrow();
        // the frames are 1 ms apart; nothing leaves the switch after the last one arrives
        assertThat(summary)
                .startsWith("replay: ")
                .contains(" 1000000 ns of virtual time (0.001000 s, from the first input frame to the last frame out)")
                .doesNotContain("1001000000");
    }

    @Test
    void shouldNameTheAdminDownPortsOnceWhenTheConfigHasNoAdminStatus() throws Exception {
        assertThat(replay(PORTS_WITHOUT_ADMIN_STATUS, dir.resolve("out")))
                .as(err.toString())
                .isZero();
        assertThat(err.toString())
                .isEqualTo("replay: warning: every port is admin down (PORT admin_status missing or \"down\": "
                        + "SONiC's default), so they drop every frame (ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN) and "
                        + "send nothing: Ethernet0, Ethernet4; set \"admin_status\": \"up\" in their PORT entries to "
                        + "forward\n");
        assertThat(Files.readString(dir.resolve("out/counters.txt")))
                .contains("ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN 2");
    }

    @Test
    void shouldSayNothingOfAdminStateWhenEveryPortIsUp() throws Exception {
        assertThat(replay(PORTS_UP, dir.resolve("out"))).isZero();
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void shouldRefuseASymlinkedOutputBeforeWritingAnythingWhenOneOutputIsALink() throws Exception {
        final Path outDir = Files.createDirectories(dir.resolve("out"));
        final Path target = dir.resolve("elsewhere.pcap");
        // the last port's capture: the ports before it would have been created before it was refused
        Files.createSymbolicLink(outDir.resolve("Ethernet4.pcap"), target);
        assertThat(replay(PORTS_UP, outDir)).isEqualTo(2);
        assertThat(err.toString().strip()).doesNotContain("\n").contains("Ethernet4.pcap is a symbolic link");
        assertThat(target).doesNotExist();
        try (Stream<Path> files = Files.list(outDir)) {
            assertThat(files).as("nothing written beside the link").containsExactly(outDir.resolve("Ethernet4.pcap"));
        }
    }
}
