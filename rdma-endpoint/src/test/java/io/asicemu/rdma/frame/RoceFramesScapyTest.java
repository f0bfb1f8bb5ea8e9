package io.asicemu.rdma.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.PacketParser;
import io.asicemu.parser.ParseReason;
import io.asicemu.parser.ParseResult;
import io.asicemu.testsupport.Scapy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The endpoint's frames as scapy (contrib.roce, an independent implementation) reads them: opcode, QP, PSN, AckReq,
 * RETH and AETH fields, BECN on CNPs, DSCP/ECN, and an ICRC equal to the one scapy computes.
 */
class RoceFramesScapyTest {
    private static final String SCRIPT = """
            import sys
            from scapy.layers.l2 import Ether
            from scapy.contrib.roce import BTH, AETH
            import struct
            for i, h in enumerate(sys.argv[1:]):
                p = Ether(bytes.fromhex(h))
                b = p[BTH]
                raw = bytes(b)
                q = Ether(bytes.fromhex(h))
                q[BTH].icrc = None
                recomputed = Ether(bytes(q))[BTH].icrc
                out = "f%d|opcode=%d,dqpn=%d,psn=%d,ackreq=%d,becn=%d,dscp=%d,ecn=%d,icrc_ok=%s" % (
                    i, b.opcode, b.dqpn, b.psn, b.ackreq, b.becn, p['IP'].tos >> 2, p['IP'].tos & 3,
                    b.icrc == recomputed)
                if b.opcode in (6, 10):
                    va, rkey, dlen = struct.unpack('!QII', raw[12:28])
                    out += ",va=%d,rkey=%d,dmalen=%d" % (va, rkey, dlen)
                if b.opcode == 17:
                    a = p[AETH]
                    out += ",syndrome=%d,msn=%d" % (a.syndrome, a.msn)
                print(out)
            """;

    @Test
    void scapyReadsWhatTheEndpointWrites() {
        RoceFrames frames = new RoceFrames(0x02_00_00_00_00_11L, 0x02_00_00_00_00_22L, 0x0A000101, 0x0A000201);
        List<String> hex = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4096);
            PacketParser parser = new PacketParser();
            ParseResult parsed = new ParseResult();

            int len = frames.writeData(
                    seg, 0, 0x000456, 0xFFFFFF, true, false, false, 1024, 49_200, 26, 0x1000_2000L, 0x77, 4096);
            hex.add(hex(seg, len));
            len = frames.writeData(seg, 0, 0x000456, 0, false, true, true, 512, 49_200, 26, 0, 0, 0);
            hex.add(hex(seg, len));
            len = frames.writeData(seg, 0, 0x000456, 5, true, true, true, 100, 49_200, 26, 0x42, 9, 100);
            hex.add(hex(seg, len));
            len = frames.writeAck(seg, 0, 0x000123, 77, 3, 49_201, 26);
            hex.add(hex(seg, len));
            assertThat(parser.parse(seg, 0, len, parsed)).isEqualTo(ParseReason.OK);
            assertThat(RoceFrames.isAcknowledge(parsed)).isTrue();
            assertThat(RoceFrames.aethSyndrome(seg, parsed)).isEqualTo(RoceFrames.SYNDROME_ACK);
            assertThat(RoceFrames.aethMsn(seg, parsed)).isEqualTo(3);
            len = frames.writeNak(seg, 0, 0x000123, 78, 3, 49_201, 26);
            hex.add(hex(seg, len));
            parser.parse(seg, 0, len, parsed);
            assertThat(RoceFrames.isNak(RoceFrames.aethSyndrome(seg, parsed))).isTrue();
            assertThat(parsed.bthPsn()).isEqualTo(78);
            len = frames.writeCnp(seg, 0, 0x000123, 49_202, 48);
            hex.add(hex(seg, len));
            parser.parse(seg, 0, len, parsed);
            assertThat(parsed.cnp()).isTrue();
        }
        String out = Scapy.run(SCRIPT, hex.toArray(String[]::new));
        String[] lines = out.strip().split("\n");
        assertThat(lines)
                .containsExactly(
                        "f0|opcode=6,dqpn=1110,psn=16777215,ackreq=0,becn=0,dscp=26,ecn=2,icrc_ok=True,va=268443648,rkey=119,dmalen=4096",
                        "f1|opcode=8,dqpn=1110,psn=0,ackreq=1,becn=0,dscp=26,ecn=2,icrc_ok=True",
                        "f2|opcode=10,dqpn=1110,psn=5,ackreq=1,becn=0,dscp=26,ecn=2,icrc_ok=True,va=66,rkey=9,dmalen=100",
                        "f3|opcode=17,dqpn=291,psn=77,ackreq=0,becn=0,dscp=26,ecn=2,icrc_ok=True,syndrome=31,msn=3",
                        "f4|opcode=17,dqpn=291,psn=78,ackreq=0,becn=0,dscp=26,ecn=2,icrc_ok=True,syndrome=96,msn=3",
                        "f5|opcode=129,dqpn=291,psn=0,ackreq=0,becn=1,dscp=48,ecn=0,icrc_ok=True");
    }

    private static String hex(MemorySegment seg, int len) {
        return HexFormat.of().formatHex(seg.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE));
    }
}
