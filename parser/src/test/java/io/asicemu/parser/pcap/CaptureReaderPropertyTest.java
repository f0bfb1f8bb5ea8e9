package io.asicemu.parser.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.SampleFrames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Damaged captures never make the readers throw past the file header: records are bounded, and iteration ends with
 * {@code truncated()} instead. Only a damaged file/section header raises {@link CaptureFormatException}.
 */
class CaptureReaderPropertyTest {
    private static byte[] pcap;
    private static byte[] pcapng;
    private static Path dir;

    @BeforeContainer
    static void writeCaptures() throws IOException {
        dir = Files.createTempDirectory("capture-props");
        final MemorySegment ring = Arena.ofAuto().allocate(10 * 256);
        final int[] lengths = SampleFrames.fillMixedRing(ring, 10, 256);
        final Path file = dir.resolve("sample.pcap");
        try (PcapWriter writer = new PcapWriter(file)) {
            for (int i = 0; i < 10; i++) {
                writer.write(ring, i * 256L, lengths[i], i);
            }
        }
        pcap = Files.readAllBytes(file);
        pcapng = handMadePcapng(ring, lengths);
    }

    @AfterContainer
    static void cleanUp() throws IOException {
        try (var files = Files.list(dir)) {
            files.forEach(path -> {
                try {
                    Files.delete(path);
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        Files.delete(dir);
    }

    @Property(tries = 2000)
    void shouldNeverThrowPastTheHeaderWhenCaptureIsDamaged(
            @ForAll final boolean ng,
            @ForAll @Size(max = 6) final List<@IntRange(min = 0, max = Integer.MAX_VALUE) Integer> mutations,
            @ForAll @IntRange(min = 0, max = 2000) final int cut) {
        final byte[] original = ng ? pcapng : pcap;
        final byte[] bytes = java.util.Arrays.copyOf(original, Math.max(0, original.length - cut));
        for (final int mutation : mutations) {
            if (bytes.length > 0) {
                bytes[(mutation >>> 8) % bytes.length] = (byte) mutation;
            }
        }
        final MemorySegment segment =
                Arena.ofAuto().allocate(Math.max(1, bytes.length)).asSlice(0, bytes.length);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, segment, 0, bytes.length);
        final CaptureReader reader;
        try {
            reader = CaptureReader.of(segment);
        } catch (final CaptureFormatException e) {
            return;
        }
        int packets = 0;
        while (reader.next()) {
            assertThat(reader.frameOffset() + reader.capturedLength()).isLessThanOrEqualTo(segment.byteSize());
            assertThat(reader.capturedLength()).isNotNegative();
            packets++;
        }
        assertThat(packets).isLessThanOrEqualTo(bytes.length / 12 + 1);
    }

    /** A little-endian pcapng: SHB, IDB (if_tsresol 9), one EPB per frame. */
    private static byte[] handMadePcapng(final MemorySegment ring, final int[] lengths) {
        final MemorySegment out = Arena.ofAuto().allocate(16_384);
        final ValueLayout.OfInt le = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        final ValueLayout.OfShort le16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        long at = 0;
        out.set(le, at, PcapNgReader.BLOCK_SECTION_HEADER);
        out.set(le, at + 4, 28);
        out.set(le, at + 8, PcapNgReader.BYTE_ORDER_MAGIC);
        out.set(le16, at + 12, (short) 1);
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16, -1L);
        out.set(le, at + 24, 28);
        at += 28;
        out.set(le, at, PcapNgReader.BLOCK_INTERFACE);
        out.set(le, at + 4, 32);
        out.set(le16, at + 8, (short) 1);
        out.set(le, at + 12, 65_535);
        out.set(le16, at + 16, (short) 9);
        out.set(le16, at + 18, (short) 1);
        out.set(ValueLayout.JAVA_BYTE, at + 20, (byte) 9);
        out.set(le, at + 24, 0);
        out.set(le, at + 28, 32);
        at += 32;
        for (int i = 0; i < lengths.length; i++) {
            final int padded = (lengths[i] + 3) & ~3;
            final int total = 32 + padded;
            out.set(le, at, PcapNgReader.BLOCK_ENHANCED_PACKET);
            out.set(le, at + 4, total);
            out.set(le, at + 16, i);
            out.set(le, at + 20, lengths[i]);
            out.set(le, at + 24, lengths[i]);
            MemorySegment.copy(ring, i * 256L, out, at + 28, lengths[i]);
            out.set(le, at + total - 4, total);
            at += total;
        }
        try (CaptureReader check = CaptureReader.of(out.asSlice(0, at))) {
            int count = 0;
            while (check.next()) {
                assertThat(check.timestampNs()).isEqualTo(count);
                count++;
            }
            assertThat(count).isEqualTo(lengths.length);
        }
        return out.asSlice(0, at).toArray(ValueLayout.JAVA_BYTE);
    }
}
