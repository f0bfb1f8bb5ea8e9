package io.asicemu.parser.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.SampleFrames;
import io.asicemu.testsupport.ProcessRunner;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PcapWriter → CaptureReader round trips, directly and through editcap's pcapng and µs pcap writers. */
class CaptureRoundTripTest {
    private static final int FRAMES = 40;
    private static final int SLOT = 256;
    private static final long T0_NS = 1_750_000_000_987_654_321L;

    @TempDir
    Path dir;

    private MemorySegment ring;
    private int[] lengths;
    private Path pcap;

    @BeforeEach
    void writeCapture() throws Exception {
        ring = Arena.ofAuto().allocate((long) FRAMES * SLOT);
        lengths = SampleFrames.fillMixedRing(ring, FRAMES, SLOT);
        pcap = dir.resolve("ns.pcap");
        try (PcapWriter writer = new PcapWriter(pcap)) {
            for (int i = 0; i < FRAMES; i++) {
                writer.write(ring, (long) i * SLOT, lengths[i], T0_NS + i * 1_001L);
            }
            assertThat(writer.packetCount()).isEqualTo(FRAMES);
        }
    }

    @Test
    void shouldReadBackBytesAndNanosecondTimestampsWhenWrittenByPcapWriter() throws Exception {
        assertReadsBack(pcap, 1);
        try (CaptureReader reader = CaptureReader.open(pcap)) {
            assertThat(reader).isInstanceOf(PcapReader.class);
            assertThat(((PcapReader) reader).nanosecondTimestamps()).isTrue();
        }
    }

    @Test
    void shouldReadEditcapPcapngWithNanosecondResolutionWhenConverted() throws Exception {
        final Path pcapng = dir.resolve("converted.pcapng");
        ProcessRunner.runOrFail("editcap", "-F", "pcapng", pcap.toString(), pcapng.toString());
        try (CaptureReader reader = CaptureReader.open(pcapng)) {
            assertThat(reader).isInstanceOf(PcapNgReader.class);
        }
        assertReadsBack(pcapng, 1);
    }

    @Test
    void shouldTruncateToMicrosecondsWhenEditcapWritesClassicPcap() throws Exception {
        final Path micros = dir.resolve("us.pcap");
        ProcessRunner.runOrFail("editcap", "-F", "pcap", pcap.toString(), micros.toString());
        assertReadsBack(micros, 1_000);
    }

    @Test
    void shouldCutToSnapLengthAndKeepOriginalLengthWhenFrameIsLonger() throws Exception {
        final Path cut = dir.resolve("cut.pcap");
        final MemorySegment big = Arena.ofAuto().allocate(9000);
        final int length = new FrameBuilder().udpPorts(1, 2).buildUdp(big, 0, 8000);
        try (PcapWriter writer = new PcapWriter(cut, 128, CaptureReader.LINKTYPE_ETHERNET)) {
            writer.write(big, 0, length, 5);
        }
        try (CaptureReader reader = CaptureReader.open(cut)) {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(128);
            assertThat(reader.originalLength()).isEqualTo(length);
            assertThat(reader.next()).isFalse();
            assertThat(reader.truncated()).isFalse();
        }
    }

    @Test
    void shouldStopAndFlagTruncationWhenLastRecordIsCut() throws Exception {
        final byte[] bytes = Files.readAllBytes(pcap);
        final Path cut = dir.resolve("truncated.pcap");
        Files.write(cut, Arrays.copyOf(bytes, bytes.length - 3));
        int count = 0;
        try (CaptureReader reader = CaptureReader.open(cut)) {
            while (reader.next()) {
                count++;
            }
            assertThat(reader.truncated()).isTrue();
        }
        assertThat(count).isEqualTo(FRAMES - 1);
    }

    @Test
    void shouldRejectNonCaptureWhenMagicIsUnknown() throws Exception {
        final Path junk = dir.resolve("junk.bin");
        Files.write(junk, new byte[64]);
        assertThatThrownBy(() -> CaptureReader.open(junk)).isInstanceOf(CaptureFormatException.class);
    }

    @Test
    void shouldConvertPcapngTimestampUnitsWhenResolutionIsDecimalOrBinary() {
        assertThat(PcapNgReader.toNanos(1_500_000L, 6)).isEqualTo(1_500_000_000L);
        assertThat(PcapNgReader.toNanos(1_500_000_123L, 9)).isEqualTo(1_500_000_123L);
        assertThat(PcapNgReader.toNanos(15_000_000_001L, 10)).isEqualTo(1_500_000_000L);
        assertThat(PcapNgReader.toNanos(3L << 20 | 1L << 19, 0x80 | 20)).isEqualTo(3_500_000_000L);
        assertThat(PcapNgReader.toNanos(7, 0)).isEqualTo(7_000_000_000L);
    }

    private void assertReadsBack(final Path file, final long resolutionNs) throws Exception {
        int i = 0;
        try (CaptureReader reader = CaptureReader.open(file)) {
            while (reader.next()) {
                assertThat(reader.linkType()).isEqualTo(CaptureReader.LINKTYPE_ETHERNET);
                assertThat(reader.capturedLength()).isEqualTo(lengths[i]);
                assertThat(reader.originalLength()).isEqualTo(lengths[i]);
                final long expectedNs = T0_NS + i * 1_001L;
                assertThat(reader.timestampNs()).isEqualTo(expectedNs - expectedNs % resolutionNs);
                assertThat(reader.segment()
                                .asSlice(reader.frameOffset(), reader.capturedLength())
                                .toArray(ValueLayout.JAVA_BYTE))
                        .isEqualTo(ring.asSlice((long) i * SLOT, lengths[i]).toArray(ValueLayout.JAVA_BYTE));
                i++;
            }
            assertThat(reader.truncated()).isFalse();
        }
        assertThat(i).isEqualTo(FRAMES);
    }
}
