package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.testsupport.ProcessRunner;
import io.asicemu.testsupport.Tshark;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential check against tshark: 300 randomly configured frames (random seed, printed on failure) from
 * {@link FrameBuilder}, some rewritten, are written to a pcap; our parse of each must agree with tshark's dissection.
 */
class TsharkDifferentialTest {
    private static final int FRAMES = 300;
    private static final String[] FIELDS = {
        "eth.src",
        "ieee8021ad.id",
        "vlan.id",
        "vlan.priority",
        "ip.dsfield.dscp",
        "ip.dsfield.ecn",
        "ip.ttl",
        "ip.checksum.status",
        "ipv6.tclass.dscp",
        "ipv6.tclass.ecn",
        "ipv6.hlim",
        "udp.srcport",
        "udp.dstport",
        "infiniband.bth.opcode",
        "infiniband.bth.destqp",
        "infiniband.bth.psn",
        "arp.opcode",
        "macc.cbfc.enbv"
    };

    @TempDir
    Path dir;

    @Test
    void shouldAgreeWithTsharkWhenFramesAreRandomlyConfigured() throws Exception {
        final long seed = new Random().nextLong();
        final Random random = new Random(seed);
        final MemorySegment ring = Arena.ofAuto().allocate(FRAMES * 2048L);
        final int[] lengths = new int[FRAMES];
        final FrameBuilder builder = new FrameBuilder();
        final PacketParser parser = new PacketParser();
        final ParseResult result = new ParseResult();
        final Path pcap = dir.resolve("random.pcap");
        try (PcapWriter writer = new PcapWriter(pcap)) {
            for (int i = 0; i < FRAMES; i++) {
                final long offset = i * 2048L;
                lengths[i] = buildRandom(random, builder, ring, offset);
                parser.parse(ring, offset, lengths[i], result);
                if (result.ipVersion() != 0 && random.nextBoolean()) {
                    FrameRewriter.decrementTtl(result);
                    FrameRewriter.markCe(result);
                    FrameRewriter.dscp(result, random.nextInt(64));
                }
                writer.write(ring, offset, lengths[i], i);
            }
        }

        final List<List<String>> rows = Tshark.fields(pcap, null, FIELDS);

        assertThat(rows).as("seed %d", seed).hasSize(FRAMES);
        for (int i = 0; i < FRAMES; i++) {
            assertThat(parser.parse(ring, i * 2048L, lengths[i], result))
                    .as("seed %d frame %d", seed, i)
                    .isEqualTo(ParseReason.OK);
            assertThat(rows.get(i)).as("seed %d frame %d", seed, i + 1).isEqualTo(expected(result));
        }
    }

    private static int buildRandom(
            final Random random, final FrameBuilder builder, final MemorySegment ring, final long offset) {
        // RoCEv2 source ports come from the range RoCE NICs use for flow entropy (0xC000..0xFFFF). Not an arbitrary
        // 1024..61023: tshark's UDP dissector tries the LOWER of the two ports first, so a source port below 4791
        // that has a registered dissector (3671 is KNXnet/IP, seed 7752186475727045672) takes the datagram and
        // tshark shows no BTH. Our parser is right to classify by destination port 4791 (RoCEv2 Annex A17); the
        // test would have misread tshark's port heuristic as a disagreement.
        builder.reset()
                .macs(0x020000000000L | random.nextInt(1 << 24), 0x020000000000L | random.nextInt(1 << 24))
                .dscp(random.nextInt(64))
                .ecn(random.nextInt(4))
                .ttl(1 + random.nextInt(255))
                .udpPorts(0xC000 + random.nextInt(1 << 14), EtherType.ROCEV2_UDP_PORT)
                .bth(
                        ROCE_OPCODES[random.nextInt(ROCE_OPCODES.length)],
                        random.nextInt(1 << 24),
                        random.nextInt(1 << 24))
                .ackReq(random.nextBoolean())
                .payloadSeed(random.nextInt());
        if (random.nextBoolean()) {
            builder.ipv6(random.nextLong(), random.nextLong(), random.nextLong(), random.nextLong())
                    .flowLabel(random.nextInt(1 << 20));
        } else {
            builder.ipv4(random.nextInt(), random.nextInt()).identification(random.nextInt(1 << 16));
        }
        switch (random.nextInt(3)) {
            case 1 -> builder.vlan(1 + random.nextInt(4094), random.nextInt(8));
            case 2 ->
                builder.doubleTagged(
                        EtherType.QINQ,
                        1 + random.nextInt(4094),
                        random.nextInt(8),
                        1 + random.nextInt(4094),
                        random.nextInt(8));
            default -> builder.untagged();
        }
        return switch (random.nextInt(6)) {
            case 0, 1 -> builder.buildRoce(ring, offset, random.nextInt(1024));
            case 2 -> builder.buildCnp(ring, offset, random.nextInt(1 << 24));
            case 3 ->
                builder.udpPorts(undissectedPort(random), undissectedPort(random))
                        .udpChecksum(true)
                        .buildUdp(ring, offset, random.nextInt(1200));
            case 4 ->
                builder.buildArp(
                        ring,
                        offset,
                        1 + random.nextInt(2),
                        random.nextLong() & 0xFFFF_FFFF_FFFFL,
                        random.nextInt(),
                        0,
                        random.nextInt());
            default ->
                MacControlFrames.writePfc(
                        ring,
                        offset,
                        0x020000000001L,
                        random.nextInt(256),
                        new int[] {random.nextInt(65536), 0, 0, 0, 0, 0, 0, random.nextInt(65536)},
                        false);
        };
    }

    /**
     * A random port (1024..65535) with no dissector in tshark's "udp.port" table, so tshark shows the payload of a
     * plain UDP frame as data. Ports tshark binds to a tunnel dissector make it dissect the payload as an inner frame
     * and print a second value per field (3343 "msrcp" gave "eth.src" = "02:00:00:00:74:e4,48:49:4a:4b:4c:4d" for
     * seed -873943447581205056): our parser is right to stop at the outer UDP header.
     */
    private static int undissectedPort(final Random random) {
        int port;
        do {
            port = 1024 + random.nextInt(65536 - 1024);
        } while (TSHARK_UDP_PORTS.contains(port));
        return port;
    }

    /** Ports in tshark's "udp.port" dissector table (tshark -G decodes: "udp.port", port, protocol per line). */
    private static final Set<Integer> TSHARK_UDP_PORTS = tsharkUdpPorts();

    private static Set<Integer> tsharkUdpPorts() {
        final String out = ProcessRunner.run(null, Duration.ofSeconds(60), List.of("tshark", "-G", "decodes"))
                .requireSuccess()
                .stdout();
        final Set<Integer> ports = new HashSet<>();
        for (final String line : out.split("\n")) {
            final String[] columns = line.split("\t");
            if (columns.length >= 2 && columns[0].equals("udp.port")) {
                ports.add(Integer.parseInt(columns[1].trim()));
            }
        }
        if (!ports.contains(EtherType.ROCEV2_UDP_PORT)) {
            throw new IllegalStateException("tshark -G decodes lists no dissector for UDP port 4791: " + ports);
        }
        return ports;
    }

    private static final int[] ROCE_OPCODES = {
        RoceOpcode.RC_SEND_ONLY,
        RoceOpcode.RC_SEND_FIRST,
        RoceOpcode.RC_RDMA_WRITE_ONLY,
        RoceOpcode.RC_RDMA_READ_REQUEST,
        RoceOpcode.RC_ACK,
        RoceOpcode.RC_RDMA_READ_RESPONSE_ONLY,
        RoceOpcode.UD_SEND_ONLY,
        RoceOpcode.UC | RoceOpcode.RC_SEND_ONLY
    };

    /** What tshark should print for {@code r}, field by field, in {@link #FIELDS} order. */
    private static List<String> expected(final ParseResult r) {
        final List<String> row = new ArrayList<>();
        row.add(mac(r.srcMac()));
        final boolean qinq = r.vlanCount() == 2;
        row.add(qinq ? Integer.toString(r.outerVlanId()) : "");
        row.add(r.vlanCount() == 0 ? "" : Integer.toString(qinq ? r.innerVlanId() : r.outerVlanId()));
        row.add(r.vlanCount() == 0 ? "" : Integer.toString(qinq ? r.innerPcp() : r.outerPcp()));
        final boolean v4 = r.ipVersion() == 4;
        final boolean v6 = r.ipVersion() == 6;
        row.add(v4 ? Integer.toString(r.dscp()) : "");
        row.add(v4 ? Integer.toString(r.ecn()) : "");
        row.add(v4 ? Integer.toString(r.ttl()) : "");
        row.add(v4 ? "1" : "");
        row.add(v6 ? Integer.toString(r.dscp()) : "");
        row.add(v6 ? Integer.toString(r.ecn()) : "");
        row.add(v6 ? Integer.toString(r.ttl()) : "");
        final boolean udp = r.protocol() == EtherType.PROTO_UDP;
        row.add(udp ? Integer.toString(r.srcPort()) : "");
        row.add(udp ? Integer.toString(r.dstPort()) : "");
        row.add(r.roce() ? Integer.toString(r.bthOpcode()) : "");
        row.add(r.roce() ? String.format("0x%06x", r.bthDestQp()) : "");
        row.add(r.roce() ? Integer.toString(r.bthPsn()) : "");
        row.add(r.kind() == FrameKind.ARP ? Integer.toString(r.arpOperation()) : "");
        row.add(r.pfc() ? String.format("0x%04x", r.pfcClassEnableVector()) : "");
        return row;
    }

    private static String mac(final long mac) {
        final StringBuilder text = new StringBuilder();
        for (int shift = 40; shift >= 0; shift -= 8) {
            if (shift != 40) {
                text.append(':');
            }
            text.append(String.format("%02x", (mac >>> shift) & 0xFF));
        }
        return text.toString();
    }
}
