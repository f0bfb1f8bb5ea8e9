package io.asicemu.flowlet.ecmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.TestReport;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import io.asicemu.flowlet.hash.SplitMix64;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 5 "Must show": 64 RoCEv2 flows sharing one 5-tuple, distinct destination QPs, over 4 uplinks.
 */
class LowEntropyRoceTest {
    private static final int FLOWS = 64;
    private static final int UPLINKS = 4;

    @ParameterizedTest
    @EnumSource(
            value = HashAlgorithm.class,
            names = {"CRC", "CRC_32LO", "CRC_32HI", "CRC_CCITT", "XOR", "CRC_XOR"})
    void shouldPutAllQpsOnOneUplinkWithFiveTupleAndSpreadThemWithEnhancedEcmp(final HashAlgorithm algorithm) {
        final long fiveTuple = HashField.fiveTupleMask();
        final HashEngine engine =
                new HashEngine(algorithm, fiveTuple, fiveTuple | HashField.RDMA_BTH_DEST_QP.mask(), 0, 0, 1);

        final long[] staticLoad = flowsPerUplink(LoadBalanceMode.STATIC_HASH, engine, false);
        final long[] enhancedLoad = flowsPerUplink(LoadBalanceMode.ENHANCED_ECMP, engine, false);
        // QPs handed out consecutively (0x100..0x13F) vary only low bits, which a CRC maps linearly onto the member
        // bits: an exact 16/16/16/16. Random 24-bit QPs show the ordinary statistical spread.
        final long[] randomQpLoad = flowsPerUplink(LoadBalanceMode.ENHANCED_ECMP, engine, true);

        final double staticRatio = maxOverMean(staticLoad);
        final double enhancedRatio = maxOverMean(enhancedLoad);
        TestReport.line(
                "low-entropy %-9s 64 QPs / 4 uplinks: 5-tuple %s max/mean %.2f; enhanced ECMP %s max/mean %.2f;"
                        + " enhanced ECMP, random QPs %s max/mean %.2f",
                algorithm,
                Arrays.toString(staticLoad),
                staticRatio,
                Arrays.toString(enhancedLoad),
                enhancedRatio,
                Arrays.toString(randomQpLoad),
                maxOverMean(randomQpLoad));
        assertThat(staticRatio).isEqualTo(4.0);
        assertThat(enhancedLoad).doesNotContain(0L);
        assertThat(enhancedRatio).isLessThanOrEqualTo(1.5);
        assertThat(randomQpLoad).doesNotContain(0L);
        assertThat(maxOverMean(randomQpLoad)).isLessThanOrEqualTo(1.75);
    }

    private static long[] flowsPerUplink(final LoadBalanceMode mode, final HashEngine engine, final boolean randomQps) {
        final SplitMix64 random = new SplitMix64(4791);
        final LoadBalanceGroup group = new LoadBalanceGroup(
                GroupSettings.of(mode), new int[] {10, 11, 12, 13}, new int[] {1, 1, 1, 1}, engine, null);
        final HashKey key = new HashKey();
        final long[] load = new long[UPLINKS];
        for (int qp = 0; qp < FLOWS; qp++) {
            key.clear()
                    .ipv4FiveTuple(0x0A00_0001, 0x0A00_0102, 17, 49_152, HashKey.ROCE_V2_UDP_PORT)
                    .roce(true)
                    .bthOpcode(0x0A)
                    .bthDestQp(randomQps ? random.nextInt(1 << 24) : 0x000100 + qp);
            load[group.select(key, 4096, 0)]++;
        }
        return load;
    }

    static double maxOverMean(final long[] load) {
        long max = 0;
        long sum = 0;
        for (final long l : load) {
            max = Math.max(max, l);
            sum += l;
        }
        return max / ((double) sum / load.length);
    }
}
