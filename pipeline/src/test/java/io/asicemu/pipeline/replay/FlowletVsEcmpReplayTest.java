package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.testsupport.Tshark;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5 through the whole pipeline in virtual time (replay): a leaf with 4 × 100G uplinks in one ECMP group. A 400G
 * host port sends 64 bursty RoCEv2 flows (one 5-tuple, distinct destination QPs; bursts of 128 × 1024 B at 20 Gb/s,
 * then 349 µs of silence, longer than the 256 µs SAI default idle time), about 168 Gb/s in all; a second input port
 * sends 90 Gb/s of background traffic routed to uplink Ethernet4 only, so that uplink's queue builds when the group
 * also sends there. Run once with {@code ecmp_lb_mode} enhanced_ecmp and once with flowlet_quality. Link utilization =
 * bytes each uplink finished sending inside the input window (tshark timestamps of the output captures); imbalance =
 * max / mean over the 4 uplinks. Flowlet mode must be lower, and no flow may be reordered: PSNs increase per QP at
 * each uplink and over all uplinks merged by time.
 */
@Timeout(120)
class FlowletVsEcmpReplayTest {
    private static final List<String> UPLINKS = List.of("Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16");
    private static final int FLOWS = 64;
    private static final int BURST_FRAMES = 128;
    private static final long FRAME_GAP_NS = 400;
    private static final long PERIOD_NS = 400_000;
    private static final int PERIODS = 5;
    private static final int FRAME_LEN = 1024;
    /** 90 Gb/s of 1024 B frames: one every 91 ns. */
    private static final long BACKGROUND_GAP_NS = 91;

    private static final long START_NS = 1_000_000_000L;
    private static final long WINDOW_NS = PERIOD_NS * PERIODS;

    @TempDir
    Path dir;

    private static String config(final String mode) throws IOException {
        try (InputStream in = FlowletVsEcmpReplayTest.class.getResourceAsStream("leaf_uplinks_config_db.json")) {
            final String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"ecmp_lb_mode\": \"enhanced_ecmp\"");
            return json.replace("\"ecmp_lb_mode\": \"enhanced_ecmp\"", "\"ecmp_lb_mode\": \"" + mode + "\"");
        }
    }

    private static void writeInputs(final Path hostPcap, final Path backgroundPcap) throws IOException {
        final List<long[]> frames = new ArrayList<>(); // time, flow, psn
        for (int p = 0; p < PERIODS; p++) {
            for (int f = 0; f < FLOWS; f++) {
                final long burstStart = START_NS + p * PERIOD_NS + f * (PERIOD_NS / FLOWS) + f % 7;
                for (int n = 0; n < BURST_FRAMES; n++) {
                    frames.add(new long[] {burstStart + n * FRAME_GAP_NS, f, (long) p * BURST_FRAMES + n});
                }
            }
        }
        frames.sort(Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1]));
        try (Arena arena = Arena.ofConfined();
                PcapWriter host = new PcapWriter(hostPcap);
                PcapWriter background = new PcapWriter(backgroundPcap)) {
            final MemorySegment buf = arena.allocate(2048);
            final FrameBuilder b = new FrameBuilder();
            for (final long[] fr : frames) {
                b.reset()
                        .macs(0x02aa_bbcc_ddeeL, 0x0200_0000_0102L)
                        .ipv4(0x0a00_0102, 0xac10_0009)
                        .udpPorts(49152, 4791)
                        .bth(0x04, 0x100 + (int) fr[1], (int) fr[2]);
                final int len = b.buildRoce(buf, 0, FRAME_LEN - 58);
                assertThat(len).isEqualTo(FRAME_LEN);
                host.write(buf, 0, len, fr[0]);
            }
            for (long t = START_NS; t < START_NS + WINDOW_NS; t += BACKGROUND_GAP_NS) {
                b.reset()
                        .macs(0x02aa_bbcc_ddeeL, 0x0200_0000_0602L)
                        .ipv4(0x0a00_0602, 0xc0a8_0009)
                        .udpPorts(7000, 7001);
                final int len = b.buildUdp(buf, 0, FRAME_LEN - 42);
                background.write(buf, 0, len, t);
            }
        }
    }

    private record Outcome(double imbalance, long[] windowBytes, int reorders, int roceFrames) {}

    private Outcome run(final String mode, final Map<String, Path> inputs) throws IOException {
        final Replay.Result result =
                Replay.run(ConfigDb.parse(config(mode)), inputs, dir.resolve("out-" + mode), PipelineSizing.defaults());
        final long[] bytes = new long[UPLINKS.size()];
        final List<long[]> merged = new ArrayList<>(); // time, qp, psn
        int reorders = 0;
        int roce = 0;
        for (int u = 0; u < UPLINKS.size(); u++) {
            final List<List<String>> rows = Tshark.fields(
                    result.outputs().get(UPLINKS.get(u)),
                    null,
                    "frame.time_epoch",
                    "frame.len",
                    "infiniband.bth.destqp",
                    "infiniband.bth.psn");
            final Map<String, Long> lastPsn = new HashMap<>();
            for (final List<String> row : rows) {
                final long t = new BigDecimal(row.get(0)).movePointRight(9).longValueExact();
                if (t - START_NS <= WINDOW_NS) {
                    bytes[u] += Long.parseLong(row.get(1));
                }
                if (!row.get(2).isEmpty()) {
                    roce++;
                    final long psn = Long.parseLong(row.get(3));
                    final Long last = lastPsn.put(row.get(2), psn);
                    if (last != null && psn <= last) {
                        reorders++;
                    }
                    merged.add(new long[] {t, Long.decode(row.get(2)), psn});
                }
            }
        }
        merged.sort(Comparator.comparingLong(a -> a[0]));
        final Map<Long, Long> lastPsn = new HashMap<>();
        for (final long[] m : merged) {
            final Long last = lastPsn.put(m[1], m[2]);
            if (last != null && m[2] <= last) {
                reorders++;
            }
        }
        long max = 0;
        long sum = 0;
        for (final long b : bytes) {
            max = Math.max(max, b);
            sum += b;
        }
        return new Outcome(max / (sum / (double) bytes.length), bytes, reorders, roce);
    }

    @Test
    void shouldBalanceUplinksBetterWithFlowletsThanEnhancedEcmpWhenOneUplinkIsCongested() throws IOException {
        final Path host = dir.resolve("Ethernet0.pcap");
        final Path background = dir.resolve("Ethernet20.pcap");
        writeInputs(host, background);
        final Map<String, Path> inputs = new LinkedHashMap<>();
        inputs.put("Ethernet0", host);
        inputs.put("Ethernet20", background);

        final Outcome ecmp = run("enhanced_ecmp", inputs);
        final Outcome flowlet = run("flowlet_quality", inputs);
        System.out.printf(
                "uplink utilization imbalance (max/mean of bytes sent in the %d us window), one uplink "
                        + "congested by 90G background: enhanced_ecmp %.3f %s, flowlet_quality %.3f %s%n",
                WINDOW_NS / 1000,
                ecmp.imbalance(),
                java.util.Arrays.toString(ecmp.windowBytes()),
                flowlet.imbalance(),
                java.util.Arrays.toString(flowlet.windowBytes()));
        assertThat(flowlet.roceFrames()).isEqualTo(FLOWS * BURST_FRAMES * PERIODS);
        assertThat(flowlet.reorders()).as("flowlet mode reorders nothing").isZero();
        assertThat(ecmp.reorders()).isZero();
        assertThat(flowlet.imbalance()).isLessThan(ecmp.imbalance());
    }
}
