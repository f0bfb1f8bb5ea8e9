package io.asicemu.veth.afpacket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AfPacketConfigTest {
    @Test
    void shouldKeepTheFullRxDepthWhileTheBudgetCoversIt() {
        final AfPacketConfig defaults = AfPacketConfig.defaults();

        assertThat(defaults.forPorts(1).rxFrames()).isEqualTo(8192);
        assertThat(defaults.forPorts(2).rxFrames())
                .as("2 x 8192 x 2 KiB = 32 MiB")
                .isEqualTo(8192);
        assertThat(defaults.forPorts(3).rxFrames()).isEqualTo(4096);
        assertThat(defaults.forPorts(4).rxFrames()).as("the lab leaf").isEqualTo(4096);
        assertThat(defaults.forPorts(5).rxFrames()).isEqualTo(2048);
        assertThat(defaults.forPorts(8).rxFrames())
                .as("8 x 2048 x 2 KiB = 32 MiB")
                .isEqualTo(2048);
        assertThat(defaults.forPorts(9).rxFrames()).isEqualTo(1024);
        assertThat(defaults.forPorts(16).rxFrames())
                .as("16 x 1024 x 2 KiB = 32 MiB")
                .isEqualTo(1024);
    }

    @Test
    void shouldDivideTheBudgetAmongManyPortsDownToTheFloor() {
        final AfPacketConfig defaults = AfPacketConfig.defaults();

        assertThat(defaults.forPorts(17).rxFrames()).isEqualTo(512);
        assertThat(defaults.forPorts(32).rxFrames()).isEqualTo(512);
        assertThat(defaults.forPorts(33).rxFrames()).isEqualTo(256);
        assertThat(defaults.forPorts(64).rxFrames()).isEqualTo(256);
        assertThat(defaults.forPorts(128).rxFrames())
                .as("no ring shallower than the floor")
                .isEqualTo(AfPacketConfig.MIN_BUDGET_RX_FRAMES);
        for (int ports = 1; ports <= 64; ports++) {
            assertThat((long) ports * defaults.forPorts(ports).rxFrames() * AfPacketConfig.MAX_RX_SLOT_BYTES)
                    .as("%d ports within the budget", ports)
                    .isLessThanOrEqualTo(AfPacketConfig.DEFAULT_RX_RING_BUDGET_BYTES);
        }
    }

    @Test
    void shouldNeverDeepenARingOrTouchTheOtherSettings() {
        final AfPacketConfig shallow =
                AfPacketConfig.defaults().withRxFrames(16).withTxFrames(32);

        assertThat(shallow.forPorts(32)).isEqualTo(shallow);
        assertThat(AfPacketConfig.defaults().forPorts(32))
                .isEqualTo(AfPacketConfig.defaults().withRxFrames(512));
    }

    @Test
    void shouldGiveEveryPortItsDepthWithoutABudget() {
        final AfPacketConfig unbudgeted = AfPacketConfig.defaults().withRxRingBudget(0);

        assertThat(unbudgeted.forPorts(128).rxFrames()).isEqualTo(8192);
        assertThat(AfPacketConfig.throughput().forPorts(128).rxFrames()).isEqualTo(1024);
        assertThatThrownBy(() -> AfPacketConfig.defaults().withRxRingBudget(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
