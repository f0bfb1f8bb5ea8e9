package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.port.DelegatingPort;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A port that cannot take a frame now (a live port's TX ring still full of frames the kernel has not sent) holds the
 * traffic manager's frames in their queue instead of dropping them at the ring: only the buffer model drops.
 */
class TransmitBackpressureTest {
    /** An in-memory port whose TX readiness the test opens and closes. */
    private static final class GatedPort extends DelegatingPort {
        boolean ready = true;
        int readyQueries;

        GatedPort(final String name) {
            super(name);
        }

        @Override
        public boolean transmitReady() {
            readyQueries++;
            return ready;
        }
    }

    @Test
    void shouldKeepFramesQueuedWhileThePortCannotTakeThemAndSendThemAllWhenItCan() {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
        final InMemoryPort in = new InMemoryPort("Ethernet0");
        final GatedPort out = new GatedPort("Ethernet4");
        pipeline.control().attachPort("Ethernet0", in);
        pipeline.control().attachPort("Ethernet4", out);
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(RoutingStagesTest.CONFIG));
        pipeline.agent().doWork();

        out.ready = false;
        for (int i = 0; i < 50; i++) {
            assertThat(in.inject(
                            Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(192, 168, 1, i), 64, 100), clock.nowNs()))
                    .isTrue();
        }
        for (int cycle = 0; cycle < 20; cycle++) {
            pipeline.agent().doWork();
            clock.nowNs(clock.nowNs() + 1_000_000);
        }
        assertThat(out.port.transmittedCount())
                .as("nothing handed to a port that cannot take it")
                .isZero();
        assertThat(out.readyQueries).as("the agent asked the port").isPositive();
        assertThat(pipeline.agent().hasQueuedPackets())
                .as("the frames wait in the TM")
                .isTrue();
        assertThat(pipeline.control().counters().port("Ethernet4", "ASICEMU_OUT_DROP_REASON_TX_RING_FULL"))
                .isZero();
        assertThat(pipeline.agent().nextDeadlineNs())
                .as("the blocked port is tried again soon, not spun on")
                .isGreaterThan(clock.nowNs() - 1_000_000);

        out.ready = true;
        for (int cycle = 0; cycle < 20 && pipeline.agent().hasQueuedPackets(); cycle++) {
            pipeline.agent().doWork();
            clock.nowNs(clock.nowNs() + 1_000_000);
        }
        assertThat(out.port.transmittedCount()).as("all 50 sent once it can").isEqualTo(50);
        assertThat(pipeline.control().counters().port("Ethernet4", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                .isEqualTo(50);
    }

    @Test
    void shouldCountFramesQueuedForALinkThatWentDownAsEgressLinkDownNotAsATxRingLoss() {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
        final InMemoryPort in = new InMemoryPort("Ethernet0");
        final GatedPort out = new GatedPort("Ethernet4");
        pipeline.control().attachPort("Ethernet0", in);
        pipeline.control().attachPort("Ethernet4", out);
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(RoutingStagesTest.CONFIG));
        pipeline.agent().doWork();

        out.ready = false; // queued behind a busy ring, then the link goes down under them
        for (int i = 0; i < 20; i++) {
            assertThat(in.inject(
                            Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(192, 168, 1, i), 64, 100), clock.nowNs()))
                    .isTrue();
        }
        pipeline.agent().doWork();
        out.port.linkUp(false);
        out.ready = true;
        for (int cycle = 0; cycle < 20 && pipeline.agent().hasQueuedPackets(); cycle++) {
            clock.nowNs(clock.nowNs() + 1_000_000);
            pipeline.agent().doWork();
        }
        final var counters = pipeline.control().counters();
        assertThat(out.port.transmittedCount()).isZero();
        assertThat(counters.port("Ethernet4", "SAI_OUT_DROP_REASON_L3_EGRESS_LINK_DOWN"))
                .as("every frame that was queued")
                .isEqualTo(20);
        assertThat(counters.port("Ethernet4", "SAI_PORT_STAT_IF_OUT_DISCARDS")).isEqualTo(20);
        assertThat(counters.port("Ethernet4", "ASICEMU_OUT_DROP_REASON_TX_RING_FULL"))
                .isZero();
        assertThat(counters.port("Ethernet4", "SAI_PORT_STAT_IF_OUT_ERRORS")).isZero();
    }
}
