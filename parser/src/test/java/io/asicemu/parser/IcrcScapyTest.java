package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.pcap.PcapWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scapy confirms that our ICRC equals its own for every frame we build, and that the ICRC is still valid after our
 * TTL, ECN, DSCP and MAC rewrites (IPv6: an independent rxe-style implementation in the script). It also checks the
 * FCS of 64-byte PFC/PAUSE frames with zlib.
 */
class IcrcScapyTest {
    @TempDir
    Path dir;

    @Test
    void shouldAgreeWithScapyOnIcrcBeforeAndAfterRewritesWhenFramesAreRoce() throws Exception {
        final MemorySegment buffer = Arena.ofAuto().allocate(4096);
        final FrameBuilder builder = new FrameBuilder();
        final PacketParser parser = new PacketParser();
        final ParseResult result = new ParseResult();
        final List<Integer> ourIcrcs = new ArrayList<>();
        final Path pcap = dir.resolve("icrc.pcap");
        try (PcapWriter writer = new PcapWriter(pcap)) {
            final int[][] shapes = {
                {4, RoceOpcode.RC_SEND_ONLY, 0x123, 0, 16},
                {4, RoceOpcode.RC_RDMA_WRITE_ONLY, 0x77, 1, 256},
                {4, RoceOpcode.RC_ACK, 0xFFFFFF, 2, 0},
                {4, RoceOpcode.UD_SEND_ONLY, 0x1, 0, 1000},
                {6, RoceOpcode.RC_SEND_ONLY, 0xABCDEF, 0, 64},
                {6, RoceOpcode.RC_RDMA_READ_REQUEST, 0x42, 1, 0},
            };
            long t = 0;
            for (final int[] shape : shapes) {
                builder.reset()
                        .dscp(26)
                        .ecn(Ipv4Flyweight.ECN_ECT0)
                        .bth(shape[1], shape[2], 1000 + shape[2] % 97)
                        .payloadSeed(shape[2])
                        .ttl(64);
                if (shape[0] == 6) {
                    builder.ipv6(0x20010db8L << 32, 0x10, 0x20010db8L << 32, 0x20)
                            .flowLabel(0x54321);
                }
                if (shape[3] == 1) {
                    builder.vlan(100, 3);
                } else if (shape[3] == 2) {
                    builder.doubleTagged(EtherType.QINQ, 10, 1, 20, 2);
                }
                final int length = builder.buildRoce(buffer, 0, shape[4]);
                parser.parse(buffer, 0, length, result);
                ourIcrcs.add(Icrc.compute(result));
                writer.write(buffer, 0, length, t++);
                FrameRewriter.decrementTtl(result);
                writer.write(buffer, 0, length, t++);
                FrameRewriter.markCe(result);
                writer.write(buffer, 0, length, t++);
                FrameRewriter.dscp(result, 7);
                FrameRewriter.srcMac(result, 0x0A0B0C0D0E0FL);
                writer.write(buffer, 0, length, t++);
            }
            builder.reset();
            final int cnpLength = builder.buildCnp(buffer, 0, 0x456);
            parser.parse(buffer, 0, cnpLength, result);
            ourIcrcs.add(Icrc.compute(result));
            writer.write(buffer, 0, cnpLength, t++);
            final int pfcLength = MacControlFrames.writePfc(
                    buffer, 0, 0x020000000001L, 0x08, new int[] {0, 0, 0, 0xFFFF, 0, 0, 0, 0}, true);
            writer.write(buffer, 0, pfcLength, t++);
            final int pauseLength = MacControlFrames.writePause(buffer, 0, 0x020000000001L, 0xFFFF, true);
            writer.write(buffer, 0, pauseLength, t);
        }

        final Map<String, Map<String, String>> checks =
                Oracles.records(Oracles.scapy(dir, "scapy_icrc_check.py", pcap.toString()));

        assertThat(checks).hasSize(6 * 4 + 1 + 2);
        int roce = 0;
        for (final Map.Entry<String, Map<String, String>> check : checks.entrySet()) {
            final Map<String, String> fields = check.getValue();
            assertThat(fields.get("computed"))
                    .as("frame " + check.getKey() + " " + fields)
                    .isEqualTo(fields.get("stored"));
            if (!fields.get("kind").equals("fcs")) {
                final int index = Integer.parseInt(check.getKey());
                if (index % 4 == 0 || index == 24) {
                    assertThat(fields.get("computed"))
                            .as("our ICRC of frame " + index)
                            .isEqualTo(String.format("%08x", ourIcrcs.get(index / 4)));
                }
                roce++;
            }
        }
        assertThat(roce).isEqualTo(25);
        assertThat(checks.values())
                .filteredOn(f -> f.get("kind").equals("roce6"))
                .hasSize(8);
    }
}
