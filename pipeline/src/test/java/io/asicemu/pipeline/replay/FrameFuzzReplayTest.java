package io.asicemu.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.MacControlFrames;
import io.asicemu.parser.pcap.CaptureReader;
import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.testsupport.Scapy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Frame fuzzing (issue 14): seed frames of every class (our FrameBuilder's, and scapy's: TCP options, IPv4 options and
 * fragments, IPv6 extension headers, GRE, QinQ, LLDP, ND, LLC, scapy's fuzz() of each layer) are mutated (bytes
 * flipped or set, EtherTypes and IP header fields overwritten, frames truncated or extended) and replayed through the
 * whole pipeline. No exception may escape, and every frame is accounted for as NothingLostReplayPropertyTest does:
 * in = (out − frames the switch originated) + drops + punts + consumed, the originated frames (ARP requests, neighbor
 * solicitations, PFC/PAUSE with the router's MAC) counted independently from the output captures.
 * <p>
 * CI size: the jqwik property (structured generator, shrinking) plus a seeded run of
 * {@code -Dasicemu.fuzz.frames} mutated frames (default 50,000). The long soak is
 * {@code bin/mvn -B -pl pipeline -am verify -Dtest=FrameFuzzReplayTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dasicemu.fuzz.frames=10000000 [-Dasicemu.fuzz.seed=N]} (docs/PERFORMANCE.md, "Fuzzing").
 */
class FrameFuzzReplayTest {
    private static final long ROUTER = 0x02aa_bbcc_ddeeL;
    private static final long HOST = 0x0200_0000_0102L;
    private static final long GAP_NS = 10_000;
    private static final int MAX_FRAME = 9_000;
    private static final int CHUNK = 250_000;
    private static final int[] ETHER_TYPES = {
        0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806, 0x88cc, 0x8808, 0x8915, 0x0000, 0xffff, 0x05dc
    };

    private static List<byte[]> seeds;

    /** Mutation kinds. */
    enum Op {
        FLIP_BIT,
        SET_BYTE,
        ETHER_TYPE,
        IP_FIELD,
        TRUNCATE,
        EXTEND,
        NONE
    }

    /** One mutation: what, where (a fraction of the frame, 0..65535) and with what value. */
    record Mutation(Op op, int where, int value) {}

    /** A fuzzed frame: a seed and the mutations applied to it in order. */
    record Fuzzed(int seed, List<Mutation> mutations) {}

    /** The seeds, built once (scapy's in a temporary folder removed at once); shared by the jqwik and JUnit runs. */
    private static synchronized List<byte[]> seeds() throws IOException {
        if (seeds == null) {
            final Path dir = Files.createTempDirectory("asicemu-fuzz-seeds");
            try {
                final Path scapyPcap = dir.resolve("scapy.pcap");
                assertThat(Scapy.runResource(FrameFuzzReplayTest.class, "build_fuzz_seeds.py", scapyPcap.toString()))
                        .startsWith("ok");
                final List<byte[]> all = new ArrayList<>(builtSeeds());
                try (CaptureReader reader = CaptureReader.open(scapyPcap)) {
                    while (reader.next()) {
                        all.add(reader.segment()
                                .asSlice(reader.frameOffset(), reader.capturedLength())
                                .toArray(ValueLayout.JAVA_BYTE));
                    }
                }
                assertThat(all).hasSizeGreaterThan(150);
                seeds = List.copyOf(all);
            } finally {
                delete(dir);
            }
        }
        return seeds;
    }

    private static List<byte[]> builtSeeds() {
        final List<byte[]> out = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment f = arena.allocate(2048);
            final FrameBuilder b = new FrameBuilder()
                    .macs(ROUTER, HOST)
                    .untagged()
                    .ipv4(0x0a00_0102, 0xc0a8_0101)
                    .ttl(64)
                    .udpPorts(1234, 4791);
            out.add(slice(f, b.buildUdp(f, 0, 100)));
            out.add(slice(f, b.bth(0x04, 0x1234, 7).buildRoce(f, 0, 256)));
            out.add(slice(f, b.buildCnp(f, 0, 0x55)));
            out.add(slice(f, b.ttl(1).buildUdp(f, 0, 60)));
            out.add(slice(f, b.ttl(64).ipv4(0x0a00_0102, 0x0a00_0101).buildIcmpEcho(f, 0, 1, 1, 32)));
            out.add(slice(f, b.vlan(10, 3).ipv4(0x0a00_0102, 0xc0a8_0101).buildUdp(f, 0, 200)));
            out.add(slice(
                    f,
                    new FrameBuilder()
                            .macs(ROUTER, HOST)
                            .untagged()
                            .ipv6(0x2001_0db8_0000_0000L, 2, 0x2001_0db8_0000_0000L, 1)
                            .udpPorts(1, 2)
                            .buildUdp(f, 0, 80)));
            out.add(slice(
                    f,
                    new FrameBuilder()
                            .macs(0xffff_ffff_ffffL, HOST)
                            .untagged()
                            .buildArp(f, 0, 1, HOST, 0x0a00_0102, 0, 0x0a00_0101)));
            out.add(slice(f, MacControlFrames.writePfc(f, 0, HOST, 0x08, new int[] {0, 0, 0, 50, 0, 0, 0, 0}, false)));
            out.add(slice(f, MacControlFrames.writePause(f, 0, HOST, 10, false)));
        }
        return out;
    }

    private static byte[] slice(final MemorySegment f, final int length) {
        return f.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Provide
    Arbitrary<List<Fuzzed>> mixes() {
        final Arbitrary<Mutation> mutation = Combinators.combine(
                        Arbitraries.of(Op.class),
                        Arbitraries.integers().between(0, 65_535),
                        Arbitraries.integers().between(0, 65_535))
                .as(Mutation::new);
        final Arbitrary<Fuzzed> frame = Combinators.combine(
                        Arbitraries.integers().between(0, 10_000),
                        mutation.list().ofMaxSize(4))
                .as(Fuzzed::new);
        return frame.list().ofMinSize(1).ofMaxSize(400);
    }

    @Property(tries = 25)
    void everyMutatedFrameIsForwardedOrCounted(@ForAll("mixes") final List<Fuzzed> mix) throws IOException {
        final Path dir = Files.createTempDirectory("asicemu-fuzz");
        try {
            final Path input = dir.resolve("in.pcap");
            try (PcapWriter out = new PcapWriter(input);
                    Arena arena = Arena.ofConfined()) {
                final MemorySegment frame = arena.allocate(MAX_FRAME + 64);
                long t = 1_000_000;
                for (final Fuzzed fuzzed : mix) {
                    final int length = mutate(seeds().get(fuzzed.seed() % seeds().size()), fuzzed.mutations(), frame);
                    out.write(frame, 0, length, t);
                    t += GAP_NS;
                }
            }
            assertAccounted(input, mix.size(), dir.resolve("out"));
        } finally {
            delete(dir);
        }
    }

    @org.junit.jupiter.api.Test
    void everyFrameOfASeededMutationRunIsForwardedOrCounted() throws IOException {
        final long frames = Long.getLong("asicemu.fuzz.frames", 50_000);
        final long seed = Long.getLong("asicemu.fuzz.seed", 14);
        final SplittableRandom random = new SplittableRandom(seed);
        final Path dir = Files.createTempDirectory("asicemu-fuzz-run");
        final long startNs = System.nanoTime();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(MAX_FRAME + 64);
            final List<Mutation> mutations = new ArrayList<>();
            for (long done = 0; done < frames; ) {
                final int chunk = (int) Math.min(CHUNK, frames - done);
                final Path input = dir.resolve("in.pcap");
                try (PcapWriter out = new PcapWriter(input)) {
                    long t = 1_000_000;
                    for (int i = 0; i < chunk; i++) {
                        mutations.clear();
                        final int n = random.nextInt(5);
                        for (int m = 0; m < n; m++) {
                            mutations.add(new Mutation(
                                    Op.values()[random.nextInt(Op.values().length)],
                                    random.nextInt(65_536),
                                    random.nextInt(65_536)));
                        }
                        final int length = mutate(seeds().get(random.nextInt(seeds().size())), mutations, frame);
                        out.write(frame, 0, length, t);
                        t += GAP_NS;
                    }
                }
                assertAccounted(input, chunk, dir.resolve("out"));
                done += chunk;
                if (frames > CHUNK) {
                    System.out.printf(
                            "frame fuzz: %d of %d frames accounted for (%.0f s)%n",
                            done, frames, (System.nanoTime() - startNs) / 1e9);
                }
            }
        } finally {
            delete(dir);
        }
        System.out.printf(
                "frame fuzz: %d mutated frames (seed %d) accounted for in %.1f s%n",
                frames, seed, (System.nanoTime() - startNs) / 1e9);
    }

    /** Applies the mutations to a copy of the seed in {@code frame}; returns the length (1..MAX_FRAME). */
    static int mutate(final byte[] seed, final List<Mutation> mutations, final MemorySegment frame) {
        MemorySegment.copy(MemorySegment.ofArray(seed), 0, frame, 0, seed.length);
        int length = seed.length;
        for (final Mutation m : mutations) {
            final int at = (int) ((long) m.where() * length / 65_536);
            switch (m.op()) {
                case FLIP_BIT ->
                    frame.set(ValueLayout.JAVA_BYTE, at, (byte)
                            (frame.get(ValueLayout.JAVA_BYTE, at) ^ (1 << (m.value() & 7))));
                case SET_BYTE -> frame.set(ValueLayout.JAVA_BYTE, at, (byte) m.value());
                case ETHER_TYPE -> {
                    if (length >= 14) {
                        putU16(frame, 12, ETHER_TYPES[m.value() % ETHER_TYPES.length]);
                    }
                }
                case IP_FIELD -> {
                    // IPv4 version/IHL, total length, flags/fragment offset, TTL, protocol: header fields a parser
                    // must not trust
                    final int[] offsets = {14, 16, 20, 22, 23};
                    final int field = offsets[m.where() % offsets.length];
                    if (field + 2 <= length) {
                        frame.set(ValueLayout.JAVA_BYTE, field, (byte) m.value());
                        frame.set(ValueLayout.JAVA_BYTE, field + 1, (byte) (m.value() >> 8));
                    }
                }
                case TRUNCATE -> length = Math.max(1, at);
                case EXTEND -> {
                    final int extra = Math.min(MAX_FRAME - length, m.value() % 1600);
                    for (int i = 0; i < extra; i++) {
                        frame.set(ValueLayout.JAVA_BYTE, length + i, (byte) (m.value() * 31 + i));
                    }
                    length += extra;
                }
                case NONE -> {}
            }
        }
        return length;
    }

    private static void putU16(final MemorySegment f, final int at, final int value) {
        f.set(ValueLayout.JAVA_BYTE, at, (byte) (value >> 8));
        f.set(ValueLayout.JAVA_BYTE, at + 1, (byte) value);
    }

    private static void assertAccounted(final Path input, final long sent, final Path outDir) throws IOException {
        final Replay.Result result = Replay.run(
                NothingLostReplayPropertyTest.config(), Map.of("Ethernet0", input), outDir, PipelineSizing.defaults());
        final CountersSnapshot c = result.counters();
        long in = 0;
        long out = 0;
        for (final String port : c.ports().keySet()) {
            in += c.port(port, "SAI_PORT_STAT_IF_IN_UCAST_PKTS") + c.port(port, "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS");
            out += c.port(port, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS")
                    + c.port(port, "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS");
        }
        final long drops =
                c.drops().values().stream().mapToLong(Long::longValue).sum();
        final long punts =
                c.punts().values().stream().mapToLong(Long::longValue).sum();
        final long consumed =
                c.consumed().values().stream().mapToLong(Long::longValue).sum();
        long originated = 0;
        long written = 0;
        for (final Path pcap : result.outputs().values()) {
            final long[] counts = originatedAndTotal(pcap);
            originated += counts[0];
            written += counts[1];
        }
        assertThat(in).as("frames in (%s)", c.render()).isEqualTo(sent);
        assertThat(written).as("frames in the output captures").isEqualTo(out);
        assertThat(out - originated + drops + punts + consumed)
                .as(
                        "out %d - originated %d + drops %d + punts %d + consumed %d; %s",
                        out, originated, drops, punts, consumed, c.render())
                .isEqualTo(in);
    }

    /** Frames the switch originated (ARP request, neighbor solicitation, MAC control from the router MAC) and all. */
    private static long[] originatedAndTotal(final Path pcap) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(pcap)).order(ByteOrder.LITTLE_ENDIAN);
        long originated = 0;
        long total = 0;
        int at = 24;
        while (at + 16 <= b.limit()) {
            final int length = b.getInt(at + 8);
            final int f = at + 16;
            total++;
            if (length >= 14 && macAt(b, f + 6) == ROUTER) {
                final int etherType = u16(b, f + 12);
                final boolean arpRequest = etherType == 0x0806 && length >= 22 && u16(b, f + 20) == 1;
                final boolean macControl = etherType == 0x8808;
                final boolean solicitation = etherType == 0x86dd
                        && length >= 55
                        && (b.get(f + 20) & 0xff) == 58
                        && (b.get(f + 54) & 0xff) == 135;
                if (arpRequest || macControl || solicitation) {
                    originated++;
                }
            }
            at = f + length;
        }
        return new long[] {originated, total};
    }

    private static long macAt(final ByteBuffer b, final int at) {
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = (mac << 8) | (b.get(at + i) & 0xff);
        }
        return mac;
    }

    private static int u16(final ByteBuffer b, final int at) {
        return ((b.get(at) & 0xff) << 8) | (b.get(at + 1) & 0xff);
    }

    private static void delete(final Path dir) {
        if (dir == null) {
            return;
        }
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
