package io.asicemu.veth.harness;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.MonotonicClock;
import io.asicemu.veth.LiveLoop;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.discovery.LinuxPorts;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * asic-emu running inside the test (or benchmark) JVM on real Linux interfaces: a {@link Pipeline} configured from a
 * CONFIG_DB, its data-plane agent on a {@link LiveLoop} thread, and {@link LinuxPorts} attaching the configured
 * ports' interfaces whenever they exist (so links may be created, deleted and re-created while it runs).
 * <p>
 * Threading: the control API is serialized through this object (discovery thread and caller); counters may be read
 * from any thread.
 */
public final class InProcessSwitch implements AutoCloseable {
    private final Pipeline pipeline;
    private final MonotonicClock clock;
    private final LiveLoop loop;
    private final LinuxPorts ports;
    private final Map<String, String> linuxToSonic = new HashMap<>();
    private final Object controlLock = new Object();
    private volatile Runnable portsChanged = () -> { };

    private InProcessSwitch(final ConfigDb config, final Map<String, String> sonicToLinux,
        final AfPacketConfig portConfig, final double dilation) {
        this.clock = new MonotonicClock(dilation);
        final PipelineSizing sizing = PipelineSizing.defaults();
        this.pipeline = Pipeline.create(clock, sizing, sonicToLinux);
        sonicToLinux.forEach((sonic, linux) -> linuxToSonic.put(linux, sonic));
        pipeline.control().applyConfig(config);
        this.loop = new LiveLoop(pipeline.agent(), clock, pipeline.agent()::nextDeadlineNs, sizing.maxPorts());
        // every command submitted to the agent ends the loop's idle wait, so the loop can sleep without a bound
        pipeline.agent().wakeUp(loop::wakeup);
        loop.start();
        this.ports = new LinuxPorts(linuxToSonic::containsKey, portConfig, new LinuxPorts.PortSink() {
            @Override
            public void attach(final Port port) {
                synchronized (controlLock) {
                    pipeline.control().attachPort(linuxToSonic.get(port.name()), port);
                }
                loop.watch(port);
                portsChanged.run();
            }

            @Override
            public void detach(final Port port) {
                loop.unwatch(port);
                final long sequence;
                synchronized (controlLock) {
                    sequence = pipeline.control().detachPort(linuxToSonic.get(port.name()));
                }
                loop.wakeup();
                try {
                    pipeline.control().awaitApplied(sequence, Duration.ofSeconds(5));
                    port.close();
                } catch (final TimeoutException e) {
                    // the data plane did not acknowledge: leak the port's memory rather than unmap it under it
                }
                portsChanged.run();
            }
        });
        ports.start();
    }

    /**
     * Starts a switch.
     *
     * @param config the CONFIG_DB (PORT names are SONiC names).
     * @param sonicToLinux SONiC port name → Linux interface name (the lab's switch links).
     * @param portConfig AF_PACKET ring settings.
     * @param dilation real ns per emulated ns (1.0: real time).
     */
    public static InProcessSwitch start(final ConfigDb config, final Map<String, String> sonicToLinux,
        final AfPacketConfig portConfig, final double dilation) {
        return new InProcessSwitch(config, sonicToLinux, portConfig, dilation);
    }

    /**
     * Waits until {@code count} ports are attached.
     *
     * @throws IllegalStateException if they are not within {@code timeout}.
     */
    public void awaitPorts(final int count, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (ports.ports().size() < count) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + ports.ports().keySet() + " attached, expected " + count);
            }
            sleepBriefly();
        }
    }

    /** Waits until the data plane applied every command submitted so far (port attaches, table edits). */
    public void awaitIdleControl() {
        final long sequence;
        synchronized (controlLock) {
            sequence = pipeline.control().submit(agent -> { });
        }
        loop.wakeup();
        try {
            pipeline.control().awaitApplied(sequence, Duration.ofSeconds(5));
        } catch (final TimeoutException e) {
            throw new IllegalStateException("the data plane did not apply a command within 5 s", e);
        }
    }

    /**
     * @param sonicName a configured port, e.g. {@code Ethernet8}.
     * @return its index in the data path (the traffic manager's port number).
     */
    public int portIndex(final String sonicName) {
        synchronized (controlLock) {
            return pipeline.control().portIndex(sonicName);
        }
    }

    /**
     * Sets what runs (on the discovery thread) after each port attach or detach, e.g. to publish the switch's
     * readiness; it must not block. Replaces the previous listener.
     *
     * @param listener called with no lock held; {@link #ports()} already reflects the change.
     */
    public void onPortsChanged(final Runnable listener) {
        this.portsChanged = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** @return the attached ports by Linux name. */
    public Map<String, AfPacketPort> ports() {
        return ports.ports();
    }

    /** @return a counters snapshot (SAI names per SONiC port). */
    public CountersSnapshot counters() {
        return pipeline.control().counters();
    }

    /**
     * Runs {@code action} on the control API, serialized with port attach/detach, and wakes the data plane.
     *
     * @param action what to do with the control API.
     */
    public void control(final java.util.function.Consumer<PipelineControl> action) {
        synchronized (controlLock) {
            action.accept(pipeline.control());
        }
        loop.wakeup();
    }

    /** @return the data plane's clock (emulated time, e.g. for traffic-manager snapshots on the data-plane thread). */
    public MonotonicClock clock() {
        return clock;
    }

    /** @return the data-plane loop (cycles, failure). */
    public LiveLoop loop() {
        return loop;
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(20);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops discovery (detaching every port), the loop, and releases the pipeline. */
    @Override
    public void close() {
        try {
            ports.close();
        } finally {
            try {
                loop.close();
            } finally {
                pipeline.close();
            }
        }
    }
}
