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
 * What a port lost before the pipeline saw it (kernel ring overflow, oversize frames) reaches the counters within
 * 100 ms of the frames that came with the loss, without a periodic wake-up of an idle switch.
 */
class PortLossFoldTest {
    private static final long FOLD_INTERVAL_NS = 100_000_000L;

    /** A port whose losses the test sets, as a live port's kernel and segmentation would. */
    private static final class LossyPort extends DelegatingPort {
        long overflow;
        long oversize;

        LossyPort(final String name) {
            super(name);
        }

        @Override
        public long takeRxOverflowDrops() {
            final long n = overflow;
            overflow = 0;
            return n;
        }

        @Override
        public long takeRxOversizeDrops() {
            final long n = oversize;
            oversize = 0;
            return n;
        }

        @Override
        public boolean hasUnreportedRxDrops() {
            return oversize > 0;
        }
    }

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
    private final LossyPort in = new LossyPort("Ethernet0");

    private void settle() {
        pipeline.control().attachPort("Ethernet0", in);
        pipeline.control().attachPort("Ethernet4", new InMemoryPort("Ethernet4"));
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(RoutingStagesTest.CONFIG));
        for (int i = 0; i < 3; i++) {
            pipeline.agent().doWork();
            clock.nowNs(clock.nowNs() + 2 * FOLD_INTERVAL_NS);
        }
        pipeline.agent().doWork();
    }

    private long counter(final String name) {
        return pipeline.control().counters().port("Ethernet0", name);
    }

    /** Runs cycles at the agent's own deadlines, as the live loop does, until none is due or the time is up. */
    private void runDeadlinesUntil(final long untilNs) {
        long deadline;
        while ((deadline = pipeline.agent().nextDeadlineNs()) <= untilNs) {
            clock.nowNs(Math.max(clock.nowNs(), deadline));
            pipeline.agent().doWork();
        }
    }

    @Test
    void shouldHaveNoTimedWorkWhileIdle() {
        settle();
        assertThat(pipeline.agent().nextDeadlineNs())
                .as("an idle L3 switch (nothing learned, no frame) has no deadline")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldFoldTheKernelRingOverflowWithin100MsOfTheFramesThatArrivedWithIt() {
        settle();
        final long arrivedNs = clock.nowNs();
        assertThat(in.port.inject(Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(192, 168, 1, 1), 64, 100), arrivedNs))
                .isTrue();
        in.overflow = 7; // the kernel dropped 7 while the ring was full of the frame above's neighbours
        pipeline.agent().doWork();
        assertThat(pipeline.agent().nextDeadlineNs()).isLessThanOrEqualTo(arrivedNs + FOLD_INTERVAL_NS);

        runDeadlinesUntil(arrivedNs + FOLD_INTERVAL_NS);
        assertThat(counter("ASICEMU_IN_DROP_REASON_RX_RING_OVERFLOW")).isEqualTo(7);
        assertThat(counter("SAI_PORT_STAT_IF_IN_DISCARDS")).isEqualTo(7);

        runDeadlinesUntil(arrivedNs + 10 * FOLD_INTERVAL_NS);
        assertThat(pipeline.agent().nextDeadlineNs())
                .as("no frame since the fold: idle again")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldFoldOversizeDropsEvenWhenNoFrameReachedThePipeline() {
        settle();
        final long droppedNs = clock.nowNs();
        in.oversize = 3; // the port dropped three super-frames on receive and handed nothing on
        pipeline.agent().doWork();
        assertThat(pipeline.agent().nextDeadlineNs()).isLessThanOrEqualTo(droppedNs + FOLD_INTERVAL_NS);

        runDeadlinesUntil(droppedNs + FOLD_INTERVAL_NS);
        assertThat(counter("ASICEMU_IN_DROP_REASON_RX_FRAME_TOO_LARGE")).isEqualTo(3);
        assertThat(counter("SAI_PORT_STAT_ETHER_RX_OVERSIZE_PKTS")).isEqualTo(3);
        assertThat(pipeline.agent().nextDeadlineNs()).isEqualTo(Long.MAX_VALUE);
    }
}
