package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The hand-written CRC-32 (needed for the ICRC's masked bytes) equals the JDK's, at every length and offset. */
class Crc32PropertyTest {
    @Property(tries = 500)
    void equalsTheJdksCrc32(
            @ForAll @Size(max = 2_000) byte[] bytes,
            @ForAll @IntRange(max = 7) int offset,
            @ForAll @IntRange(max = 64) int split) {
        final byte[] shifted = new byte[bytes.length + offset];
        System.arraycopy(bytes, 0, shifted, offset, bytes.length);
        final MemorySegment segment = MemorySegment.ofArray(shifted);
        final CRC32 jdk = new CRC32();
        jdk.update(bytes);
        assertThat(Crc32.compute(segment, offset, bytes.length)).isEqualTo((int) jdk.getValue());
        // Fed in two pieces, as the ICRC feeds the packet around masked fields.
        final int first = Math.min(split, bytes.length);
        final int running = Crc32.update(Crc32.INITIAL, segment, offset, first);
        assertThat(Crc32.finish(Crc32.update(running, segment, offset + first, bytes.length - first)))
                .isEqualTo((int) jdk.getValue());
    }
}
