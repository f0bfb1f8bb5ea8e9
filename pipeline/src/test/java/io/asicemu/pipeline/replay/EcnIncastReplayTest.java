package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.testsupport.Scapy;
import io.asicemu.testsupport.Tshark;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ECN through the replay: a 2:1 incast of ECT(0) RoCEv2 frames (scapy) into queue 3 of one 100G port whose WRED
 * profile has Kmin 40960 B, Kmax 81920 B, Pmax 5 %, ecn_all. Reference §7: p = 0 below Kmin, 100 % at or above Kmax,
 * on the instantaneous queue at dequeue. The queue depth each frame saw is reconstructed independently from the
 * input and output captures (tshark timestamps): frames in the queue when it started = frames arrived by then minus
 * frames sent before it, times 1024 B (4 whole 256 B cells, so charged bytes = frame bytes).
 */
@Timeout(60)
class EcnIncastReplayTest {
    private static final int FRAMES = 160;
    private static final int FRAME_LEN = 1024;
    private static final long KMIN = 40_960;
    private static final long KMAX = 81_920;
    /** (1024 + 24) * 8 / 100 Gb/s = 83.84 ns on the wire. */
    private static final double SERIALIZATION_NS = (FRAME_LEN + 24) * 8 / 100.0;

    @TempDir
    Path dir;

    private static long ns(final String epoch) {
        return new BigDecimal(epoch).movePointRight(9).longValueExact();
    }

    @Test
    void shouldMarkCeAboveKmaxAndNeverBelowKminWhenIncastOfEct0Replays() throws IOException {
        final ConfigDb db;
        try (InputStream in = EcnIncastReplayTest.class.getResourceAsStream("ecn_incast_config_db.json")) {
            db = ConfigDb.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        final Path in = dir.resolve("in");
        Files.createDirectories(in);
        assertThat(Scapy.runResource(
                        EcnIncastReplayTest.class,
                        "build_incast.py",
                        in.toString(),
                        "2",
                        Integer.toString(FRAMES),
                        Integer.toString(FRAME_LEN),
                        "3",
                        "2",
                        "84"))
                .contains("ok");
        final Map<String, Path> inputs =
                Map.of("Ethernet0", in.resolve("Ethernet0.pcap"), "Ethernet4", in.resolve("Ethernet4.pcap"));
        final Replay.Result result = Replay.run(db, inputs, dir.resolve("out"), PipelineSizing.defaults());

        final List<Long> arrivals = new ArrayList<>();
        for (final Path pcap : inputs.values()) {
            for (final List<String> row : Tshark.fields(pcap, "ip.dsfield.ecn == 2", "frame.time_epoch")) {
                arrivals.add(ns(row.get(0)));
            }
        }
        Collections.sort(arrivals);
        assertThat(arrivals).hasSize(2 * FRAMES);
        final List<List<String>> out = Tshark.fields(
                result.outputs().get("Ethernet12"),
                "udp.dstport == 4791",
                "frame.time_epoch",
                "ip.dsfield.ecn",
                "ip.checksum.status",
                "frame.len");
        assertThat(out).as("nothing dropped: ECT is marked, not dropped").hasSize(2 * FRAMES);
        int below = 0;
        int above = 0;
        int marked = 0;
        for (int k = 0; k < out.size(); k++) {
            final List<String> row = out.get(k);
            assertThat(row.get(2)).as("IPv4 checksum after the CE rewrite").isEqualTo("1");
            final boolean ce = "3".equals(row.get(1));
            assertThat(row.get(1)).isIn("2", "3");
            marked += ce ? 1 : 0;
            final long end = ns(row.get(0));
            // the frame started between end - 85 and end - 83 ns: count arrivals up to each bound
            final long depthLow =
                    (countUpTo(arrivals, end - (long) Math.ceil(SERIALIZATION_NS) - 1) - k) * (long) FRAME_LEN;
            final long depthHigh =
                    (countUpTo(arrivals, end - (long) Math.floor(SERIALIZATION_NS)) - k) * (long) FRAME_LEN;
            if (depthHigh < KMIN) {
                below++;
                assertThat(ce)
                        .as("frame %d at depth <= %d B < Kmin is not marked", k, depthHigh)
                        .isFalse();
            }
            if (depthLow >= KMAX) {
                above++;
                assertThat(ce)
                        .as("frame %d at depth >= %d B >= Kmax is marked", k, depthLow)
                        .isTrue();
            }
        }
        System.out.println("ECN 2:1 incast of ECT(0): " + marked + " of " + out.size() + " frames CE at the receiver; "
                + below + " below Kmin (none marked), " + above + " at/above Kmax (all marked)");
        assertThat(below).isGreaterThan(40);
        assertThat(above).isGreaterThan(40);
        assertThat(marked).isGreaterThanOrEqualTo(above);
    }

    private static int countUpTo(final List<Long> sorted, final long t) {
        int lo = 0;
        int hi = sorted.size();
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (sorted.get(mid) <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
