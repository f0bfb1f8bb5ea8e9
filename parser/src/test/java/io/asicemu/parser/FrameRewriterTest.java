package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class FrameRewriterTest {
    private final PacketParser parser = new PacketParser();
    private final ParseResult result = new ParseResult();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final MemorySegment frame = Arena.ofAuto().allocate(256);

    @Test
    void shouldKeepIpv4ChecksumAndIcrcValidWhenTtlDscpAndEcnAreRewritten() {
        final int length = new FrameBuilder()
                .dscp(26)
                .ecn(Ipv4Flyweight.ECN_ECT0)
                .bth(4, 0x77, 9)
                .buildRoce(frame, 0, 32);
        parser.parse(frame, 0, length, result);
        final int icrcBefore = Icrc.stored(result);

        assertThat(FrameRewriter.decrementTtl(result)).isEqualTo(63);
        assertThat(FrameRewriter.markCe(result)).isTrue();
        assertThat(FrameRewriter.dscp(result, 46)).isTrue();

        ipv4.wrap(frame, result.l3Offset(), length - result.l3Offset());
        assertThat(ipv4.checksumValid()).isTrue();
        assertThat(ipv4.checksum()).isEqualTo(ipv4.computeChecksum());
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.ttl()).isEqualTo(63);
        assertThat(result.ecn()).isEqualTo(Ipv4Flyweight.ECN_CE);
        assertThat(result.dscp()).isEqualTo(46);
        assertThat(Icrc.stored(result)).isEqualTo(icrcBefore);
        assertThat(Icrc.verify(result)).isTrue();
    }

    @Test
    void shouldReportInvalidIcrcWhenFrameIsNotRoce() {
        final int length = new FrameBuilder().udpPorts(1, 2).buildUdp(frame, 0, 40);
        parser.parse(frame, 0, length, result);

        assertThat(result.roce()).isFalse();
        assertThat(Icrc.verify(result)).isFalse();
    }

    @Test
    void shouldNotMarkCeWhenPacketIsNotEct() {
        final int length = new FrameBuilder().ecn(Ipv4Flyweight.ECN_NOT_ECT).buildRoce(frame, 0, 0);
        parser.parse(frame, 0, length, result);

        assertThat(FrameRewriter.markCe(result)).isFalse();
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.ecn()).isZero();
    }

    @Test
    void shouldRewriteHopLimitAndTrafficClassWhenIpv6() {
        final int length = new FrameBuilder()
                .ipv6(0x20010db8L << 32, 5, 0x20010db8L << 32, 6)
                .ttl(2)
                .ecn(Ipv4Flyweight.ECN_ECT1)
                .flowLabel(0xABCDE)
                .buildRoce(frame, 0, 8);
        parser.parse(frame, 0, length, result);
        final int icrc = Icrc.stored(result);

        FrameRewriter.decrementTtl(result);
        FrameRewriter.markCe(result);
        FrameRewriter.srcMac(result, 0x0A0B0C0D0E0FL);

        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.ttl()).isEqualTo(1);
        assertThat(result.ecn()).isEqualTo(3);
        assertThat(result.srcMac()).isEqualTo(0x0A0B0C0D0E0FL);
        assertThat(new Ipv6Flyweight().wrap(frame, result.l3Offset(), 40).flowLabel())
                .isEqualTo(0xABCDE);
        assertThat(Icrc.stored(result)).isEqualTo(icrc);
        assertThat(Icrc.verify(result)).isTrue();
    }
}
