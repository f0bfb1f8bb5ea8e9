package io.asicemu.flowlet.ars;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.TestReport;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import io.asicemu.flowlet.hash.SplitMix64;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Module-level virtual-time simulation (the through-the-pipeline version waits for the pipeline and traffic
 * manager): a leaf sends 64 bursty RoCE flows over 4 x 100G uplinks while uplink 0 also carries 60 Gb/s of
 * background traffic it cannot steer. Each uplink is a FIFO drained at 100 Gb/s per 1 µs tick; the uplinks'
 * transmitted bytes and queue depth feed {@link PortQuality} as the traffic manager will.
 * <p>
 * Bursts are 50 packets of 4096 B one µs apart (one flowlet) separated by 300..500 µs idle gaps (above the 256 µs
 * idle time), so every burst is a new flowlet. The figure is link-utilization imbalance: max/mean over the uplinks
 * of bytes actually transmitted.
 */
class FlowletLinkBalanceSimulationTest {
    private static final long TICK_NS = 1_000;
    private static final long DURATION_NS = 20_000_000;
    private static final int LINKS = 4;
    private static final long LINK_BYTES_PER_TICK = 12_500;
    private static final long BACKGROUND_BYTES_PER_TICK = 7_500;
    private static final int FLOWS = 64;
    private static final int PACKET_BYTES = 4096;
    private static final int BURST_PACKETS = 50;

    @Test
    @Timeout(30)
    void shouldBalanceLinkUtilizationBetterThanEnhancedEcmpWhenOneUplinkIsCongested() {
        final Result ecmp = simulate(LoadBalanceMode.ENHANCED_ECMP);
        final Result flowlet = simulate(LoadBalanceMode.FLOWLET_QUALITY);
        final Result letFlow = simulate(LoadBalanceMode.FLOWLET_RANDOM);

        TestReport.line(
                "flowlet sim, uplink 0 with 60G background: utilization max/mean enhanced ECMP %.3f %s;"
                        + " flowlet quality %.3f %s (reassignments %d of %d flowlets); flowlet random %.3f %s",
                ecmp.imbalance(),
                Arrays.toString(ecmp.utilizationPercent()),
                flowlet.imbalance(),
                Arrays.toString(flowlet.utilizationPercent()),
                flowlet.reassignments(),
                flowlet.newFlowlets(),
                letFlow.imbalance(),
                Arrays.toString(letFlow.utilizationPercent()));
        assertThat(flowlet.imbalance()).isLessThan(ecmp.imbalance());
        assertThat(flowlet.imbalance()).isLessThan(1.1);
        assertThat(simulate(LoadBalanceMode.FLOWLET_QUALITY)).isEqualTo(flowlet);
    }

    private static Result simulate(final LoadBalanceMode mode) {
        final HashEngine engine = new HashEngine(
                HashAlgorithm.CRC,
                HashField.fiveTupleMask(),
                HashField.fiveTupleMask() | HashField.RDMA_BTH_DEST_QP.mask(),
                0,
                0,
                1);
        final PortQuality quality = new PortQuality(LINKS, QualitySettings.defaults());
        final int[] ports = new int[LINKS];
        final int[] weights = new int[LINKS];
        for (int link = 0; link < LINKS; link++) {
            ports[link] = link;
            weights[link] = 1;
            quality.portSpeedMbps(link, 100_000);
        }
        final LoadBalanceGroup group =
                new LoadBalanceGroup(GroupSettings.of(mode).withRandomSeed(99), ports, weights, engine, quality);
        final SplitMix64 random = new SplitMix64(2026);
        final long[] nextSendNs = new long[FLOWS];
        final int[] burstLeft = new int[FLOWS];
        for (int f = 0; f < FLOWS; f++) {
            nextSendNs[f] = random.nextInt(500) * TICK_NS;
            burstLeft[f] = BURST_PACKETS;
        }
        final long[] queueBytes = new long[LINKS];
        final long[] sentBytes = new long[LINKS];
        final HashKey key = new HashKey();
        for (long nowNs = 0; nowNs < DURATION_NS; nowNs += TICK_NS) {
            quality.advance(nowNs);
            queueBytes[0] += BACKGROUND_BYTES_PER_TICK;
            for (int f = 0; f < FLOWS; f++) {
                if (nextSendNs[f] <= nowNs) {
                    key.clear()
                            .ipv4FiveTuple(0x0A00_0001, 0x0A00_0202, 17, 49_152, HashKey.ROCE_V2_UDP_PORT)
                            .roce(true)
                            .bthDestQp(0x1000 + f);
                    queueBytes[group.memberPort(group.select(key, PACKET_BYTES, nowNs))] += PACKET_BYTES;
                    if (--burstLeft[f] == 0) {
                        burstLeft[f] = BURST_PACKETS;
                        nextSendNs[f] = nowNs + (300 + random.nextInt(201)) * TICK_NS;
                    } else {
                        nextSendNs[f] = nowNs + TICK_NS;
                    }
                }
            }
            for (int link = 0; link < LINKS; link++) {
                final long sent = Math.min(queueBytes[link], LINK_BYTES_PER_TICK);
                queueBytes[link] -= sent;
                sentBytes[link] += sent;
                quality.onTransmit(link, (int) sent);
                quality.queueBytes(link, queueBytes[link]);
            }
        }
        return new Result(sentBytes, group.flowletReassignments(), group.newFlowlets());
    }

    private record Result(long[] sentBytes, long reassignments, long newFlowlets) {
        double imbalance() {
            long max = 0;
            long sum = 0;
            for (final long s : sentBytes) {
                max = Math.max(max, s);
                sum += s;
            }
            return max / ((double) sum / sentBytes.length);
        }

        long[] utilizationPercent() {
            final long capacity = LINK_BYTES_PER_TICK * (DURATION_NS / TICK_NS);
            final long[] percent = new long[sentBytes.length];
            for (int i = 0; i < percent.length; i++) {
                percent[i] = Math.round(100.0 * sentBytes[i] / capacity);
            }
            return percent;
        }

        @Override
        public boolean equals(final Object other) {
            return other instanceof Result r
                    && Arrays.equals(sentBytes, r.sentBytes)
                    && reassignments == r.reassignments
                    && newFlowlets == r.newFlowlets;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(sentBytes);
        }
    }
}
