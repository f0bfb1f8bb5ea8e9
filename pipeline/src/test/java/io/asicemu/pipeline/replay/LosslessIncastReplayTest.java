package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.testsupport.Scapy;
import io.asicemu.testsupport.Tshark;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4 through the replay: a 3:1 RoCEv2 incast on lossless priority 3 (DSCP 3 → TC 3 → PG 3, pfc_enable 3,4)
 * into one 100G port, built by scapy, replayed with PFC-honouring link partners behind 40 m cables. Expected values:
 * the headroom (BUFFER_PROFILE xoff) is SONiC's formula for 100G / 40 m (reference §6.3), the PFC frame layout is
 * §6.1 decoded by tshark, and the drop contrast follows from the buffer sizes (each sender's PG keeps 2/3 of what
 * it sends while the three share one egress, so 200 KB per sender exceed static_th + xoff without pause).
 */
@Timeout(60)
class LosslessIncastReplayTest {
    private static final String ROUTER = "02:aa:bb:cc:dd:ee";
    private static final List<String> SENDERS = List.of("Ethernet0", "Ethernet4", "Ethernet8");
    private static final String RECEIVER = "Ethernet12";
    private static final int FRAMES = 200;
    private static final int FRAME_LEN = 1024;
    /** Line rate at 100G for 1024 B + 24 B overhead is 83.84 ns: 84 ns spacing. */
    private static final int GAP_NS = 84;

    private static final double CABLE_M = 40;
    /** Speed of light in the cable as SONiC's buffer_headroom Lua uses it: 198e6 m/s. */
    private static final long CABLE_DELAY_NS = Math.round(CABLE_M / 198e6 * 1e9);

    @TempDir
    static Path inputDir;

    private static Map<String, Path> inputs;

    @TempDir
    Path dir;

    static ConfigDb config() throws IOException {
        try (InputStream in = LosslessIncastReplayTest.class.getResourceAsStream("lossless_incast_config_db.json")) {
            return ConfigDb.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** scapy builds the three senders' captures once for all tests. */
    @BeforeAll
    static void buildInputs() {
        assertThat(Scapy.runResource(
                        LosslessIncastReplayTest.class,
                        "build_incast.py",
                        inputDir.toString(),
                        "3",
                        Integer.toString(FRAMES),
                        Integer.toString(FRAME_LEN),
                        "3",
                        "0",
                        Integer.toString(GAP_NS)))
                .contains("ok");
        final Map<String, Path> in = new LinkedHashMap<>();
        for (final String port : SENDERS) {
            in.put(port, inputDir.resolve(port + ".pcap"));
        }
        inputs = Map.copyOf(in);
    }

    private static Map<String, Path> inputs() {
        return inputs;
    }

    /** SONiC's headroom (buffer_headroom Lua form, reference §6.3) for 100G, 40 m, MTU 9100, no gearbox. */
    static long sonicXoffBytes() {
        final long portMtu = 9100;
        final double bytesOnCable = 2 * CABLE_M * 100_000 * 1e6 / 198e6 / 8;
        final long peerResponse = 394L * 512 / 8;
        final double propagation = portMtu + bytesOnCable + peerResponse;
        final double xoff = portMtu + propagation * 1.0; // cell occupancy 1 (no small packets)
        return (long) Math.ceil(xoff / 1024) * 1024;
    }

    /** Frames refused by the traffic manager's admission (ingress PG past its headroom), all ports. */
    private static long drops(final Replay.Result result) {
        return sum(result, "ASICEMU_OUT_DROP_REASON_BUFFER_FULL");
    }

    private static long sum(final Replay.Result result, final String counter) {
        long n = 0;
        for (final Map<String, Long> port : result.counters().ports().values()) {
            n += port.getOrDefault(counter, 0L);
        }
        return n;
    }

    /** Every frame each sender got back, as hex, read by scapy (one python run for all ports). */
    private static Map<String, List<String>> rawFrames(final Replay.Result result) {
        final String[] files =
                SENDERS.stream().map(p -> result.outputs().get(p).toString()).toArray(String[]::new);
        final String out = Scapy.run(
                "import sys\nfrom scapy.all import rdpcap\n"
                        + "for f in sys.argv[1:]:\n    print('#')\n    for p in rdpcap(f):\n        print(bytes(p).hex())\n",
                files);
        final Map<String, List<String>> frames = new LinkedHashMap<>();
        final String[] sections = out.strip().split("#", -1);
        for (int i = 0; i < SENDERS.size(); i++) {
            frames.put(SENDERS.get(i), sections[i + 1].strip().lines().toList());
        }
        return frames;
    }

    @Test
    void shouldReplayLosslessIncastWithoutDropsAndEmitPfcWhenLinkPartnersHonourPause() throws IOException {
        final ConfigDb db = config();
        assertThat(db.table("BUFFER_PROFILE")
                        .get("pg_lossless_100000_40m_profile")
                        .get("xoff"))
                .isEqualTo(Long.toString(sonicXoffBytes()));
        final Replay.Result result = Replay.run(
                db,
                inputs(),
                dir.resolve("out"),
                PipelineSizing.defaults(),
                ReplayOptions.pfcLinkPartners(CABLE_DELAY_NS));

        final List<List<String>> delivered =
                Tshark.fields(result.outputs().get(RECEIVER), "udp.dstport == 4791", "ip.src", "ip.dsfield.dscp");
        assertThat(delivered).hasSize(3 * FRAMES);
        assertThat(drops(result)).as("drops with link partners").isZero();
        assertThat(sum(result, "SAI_PORT_STAT_IF_OUT_DISCARDS") + sum(result, "SAI_PORT_STAT_IF_IN_DISCARDS"))
                .isZero();

        final Map<String, List<String>> raw = rawFrames(result);
        final StringBuilder report = new StringBuilder("lossless 3:1 incast, link partners, cable " + CABLE_DELAY_NS
                + " ns: drops 0, delivered " + delivered.size());
        for (final String port : SENDERS) {
            final Path out = result.outputs().get(port);
            final List<List<String>> pfc = Tshark.fields(
                    out,
                    "macc",
                    "eth.dst",
                    "eth.src",
                    "eth.type",
                    "macc.opcode",
                    "macc.cbfc.enbv",
                    "macc.cbfc.enbv.c3",
                    "macc.cbfc.pause_time.c3",
                    "frame.len",
                    "macc.cbfc.enbv.not_zero",
                    "macc.dst_address_invalid");
            assertThat(pfc).as("PFC frames on %s", port).isNotEmpty();
            for (final List<String> row : pfc) {
                assertThat(row.subList(0, 6))
                        .containsExactly("01:80:c2:00:00:01", ROUTER, "0x8808", "0x0101", "0x0008", "1");
                assertThat(row.get(6)).isIn("65535", "0");
                assertThat(row.get(7)).isEqualTo("60");
                assertThat(row.subList(8, 10))
                        .allSatisfy(field -> assertThat(field).isEmpty());
            }
            assertThat(pfc.get(0).get(6)).as("first is XOFF").isEqualTo("65535");
            assertThat(pfc.get(pfc.size() - 1).get(6)).as("last is XON").isEqualTo("0");
            int xoff = 0;
            int xon = 0;
            for (int i = 0; i < pfc.size(); i++) {
                if ("0".equals(pfc.get(i).get(6))) {
                    xon++;
                    assertThat(pfc.get(i - 1).get(6))
                            .as("exactly one XON per pause episode")
                            .isEqualTo("65535");
                } else {
                    xoff++;
                }
            }
            final String xoffHex = "0180c2000001" + ROUTER.replace(":", "") + "8808" + "0101" + "0008"
                    + "0000".repeat(3) + "ffff" + "0000".repeat(4) + "00".repeat(26);
            final String xonHex = xoffHex.replace("ffff", "0000");
            assertThat(raw.get(port))
                    .as("the whole 60 B frame, §6.1 layout, zero padding")
                    .hasSize(pfc.size())
                    .allSatisfy(hex -> assertThat(hex).isIn(xoffHex, xonHex));
            final LinkPartnerStats partner = result.linkPartners().get(port);
            assertThat(partner.pfcFramesReceived()).isEqualTo(pfc.size());
            assertThat(partner.pfcFramesPerPriority()[3]).isEqualTo(pfc.size());
            assertThat(partner.delayedFrames()).as("the partner paused").isPositive();
            assertThat(Tshark.fields(out, "!macc", "frame.len"))
                    .as("only PFC goes back to a sender")
                    .isEmpty();
            report.append("; ")
                    .append(port)
                    .append(": PFC ")
                    .append(pfc.size())
                    .append(" (XOFF ")
                    .append(xoff)
                    .append(", XON ")
                    .append(xon)
                    .append("), partner delayed ")
                    .append(partner.delayedFrames())
                    .append(" frames by ")
                    .append(partner.totalDelayNs())
                    .append(" ns in total");
        }
        System.out.println(report);
        final List<List<String>> psns =
                Tshark.fields(result.outputs().get(RECEIVER), "udp.dstport == 4791", "ip.src", "infiniband.bth.psn");
        final Map<String, Integer> nextPsn = new LinkedHashMap<>();
        for (final List<String> row : psns) {
            final int expected = nextPsn.getOrDefault(row.get(0), 0);
            assertThat(Integer.parseInt(row.get(1)))
                    .as("PSN order of %s", row.get(0))
                    .isEqualTo(expected);
            nextPsn.put(row.get(0), expected + 1);
        }
    }

    @Test
    void shouldDropWhenHeadroomIsExceededWithoutLinkPartners() throws IOException {
        final Replay.Result result = Replay.run(config(), inputs(), dir.resolve("out"), PipelineSizing.defaults());
        final int delivered = Tshark.fields(result.outputs().get(RECEIVER), "udp.dstport == 4791", "ip.src")
                .size();
        final long drops = drops(result);
        System.out.println("lossless 3:1 incast without link partners: drops " + drops + ", delivered " + delivered
                + " of " + 3 * FRAMES);
        assertThat(drops).as("headroom exceeded").isPositive();
        assertThat(delivered + drops).isEqualTo(3 * FRAMES);
        assertThat(sum(result, "SAI_PORT_STAT_IF_OUT_DISCARDS")).isEqualTo(drops);
        assertThat(result.linkPartners()).isEmpty();
        for (final String port : SENDERS) {
            assertThat(Tshark.fields(result.outputs().get(port), "macc.opcode == 0x0101", "frame.len"))
                    .as("the switch still sends PFC on %s, nobody listens", port)
                    .isNotEmpty();
        }
    }

    @Test
    void shouldProduceIdenticalOutputsWhenReplayedTwice() throws IOException {
        final Map<String, Path> in = inputs();
        final Replay.Result a = Replay.run(
                config(),
                in,
                dir.resolve("a"),
                PipelineSizing.defaults(),
                ReplayOptions.pfcLinkPartners(CABLE_DELAY_NS));
        final Replay.Result b = Replay.run(
                config(),
                in,
                dir.resolve("b"),
                PipelineSizing.defaults(),
                ReplayOptions.pfcLinkPartners(CABLE_DELAY_NS));
        for (final String port : a.outputs().keySet()) {
            assertThat(Files.readAllBytes(b.outputs().get(port)))
                    .as(port)
                    .isEqualTo(Files.readAllBytes(a.outputs().get(port)));
        }
    }
}
