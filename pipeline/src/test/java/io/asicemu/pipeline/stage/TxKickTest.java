package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.IpPrefix;
import org.junit.jupiter.api.Test;

/**
 * When the data plane flushes a port (hands its TX ring to the kernel). A port whose flush is one system call whatever
 * it sends (AF_PACKET) is flushed once the cycles stop receiving, or at the latest 20 µs after its first unflushed frame
 * while frames keep arriving; any other port at the end of every cycle that transmitted.
 */
class TxKickTest {
    private static final long KICK_DELAY_NS = 20_000;
    private static final long FRAME_GAP_NS = 3_000;

    private static SwitchFixture routedSwitch() {
        final SwitchFixture sw = new SwitchFixture(RoutingStagesTest.CONFIG);
        sw.pipeline
                .control()
                .batch()
                .addNextHop(100, "Ethernet4", IpPrefix.address("10.0.2.2"))
                .writeRoute(IpPrefix.parse("172.16.0.0/16"), 100, false, true)
                .commit();
        sw.run();
        sw.take("Ethernet4");
        return sw;
    }

    private static byte[] routedFrame() {
        return Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(172, 16, 1, 1), 64, 64);
    }

    @Test
    void shouldFlushALoneFrameInTheNextCycleThatReceivesNothing() {
        try (SwitchFixture sw = routedSwitch()) {
            final InMemoryPort out = sw.port("Ethernet4").flushIsOneSystemCall(true);
            final DataPlaneAgent agent = sw.pipeline.agent();
            final long flushes = out.flushCount();

            sw.send("Ethernet0", routedFrame());
            agent.doWork();
            assertThat(out.transmittedCount()).as("written to the TX ring").isEqualTo(1);
            assertThat(out.flushCount()).as("held: the cycle received a frame").isEqualTo(flushes);

            assertThat(agent.doWork())
                    .as("the cycle after finds nothing: the loop may sleep after it")
                    .isZero();
            assertThat(out.flushCount())
                    .as("flushed by that cycle: nothing is held while the loop sleeps")
                    .isEqualTo(flushes + 1);
            agent.doWork();
            assertThat(out.flushCount()).isEqualTo(flushes + 1);
        }
    }

    @Test
    void shouldHoldTheFlushWhileFramesKeepArrivingForAtMostTheKickDelay() {
        try (SwitchFixture sw = routedSwitch()) {
            final InMemoryPort out = sw.port("Ethernet4").flushIsOneSystemCall(true);
            final DataPlaneAgent agent = sw.pipeline.agent();
            final long flushes = out.flushCount();
            final long firstNs = sw.clock.nowNs();
            long flushedAtNs = -1;
            for (int i = 0; i < 20 && flushedAtNs < 0; i++) { // a frame every 3 µs, one cycle each
                sw.send("Ethernet0", routedFrame());
                agent.doWork();
                if (out.flushCount() > flushes) {
                    flushedAtNs = sw.clock.nowNs();
                } else {
                    sw.clock.nowNs(sw.clock.nowNs() + FRAME_GAP_NS);
                }
            }
            assertThat(flushedAtNs - firstNs)
                    .as("the first flush, ns after the first unflushed frame")
                    .isBetween(KICK_DELAY_NS, KICK_DELAY_NS + FRAME_GAP_NS);
            assertThat(out.flushCount()).isEqualTo(flushes + 1);
            assertThat(out.transmittedCount())
                    .as("frames the one flush handed over")
                    .isEqualTo((int) ((KICK_DELAY_NS + FRAME_GAP_NS - 1) / FRAME_GAP_NS) + 1);
        }
    }

    @Test
    void shouldFlushAnyOtherPortAtTheEndOfEveryCycleThatTransmitted() {
        try (SwitchFixture sw = routedSwitch()) {
            final InMemoryPort out = sw.port("Ethernet4");
            final DataPlaneAgent agent = sw.pipeline.agent();
            final long flushes = out.flushCount();
            for (int i = 1; i <= 5; i++) {
                sw.send("Ethernet0", routedFrame());
                agent.doWork();
                assertThat(out.flushCount()).as("after cycle %d", i).isEqualTo(flushes + i);
                sw.clock.nowNs(sw.clock.nowNs() + FRAME_GAP_NS);
            }
        }
    }

    @Test
    void shouldFlushAHeldPortBeforeItIsDetached() {
        try (SwitchFixture sw = routedSwitch()) {
            final InMemoryPort out = sw.port("Ethernet4").flushIsOneSystemCall(true);
            final long flushes = out.flushCount();
            sw.send("Ethernet0", routedFrame());
            sw.pipeline.agent().doWork();
            assertThat(out.flushCount()).isEqualTo(flushes);
            sw.pipeline.agent().onAttachPort(1, null);
            assertThat(out.flushCount()).as("flushed on the way out").isEqualTo(flushes + 1);
        }
    }
}
