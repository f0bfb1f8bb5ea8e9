package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.testsupport.Tshark;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frames emitted by our builders and rewrites, written with {@link PcapWriter} (ns timestamps), are decoded by tshark
 * with the expected field values (field names from reference/labs-and-oracles.md §3.3).
 */
class TsharkGoldenTest {
    private static final long MAC_A = 0x020000000001L;
    private static final long MAC_B = 0x020000000002L;
    private static final long T0_NS = 1_700_000_000_123_456_789L;

    @TempDir
    static Path dir;

    static Path pcap;

    @BeforeAll
    static void writeFrames() throws Exception {
        pcap = dir.resolve("ours.pcap");
        final MemorySegment buffer = Arena.ofAuto().allocate(2048);
        final FrameBuilder builder = new FrameBuilder();
        final PacketParser parser = new PacketParser();
        final ParseResult result = new ParseResult();
        try (PcapWriter writer = new PcapWriter(pcap)) {
            // 1: PFC XON on priority 0, XOFF 0xFFFF on priority 3.
            int length =
                    MacControlFrames.writePfc(buffer, 0, MAC_A, 0x09, new int[] {0, 0, 0, 0xFFFF, 0, 0, 0, 0}, false);
            writer.write(buffer, 0, length, T0_NS);
            // 2: PFC with all classes enabled and distinct quanta.
            length = MacControlFrames.writePfc(buffer, 0, MAC_A, 0xFF, new int[] {1, 2, 3, 4, 5, 6, 7, 0x8000}, false);
            writer.write(buffer, 0, length, T0_NS + 1);
            // 3: 802.3x PAUSE.
            length = MacControlFrames.writePause(buffer, 0, MAC_A, 0x1234, false);
            writer.write(buffer, 0, length, T0_NS + 2);
            // 4: RoCEv2 SEND ONLY, DSCP 26 ECT(0), QP 0x123, PSN 100.
            builder.reset().macs(MAC_B, MAC_A).dscp(26).ecn(2).ackReq(true).bth(RoceOpcode.RC_SEND_ONLY, 0x123, 100);
            length = builder.buildRoce(buffer, 0, 16);
            writer.write(buffer, 0, length, T0_NS + 3);
            // 5: the same after TTL decrement, ECN→CE and new MACs.
            parser.parse(buffer, 0, length, result);
            FrameRewriter.decrementTtl(result);
            FrameRewriter.markCe(result);
            FrameRewriter.srcMac(result, 0x0A0000000001L);
            FrameRewriter.dstMac(result, 0x0A0000000002L);
            writer.write(buffer, 0, length, T0_NS + 4);
            // 6: the same after a DSCP rewrite to 46.
            FrameRewriter.dscp(result, 46);
            writer.write(buffer, 0, length, T0_NS + 5);
            // 7: VLAN 100 PCP 3, RDMA WRITE ONLY (RETH) to QP 0x77.
            builder.reset().vlan(100, 3).dscp(26).ecn(2).bth(RoceOpcode.RC_RDMA_WRITE_ONLY, 0x77, 5);
            length = builder.buildRoce(buffer, 0, 16);
            writer.write(buffer, 0, length, T0_NS + 6);
            // 8: IPv6 RoCEv2 to QP 0xABCDEF, then hop limit and ECN rewritten.
            builder.reset()
                    .ipv6(0x20010db8L << 32, 1, 0x20010db8L << 32, 2)
                    .dscp(34)
                    .ecn(1)
                    .ttl(17)
                    .bth(RoceOpcode.RC_SEND_ONLY, 0xABCDEF, 7);
            length = builder.buildRoce(buffer, 0, 32);
            parser.parse(buffer, 0, length, result);
            FrameRewriter.decrementTtl(result);
            FrameRewriter.markCe(result);
            writer.write(buffer, 0, length, T0_NS + 7);
            // 9: CNP to QP 0x456.
            builder.reset().dscp(48).ecn(1).udpPorts(49153, 4791);
            length = builder.buildCnp(buffer, 0, 0x456);
            writer.write(buffer, 0, length, T0_NS + 8);
            // 10: ARP request.
            builder.reset().macs(0xFFFFFFFFFFFFL, MAC_A);
            length = builder.buildArp(buffer, 0, ArpFlyweight.OP_REQUEST, MAC_A, 0x0A000001, 0, 0x0A000002);
            writer.write(buffer, 0, length, T0_NS + 9);
            // 11: ICMP echo request, and 12: UDP with checksum, QinQ.
            builder.reset();
            length = builder.buildIcmpEcho(buffer, 0, 7, 9, 24);
            writer.write(buffer, 0, length, T0_NS + 10);
            builder.reset()
                    .doubleTagged(EtherType.QINQ, 200, 5, 100, 3)
                    .udpPorts(1000, 2000)
                    .udpChecksum(true);
            length = builder.buildUdp(buffer, 0, 33);
            writer.write(buffer, 0, length, T0_NS + 11);
            // 13: ICMPv6 echo request.
            builder.reset().ipv6(0x20010db8L << 32, 1, 0x20010db8L << 32, 2);
            length = builder.buildIcmpEcho(buffer, 0, 3, 4, 8);
            writer.write(buffer, 0, length, T0_NS + 12);
        }
    }

    @Test
    void shouldDecodePfcAndPauseFieldsWhenBuiltByMacControlFrames() {
        final List<List<String>> rows = Tshark.fields(
                pcap,
                "macc",
                "frame.len",
                "eth.dst",
                "eth.type",
                "macc.opcode",
                "macc.cbfc.enbv",
                "macc.cbfc.enbv.c0",
                "macc.cbfc.enbv.c3",
                "macc.cbfc.pause_time.c0",
                "macc.cbfc.pause_time.c3",
                "macc.cbfc.pause_time.c7",
                "macc.pause_time");
        assertThat(rows)
                .containsExactly(
                        List.of(
                                "60",
                                "01:80:c2:00:00:01",
                                "0x8808",
                                "0x0101",
                                "0x0009",
                                "1",
                                "1",
                                "0",
                                "65535",
                                "0",
                                ""),
                        List.of(
                                "60",
                                "01:80:c2:00:00:01",
                                "0x8808",
                                "0x0101",
                                "0x00ff",
                                "1",
                                "1",
                                "1",
                                "4",
                                "32768",
                                ""),
                        List.of("60", "01:80:c2:00:00:01", "0x8808", "0x0001", "", "", "", "", "", "", "4660"));
    }

    @Test
    void shouldDecodeRoceAndRewrittenIpv4FieldsWhenBuiltAndRewritten() {
        final List<List<String>> rows = Tshark.fields(
                pcap,
                "ip && infiniband",
                "frame.number",
                "eth.src",
                "eth.dst",
                "vlan.id",
                "vlan.priority",
                "ip.dsfield.dscp",
                "ip.dsfield.ecn",
                "ip.ttl",
                "ip.checksum.status",
                "udp.dstport",
                "infiniband.bth.opcode",
                "infiniband.bth.destqp",
                "infiniband.bth.psn",
                "infiniband.bth.a",
                "infiniband.reserved",
                "infiniband.reth.dmalen");
        assertThat(rows)
                .containsExactly(
                        List.of(
                                "4",
                                "02:00:00:00:00:01",
                                "02:00:00:00:00:02",
                                "",
                                "",
                                "26",
                                "2",
                                "64",
                                "1",
                                "4791",
                                "4",
                                "0x000123",
                                "100",
                                "1",
                                "00",
                                ""),
                        List.of(
                                "5",
                                "0a:00:00:00:00:01",
                                "0a:00:00:00:00:02",
                                "",
                                "",
                                "26",
                                "3",
                                "63",
                                "1",
                                "4791",
                                "4",
                                "0x000123",
                                "100",
                                "1",
                                "00",
                                ""),
                        List.of(
                                "6",
                                "0a:00:00:00:00:01",
                                "0a:00:00:00:00:02",
                                "",
                                "",
                                "46",
                                "3",
                                "63",
                                "1",
                                "4791",
                                "4",
                                "0x000123",
                                "100",
                                "1",
                                "00",
                                ""),
                        List.of(
                                "7",
                                "02:00:00:00:00:01",
                                "02:00:00:00:00:02",
                                "100",
                                "3",
                                "26",
                                "2",
                                "64",
                                "1",
                                "4791",
                                "10",
                                "0x000077",
                                "5",
                                "0",
                                "00",
                                "0"),
                        List.of(
                                "9",
                                "02:00:00:00:00:01",
                                "02:00:00:00:00:02",
                                "",
                                "",
                                "48",
                                "1",
                                "64",
                                "1",
                                "4791",
                                "129",
                                "0x000456",
                                "0",
                                "0",
                                "40",
                                ""));
    }

    @Test
    void shouldKeepInvariantCrcWhenTtlEcnDscpAndMacsAreRewritten() {
        final List<List<String>> rows =
                Tshark.fields(pcap, "frame.number >= 4 && frame.number <= 6", "infiniband.invariant.crc");
        assertThat(rows).hasSize(3);
        assertThat(rows.get(1)).isEqualTo(rows.get(0));
        assertThat(rows.get(2)).isEqualTo(rows.get(0));
        assertThat(rows.get(0).get(0)).matches("0x[0-9a-f]{8}");
    }

    @Test
    void shouldDecodeIpv6RoceWhenHopLimitAndEcnRewritten() {
        final List<List<String>> rows = Tshark.fields(
                pcap,
                "ipv6 && infiniband",
                "ipv6.tclass.dscp",
                "ipv6.tclass.ecn",
                "ipv6.hlim",
                "ipv6.flow",
                "udp.checksum.status",
                "infiniband.bth.destqp",
                "infiniband.bth.psn");
        assertThat(rows).containsExactly(List.of("34", "3", "16", "0x000000", "1", "0xabcdef", "7"));
    }

    @Test
    void shouldDecodeArpIcmpAndQinqUdpWhenBuilt() {
        assertThat(Tshark.fields(
                        pcap,
                        "arp",
                        "arp.opcode",
                        "arp.src.hw_mac",
                        "arp.src.proto_ipv4",
                        "arp.dst.proto_ipv4",
                        "frame.len"))
                .containsExactly(List.of("1", "02:00:00:00:00:01", "10.0.0.1", "10.0.0.2", "60"));
        assertThat(Tshark.fields(
                        pcap,
                        "icmp || icmpv6",
                        "icmp.type",
                        "icmp.checksum.status",
                        "icmpv6.type",
                        "icmpv6.checksum.status",
                        "ip.checksum.status"))
                .containsExactly(List.of("8", "1", "", "", "1"), List.of("", "", "128", "1", ""));
        assertThat(Tshark.fields(
                        pcap,
                        "udp.dstport == 2000",
                        "ieee8021ad.id",
                        "ieee8021ad.priority",
                        "vlan.id",
                        "vlan.priority",
                        "vlan.etype",
                        "udp.checksum.status",
                        "ip.checksum.status",
                        "udp.length"))
                .containsExactly(List.of("200", "5", "100", "3", "0x0800", "1", "1", "41"));
    }

    @Test
    void shouldCarryNanosecondTimestampsWhenWrittenByPcapWriter() {
        final List<List<String>> rows =
                Tshark.fields(pcap, "frame.number == 1 || frame.number == 13", "frame.time_epoch");
        assertThat(rows).containsExactly(List.of("1700000000.123456789"), List.of("1700000000.123456801"));
    }
}
