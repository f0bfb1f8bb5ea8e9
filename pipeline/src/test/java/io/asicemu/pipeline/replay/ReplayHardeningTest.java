package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.MacControlFrames;
import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.table.PipelineSizing;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay against hostile or unlucky input (issue 14): idle virtual time of any length is skipped in one step; a
 * run that fails midway still writes its counters and captures and says so; port names cannot steer output files out
 * of the output directory.
 */
@Timeout(60)
class ReplayHardeningTest {
    private static final long ROUTER = 0x02aa_bbcc_ddeeL;
    private static final long HOST = 0x0200_0000_0102L;
    private static final long THREE_DAYS_NS = 3L * 86_400 * 1_000_000_000L;

    @TempDir
    Path dir;

    /** NothingLostReplayPropertyTest's two routed ports, with a PFC watchdog polling every 100 ms on Ethernet0. */
    private static ConfigDb watchedConfig() {
        return ConfigDb.parse("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:aa:bb:cc:dd:ee\"}},"
                + " \"PORT\": {\"Ethernet0\": {\"speed\": \"10000\", \"admin_status\": \"up\", \"mtu\": \"9100\"},"
                + " \"Ethernet4\": {\"speed\": \"10000\", \"admin_status\": \"up\", \"mtu\": \"9100\"}},"
                + " \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.1/24\": {}, \"Ethernet4\": {},"
                + " \"Ethernet4|10.0.2.1/24\": {}},"
                + " \"NEIGH\": {\"Ethernet4|10.0.2.2\": {\"neigh\": \"02:00:00:00:02:02\", \"family\": \"IPv4\"}},"
                + " \"STATIC_ROUTE\": {\"192.168.0.0/16\": {\"nexthop\": \"10.0.2.2\", \"ifname\": \"Ethernet4\"}},"
                + " \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\", \"pfcwd_sw_enable\": \"3\"}},"
                + " \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"100\"}, \"Ethernet0\": {\"action\": \"drop\","
                + " \"detection_time\": \"200\", \"restoration_time\": \"200\"}}}");
    }

    /** Routed UDP frames at the given times, a PFC frame (priority 3) first. */
    private Path capture(final long... timesNs) throws IOException {
        final Path input = dir.resolve("in.pcap");
        try (PcapWriter out = new PcapWriter(input);
                Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(2048);
            final int pfc =
                    MacControlFrames.writePfc(frame, 0, HOST, 0x08, new int[] {0, 0, 0, 100, 0, 0, 0, 0}, false);
            out.write(frame, 0, pfc, timesNs[0] - 1_000);
            for (final long t : timesNs) {
                final int length = new FrameBuilder()
                        .macs(ROUTER, HOST)
                        .untagged()
                        .ipv4(0x0a00_0102, 0xc0a8_0101)
                        .ttl(64)
                        .udpPorts(1234, 9)
                        .buildUdp(frame, 0, 100);
                out.write(frame, 0, length, t);
            }
        }
        return input;
    }

    @Test
    void shouldSkipAMultiDayGapInOneStepWhenNothingIsQueued() throws IOException {
        final long t0 = 1_700_000_000_000_000_000L;
        final Path input = capture(t0, t0 + THREE_DAYS_NS, t0 + THREE_DAYS_NS + 10_000);
        final long startNs = System.nanoTime();
        final Replay.Result result =
                Replay.run(watchedConfig(), Map.of("Ethernet0", input), dir.resolve("out"), PipelineSizing.defaults());
        final double seconds = (System.nanoTime() - startNs) / 1e9;

        assertThat(pcapRecords(result.outputs().get("Ethernet4")))
                .as("all three routed frames left")
                .isEqualTo(3);
        assertThat(result.endNs()).isGreaterThan(t0 + THREE_DAYS_NS);
        // one step per frame event and timer while something is queued; 3 days of 1 s aging and 100 ms watchdog
        // polls would be 2.9 M cycles stepped one by one
        assertThat(result.cycles()).as("cycles for 4 frames over 3 days").isLessThan(100);
        assertThat(seconds).as("wall time of the replay (s)").isLessThan(10);
        assertThat(Files.readString(result.countersFile())).doesNotContain("INCOMPLETE");
    }

    @Test
    void shouldProduceTheSameBytesWhetherIdleTimeIsJumpedOrStepped() throws IOException {
        // PFC storms (the watchdog detects, drops, restores) separated by idle gaps of 1.5 s to 20 s: stepping polls
        // the watchdog every 100 ms and sweeps the FDB every second through the gaps; the jump must change nothing
        final long t0 = 1_000_000_000L;
        final Path input = dir.resolve("storms.pcap");
        try (PcapWriter out = new PcapWriter(input);
                Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(2048);
            long t = t0;
            for (final long gapNs : new long[] {1_500_000_000L, 20_000_000_000L, 3_000_000_000L, 7_000_000_000L}) {
                for (int i = 0; i < 600; i++) {
                    final int pfc = MacControlFrames.writePfc(
                            frame, 0, HOST, 0x08, new int[] {0, 0, 0, 0xffff, 0, 0, 0, 0}, false);
                    out.write(frame, 0, pfc, t);
                    final int udp = new FrameBuilder()
                            .macs(ROUTER, HOST)
                            .untagged()
                            .ipv4(0x0a00_0102, 0xc0a8_0101)
                            .ttl(64)
                            .udpPorts(1234, 9)
                            .buildUdp(frame, 0, 100);
                    out.write(frame, 0, udp, t + 50_000);
                    t += 500_000;
                }
                t += gapNs;
            }
        }
        final Replay.Result jumped = Replay.run(
                watchedConfig(),
                Map.of("Ethernet0", input),
                dir.resolve("jumped"),
                PipelineSizing.defaults(),
                ReplayOptions.defaults(),
                0,
                false);
        final Replay.Result stepped = Replay.run(
                watchedConfig(),
                Map.of("Ethernet0", input),
                dir.resolve("stepped"),
                PipelineSizing.defaults(),
                ReplayOptions.defaults(),
                0,
                true);
        assertThat(jumped.cycles()).as("cycles jumped vs stepped").isLessThan(stepped.cycles());
        final String counters = Files.readString(stepped.countersFile());
        final long detected = counter(counters, "Ethernet0:3 PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED");
        assertThat(detected).as("storms the watchdog detected (of 4)").isGreaterThanOrEqualTo(2);
        assertThat(counter(counters, "Ethernet0:3 PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"))
                .as("restored in the gaps")
                .isEqualTo(detected);
        assertThat(Files.readString(jumped.countersFile()))
                .as("counters.txt")
                .isEqualTo(Files.readString(stepped.countersFile()));
        for (final String port : jumped.outputs().keySet()) {
            assertThat(Files.readAllBytes(jumped.outputs().get(port)))
                    .as(port + ".pcap")
                    .isEqualTo(Files.readAllBytes(stepped.outputs().get(port)));
        }
        assertThat(Files.readAllBytes(jumped.cpuPcap())).isEqualTo(Files.readAllBytes(stepped.cpuPcap()));
    }

    @Test
    void shouldWriteCountersAndCapturesMarkedIncompleteWhenTheRunFailsMidway() throws IOException {
        final long t0 = 1_000_000_000L;
        final long[] times = new long[200];
        for (int i = 0; i < times.length; i++) {
            times[i] = t0 + i * 10_000L;
        }
        final Path input = capture(times);
        final Path out = dir.resolve("out");
        // the safety bound that stopped the multi-day replay, made tight enough to trip midway here
        assertThatThrownBy(() -> Replay.run(
                        watchedConfig(),
                        Map.of("Ethernet0", input),
                        out,
                        PipelineSizing.defaults(),
                        ReplayOptions.defaults(),
                        100,
                        false))
                .isInstanceOf(ReplayFailedException.class)
                .hasMessageContaining("replay failed after")
                .satisfies(e -> {
                    final Replay.Result partial = ((ReplayFailedException) e).partial();
                    final String counters = Files.readString(partial.countersFile());
                    assertThat(counters)
                            .startsWith("# INCOMPLETE: replay failed after")
                            .contains("SAI_PORT_STAT_IF_IN_UCAST_PKTS");
                    final int sent = pcapRecords(partial.outputs().get("Ethernet4"));
                    assertThat(sent).as("frames written before the failure").isBetween(1, times.length - 1);
                    assertThat(partial.counters().port("Ethernet4", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                            .as("counters agree with the capture")
                            .isEqualTo(sent);
                });
    }

    @Test
    void shouldRefuseAPortNameThatWouldWriteOutsideTheOutputDirectory() throws IOException {
        final Path out = dir.resolve("a/b/out");
        for (final String name :
                new String[] {"../../../elsewhere/x", dir.resolve("abs/x").toString(), "sub/x", "../out2/x"}) {
            final ConfigDb db = ConfigDb.parse("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\":"
                    + " \"02:aa:bb:cc:dd:ee\"}}, \"PORT\": {\"" + name.replace("\\", "\\\\")
                    + "\": {\"speed\": \"10000\", \"admin_status\": \"up\"}}}");
            // the config loader may refuse the name first (issue 14's port-name validation); either way nothing is
            // written anywhere but in out/
            assertThatThrownBy(() -> Replay.run(db, Map.of(), out, PipelineSizing.defaults()))
                    .as(name)
                    .isInstanceOfAny(IllegalArgumentException.class, ConfigException.class);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(Files::isRegularFile).toList())
                    .as("files written")
                    .isEmpty();
        }
    }

    @Test
    void shouldConfineOutputNamesToTheDirectory() throws IOException {
        final Path out = Files.createDirectories(dir.resolve("out"));
        assertThat(OutputPaths.confined(out, "Ethernet0.pcap"))
                .isEqualTo(out.toAbsolutePath().resolve("Ethernet0.pcap"));
        for (final String bad : new String[] {
            "../x.pcap", "/etc/x.pcap", "a/../../x.pcap", "..", ".", "", "a\\b.pcap", "x\0.pcap", "sub/x.pcap"
        }) {
            assertThatThrownBy(() -> OutputPaths.confined(out, bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        Files.createSymbolicLink(out.resolve("link.pcap"), dir.resolve("target.pcap"));
        assertThatThrownBy(() -> OutputPaths.confined(out, "link.pcap")).hasMessageContaining("symbolic link");
        final Path file = Files.writeString(dir.resolve("file"), "x");
        assertThatThrownBy(() -> OutputPaths.createDirectory(file)).hasMessageContaining("not a directory");
    }

    private static long counter(final String counters, final String name) {
        for (final String line : counters.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        return 0;
    }

    private static int pcapRecords(final Path pcap) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(pcap)).order(ByteOrder.LITTLE_ENDIAN);
        int records = 0;
        int at = 24;
        while (at + 16 <= b.limit()) {
            at += 16 + b.getInt(at + 8);
            records++;
        }
        return records;
    }
}
