package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each malformation is classified with its own reason; reasons have stable, dense indexes. */
class ParseReasonTest {
    private final PacketParser parser = new PacketParser();
    private final PacketParser unpadded = new PacketParser(0, PacketParser.MAX_FRAME_LENGTH);
    private final ParseResult result = new ParseResult();
    private final FrameBuilder builder = new FrameBuilder();
    private final MemorySegment frame = Arena.ofAuto().allocate(16_384);

    @Test
    void shouldHaveDenseUniqueStableIndexesWhenEnumerated() {
        final Set<Integer> indexes = new HashSet<>();
        for (final ParseReason reason : ParseReason.values()) {
            assertThat(indexes.add(reason.index())).isTrue();
            assertThat(ParseReason.fromIndex(reason.index())).isSameAs(reason);
        }
        assertThat(ParseReason.COUNT).isEqualTo(ParseReason.values().length);
        assertThat(ParseReason.OK.index()).isZero();
        assertThat(ParseReason.RUNT.index()).isEqualTo(1);
        assertThat(ParseReason.BAD_LLDP.index()).isEqualTo(25);
    }

    @Test
    void shouldClassifyFrameSizeProblemsWhenRuntOversizeOrOutsideSegment() {
        assertThat(parser.parse(frame, 0, 59, result)).isEqualTo(ParseReason.RUNT);
        assertThat(parser.parse(frame, 0, 60, result)).isNotEqualTo(ParseReason.RUNT);
        assertThat(parser.parse(frame, 0, 9217, result)).isEqualTo(ParseReason.OVERSIZE);
        assertThat(parser.parse(frame, frame.byteSize() - 100, 200, result)).isEqualTo(ParseReason.BAD_BUFFER);
        assertThat(parser.parse(frame, -1, 64, result)).isEqualTo(ParseReason.BAD_BUFFER);
        assertThat(parser.parse(frame, 0, -5, result)).isEqualTo(ParseReason.BAD_BUFFER);
        assertThat(unpadded.parse(frame, 0, 13, result)).isEqualTo(ParseReason.TRUNCATED_L2);
    }

    @Test
    void shouldClassifyL2ProblemsWhenTagsTruncatedTooManyOrEtherTypeUnknown() {
        int length = builder.reset().padToMinimum(false).buildUdp(frame, 0, 0);
        NetworkOrder.u16(frame, 12, EtherType.VLAN);
        assertThat(unpadded.parse(frame, 0, 16, result)).isEqualTo(ParseReason.TRUNCATED_L2);
        length = builder.reset().doubleTagged(EtherType.QINQ, 1, 0, 2, 0).buildUdp(frame, 0, 40);
        NetworkOrder.u16(frame, 20, EtherType.VLAN);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TOO_MANY_VLAN_TAGS);
        builder.reset().vlan(5, 1).buildUdp(frame, 0, 40);
        NetworkOrder.u16(frame, 16, 0x88B5);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.UNKNOWN_ETHER_TYPE);
        assertThat(result.outerVlanId()).isEqualTo(5);
        assertThat(result.etherType()).isEqualTo(0x88B5);
    }

    @Test
    void shouldClassifyArpProblemsWhenShortOrNotEthernetIpv4() {
        builder.reset().padToMinimum(false).buildArp(frame, 0, 1, 1, 2, 3, 4);
        assertThat(unpadded.parse(frame, 0, 41, result)).isEqualTo(ParseReason.BAD_ARP);
        assertThat(unpadded.parse(frame, 0, 42, result)).isEqualTo(ParseReason.OK);
        NetworkOrder.u16(frame, 14, 6);
        assertThat(unpadded.parse(frame, 0, 42, result)).isEqualTo(ParseReason.BAD_ARP);
    }

    @Test
    void shouldClassifyIpv4ProblemsWhenHeaderOrLengthsAreWrong() {
        final int length = builder.reset().udpPorts(1, 2).buildUdp(frame, 0, 30);
        assertThat(unpadded.parse(frame, 0, 30, result)).isEqualTo(ParseReason.TRUNCATED_IPV4);
        NetworkOrder.u8(frame, 14, 0x44);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.IPV4_BAD_IHL);
        NetworkOrder.u8(frame, 14, 0x55);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.IPV4_BAD_VERSION);
        NetworkOrder.u8(frame, 14, 0x4F);
        assertThat(unpadded.parse(frame, 0, 60, result)).isEqualTo(ParseReason.TRUNCATED_IPV4);
        NetworkOrder.u8(frame, 14, 0x45);
        NetworkOrder.u16(frame, 16, length - 14 + 1);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.IPV4_TOTAL_LENGTH_BEYOND_FRAME);
        NetworkOrder.u16(frame, 16, 19);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.IPV4_TOTAL_LENGTH_TOO_SMALL);
    }

    @Test
    void shouldIgnoreEthernetPaddingWhenIpTotalLengthIsShorterThanFrame() {
        final int length = builder.reset().udpPorts(1, 2).buildUdp(frame, 0, 2);
        assertThat(length).isEqualTo(60);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.ipEnd()).isEqualTo(14 + 20 + 8 + 2);
    }

    @Test
    void shouldClassifyIpv6ProblemsWhenTruncatedOrPayloadBeyondFrame() {
        final int length = builder.reset().ipv6(1, 2, 3, 4).buildUdp(frame, 0, 30);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(unpadded.parse(frame, 0, 53, result)).isEqualTo(ParseReason.TRUNCATED_IPV6);
        NetworkOrder.u16(frame, 18, 39);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.IPV6_PAYLOAD_BEYOND_FRAME);
        NetworkOrder.u8(frame, 14, 0x40);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.IPV6_BAD_VERSION);
    }

    @Test
    void shouldBoundIpv6ExtensionChainsWhenTheyLoopOrOverrun() {
        assertThat(parseExtensionChain(8, 60, 0)).isEqualTo(ParseReason.OK);
        assertThat(result.protocol()).isEqualTo(EtherType.PROTO_UDP);
        assertThat(result.ipHeaderLength()).isEqualTo(40 + 8 * 8);
        assertThat(result.dstPort()).isEqualTo(9);
        assertThat(parseExtensionChain(9, 60, 0)).isEqualTo(ParseReason.IPV6_EXT_HEADER_CHAIN);
        assertThat(parseExtensionChain(2, 0, 0)).isEqualTo(ParseReason.IPV6_EXT_HEADER_CHAIN);
        assertThat(parseExtensionChain(3, 43, 200)).isEqualTo(ParseReason.IPV6_EXT_HEADER_OVERRUN);
    }

    /** IPv6 with {@code count} 8-byte extension headers of type {@code type}, the last one's length bumped. */
    private ParseReason parseExtensionChain(final int count, final int type, final int lastLengthUnits) {
        final int length = builder.reset().ipv6(1, 2, 3, 4).udpPorts(7, 9).buildUdp(frame, 0, 8 * count + 8);
        final long ip = 14;
        NetworkOrder.u8(frame, ip + 6, type);
        final long udp = ip + 40 + 8L * count;
        MemorySegment.copy(frame, ip + 40, frame, udp, 8);
        for (int i = 0; i < count; i++) {
            final long ext = ip + 40 + 8L * i;
            frame.asSlice(ext, 8).fill((byte) 0);
            NetworkOrder.u8(frame, ext, i == count - 1 ? EtherType.PROTO_UDP : type);
        }
        NetworkOrder.u8(frame, ip + 40 + 8L * (count - 1) + 1, lastLengthUnits);
        NetworkOrder.u16(frame, udp + 4, 16);
        NetworkOrder.u16(frame, ip + 4, 8 * count + 16);
        return parser.parse(
                frame, 0, (int) (ip + 40 + 8L * count + 16 > length ? length : ip + 40 + 8L * count + 16), result);
    }

    @Test
    void shouldClassifyTransportProblemsWhenHeadersDoNotFit() {
        int length = builder.reset().udpPorts(1, 2).buildUdp(frame, 0, 30);
        NetworkOrder.u16(frame, 16, 20 + 7);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TRUNCATED_UDP);
        length = builder.reset().udpPorts(1, 2).buildUdp(frame, 0, 30);
        NetworkOrder.u16(frame, 38, 7);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.UDP_BAD_LENGTH);
        NetworkOrder.u16(frame, 38, 39);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.UDP_BAD_LENGTH);
        length = builder.reset().udpPorts(1, 2).buildUdp(frame, 0, 30);
        NetworkOrder.u8(frame, 23, EtherType.PROTO_TCP);
        NetworkOrder.u16(frame, 16, 20 + 19);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TRUNCATED_TCP);
        NetworkOrder.u16(frame, 16, 20 + 38);
        NetworkOrder.u8(frame, 34 + 12, 0x40);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TCP_BAD_DATA_OFFSET);
        NetworkOrder.u8(frame, 34 + 12, 0xF0);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TCP_BAD_DATA_OFFSET);
        NetworkOrder.u8(frame, 34 + 12, 0x50);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        NetworkOrder.u8(frame, 23, EtherType.PROTO_ICMP);
        NetworkOrder.u16(frame, 16, 20 + 3);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TRUNCATED_ICMP);
    }

    @Test
    void shouldKeepPortsAndSkipUdpLengthCheckWhenDatagramIsAFirstFragment() {
        final int length =
                builder.reset().dontFragment(false).udpPorts(1111, 4791).buildRoce(frame, 0, 40);
        final Ipv4Flyweight ipv4 = new Ipv4Flyweight().wrap(frame, 14, length - 14);
        ipv4.flagsAndFragmentOffset(0x2000).totalLength(20 + 8 + 16).updateChecksum();

        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.fragment()).isTrue();
        assertThat(result.laterFragment()).isFalse();
        assertThat(result.srcPort()).isEqualTo(1111);
        assertThat(result.roce()).isFalse();

        ipv4.flagsAndFragmentOffset(0x0003).updateChecksum();
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.laterFragment()).isTrue();
        assertThat(result.l4Offset()).isEqualTo(-1);
        assertThat(result.srcPort()).isZero();
    }

    @Test
    void shouldClassifyTruncatedBthWhenRocePayloadTooShortForHeadersAndIcrc() {
        final int length =
                builder.reset().bth(RoceOpcode.RC_RDMA_WRITE_ONLY, 1, 1).buildRoce(frame, 0, 0);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.rethOffset()).isEqualTo(54);
        assertThat(result.rocePayloadOffset()).isEqualTo(70);
        NetworkOrder.u8(frame, 42, RoceOpcode.RC_RDMA_WRITE_ONLY + 1);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TRUNCATED_BTH);
        NetworkOrder.u16(frame, 38, 8 + 12 + 3);
        NetworkOrder.u16(frame, 16, 20 + 8 + 12 + 3);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.TRUNCATED_BTH);
        assertThat(result.roce()).isFalse();
    }

    @Test
    void shouldClassifyMacControlAndLldpProblemsWhenTruncated() {
        MacControlFrames.writePfc(frame, 0, 1, 0xFF, new int[8], false);
        assertThat(unpadded.parse(frame, 0, 33, result)).isEqualTo(ParseReason.TRUNCATED_MAC_CONTROL);
        assertThat(unpadded.parse(frame, 0, 34, result)).isEqualTo(ParseReason.OK);
        assertThat(unpadded.parse(frame, 0, 15, result)).isEqualTo(ParseReason.TRUNCATED_MAC_CONTROL);
        MacControlFrames.writePause(frame, 0, 1, 5, false);
        assertThat(unpadded.parse(frame, 0, 17, result)).isEqualTo(ParseReason.TRUNCATED_MAC_CONTROL);
        frame.asSlice(0, 64).fill((byte) 0);
        NetworkOrder.u16(frame, 12, EtherType.LLDP);
        NetworkOrder.u16(frame, 14, (1 << 9) | 7);
        assertThat(parser.parse(frame, 0, 60, result)).isEqualTo(ParseReason.OK);
        NetworkOrder.u16(frame, 14, (1 << 9) | 100);
        assertThat(parser.parse(frame, 0, 60, result)).isEqualTo(ParseReason.BAD_LLDP);
        frame.asSlice(14, 46).fill((byte) 0x02);
        assertThat(parser.parse(frame, 0, 60, result)).isEqualTo(ParseReason.BAD_LLDP);
    }
}
