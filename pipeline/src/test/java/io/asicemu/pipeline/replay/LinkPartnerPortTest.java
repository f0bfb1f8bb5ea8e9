package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.MacControlFrames;
import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.pipeline.port.RxBatch;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The link partner's timing, exact to the ns, from reference §6.1–6.2: at 100G a 1024 B frame takes
 * (1024 + 24) * 8 / 100 = 83 ns (floor) on the wire, a quantum is 512 bit times = 5.12 ns, the cable here is 100 ns.
 * Frames are recorded to reach the switch every 100 ns from t = 1000, so the partner starts frame i at
 * 1000 + 100 i - 83 - 100 = 817 + 100 i. Priority = DSCP (classifier of the test).
 */
@Timeout(10)
class LinkPartnerPortTest {
    private static final long SPEED = 100_000;
    private static final long CABLE = 100;
    private static final long ROUTER = 0x02aa_bbcc_ddeeL;

    @TempDir
    Path dir;

    /** Frames with the given DSCPs, recorded at 1000 + 100 i. */
    private LinkPartnerPort partner(final int... dscps) throws IOException {
        final Path in = dir.resolve("in.pcap");
        try (Arena arena = Arena.ofConfined();
                PcapWriter w = new PcapWriter(in)) {
            final MemorySegment buf = arena.allocate(2048);
            for (int i = 0; i < dscps.length; i++) {
                final int len = new FrameBuilder()
                        .reset()
                        .macs(ROUTER, 0x0200_0000_0102L)
                        .ipv4(0x0a00_0102, 0x0a00_0902)
                        .dscp(dscps[i])
                        .udpPorts(1, 2 + i)
                        .buildUdp(buf, 0, 1024 - 42);
                w.write(buf, 0, len, 1000 + 100L * i);
            }
        }
        return new LinkPartnerPort(
                "Ethernet0",
                in,
                dir.resolve("out.pcap"),
                9100,
                SPEED,
                CABLE,
                (frame, offset, length) -> (frame.get(ValueLayout.JAVA_BYTE, offset + 15) & 0xff) >>> 2);
    }

    private static void pfc(final LinkPartnerPort port, final long atNs, final int priority, final int quanta) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment f = arena.allocate(64);
            final int[] q = new int[8];
            q[priority] = quanta;
            assertThat(port.transmit(f, 0, MacControlFrames.writePfc(f, 0, ROUTER, 1 << priority, q, false), atNs))
                    .isTrue();
        }
    }

    /** Receives at nowNs and returns "arrival@frame" (frame = UDP dst port - 2) for each frame lent. */
    private static List<String> receive(final LinkPartnerPort port, final long nowNs) {
        final RxBatch batch = new RxBatch(16);
        final int n = port.receive(batch, nowNs);
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int dstPort = batch.segment(i)
                    .get(
                            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                            batch.offset(i) + 36);
            out.add(batch.timestampNs(i) + "@" + (dstPort - 2));
        }
        port.release(batch);
        return out;
    }

    @Test
    void shouldArriveAtRecordedTimesWhenNothingIsPaused() throws IOException {
        try (LinkPartnerPort port = partner(3, 3, 3)) {
            assertThat(port.nextRxTimestampNs()).isEqualTo(1000);
            assertThat(receive(port, 999)).isEmpty();
            assertThat(receive(port, 1200)).containsExactly("1000@0", "1100@1", "1200@2");
            assertThat(port.delayedFrames()).isZero();
        }
    }

    @Test
    void shouldFinishFrameInFlightAndHoldLaterFramesForQuantaTimes512BitTimes() throws IOException {
        try (LinkPartnerPort port = partner(3, 3, 3, 3, 3)) {
            pfc(port, 900, 3, 100); // reaches the partner at 1000; 100 quanta = 512 ns: paused until 1512
            // frames 0 (starts 817) and 1 (starts 917) started before 1000: they finish
            assertThat(receive(port, 1694)).containsExactly("1000@0", "1100@1");
            // frame 2 wanted 1017: starts at 1512, arrives 1512 + 83 + 100; 3 and 4 follow back to back
            assertThat(port.nextRxTimestampNs()).isEqualTo(1695);
            assertThat(receive(port, 1861)).containsExactly("1695@2", "1778@3", "1861@4");
            assertThat(port.delayedFrames()).isEqualTo(3);
            assertThat(port.pfcFramesReceived(3)).isEqualTo(1);
        }
    }

    @Test
    void shouldResumeAtOnceWhenXonArrivesAndLetOtherPrioritiesPass() throws IOException {
        try (LinkPartnerPort port = partner(3, 3, 0, 3)) {
            pfc(port, 900, 3, 0xFFFF); // XOFF at the partner from 1000 for 335,539 ns
            pfc(port, 1200, 3, 0); // XON at the partner at 1300
            assertThat(receive(port, 1200))
                    .containsExactly("1000@0", "1100@1", "1200@2"); // frame 2 is priority 0: not paused
            // frame 3 wanted 1117: waits for the XON at 1300, arrives 1300 + 183
            assertThat(port.nextRxTimestampNs()).isEqualTo(1483);
            assertThat(receive(port, 1483)).containsExactly("1483@3");
        }
    }

    @Test
    void shouldReplaceRemainingPauseTimeWhenNewerFrameArrives() throws IOException {
        try (LinkPartnerPort port = partner(3, 3, 3)) {
            pfc(port, 900, 3, 100); // paused 1000 .. 1512
            pfc(port, 1400, 3, 200); // at 1500 replaced: until 1500 + 1024 = 2524
            assertThat(receive(port, 1100)).hasSize(2);
            assertThat(port.nextRxTimestampNs()).isEqualTo(2524 + 83 + 100);
            assertThat(port.totalDelayNs()).isZero();
            assertThat(receive(port, 2707)).containsExactly("2707@2");
            assertThat(port.totalDelayNs()).isEqualTo(2524 - 1017);
        }
    }
}
