package io.asicemu.bench.parser;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.FrameRewriter;
import io.asicemu.parser.Ipv4Flyweight;
import io.asicemu.parser.PacketParser;
import io.asicemu.parser.ParseReason;
import io.asicemu.parser.ParseResult;
import io.asicemu.parser.RoceOpcode;
import io.asicemu.parser.SampleFrames;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Parser cost per packet: a ring of {@value #RING} prebuilt frames of mixed shapes (RoCEv2 v4/v6/VLAN/QinQ, CNP, UDP,
 * ICMP, ARP, PFC) in native memory, as the data path sees them; one 60-byte RoCEv2 frame (64 on the wire with FCS);
 * and the ECN rewrite with its RFC 1624 checksum update. Scores are ns per packet; gc.alloc.rate.norm must be 0.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class ParserBenchmark {
    static final int RING = 1024;
    static final int SLOT = 256;

    private final PacketParser parser = new PacketParser();
    private final ParseResult result = new ParseResult();
    private Arena arena;
    private MemorySegment ring;
    private int[] lengths;
    private MemorySegment single;
    private int singleLength;
    private boolean flip;

    /** Builds the frames once, outside the measurement. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        ring = arena.allocate((long) RING * SLOT, 64);
        lengths = SampleFrames.fillMixedRing(ring, RING, SLOT);
        single = arena.allocate(SLOT, 64);
        singleLength = new FrameBuilder()
                .dscp(26)
                .ecn(Ipv4Flyweight.ECN_ECT0)
                .bth(RoceOpcode.RC_SEND_ONLY, 0x123, 100)
                .buildRoce(single, 0, 2);
        if (singleLength != 60 || parser.parse(single, 0, singleLength, result) != ParseReason.OK) {
            throw new IllegalStateException("bad benchmark frame");
        }
    }

    /** Frees the frames. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Parses every frame of the mixed ring; the score is per packet. */
    @Benchmark
    @OperationsPerInvocation(RING)
    public void parseMixedRing(final Blackhole blackhole) {
        for (int slot = 0; slot < RING; slot++) {
            parser.parse(ring, (long) slot * SLOT, lengths[slot], result);
            blackhole.consume(
                    result.bthDestQp() ^ result.l4Offset() ^ result.reason().index());
        }
    }

    /** Parses, then decrements TTL and marks CE on every IP frame of the ring (an egress-like pass). */
    @Benchmark
    @OperationsPerInvocation(RING)
    public void parseAndRewriteMixedRing(final Blackhole blackhole) {
        for (int slot = 0; slot < RING; slot++) {
            parser.parse(ring, (long) slot * SLOT, lengths[slot], result);
            if (result.ipVersion() != 0) {
                // Rewrite the TTL to itself minus one, then back, so the ring stays the same across invocations.
                FrameRewriter.decrementTtl(result);
                FrameRewriter.markCe(result);
                FrameRewriter.ecn(result, Ipv4Flyweight.ECN_ECT0);
            }
            blackhole.consume(result.ttl() ^ result.ecn());
        }
    }

    /** Parses one 60-byte RoCEv2 (IPv4) frame. */
    @Benchmark
    public int parseRoceV4Single() {
        parser.parse(single, 0, singleLength, result);
        return result.bthDestQp();
    }

    /** One ECN rewrite with incremental IPv4 checksum update: alternately CE mark and ECT(0) restore. */
    @Benchmark
    public int ecnRewrite() {
        flip = !flip;
        if (flip) {
            FrameRewriter.markCe(result);
        } else {
            FrameRewriter.ecn(result, Ipv4Flyweight.ECN_ECT0);
        }
        return result.ecn();
    }
}
