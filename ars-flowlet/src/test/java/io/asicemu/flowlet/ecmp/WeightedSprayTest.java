package io.asicemu.flowlet.ecmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class WeightedSprayTest {
    @Test
    void shouldSprayInProportionToWeightsAndSkipDownPortsWhenPerPacket() {
        final HashEngine engine = new HashEngine(HashAlgorithm.CRC, HashField.fiveTupleMask(), 0, 0, 0, 1);
        final LoadBalanceGroup group = new LoadBalanceGroup(
                GroupSettings.of(LoadBalanceMode.PER_PACKET_SPRAY).withRandomSeed(9),
                new int[] {4, 5, 6},
                new int[] {1, 3, 4},
                engine,
                null);
        final HashKey key = new HashKey().ipv4FiveTuple(1, 2, 6, 3, 4);
        for (int i = 0; i < 80_000; i++) {
            group.select(key, 100, i);
        }

        assertThat(group.memberSelections(0) / 80_000.0).isCloseTo(1 / 8.0, Offset.offset(0.01));
        assertThat(group.memberSelections(1) / 80_000.0).isCloseTo(3 / 8.0, Offset.offset(0.01));
        assertThat(group.memberSelections(2) / 80_000.0).isCloseTo(4 / 8.0, Offset.offset(0.01));
        assertThat(group.memberBytes(2)).isEqualTo(group.memberSelections(2) * 100);

        group.portUp(6, false);
        for (int i = 0; i < 1000; i++) {
            assertThat(group.memberPort(group.select(key, 100, i))).isNotEqualTo(6);
        }
        group.portUp(4, false);
        group.portUp(5, false);
        assertThat(group.select(key, 100, 0)).isEqualTo(LoadBalanceGroup.NO_MEMBER);
        assertThat(group.noMemberDrops()).isEqualTo(1);
    }
}
