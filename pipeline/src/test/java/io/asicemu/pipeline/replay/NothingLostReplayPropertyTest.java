package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.MacControlFrames;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.table.PipelineSizing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Nothing is lost silently: random mixes of every frame class a switch port meets (routed, over the egress MTU, bad
 * IPv4 header checksum, TTL 1, no route, UDP and ping to the switch, ARP request and reply, LLDP, 802.3x PAUSE, PFC,
 * MAC control with an unknown opcode, runts, foreign unicast) are replayed, and the counters account for every frame
 * exactly: in = out + Σ drops + Σ punts + Σ consumed, summed over the ports. Each class's own counter is checked too,
 * against the count of frames of that class the test generated (the output pcaps are counted independently of the
 * counters).
 */
class NothingLostReplayPropertyTest {
    private static final long ROUTER = 0x02aa_bbcc_ddeeL;
    private static final long HOST = 0x0200_0000_0102L;
    private static final int HOST_IP = 0x0a00_0102; // 10.0.1.2
    private static final int SWITCH_IP = 0x0a00_0101; // 10.0.1.1
    private static final long GAP_NS = 10_000;

    /** The frame classes, each with the counter that must account for it. */
    enum FrameClass {
        ROUTED,
        OVER_EGRESS_MTU,
        BAD_IPV4_CHECKSUM,
        TTL_ONE,
        NO_ROUTE,
        UDP_TO_SWITCH,
        PING_SWITCH,
        ARP_REQUEST,
        ARP_REPLY,
        LLDP,
        PAUSE,
        PFC,
        MAC_CONTROL_UNKNOWN,
        RUNT,
        FOREIGN_UNICAST
    }

    static ConfigDb config() {
        return ConfigDb.parse("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:aa:bb:cc:dd:ee\"}},"
                + " \"PORT\": {\"Ethernet0\": {\"speed\": \"10000\", \"admin_status\": \"up\", \"mtu\": \"9100\"},"
                + " \"Ethernet4\": {\"speed\": \"10000\", \"admin_status\": \"up\", \"mtu\": \"1000\"}},"
                + " \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.1/24\": {}, \"Ethernet4\": {},"
                + " \"Ethernet4|10.0.2.1/24\": {}},"
                + " \"NEIGH\": {\"Ethernet4|10.0.2.2\": {\"neigh\": \"02:00:00:00:02:02\", \"family\": \"IPv4\"}},"
                + " \"STATIC_ROUTE\": {\"192.168.0.0/16\": {\"nexthop\": \"10.0.2.2\", \"ifname\": \"Ethernet4\"}}}");
    }

    @Provide
    Arbitrary<List<FrameClass>> mixes() {
        return Arbitraries.of(FrameClass.class).list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 40)
    void everyFrameIsForwardedOrCountedUnderAReason(@ForAll("mixes") final List<FrameClass> mix) throws IOException {
        final Path dir = Files.createTempDirectory("nothing-lost");
        try {
            final Path input = dir.resolve("in.pcap");
            final Map<FrameClass, Integer> sent = new EnumMap<>(FrameClass.class);
            try (PcapWriter out = new PcapWriter(input);
                    Arena arena = Arena.ofConfined()) {
                final MemorySegment frame = arena.allocate(2048);
                long t = 1_000_000;
                for (final FrameClass c : mix) {
                    final int length = build(c, frame);
                    out.write(frame, 0, length, t);
                    t += GAP_NS;
                    sent.merge(c, 1, Integer::sum);
                }
            }
            final Replay.Result result =
                    Replay.run(config(), Map.of("Ethernet0", input), dir.resolve("out"), PipelineSizing.defaults());
            final CountersSnapshot c = result.counters();

            long in = 0;
            long out = 0;
            for (final String port : c.ports().keySet()) {
                in += c.port(port, "SAI_PORT_STAT_IF_IN_UCAST_PKTS")
                        + c.port(port, "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS");
                out += c.port(port, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS")
                        + c.port(port, "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS");
            }
            final long drops =
                    c.drops().values().stream().mapToLong(Long::longValue).sum();
            final long punts =
                    c.punts().values().stream().mapToLong(Long::longValue).sum();
            final long consumed =
                    c.consumed().values().stream().mapToLong(Long::longValue).sum();
            assertThat(in).as("frames in").isEqualTo(mix.size());
            assertThat(out + drops + punts + consumed)
                    .as("out %d + drops %d + punts %d + consumed %d; %s", out, drops, punts, consumed, c.render())
                    .isEqualTo(in);

            final int replies = n(sent, FrameClass.PING_SWITCH) + n(sent, FrameClass.ARP_REQUEST);
            assertThat(pcapRecords(result.outputs().get("Ethernet4"))).isEqualTo(n(sent, FrameClass.ROUTED));
            assertThat(pcapRecords(result.outputs().get("Ethernet0"))).isEqualTo(replies);
            assertThat(out).isEqualTo(n(sent, FrameClass.ROUTED) + replies);
            assertThat(c.drops().get("SAI_IN_DROP_REASON_IP_HEADER_ERROR"))
                    .isEqualTo(n(sent, FrameClass.BAD_IPV4_CHECKSUM));
            assertThat(c.drops().get("SAI_IN_DROP_REASON_EXCEEDS_L3_MTU")
                            + c.drops().get("SAI_IN_DROP_REASON_EXCEEDS_L2_MTU")
                            + c.drops().get("ASICEMU_OUT_DROP_REASON_EXCEEDS_L2_MTU"))
                    .isEqualTo(n(sent, FrameClass.OVER_EGRESS_MTU));
            assertThat(c.drops().get("SAI_IN_DROP_REASON_TTL")).isEqualTo(n(sent, FrameClass.TTL_ONE));
            assertThat(c.drops().get("SAI_IN_DROP_REASON_LPM4_MISS")).isEqualTo(n(sent, FrameClass.NO_ROUTE));
            assertThat(c.drops().get("ASICEMU_IN_DROP_REASON_MAC_CONTROL_UNKNOWN_OPCODE"))
                    .isEqualTo(n(sent, FrameClass.MAC_CONTROL_UNKNOWN));
            assertThat(c.drops().get("ASICEMU_IN_DROP_REASON_MALFORMED_FRAME")).isEqualTo(n(sent, FrameClass.RUNT));
            assertThat(c.drops().get("ASICEMU_IN_DROP_REASON_NO_EGRESS_PORT"))
                    .isEqualTo(n(sent, FrameClass.FOREIGN_UNICAST));
            assertThat(c.punts().get("SAI_HOSTIF_TRAP_TYPE_LLDP")
                            + c.punts().get("SAI_HOSTIF_TRAP_TYPE_IP2ME")
                            + c.drops().get("ASICEMU_IN_DROP_REASON_CPU_QUEUE_FULL"))
                    .isEqualTo(n(sent, FrameClass.LLDP) + n(sent, FrameClass.UDP_TO_SWITCH));
            assertThat(c.consumed().get("SAI_PORT_STAT_PAUSE_RX_PKTS")).isEqualTo(n(sent, FrameClass.PAUSE));
            assertThat(c.consumed().get("ASICEMU_PORT_STAT_PFC_RX_FRAMES")).isEqualTo(n(sent, FrameClass.PFC));
            assertThat(c.consumed().get("ASICEMU_PORT_STAT_NEIGHBOR_ANSWER_RX_PKTS"))
                    .isEqualTo(n(sent, FrameClass.ARP_REPLY));
            assertThat(Files.readString(result.countersFile()))
                    .contains(
                            mix.contains(FrameClass.PAUSE)
                                    ? "SAI_PORT_STAT_PAUSE_RX_PKTS"
                                    : "SAI_PORT_STAT_IF_IN_OCTETS");
        } finally {
            delete(dir);
        }
    }

    private static int n(final Map<FrameClass, Integer> sent, final FrameClass c) {
        return sent.getOrDefault(c, 0);
    }

    private static int build(final FrameClass c, final MemorySegment f) {
        final FrameBuilder b = new FrameBuilder()
                .macs(ROUTER, HOST)
                .untagged()
                .ipv4(HOST_IP, 0xc0a8_0101)
                .ttl(64)
                .udpPorts(1234, 9);
        return switch (c) {
            case ROUTED -> b.buildUdp(f, 0, 100);
            case OVER_EGRESS_MTU -> b.buildUdp(f, 0, 1200);
            case BAD_IPV4_CHECKSUM -> {
                final int length = b.buildUdp(f, 0, 100);
                NetworkOrder.u16(f, 24, NetworkOrder.u16(f, 24) ^ 0x0101);
                yield length;
            }
            case TTL_ONE -> b.ttl(1).buildUdp(f, 0, 100);
            case NO_ROUTE -> b.ipv4(HOST_IP, 0x0808_0808).buildUdp(f, 0, 100);
            case UDP_TO_SWITCH -> b.ipv4(HOST_IP, SWITCH_IP).buildUdp(f, 0, 40);
            case PING_SWITCH -> b.ipv4(HOST_IP, SWITCH_IP).buildIcmpEcho(f, 0, 7, 1, 32);
            case ARP_REQUEST -> b.macs(0xffff_ffff_ffffL, HOST).buildArp(f, 0, 1, HOST, HOST_IP, 0, SWITCH_IP);
            case ARP_REPLY -> b.buildArp(f, 0, 2, HOST, HOST_IP, ROUTER, SWITCH_IP);
            case LLDP -> lldp(f);
            case PAUSE -> MacControlFrames.writePause(f, 0, HOST, 10, false);
            case PFC -> MacControlFrames.writePfc(f, 0, HOST, 0x08, new int[] {0, 0, 0, 10, 0, 0, 0, 0}, false);
            case MAC_CONTROL_UNKNOWN -> {
                final int length = MacControlFrames.writePause(f, 0, HOST, 10, false);
                NetworkOrder.u16(f, 14, 0x0002); // GATE (802.3 clause 64), not implemented by a switch MAC
                yield length;
            }
            case RUNT -> {
                f.asSlice(0, 13).fill((byte) 0x11);
                yield 13;
            }
            case FOREIGN_UNICAST -> b.macs(0x0200_0000_0999L, HOST).buildUdp(f, 0, 100);
        };
    }

    /** LLDPDU: chassis id (MAC), port id, TTL, end. */
    private static int lldp(final MemorySegment f) {
        final ByteBuffer b = ByteBuffer.allocate(60).order(ByteOrder.BIG_ENDIAN);
        b.put(new byte[] {0x01, (byte) 0x80, (byte) 0xc2, 0, 0, 0x0e}).put(new byte[] {2, 0, 0, 0, 1, 2});
        b.putShort((short) 0x88cc);
        b.putShort((short) ((1 << 9) | 7)).put((byte) 4).put(new byte[] {2, 0, 0, 0, 1, 2});
        b.putShort((short) ((2 << 9) | 5))
                .put((byte) 5)
                .put("eth1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        b.putShort((short) ((3 << 9) | 2)).putShort((short) 120);
        b.putShort((short) 0);
        MemorySegment.copy(MemorySegment.ofArray(b.array()), 0, f, 0, 60);
        return 60;
    }

    /** Counts the records of a classic pcap file by walking its record headers. */
    private static int pcapRecords(final Path pcap) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(pcap)).order(ByteOrder.LITTLE_ENDIAN);
        int records = 0;
        int at = 24;
        while (at + 16 <= b.limit()) {
            at += 16 + b.getInt(at + 8);
            records++;
        }
        return records;
    }

    private static void delete(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
