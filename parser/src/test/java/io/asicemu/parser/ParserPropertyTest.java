package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** jqwik properties: the parser never throws; rewrite-then-parse yields the rewritten values with valid checksums. */
class ParserPropertyTest {
    private final MemorySegment frame = Arena.ofAuto().allocate(16_384);
    private final PacketParser parser = new PacketParser();
    private final PacketParser unpadded = new PacketParser(0, PacketParser.MAX_FRAME_LENGTH);
    private final ParseResult result = new ParseResult();
    private final FrameBuilder builder = new FrameBuilder();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();

    @Property(tries = 3000)
    void shouldNeverThrowWhenGivenArbitraryBytes(
            @ForAll @Size(max = 400) final byte[] bytes, @ForAll @IntRange(min = -8, max = 500) final int length) {
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, frame, 0, bytes.length);
        final MemorySegment exact = frame.asSlice(0, bytes.length);
        assertThat(parser.parse(exact, 0, length, result)).isNotNull();
        assertThat(unpadded.parse(exact, 0, Math.min(length, bytes.length), result))
                .isNotNull();
        touchEverything();
    }

    @Property(tries = 3000)
    void shouldNeverThrowWhenValidFramesAreMutatedAndTruncated(
            @ForAll @IntRange(min = 0, max = 5) final int shape,
            @ForAll @IntRange(min = 0, max = 2) final int tags,
            @ForAll @IntRange(min = 0, max = 0x1F) final int opcode,
            @ForAll @IntRange(min = 0, max = 300) final int payload,
            @ForAll @Size(max = 8) final List<@IntRange(min = 0, max = 0xFFFFFF) Integer> mutations,
            @ForAll @IntRange(min = 0, max = 400) final int cut) {
        final int length = buildShape(shape, tags, opcode, payload);
        for (final int mutation : mutations) {
            NetworkOrder.u8(frame, (mutation >>> 8) % length, mutation);
        }
        final int truncated = Math.max(0, length - cut);
        parser.parse(frame, 0, truncated, result);
        touchEverything();
        unpadded.parse(frame, 0, truncated, result);
        touchEverything();
    }

    @Property(tries = 1500)
    void shouldYieldRewrittenValuesAndValidChecksumsWhenRewrittenThenParsed(
            @ForAll final boolean ipv6,
            @ForAll @IntRange(min = 0, max = 2) final int tags,
            @ForAll @IntRange(min = 0, max = 63) final int dscp,
            @ForAll @IntRange(min = 0, max = 3) final int ecn,
            @ForAll @IntRange(min = 1, max = 255) final int ttl,
            @ForAll @IntRange(min = 0, max = 0xFFFFFF) final int qp,
            @ForAll @IntRange(min = 0, max = 0xFFFF) final int identification,
            @ForAll @IntRange(min = 0, max = 63) final int newDscp,
            @ForAll final boolean markCe,
            @ForAll final long newMac) {
        builder.reset()
                .dscp(dscp)
                .ecn(ecn)
                .ttl(ttl)
                .identification(identification)
                .bth(RoceOpcode.RC_SEND_ONLY, qp, qp ^ 0x5A5A5A);
        if (ipv6) {
            builder.ipv6(0x20010db8L << 32, qp, 0xfd00L << 48, ~qp);
        }
        if (tags == 1) {
            builder.vlan(qp & 0xFFF, qp & 7);
        } else if (tags == 2) {
            builder.doubleTagged(EtherType.QINQ, 7, 1, qp & 0xFFF, 2);
        }
        final int length = builder.buildRoce(frame, 0, 8);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);

        FrameRewriter.decrementTtl(result);
        FrameRewriter.dscp(result, newDscp);
        final boolean marked = markCe && FrameRewriter.markCe(result);
        FrameRewriter.dstMac(result, newMac & 0xFFFF_FFFF_FFFFL);

        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.ttl()).isEqualTo(ttl - 1);
        assertThat(result.dscp()).isEqualTo(newDscp);
        assertThat(result.ecn()).isEqualTo(marked ? 3 : ecn);
        assertThat(marked).isEqualTo(markCe && ecn != 0);
        assertThat(result.dstMac()).isEqualTo(newMac & 0xFFFF_FFFF_FFFFL);
        assertThat(result.bthDestQp()).isEqualTo(qp);
        assertThat(Icrc.verify(result)).isTrue();
        if (!ipv6) {
            ipv4.wrap(frame, result.l3Offset(), 20);
            assertThat(ipv4.checksumValid()).isTrue();
        }
    }

    @Property(tries = 3000)
    void shouldMatchFullRecomputeWhenIpv4ChecksumUpdatedIncrementally(
            @ForAll @Size(value = 20) final byte[] header,
            @ForAll @IntRange(min = 0, max = 255) final int tos,
            @ForAll @IntRange(min = 0, max = 255) final int ttl) {
        MemorySegment.copy(MemorySegment.ofArray(header), 0, frame, 0, 20);
        ipv4.wrap(frame, 0, 20).versionAndIhl(5).updateChecksum();
        assertThat(ipv4.checksumValid()).isTrue();

        ipv4.tosRewrite(tos).ttlRewrite(ttl);

        assertThat(ipv4.tos()).isEqualTo(tos);
        assertThat(ipv4.ttl()).isEqualTo(ttl);
        assertThat(ipv4.checksumValid()).isTrue();
    }

    private int buildShape(final int shape, final int tags, final int opcode, final int payload) {
        builder.reset().bth(opcode | (shape == 3 ? RoceOpcode.UD : 0), 0x123, 1);
        if (tags == 1) {
            builder.vlan(10, 1);
        } else if (tags == 2) {
            builder.doubleTagged(EtherType.QINQ, 10, 1, 20, 2);
        }
        if (shape % 2 == 1) {
            builder.ipv6(1, 2, 3, 4);
        }
        return switch (shape) {
            case 0, 1, 3 -> builder.buildRoce(frame, 0, payload);
            case 2 -> builder.udpPorts(1, 2).buildUdp(frame, 0, payload);
            case 4 -> builder.buildArp(frame, 0, 1, 1, 2, 3, 4);
            default -> MacControlFrames.writePfc(frame, 0, 1, 0xFF, new int[8], false);
        };
    }

    /** Reads every accessor that depends on parsed offsets, as a consumer would. */
    private void touchEverything() {
        if (result.ok() && result.roce()) {
            Icrc.compute(result);
            Icrc.stored(result);
        }
        if (result.ok() && result.pfc()) {
            for (int p = 0; p < 8; p++) {
                result.pfcQuanta(p);
            }
        }
        if (result.ok() && result.ipVersion() != 0) {
            FrameRewriter.decrementTtl(result);
            FrameRewriter.markCe(result);
        }
    }
}
