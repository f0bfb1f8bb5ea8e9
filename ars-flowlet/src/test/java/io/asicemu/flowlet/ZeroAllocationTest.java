package io.asicemu.flowlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.ars.QualitySettings;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The cheap allocation guard of STYLE.md §2: the thread's allocated bytes across 10^6 warmed-up packets.
 * <p>
 * One 10^6-packet window is fragile: the parser module's identical guard once read 80 bytes that came, once, from
 * JIT work (C2 still installing hot methods, a deoptimization) charged to the thread in the first measured round, and
 * never in later rounds. That cost does not grow with the packet count; per-packet allocation does. So the warm-up
 * takes every branch the measured rounds take (a first window and a window after a 2^32 ns time jump, as each round
 * starts with one), then {@value #ROUNDS} rounds of 10^6 packets are measured: at least one must allocate exactly 0
 * bytes (any per-packet allocation is in every round) and none may exceed {@value #JIT_SLACK_BYTES} bytes (a fixed
 * constant, far below the 16 MB that one 16-byte object per packet would cost).
 */
class ZeroAllocationTest {
    private static final int PACKETS = 1_000_000;
    private static final int ROUNDS = 5;
    private static final long JIT_SLACK_BYTES = 4096;

    @ParameterizedTest
    @EnumSource(LoadBalanceMode.class)
    @Timeout(60)
    void shouldAllocateNothingPerPacketWhenHashingAndSelecting(final LoadBalanceMode mode) {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final HashEngine engine = new HashEngine(
                HashAlgorithm.CRC,
                HashField.fiveTupleMask(),
                HashField.fiveTupleMask() | HashField.RDMA_BTH_DEST_QP.mask(),
                25,
                0,
                1);
        final PortQuality quality = new PortQuality(8, QualitySettings.defaults());
        final LoadBalanceGroup group = new LoadBalanceGroup(
                GroupSettings.of(mode),
                new int[] {0, 1, 2, 3, 4, 5, 6, 7},
                new int[] {1, 1, 1, 1, 2, 2, 2, 2},
                engine,
                quality);
        final HashKey key = new HashKey();
        long sink = run(group, quality, key, 0);
        sink += run(group, quality, key, 1L << 32);
        final long threadId = Thread.currentThread().threadId();
        threads.getThreadAllocatedBytes(threadId);

        final long[] allocated = new long[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            final long before = threads.getThreadAllocatedBytes(threadId);
            sink += run(group, quality, key, (2L + round) << 32);
            allocated[round] = threads.getThreadAllocatedBytes(threadId) - before;
        }

        final String rounds = Arrays.toString(allocated);
        TestReport.line(
                "allocation %-16s %d rounds of %d packets: %s bytes (checksum %d)",
                mode, ROUNDS, PACKETS, rounds, sink);
        assertThat(allocated)
                .as("bytes allocated per round of %d packets: %s", PACKETS, rounds)
                .contains(0L);
        assertThat(Arrays.stream(allocated).max().orElseThrow())
                .as("most bytes allocated in a round of %d packets: %s", PACKETS, rounds)
                .isLessThanOrEqualTo(JIT_SLACK_BYTES);
    }

    private static long run(final LoadBalanceGroup group, final PortQuality quality, final HashKey key, final long t0) {
        long sink = 0;
        long nowNs = t0;
        for (int i = 0; i < PACKETS; i++) {
            nowNs += 100;
            key.clear()
                    .ipv4FiveTuple(
                            0x0A00_0000 | (i & 0xFF), 0x0A01_0000 | (i >>> 8 & 0xFF), 17, 49_152 + (i & 63), 4791)
                    .roce((i & 1) == 0)
                    .bthDestQp(i & 0xFFF);
            final int member = group.select(key, 1500, nowNs);
            quality.onTransmit(group.memberPort(member), 1500);
            sink += member;
        }
        return sink;
    }
}
