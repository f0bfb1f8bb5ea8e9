package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/** Flyweight setters write what the parser (an independent reader of the same offsets) and scapy's bytes expect. */
class FlyweightTest {
    /** scapy MACControlClassBasedFlowControl, c0 XON + c3 0xFFFF (reference/labs-and-oracles.md §3.2), 60 bytes. */
    private static final String SCAPY_PFC = "0180C2000001" + "020000000001" + "8808" + "0101" + "0009" + "0000" + "0000"
            + "0000" + "FFFF" + "00".repeat(60 - 26);

    private final MemorySegment frame = Arena.ofAuto().allocate(512);
    private final PacketParser parser = new PacketParser();
    private final ParseResult result = new ParseResult();

    @Test
    void shouldMatchScapyPfcBytesWhenBuiltByMacControlFrames() {
        final int length = MacControlFrames.writePfc(
                frame, 0, 0x020000000001L, 0x09, new int[] {0, 0, 0, 0xFFFF, 0, 0, 0, 0}, false);
        assertThat(Frames.hex(frame, 0, length)).isEqualToIgnoringCase(SCAPY_PFC);
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.pfc()).isTrue();
        assertThat(result.pfcClassEnableVector()).isEqualTo(0x09);
        assertThat(result.pfcQuanta(3)).isEqualTo(0xFFFF);
        final MacControlFlyweight pfc = new MacControlFlyweight().wrap(frame, 14, 46);
        assertThat(pfc.classEnabled(0)).isTrue();
        assertThat(pfc.classEnabled(1)).isFalse();
        pfc.quanta(5, 0x1234).classEnableVector(0x29);
        parser.parse(frame, 0, length, result);
        assertThat(result.pfcQuanta(5)).isEqualTo(0x1234);
        assertThat(result.pfcClassEnableVector()).isEqualTo(0x29);
    }

    @Test
    void shouldAppendFcsEqualToJavaCrc32WhenFrameHasFcs() {
        final int length = MacControlFrames.writePause(frame, 0, 0x020000000001L, 0xFFFF, true);
        assertThat(length).isEqualTo(64);
        final CRC32 crc = new CRC32();
        crc.update(Frames.bytes(frame, 0, 60));
        assertThat(frame.get(NetworkOrder.U32_LE, 60)).isEqualTo((int) crc.getValue());
        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.pause()).isTrue();
        assertThat(result.pauseQuanta()).isEqualTo(0xFFFF);
    }

    @Test
    void shouldRoundTripVlanAndEthernetFieldsWhenSetThroughFlyweights() {
        final int length = new FrameBuilder()
                .doubleTagged(EtherType.QINQ, 1, 0, 2, 0)
                .udpPorts(1, 2)
                .buildUdp(frame, 0, 30);
        new EthernetFlyweight().wrap(frame, 0, length).dstMac(0x112233445566L).srcMac(0xAABBCCDDEEFFL);
        new VlanTagFlyweight().wrap(frame, 12, 8).vlanId(4094).pcp(7).dei(1);
        new VlanTagFlyweight().wrap(frame, 16, 8).vlanId(33).pcp(2);

        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.dstMac()).isEqualTo(0x112233445566L);
        assertThat(result.srcMac()).isEqualTo(0xAABBCCDDEEFFL);
        assertThat(result.outerTpid()).isEqualTo(EtherType.QINQ);
        assertThat(result.outerVlanId()).isEqualTo(4094);
        assertThat(result.outerPcp()).isEqualTo(7);
        assertThat(result.outerDei()).isEqualTo(1);
        assertThat(result.innerVlanId()).isEqualTo(33);
        assertThat(result.innerPcp()).isEqualTo(2);
        assertThat(result.l3Offset()).isEqualTo(22);
        assertThat(result.etherType()).isEqualTo(EtherType.IPV4);
    }

    @Test
    void shouldRoundTripBthRethAndAethFieldsWhenSetThroughFlyweights() {
        final int length =
                new FrameBuilder().bth(RoceOpcode.RC_RDMA_WRITE_ONLY, 1, 1).buildRoce(frame, 0, 8);
        parser.parse(frame, 0, length, result);
        final BthFlyweight bth = new BthFlyweight().wrap(frame, result.bthOffset(), 12);
        bth.destQp(0xFEDCBA)
                .psn(0xABCDEF)
                .pkey(0x7FFF)
                .ackReq(true)
                .fecnBecnByte(BthFlyweight.FECN_BIT)
                .flags(0x80 | 0x30);
        new RethFlyweight()
                .wrap(frame, result.rethOffset(), 16)
                .virtualAddress(0x1122334455667788L)
                .rkey(0x99)
                .dmaLength(4096);

        assertThat(parser.parse(frame, 0, length, result)).isEqualTo(ParseReason.OK);
        assertThat(result.bthDestQp()).isEqualTo(0xFEDCBA);
        assertThat(result.bthPsn()).isEqualTo(0xABCDEF);
        assertThat(result.bthPkey()).isEqualTo(0x7FFF);
        assertThat(result.bthAckReq()).isTrue();
        assertThat(result.bthFecn()).isTrue();
        assertThat(result.bthBecn()).isFalse();
        assertThat(bth.solicitedEvent()).isTrue();
        assertThat(bth.padCount()).isEqualTo(3);
        assertThat(bth.transportVersion()).isZero();
        final RethFlyweight reth = new RethFlyweight().wrap(frame, result.rethOffset(), 16);
        assertThat(reth.virtualAddress()).isEqualTo(0x1122334455667788L);
        assertThat(reth.rkey()).isEqualTo(0x99);
        assertThat(reth.dmaLength()).isEqualTo(4096);
        // Changing FECN (a masked BTH byte) keeps the ICRC valid; changing the QP (covered) does not.
        assertThat(Icrc.verify(result)).isFalse();
        Icrc.write(result);
        bth.fecnBecnByte(BthFlyweight.BECN_BIT);
        assertThat(Icrc.verify(result)).isTrue();
        bth.destQp(0xFEDCBB);
        assertThat(Icrc.verify(result)).isFalse();
    }

    @Test
    void shouldRoundTripIpFieldsWhenSetThroughFlyweights() {
        int length = new FrameBuilder().udpPorts(1, 2).buildUdp(frame, 0, 20);
        final Ipv4Flyweight ipv4 = new Ipv4Flyweight().wrap(frame, 14, length - 14);
        ipv4.srcAddress(0xC0A80001)
                .dstAddress(0xC0A80002)
                .ttl(3)
                .identification(77)
                .updateChecksum();
        assertThat(ipv4.checksumValid()).isTrue();
        assertThat(ipv4.dontFragment()).isTrue();
        assertThat(ipv4.moreFragments()).isFalse();
        parser.parse(frame, 0, length, result);
        assertThat(result.ipv4Src()).isEqualTo(0xC0A80001);
        assertThat(result.ipv4Dst()).isEqualTo(0xC0A80002);
        assertThat(result.ttl()).isEqualTo(3);

        length = new FrameBuilder().ipv6(1, 2, 3, 4).udpPorts(1, 2).buildUdp(frame, 0, 20);
        new Ipv6Flyweight()
                .wrap(frame, 14, 40)
                .dscp(10)
                .ecn(1)
                .flowLabel(0xFFFFF)
                .hopLimit(9)
                .srcAddress(-1L, -2L)
                .dstAddress(5, 6);
        parser.parse(frame, 0, length, result);
        assertThat(result.dscp()).isEqualTo(10);
        assertThat(result.ecn()).isEqualTo(1);
        assertThat(result.ttl()).isEqualTo(9);
        assertThat(result.srcAddressHigh()).isEqualTo(-1L);
        assertThat(result.srcAddressLow()).isEqualTo(-2L);
        assertThat(result.dstAddressHigh()).isEqualTo(5);
        assertThat(result.dstAddressLow()).isEqualTo(6);
        assertThat(new Ipv6Flyweight().wrap(frame, 14, 40).version()).isEqualTo(6);
        assertThat(new UdpFlyweight().wrap(frame, result.l4Offset(), 8).udpLength())
                .isEqualTo(28);
    }

    @Test
    void shouldWalkLldpTlvsWhenChainEndsWithEndTlv() {
        final EthernetFlyweight eth = new EthernetFlyweight().wrap(frame, 0, 60);
        frame.asSlice(0, 60).fill((byte) 0);
        eth.dstMac(LldpFlyweight.DST_MAC).srcMac(0x020000000001L).etherType(EtherType.LLDP);
        final LldpFlyweight lldp = new LldpFlyweight().wrap(frame, 14, 46);
        int tlv = 0;
        tlv = lldp.putTlvHeader(tlv, LldpFlyweight.TLV_CHASSIS_ID, 7) + 7;
        tlv = lldp.putTlvHeader(tlv, LldpFlyweight.TLV_PORT_ID, 10) + 10;
        final int ttlValue = lldp.putTlvHeader(tlv, LldpFlyweight.TLV_TTL, 2);
        NetworkOrder.u16(frame, 14 + ttlValue, 120);
        lldp.putTlvHeader(ttlValue + 2, LldpFlyweight.TLV_END, 0);

        assertThat(parser.parse(frame, 0, 60, result)).isEqualTo(ParseReason.OK);
        assertThat(result.kind()).isEqualTo(FrameKind.LLDP);
        assertThat(lldp.ttlSeconds()).isEqualTo(120);
        assertThat(lldp.findTlv(LldpFlyweight.TLV_PORT_ID)).isEqualTo(9);
        assertThat(lldp.tlvLength(9)).isEqualTo(10);
        assertThat(lldp.findTlv(LldpFlyweight.TLV_SYSTEM_NAME)).isEqualTo(-1);
    }

    @Test
    void shouldReadSegmentBytesAsWrittenWhenUsingNetworkOrder() {
        NetworkOrder.u48(frame, 1, 0x0102030405_06L);
        NetworkOrder.u24(frame, 10, 0xA0B0C0);
        assertThat(frame.get(ValueLayout.JAVA_BYTE, 1)).isEqualTo((byte) 1);
        assertThat(frame.get(ValueLayout.JAVA_BYTE, 6)).isEqualTo((byte) 6);
        assertThat(frame.get(ValueLayout.JAVA_BYTE, 10)).isEqualTo((byte) 0xA0);
        assertThat(NetworkOrder.u24(frame, 10)).isEqualTo(0xA0B0C0);
        assertThat(NetworkOrder.u48(frame, 1)).isEqualTo(0x010203040506L);
    }
}
