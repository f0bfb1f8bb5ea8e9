package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.pcap.CaptureReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Frames built by scapy (scapy_golden.py) parse to the fields scapy dissects from the same bytes, read from pcap
 * (LE µs, * BE ns) and pcapng (scapy LE, hand-made BE with ns resolution and a simple packet block).
 */
class ScapyGoldenTest {
    private static final long BASE_SEC = 1_700_000_000L;

    @TempDir
    static Path dir;

    static Map<String, Map<String, String>> expected;

    @BeforeAll
    static void runScapy() {
        expected = Oracles.records(Oracles.scapy(dir, "scapy_golden.py", dir.toString()));
        assertThat(expected).hasSize(21);
    }

    @ParameterizedTest
    @CsvSource({
        "golden_le_us.pcap, 123456000",
        "golden_be_ns.pcap, 123456789",
        "golden_le.pcapng, 123456000",
        "golden_be.pcapng, 123456789"
    })
    void shouldParseScapyFramesToScapyFieldsWhenReadFromEachCaptureFormat(final String file, final long fractionNs)
            throws Exception {
        final PacketParser parser = new PacketParser();
        final ParseResult result = new ParseResult();
        final List<String> names = new ArrayList<>(expected.keySet());
        final SoftAssertions softly = new SoftAssertions();
        int index = 0;
        try (CaptureReader reader = CaptureReader.open(dir.resolve(file))) {
            while (reader.next()) {
                final boolean spb = index == names.size();
                final String name = names.get(spb ? 0 : index);
                final Map<String, String> fields = expected.get(name);
                softly.assertThat(reader.linkType()).isEqualTo(CaptureReader.LINKTYPE_ETHERNET);
                softly.assertThat(reader.capturedLength()).as(name).isEqualTo(Integer.parseInt(fields.get("len")));
                if (!spb) {
                    softly.assertThat(reader.timestampNs())
                            .as(name)
                            .isEqualTo((BASE_SEC + index) * 1_000_000_000L + fractionNs);
                }
                parser.parse(reader.segment(), reader.frameOffset(), reader.capturedLength(), result);
                for (final Map.Entry<String, String> field : fields.entrySet()) {
                    softly.assertThat(actual(field.getKey(), result))
                            .as(name + "." + field.getKey())
                            .isEqualTo(field.getValue());
                }
                index++;
            }
            softly.assertThat(reader.truncated()).isFalse();
        }
        softly.assertThat(index).isEqualTo(file.equals("golden_be.pcapng") ? names.size() + 1 : names.size());
        softly.assertAll();
    }

    @Test
    void shouldMatchScapyIcrcWhenFrameIsRoceOverIpv4() throws Exception {
        final PacketParser parser = new PacketParser();
        final ParseResult result = new ParseResult();
        int checked = 0;
        try (CaptureReader reader = CaptureReader.open(dir.resolve("golden_le_us.pcap"))) {
            for (final Map<String, String> fields : expected.values()) {
                assertThat(reader.next()).isTrue();
                parser.parse(reader.segment(), reader.frameOffset(), reader.capturedLength(), result);
                if (fields.containsKey("icrc")) {
                    assertThat(Integer.toHexString(Icrc.compute(result)))
                            .isEqualTo(Integer.toHexString(Integer.parseUnsignedInt(fields.get("icrc"), 16)));
                    assertThat(Icrc.verify(result)).isTrue();
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(5);
    }

    private static String actual(final String key, final ParseResult r) {
        return switch (key) {
            case "reason" -> r.reason().name();
            case "len" -> Integer.toString(r.frameLength());
            case "dst" -> Long.toHexString(r.dstMac());
            case "src" -> Long.toHexString(r.srcMac());
            case "vlans" -> Integer.toString(r.vlanCount());
            case "outer_vid" -> Integer.toString(r.outerVlanId());
            case "outer_pcp" -> Integer.toString(r.outerPcp());
            case "inner_vid" -> Integer.toString(r.innerVlanId());
            case "inner_pcp" -> Integer.toString(r.innerPcp());
            case "ethertype" -> Integer.toHexString(r.etherType());
            case "ipv" -> Integer.toString(r.ipVersion());
            case "dscp" -> Integer.toString(r.dscp());
            case "ecn" -> Integer.toString(r.ecn());
            case "ttl" -> Integer.toString(r.ttl());
            case "proto" -> Integer.toString(r.protocol());
            case "sip" ->
                r.ipVersion() == 4
                        ? Long.toHexString(r.srcAddressLow())
                        : String.format("%016x%016x", r.srcAddressHigh(), r.srcAddressLow());
            case "dip" ->
                r.ipVersion() == 4
                        ? Long.toHexString(r.dstAddressLow())
                        : String.format("%016x%016x", r.dstAddressHigh(), r.dstAddressLow());
            case "frag_later" -> r.laterFragment() ? "1" : "0";
            case "sport" -> Integer.toString(r.srcPort());
            case "dport" -> Integer.toString(r.dstPort());
            case "tcp_flags" -> Integer.toString(r.tcpFlags());
            case "icmp_type" -> Integer.toString(r.icmpType());
            case "icmp_code" -> Integer.toString(r.icmpCode());
            case "bth_opcode" -> Integer.toString(r.bthOpcode());
            case "dqpn" -> Integer.toString(r.bthDestQp());
            case "psn" -> Integer.toString(r.bthPsn());
            case "ackreq" -> r.bthAckReq() ? "1" : "0";
            case "pkey" -> Integer.toString(r.bthPkey());
            case "becn" -> r.bthBecn() ? "1" : "0";
            case "fecn" -> r.bthFecn() ? "1" : "0";
            case "bth_offset" -> Integer.toString(r.bthOffset());
            case "icrc" -> String.format("%08x", Icrc.stored(r));
            case "aeth_msn" ->
                Integer.toString(new AethFlyweight()
                        .wrap(r.segment(), r.frameOffset() + r.aethOffset(), 4)
                        .msn());
            case "aeth_syndrome" ->
                Integer.toString(new AethFlyweight()
                        .wrap(r.segment(), r.frameOffset() + r.aethOffset(), 4)
                        .syndrome());
            case "macc_opcode" -> Integer.toString(r.macControlOpcode());
            case "pfc_vector" -> Integer.toString(r.pfcClassEnableVector());
            case "pfc_q0", "pfc_q1", "pfc_q2", "pfc_q3", "pfc_q4", "pfc_q5", "pfc_q6", "pfc_q7" ->
                Integer.toString(r.pfcQuanta(key.charAt(5) - '0'));
            case "pause" -> Integer.toString(r.pauseQuanta());
            case "arp_op" -> Integer.toString(r.arpOperation());
            case "arp_spa" -> Integer.toHexString(r.arpSenderIp());
            case "arp_tpa" -> Integer.toHexString(r.arpTargetIp());
            case "arp_sha" -> Long.toHexString(r.arpSenderMac());
            case "lldp_ttl" ->
                Integer.toString(new LldpFlyweight()
                        .wrap(r.segment(), r.frameOffset() + r.l3Offset(), r.frameLength() - r.l3Offset())
                        .ttlSeconds());
            default -> "unknown key " + key;
        };
    }
}
