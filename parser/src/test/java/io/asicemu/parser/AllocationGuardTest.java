package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** Parsing, rewriting and ICRC checks allocate nothing per packet once warm (ThreadMXBean allocated bytes). */
class AllocationGuardTest {
    private static final int RING = 64;
    private static final int SLOT = 256;
    private static final int PACKETS = 1_000_000;

    @Test
    void shouldAllocateNothingWhenParsingAndRewritingAMillionMixedFrames() {
        final MemorySegment ring = Arena.ofAuto().allocate((long)RING * SLOT);
        final int[] lengths = SampleFrames.fillMixedRing(ring, RING, SLOT);
        final PacketParser parser = new PacketParser();
        final ParseResult result = new ParseResult();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long threadId = Thread.currentThread().threadId();

        long sink = run(ring, lengths, parser, result, 300_000);
        final long before = threads.getThreadAllocatedBytes(threadId);
        sink += run(ring, lengths, parser, result, PACKETS);
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated across %d packets", PACKETS).isZero();
    }

    private static long run(final MemorySegment ring, final int[] lengths, final PacketParser parser,
        final ParseResult result, final int packets) {
        long sink = 0;
        for (int i = 0; i < packets; i++) {
            final int slot = i & (RING - 1);
            parser.parse(ring, (long)slot * SLOT, lengths[slot], result);
            sink += result.bthDestQp() + result.reason().index() + result.l4Offset();
            if (result.roce()) {
                FrameRewriter.decrementTtl(result);
                FrameRewriter.markCe(result);
                if ((i & 15) == 0) {
                    sink += Icrc.verify(result) ? 1 : 0;
                }
            }
        }
        return sink;
    }
}
