package io.asicemu.veth.afpacket;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.NetworkOrder;
import io.asicemu.testsupport.netns.Commands;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Software GSO and checksum completion against scapy: scapy builds a TCP super-frame (what a sender with TSO hands a
 * veth) and the segments a NIC would cut from it for a 1500-byte MTU (IP id +1 per segment, sequence numbers advanced,
 * PSH/FIN only on the last, checksums recomputed by scapy); our segmenter must produce the same bytes.
 */
class TcpSegmenterTest {
    private static final String SCRIPT = """
        import sys
        from scapy.all import Ether, IP, IPv6, TCP, Raw
        v6 = sys.argv[1] == "6"
        payload = bytes((i * 7) % 256 for i in range(4000))
        l3 = IPv6(src="2001:db8::1", dst="2001:db8::2") if v6 else IP(src="10.0.0.1", dst="10.0.0.2", id=77, flags="DF")
        tcp = TCP(sport=40000, dport=5001, seq=1000, ack=5, flags="PA", window=502,
                  options=[("NOP", None), ("NOP", None), ("Timestamp", (1, 2))])
        base = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / l3 / tcp
        print(bytes(base / Raw(payload)).hex())
        mss = 1500 - (40 if v6 else 20) - len(tcp)
        for i, off in enumerate(range(0, len(payload), mss)):
            chunk = payload[off:off + mss]
            last = off + mss >= len(payload)
            s = base.copy()
            if not v6:
                s[IP].id = 77 + i
                del s[IP].chksum
                del s[IP].len
            else:
                del s[IPv6].plen
            s[TCP].seq = 1000 + off
            s[TCP].flags = "PA" if last else "A"
            del s[TCP].chksum
            print(bytes(s / Raw(chunk)).hex())
        """;

    private static List<String> scapy(final String version) throws IOException {
        final Path script = Files.createTempFile("segmenter", ".py");
        try {
            Files.writeString(script, SCRIPT);
            final String out = Commands.run(
                            Duration.ofSeconds(60), List.of(Commands.PYTHON, script.toString(), version))
                    .requireSuccess()
                    .stdout();
            final List<String> lines = new ArrayList<>();
            for (final String line : out.split("\n")) {
                if (!line.isBlank()) {
                    lines.add(line.trim());
                }
            }
            return lines;
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    void shouldCutTcpSuperFrameLikeANicWhenIpv4() throws IOException {
        assertSegmentsMatch(scapy("4"));
    }

    @Test
    void shouldCutTcpSuperFrameLikeANicWhenIpv6() throws IOException {
        assertSegmentsMatch(scapy("6"));
    }

    @Test
    void shouldCompleteTcpChecksumLikeScapyWhenChecksumFieldIsPartial() throws IOException {
        final List<String> frames = scapy("4");
        final byte[] expected = HexFormat.of().parseHex(frames.get(1));
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(expected.length);
            MemorySegment.copy(expected, 0, frame, ValueLayout.JAVA_BYTE, 0, expected.length);
            // what a sender with TX checksum offload leaves: a pseudo-header seed, not the checksum
            frame.set(NetworkOrder.U16, 14 + 20 + 16, (short) 0x1234);
            final FrameLayout view = new FrameLayout();
            assertThat(view.wrap(frame, 0, expected.length)).isTrue();
            assertThat(Checksums.completeL4(frame, 0, view)).isTrue();
            assertThat(frame.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected);
        }
    }

    private static void assertSegmentsMatch(final List<String> frames) {
        final byte[] superFrame = HexFormat.of().parseHex(frames.getFirst());
        final List<String> expected = frames.subList(1, frames.size());
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(superFrame.length);
            MemorySegment.copy(superFrame, 0, frame, ValueLayout.JAVA_BYTE, 0, superFrame.length);
            final TcpSegmenter segmenter = new TcpSegmenter(arena.allocate(64L * 1522), 1522);
            final FrameLayout view = new FrameLayout();
            assertThat(view.wrap(frame, 0, superFrame.length)).isTrue();
            segmenter.readTcpHeader(frame, 0, view);
            assertThat(segmenter.segmentCount(view, 1500, 64)).isEqualTo(expected.size());
            final int[] lengths = new int[64];
            final int first = segmenter.segment(frame, 0, view, 1500, lengths);
            final List<String> actual = new ArrayList<>();
            for (int i = 0; i < expected.size(); i++) {
                actual.add(HexFormat.of()
                        .formatHex(segmenter
                                .scratch()
                                .asSlice(segmenter.slotOffset(first + i), lengths[i])
                                .toArray(ValueLayout.JAVA_BYTE)));
            }
            assertThat(actual).containsExactlyElementsOf(expected);
        }
    }
}
