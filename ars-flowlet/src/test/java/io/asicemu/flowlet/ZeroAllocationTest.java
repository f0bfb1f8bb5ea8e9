package io.asicemu.flowlet;

import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.ars.QualitySettings;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cheap allocation guard of STYLE.md §2: the thread's allocated bytes across 10^6 warmed-up packets.
 */
class ZeroAllocationTest
{
    private static final int PACKETS = 1_000_000;

    @ParameterizedTest
    @EnumSource(LoadBalanceMode.class)
    @Timeout(60)
    void shouldAllocateNothingPerPacketWhenHashingAndSelecting(final LoadBalanceMode mode)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final HashEngine engine = new HashEngine(HashAlgorithm.CRC, HashField.fiveTupleMask(),
            HashField.fiveTupleMask() | HashField.RDMA_BTH_DEST_QP.mask(), 25, 0, 1);
        final PortQuality quality = new PortQuality(8, QualitySettings.defaults());
        final LoadBalanceGroup group = new LoadBalanceGroup(GroupSettings.of(mode), new int[] {0, 1, 2, 3, 4, 5, 6, 7},
            new int[] {1, 1, 1, 1, 2, 2, 2, 2}, engine, quality);
        final HashKey key = new HashKey();
        run(group, quality, key, 0);
        final long threadId = Thread.currentThread().threadId();
        threads.getThreadAllocatedBytes(threadId);

        final long before = threads.getThreadAllocatedBytes(threadId);
        final long sink = run(group, quality, key, 1L << 32);
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        TestReport.line("allocation %-16s %d packets: %d bytes (checksum %d)", mode, PACKETS, allocated, sink);
        assertThat(allocated).isZero();
    }

    private static long run(final LoadBalanceGroup group, final PortQuality quality, final HashKey key, final long t0)
    {
        long sink = 0;
        long nowNs = t0;
        for (int i = 0; i < PACKETS; i++)
        {
            nowNs += 100;
            key.clear().ipv4FiveTuple(0x0A00_0000 | (i & 0xFF), 0x0A01_0000 | (i >>> 8 & 0xFF), 17, 49_152 + (i & 63),
                4791).roce((i & 1) == 0).bthDestQp(i & 0xFFF);
            final int member = group.select(key, 1500, nowNs);
            quality.onTransmit(group.memberPort(member), 1500);
            sink += member;
        }
        return sink;
    }
}
