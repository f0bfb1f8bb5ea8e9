package io.asicemu.veth.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Nothing lost silently, live: overload a switch port on purpose (a 16-frame RX ring and a 20,000-frame burst at the
 * generator's full rate) and shrink an egress link's MTU under the switch; every frame the generator sent either
 * arrived at the sink or is in the switch's drop counters, exactly (plus what the sender's own veth dropped before
 * any switch saw it, read from its statistics).
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OverloadAccountingTest {

    private static long drops(final CountersSnapshot c) {
        return c.drops().values().stream().mapToLong(Long::longValue).sum();
    }

    private static long txDropped(final Netns host) {
        return Long.parseLong(host.execOk("cat", "/sys/class/net/eth1/statistics/tx_dropped")
                .stdout()
                .trim());
    }

    @Test
    void everyFrameSentIsReceivedOrCountedAsADiscard() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h1.disableIpv6();
            h2.disableIpv6();
            final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
            try (LinuxSwitch sw = LinuxSwitch.start(
                    ForwardingBenchmark.config(h2.mac("eth1")),
                    Map.of("Ethernet0", sw1, "Ethernet4", sw2),
                    AfPacketConfig.defaults().withRxFrames(16),
                    1.0)) {
                sw.awaitPorts(2, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                final String src = h1.mac("eth1");
                final String router = "02:aa:00:00:00:01";

                // 1. overload: the burst outruns a 16-frame ring
                final long hostDropsBefore = txDropped(h1);
                final ForwardingBenchmark.Run burst =
                        ForwardingBenchmark.measure("asic-emu", "burst", h1, h2, src, router, 128, 10, 0, 20_000);
                // the sink's own ring may overflow too: those frames left the switch (counted as out), not lost by it
                Thread.sleep(400); // the agent folds the kernel's ring drop count in every 100 ms
                sw.awaitIdleControl();
                final CountersSnapshot afterBurst = sw.counters();
                final long hostDrops = txDropped(h1) - hostDropsBefore;
                assertThat(burst.sent()).isEqualTo(20_000);
                assertThat(afterBurst.port("Ethernet0", "ASICEMU_IN_DROP_REASON_RX_RING_OVERFLOW"))
                        .as("the 16-frame ring overflowed")
                        .isPositive();
                assertThat(burst.sent())
                        .as("sent = received + counted discards + sender veth drops")
                        .isEqualTo(burst.received() + burst.sinkDrops() + drops(afterBurst) + hostDrops);
                assertThat(afterBurst.port("Ethernet0", "SAI_PORT_STAT_IF_IN_DISCARDS"))
                        .isEqualTo(afterBurst.port("Ethernet0", "ASICEMU_IN_DROP_REASON_RX_RING_OVERFLOW"));

                // 2. the egress link's MTU shrinks under the switch: frames over it are dropped and counted
                Commands.runOrFail("ip", "link", "set", sw2, "mtu", "200");
                final long deadline = System.nanoTime() + 5_000_000_000L;
                while (sw.ports().get(sw2) == null || sw.ports().get(sw2).mtu() != 200) {
                    assertThat(System.nanoTime()).as("MTU change seen").isLessThan(deadline);
                    Thread.sleep(20);
                }
                final long outDiscardsBefore = afterBurst.port("Ethernet4", "SAI_PORT_STAT_IF_OUT_DISCARDS");
                final long overflowBefore = afterBurst.port("Ethernet0", "ASICEMU_IN_DROP_REASON_RX_RING_OVERFLOW");
                final long dropsBefore = drops(afterBurst);
                final ForwardingBenchmark.Run big =
                        ForwardingBenchmark.measure("asic-emu", "mtu", h1, h2, src, router, 300, 10, 1_000, 1_000);
                Thread.sleep(300);
                sw.awaitIdleControl();
                final CountersSnapshot afterMtu = sw.counters();
                // the 16-frame ring may still overflow if the switch thread is descheduled (shared machine): those
                // frames never reached the egress check and are counted as ring overflow instead
                final long overflow =
                        afterMtu.port("Ethernet0", "ASICEMU_IN_DROP_REASON_RX_RING_OVERFLOW") - overflowBefore;
                final long outDiscards =
                        afterMtu.port("Ethernet4", "SAI_PORT_STAT_IF_OUT_DISCARDS") - outDiscardsBefore;
                assertThat(big.received())
                        .as("nothing over the MTU left the port")
                        .isZero();
                assertThat(drops(afterMtu) - dropsBefore)
                        .as("every frame counted")
                        .isEqualTo(big.sent());
                assertThat(outDiscards).as("over the egress MTU").isPositive().isEqualTo(big.sent() - overflow);
                assertThat(afterMtu.port("Ethernet4", "SAI_PORT_STAT_ETHER_TX_OVERSIZE_PKTS"))
                        .isEqualTo(outDiscards);
                assertThat(afterMtu.port("Ethernet4", "ASICEMU_OUT_DROP_REASON_EXCEEDS_L2_MTU"))
                        .isEqualTo(outDiscards);
            }
        }
    }
}
