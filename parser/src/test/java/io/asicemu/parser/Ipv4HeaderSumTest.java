package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * {@link ParseResult#ipv4HeaderSum} (summed by the parser from the words it loads) equals the RFC 1071 sum of the
 * header's bytes as a byte-wise oracle computes it, for random headers with and without options, VLAN tags, any
 * total length and truncation; and it is 0 for every frame that is not parsed as IPv4.
 */
class Ipv4HeaderSumTest {
    private final MemorySegment frame = Arena.ofAuto().allocate(2_048);
    private final PacketParser parser = new PacketParser(14, PacketParser.MAX_FRAME_LENGTH);

    @Test
    void shouldSumAValidHeaderToAllOnes() {
        final int length = new FrameBuilder()
                .reset()
                .macs(0x02aa_bbcc_ddeeL, 0x0200_0000_0102L)
                .ipv4(0x0a00_0102, 0xac10_0001)
                .udpPorts(49152, 4791)
                .bth(4, 0x100, 7)
                .buildRoce(frame, 0, 0);
        final ParseResult r = new ParseResult();

        parser.parse(frame, 0, length, r);
        assertThat(r.ipv4HeaderSum()).isEqualTo(0xFFFF);

        frame.set(ValueLayout.JAVA_BYTE, 14 + 8, (byte) (frame.get(ValueLayout.JAVA_BYTE, 14 + 8) - 1)); // TTL - 1
        parser.parse(frame, 0, length, r);
        assertThat(r.ipv4HeaderSum()).isEqualTo(oracle(14, 20)).isNotEqualTo(0xFFFF);
    }

    @Property(tries = 3000)
    void shouldEqualTheByteWiseSumOfTheHeader(@ForAll final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final int tags = random.nextInt(3);
        int pos = 12;
        for (int t = 0; t < tags; t++) {
            u16(pos, EtherType.VLAN);
            u16(pos + 2, random.nextInt(1 << 16));
            pos += 4;
        }
        u16(pos, random.nextInt(8) == 0 ? EtherType.IPV6 : EtherType.IPV4);
        final int l3 = pos + 2;
        final int ihl = random.nextInt(6) == 0 ? random.nextInt(16) : 5 + random.nextInt(11);
        final int version = random.nextInt(10) == 0 ? random.nextInt(16) : 4;
        final int length = Math.min(2_048, l3 + random.nextInt(100));
        for (int i = 0; i < 12; i++) {
            frame.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt(256));
        }
        for (int i = l3; i < length; i++) {
            frame.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt(256));
        }
        if (l3 < length) {
            frame.set(ValueLayout.JAVA_BYTE, l3, (byte) (version << 4 | ihl));
        }
        if (l3 + 4 <= length && random.nextBoolean()) {
            u16(l3 + 2, Math.max(0, length - l3 - random.nextInt(3)) & 0xFFFF); // a total length that fits, mostly
        }
        final ParseResult r = new ParseResult();

        parser.parse(frame, 0, length, r);

        if (r.ipVersion() == 4) {
            assertThat(r.ipv4HeaderSum()).isEqualTo(oracle(l3, r.ipHeaderLength()));
            assertThat(r.ipHeaderLength()).isEqualTo(ihl * 4);
        } else {
            assertThat(r.ipv4HeaderSum()).isZero();
        }
    }

    private void u16(final int at, final int value) {
        frame.set(ValueLayout.JAVA_BYTE, at, (byte) (value >>> 8));
        frame.set(ValueLayout.JAVA_BYTE, at + 1, (byte) value);
    }

    /** RFC 1071 over big-endian 16-bit words, end-around carry, one byte at a time. */
    private int oracle(final int from, final int length) {
        long sum = 0;
        for (int i = 0; i < length; i += 2) {
            final int hi = frame.get(ValueLayout.JAVA_BYTE, from + i) & 0xFF;
            final int lo = frame.get(ValueLayout.JAVA_BYTE, from + i + 1) & 0xFF;
            sum += hi << 8 | lo;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }
}
