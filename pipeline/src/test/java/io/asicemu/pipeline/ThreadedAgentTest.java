package io.asicemu.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.MonotonicClock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The agent on its own thread: control changes and PacketOut cross threads; counters are read from another. */
@Timeout(30)
class ThreadedAgentTest {
    @Test
    void shouldApplyCommandsAndForwardPacketOutWhenAgentRunsOnItsOwnThread() throws Exception {
        final MonotonicClock clock = new MonotonicClock();
        try (Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
                InMemoryPort port = new InMemoryPort("Ethernet0")) {
            pipeline.control().attachPort("Ethernet0", port);
            SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse("""
                {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"}},
                 "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}}}"""));
            final AgentRunner runner = new AgentRunner(
                    new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null, pipeline.agent());
            AgentRunner.startOnThread(runner);
            try {
                final long sequence = pipeline.control()
                        .batch()
                        .addNeighbor("Ethernet0", IpPrefix.address("10.0.1.9"), 0x0200_0000_0009L)
                        .commit();
                pipeline.control().awaitApplied(sequence, Duration.ofSeconds(10));
                assertThat(pipeline.control().neighborEntries().get(10, TimeUnit.SECONDS))
                        .anySatisfy(n -> assertThat(n.mac()).isEqualTo(0x0200_0000_0009L));
                pipeline.control()
                        .cpuPort()
                        .packetOut(
                                Frames.udp4(
                                        0x0200_0000_0009L,
                                        0x02_00_00_00_00_01L,
                                        Frames.ip(10, 0, 1, 1),
                                        Frames.ip(10, 0, 1, 9),
                                        64,
                                        10),
                                0);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (pipeline.control().counters().port("Ethernet0", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS") == 0
                        && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(pipeline.control().counters().port("Ethernet0", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                        .isEqualTo(1);
            } finally {
                runner.close();
            }
        }
    }

    @Test
    void shouldWakeTheWriterWaitingForItsCommandWhenTheCycleThatAppliedItEnds() throws Exception {
        try (Pipeline pipeline = Pipeline.create(new MonotonicClock(), PipelineSizing.defaults(), Map.of());
                InMemoryPort port = new InMemoryPort("Ethernet0")) {
            pipeline.control().attachPort("Ethernet0", port);
            SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse("""
                {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"}},
                 "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}}}"""));
            pipeline.agent().doWork();
            final long sequence = pipeline.control()
                    .batch()
                    .addNeighbor("Ethernet0", IpPrefix.address("10.0.1.9"), 0x0200_0000_0009L)
                    .commit();
            final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                    new java.util.concurrent.atomic.AtomicReference<>();
            // two writers at once: one is the registered waiter (unparked), the other polls; both must return
            final Thread first = Thread.ofPlatform().start(() -> await(pipeline, sequence, failure));
            final Thread second = Thread.ofPlatform().start(() -> await(pipeline, sequence, failure));
            final long parkedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (first.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < parkedBy) {
                Thread.onSpinWait();
            }
            assertThat(first.getState()).isEqualTo(Thread.State.TIMED_WAITING);
            pipeline.agent().doWork(); // the data plane's cycle, on this thread
            // a waiter not woken would park for its whole 20 s timeout
            first.join(TimeUnit.SECONDS.toMillis(5));
            second.join(TimeUnit.SECONDS.toMillis(5));
            assertThat(first.isAlive()).isFalse();
            assertThat(second.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
        }
    }

    private static void await(
            final Pipeline pipeline,
            final long sequence,
            final java.util.concurrent.atomic.AtomicReference<Throwable> failure) {
        try {
            pipeline.control().awaitApplied(sequence, Duration.ofSeconds(20));
        } catch (final Exception e) {
            failure.set(e);
        }
    }
}
