package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** jqwik: rewrites of a frame held without its parse result leave the bytes the parse-result rewrites leave. */
class FrameRewriterPropertyTest {
    private final MemorySegment frame = Arena.ofAuto().allocate(16_384);
    private final PacketParser parser = new PacketParser();
    private final ParseResult result = new ParseResult();
    private final FrameBuilder builder = new FrameBuilder();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();

    /**
     * The data plane marks CE on a buffered frame it no longer has a parse result for ({@code markCe(segment, ip,
     * version)}); it must leave the same bytes as the parse-result rewrite, and as the agent's former hand-written mark
     * (OR the ECN bits into the first 16-bit word, RFC 1624 update of the IPv4 checksum; OR 0x30 into an IPv6 header's
     * second byte), which {@link #markCeAsTheAgentDid} keeps as the reference.
     */
    @Property(tries = 1500)
    void shouldLeaveIdenticalBytesWhenCeIsMarkedFromTheBufferOrFromTheParseResult(
            @ForAll final boolean ipv6,
            @ForAll @IntRange(min = 0, max = 2) final int tags,
            @ForAll @IntRange(min = 0, max = 63) final int dscp,
            @ForAll @IntRange(min = 1, max = 3) final int ecn,
            @ForAll @IntRange(min = 0, max = 0xFFFF) final int identification,
            @ForAll @IntRange(min = 0, max = 0xFFFFF) final int flowLabel,
            @ForAll @IntRange(min = 0, max = 200) final int payload) {
        builder.reset().dscp(dscp).ecn(ecn).identification(identification).flowLabel(flowLabel);
        if (ipv6) {
            builder.ipv6(0x20010db8L << 32, identification, 0xfd00L << 48, ~identification);
        }
        if (tags == 1) {
            builder.vlan(identification & 0xFFF, identification & 7);
        } else if (tags == 2) {
            builder.doubleTagged(EtherType.QINQ, 7, 1, identification & 0xFFF, 2);
        }
        final int length = builder.buildRoce(frame, 0, payload);
        final MemorySegment reference = Arena.ofAuto().allocate(length);
        final MemorySegment fromParse = Arena.ofAuto().allocate(length);
        MemorySegment.copy(frame, 0, reference, 0, length);
        MemorySegment.copy(frame, 0, fromParse, 0, length);
        assertThat(parser.parse(fromParse, 0, length, result)).isEqualTo(ParseReason.OK);
        final int l3 = result.l3Offset();
        final int version = result.ipVersion();

        FrameRewriter.markCe(frame, l3, version);
        assertThat(FrameRewriter.markCe(result)).isTrue();
        markCeAsTheAgentDid(reference, l3, version);

        assertThat(frame.asSlice(0, length).mismatch(reference)).isEqualTo(-1);
        assertThat(frame.asSlice(0, length).mismatch(fromParse)).isEqualTo(-1);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.ecn()).isEqualTo(Ipv4Flyweight.ECN_CE);
        assertThat(result.dscp()).isEqualTo(dscp);
        assertThat(Icrc.verify(result)).isTrue();
        if (!ipv6) {
            assertThat(ipv4.wrap(frame, l3, 20).checksumValid()).isTrue();
        }
    }

    /** The mark the data-plane agent wrote by hand before it used {@link FrameRewriter}, kept as the reference. */
    private static void markCeAsTheAgentDid(final MemorySegment mem, final long ip, final int version) {
        if (version == 4) {
            final int oldWord = NetworkOrder.u16(mem, ip);
            final int newWord = oldWord | 0x3;
            NetworkOrder.u16(mem, ip, newWord);
            final int checksum = NetworkOrder.u16(mem, ip + 10);
            NetworkOrder.u16(mem, ip + 10, InternetChecksum.update(checksum, oldWord, newWord));
        } else if (version == 6) {
            NetworkOrder.u8(mem, ip + 1, NetworkOrder.u8(mem, ip + 1) | 0x30);
        }
    }
}
