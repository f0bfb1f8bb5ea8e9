package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class PacketParserTest {
    /** RC SEND_ONLY built by scapy contrib.roce, copied from reference/labs-and-oracles.md §3.1. */
    static final String SCAPY_ROCE_SEND = """
        02 00 00 00 00 02 02 00 00 00 00 01 08 00 45 6A
        00 3C 00 01 40 00 40 11 26 44 0A 00 00 01 0A 00
        00 02 C0 00 12 B7 00 28 00 00 04 00 FF FF 00 00
        01 23 80 00 00 64 30 31 32 33 34 35 36 37 38 39
        41 42 43 44 45 46 67 87 3E 01""";

    private final PacketParser parser = new PacketParser();
    private final ParseResult result = new ParseResult();

    @Test
    void shouldParseRoceFieldsWhenGivenTheReferenceScapyFrame() {
        final MemorySegment frame = Frames.fromHex(SCAPY_ROCE_SEND);

        assertThat(parser.parse(frame, 0, (int) frame.byteSize(), result)).isEqualTo(ParseReason.OK);

        assertThat(result.kind()).isEqualTo(FrameKind.IPV4);
        assertThat(result.dstMac()).isEqualTo(0x020000000002L);
        assertThat(result.srcMac()).isEqualTo(0x020000000001L);
        assertThat(result.dscp()).isEqualTo(26);
        assertThat(result.ecn()).isEqualTo(2);
        assertThat(result.ttl()).isEqualTo(64);
        assertThat(result.protocol()).isEqualTo(17);
        assertThat(result.ipv4Src()).isEqualTo(0x0A000001);
        assertThat(result.ipv4Dst()).isEqualTo(0x0A000002);
        assertThat(result.srcPort()).isEqualTo(49152);
        assertThat(result.dstPort()).isEqualTo(4791);
        assertThat(result.roce()).isTrue();
        assertThat(result.bthOffset()).isEqualTo(42);
        assertThat(result.bthOpcode()).isEqualTo(RoceOpcode.RC_SEND_ONLY);
        assertThat(result.bthDestQp()).isEqualTo(0x123);
        assertThat(result.bthPsn()).isEqualTo(100);
        assertThat(result.bthAckReq()).isTrue();
        assertThat(result.bthPkey()).isEqualTo(0xFFFF);
        assertThat(result.icrcOffset()).isEqualTo(70);
        assertThat(Icrc.verify(result)).isTrue();
        assertThat(Icrc.compute(result)).isEqualTo(0x013e8767);
    }

    @Test
    void shouldBuildTheReferenceScapyFrameByteForByteWhenConfiguredAlike() {
        final MemorySegment frame = Arena.ofAuto().allocate(128);
        final FrameBuilder builder = new FrameBuilder()
                .dscp(26)
                .ecn(2)
                .ackReq(true)
                .bth(RoceOpcode.RC_SEND_ONLY, 0x123, 100)
                .payloadSeed('0');

        final int length = builder.buildRoce(frame, 0, 16);
        // scapy's payload is "0123456789ABCDEF"; rewrite the last 6 bytes and recompute the ICRC.
        for (int i = 0; i < 6; i++) {
            NetworkOrder.u8(frame, 54 + 10 + i, 'A' + i);
        }
        parser.parse(frame, 0, length, result);
        Icrc.write(result);

        assertThat(Frames.hex(frame, 0, length)).isEqualToIgnoringCase(SCAPY_ROCE_SEND.replaceAll("\\s+", ""));
    }

    @Test
    void shouldClassifyRuntWhenShorterThanSixtyBytes() {
        final MemorySegment frame = Arena.ofAuto().allocate(59);
        assertThat(parser.parse(frame, 0, 59, result)).isEqualTo(ParseReason.RUNT);
        assertThat(parser.parse(frame, 0, 60, result)).isEqualTo(ParseReason.BAD_BUFFER);
    }
}
