package io.asicemu.veth;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.MonotonicClock;
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
public final class LinuxSwitch implements AutoCloseable {
    private final Pipeline pipeline;
    private final MonotonicClock clock;
    private final LiveLoop loop;
    private final LinuxPorts ports;
    private final Map<String, String> linuxToSonic = new HashMap<>();
    /** Owns the control model once the start-up config is in: port discovery and every writer go through it. */
    private final ControlAgent control;

    private volatile Runnable portsChanged = () -> {};
    private volatile LinkListener linkListener = (sonicPort, up) -> {};

    /** Receives the front-panel ports' operational state (e.g. to make host interfaces follow it). */
    @FunctionalInterface
    public interface LinkListener {
        /**
         * Called on the discovery thread when a port is attached (with its state then), when its link changes and
         * when it is detached (down); it must not block.
         *
         * @param sonicPort the SONiC port name.
         * @param up whether its link is up.
         */
        void linkChanged(String sonicPort, boolean up);
    }

    private LinuxSwitch(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final AfPacketConfig portConfig,
            final double dilation,
            final PipelineSizing sizing,
            final long busyPollNs,
            final boolean takeAddressedPorts) {
        this.clock = new MonotonicClock(dilation);
        this.pipeline = Pipeline.create(clock, sizing, sonicToLinux);
        sonicToLinux.forEach((sonic, linux) -> linuxToSonic.put(linux, sonic));
        SwitchConfig.of(pipeline.control()).applyConfig(config);
        this.control = ControlAgent.start(pipeline.control(), "asicemu-control");
        this.loop =
                new LiveLoop(pipeline.agent(), clock, pipeline.agent()::nextDeadlineNs, sizing.maxPorts(), busyPollNs);
        // every command submitted to the agent ends the loop's idle wait, so the loop can sleep without a bound
        pipeline.agent().wakeUp(loop::wakeup);
        pipeline.agent().announceOnLinkUp(true);
        loop.start();
        this.ports = new LinuxPorts(
                linuxToSonic::containsKey,
                portConfig.forPorts(sonicToLinux.size()), // the RX ring budget shared by the configured ports
                new LinuxPorts.PortSink() {
                    @Override
                    public void attach(final Port port) {
                        control.run(c -> c.attachPort(linuxToSonic.get(port.name()), port));
                        loop.watch(port);
                        portsChanged.run();
                        linkListener.linkChanged(linuxToSonic.get(port.name()), port.linkUp());
                    }

                    @Override
                    public void linkChanged(final Port port, final boolean up) {
                        linkListener.linkChanged(linuxToSonic.get(port.name()), up);
                    }

                    @Override
                    public void detach(final Port port) {
                        loop.unwatch(port);
                        final long sequence = control.call(c -> c.detachPort(linuxToSonic.get(port.name())));
                        loop.wakeup();
                        try {
                            control.awaitApplied(sequence, Duration.ofSeconds(5));
                            port.close();
                        } catch (final TimeoutException e) {
                            // the data plane did not acknowledge: leak the port's memory rather than unmap it under it
                        }
                        portsChanged.run();
                        linkListener.linkChanged(linuxToSonic.get(port.name()), false);
                    }
                },
                takeAddressedPorts);
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
    public static LinuxSwitch start(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final AfPacketConfig portConfig,
            final double dilation) {
        return start(config, sonicToLinux, portConfig, dilation, PipelineSizing.defaults(), 0);
    }

    /**
     * Starts a switch whose loop busy-polls for {@code busyPollNs} after the last frame (low-latency mode).
     *
     * @param config the CONFIG_DB (PORT names are SONiC names).
     * @param sonicToLinux SONiC port name → Linux interface name (the lab's switch links).
     * @param portConfig AF_PACKET ring settings.
     * @param dilation real ns per emulated ns (1.0: real time).
     * @param busyPollNs the busy-poll window (0: off, the default mode).
     * @return the running switch.
     */
    public static LinuxSwitch start(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final AfPacketConfig portConfig,
            final double dilation,
            final long busyPollNs) {
        return start(config, sonicToLinux, portConfig, dilation, PipelineSizing.defaults(), busyPollNs);
    }

    /**
     * Starts a switch with the given table capacities and busy-poll window.
     *
     * @param config the configuration.
     * @param sonicToLinux SONiC port name → Linux interface name.
     * @param portConfig ring sizes of the ports.
     * @param dilation real ns per emulated ns.
     * @param sizing table capacities.
     * @param busyPollNs the busy-poll window (0: off, the default mode).
     * @return the running switch.
     */
    public static LinuxSwitch start(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final AfPacketConfig portConfig,
            final double dilation,
            final PipelineSizing sizing,
            final long busyPollNs) {
        return new LinuxSwitch(config, sonicToLinux, portConfig, dilation, sizing, busyPollNs, true);
    }

    /**
     * Starts a switch as {@link #start(ConfigDb, Map, AfPacketConfig, double, PipelineSizing, long)} does, taking
     * interfaces that carry addresses only if told to, and giving every interface back as it found it on
     * {@link #close()} (link state, IPv6 settings: {@link io.asicemu.veth.discovery.HostLinkState}).
     *
     * @param config the CONFIG_DB.
     * @param sonicToLinux SONiC port → Linux interface.
     * @param portConfig ring settings.
     * @param dilation real ns per emulated ns.
     * @param sizing table capacities.
     * @param busyPollNs busy polling after the last frame (0: off).
     * @param takeAddressedPorts whether an interface carrying IPv4 or global IPv6 addresses may be taken.
     * @return the running switch.
     */
    public static LinuxSwitch start(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final AfPacketConfig portConfig,
            final double dilation,
            final PipelineSizing sizing,
            final long busyPollNs,
            final boolean takeAddressedPorts) {
        return new LinuxSwitch(config, sonicToLinux, portConfig, dilation, sizing, busyPollNs, takeAddressedPorts);
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
        final long sequence = control.call(c -> c.submit(agent -> {}));
        loop.wakeup();
        try {
            control.awaitApplied(sequence, Duration.ofSeconds(5));
        } catch (final TimeoutException e) {
            throw new IllegalStateException("the data plane did not apply a command within 5 s", e);
        }
    }

    /**
     * @param sonicName a configured port, e.g. {@code Ethernet8}.
     * @return its index in the data path (the traffic manager's port number).
     */
    public int portIndex(final String sonicName) {
        return control.call(c -> c.portIndex(sonicName));
    }

    /**
     * The state of every configured port, as a startup summary or a status view shows it: {@code up}, {@code down
     * (link)}, {@code DOWN: not attached: <why>} (the interface exists but could not be opened, e.g. without
     * CAP_NET_ADMIN/CAP_NET_RAW), or {@code DOWN: no interface <name>}.
     *
     * @return SONiC port name → state, in configuration order.
     */
    public Map<String, String> portStates() {
        final Map<String, AfPacketPort> attached = ports.ports();
        final Map<String, String> failed = ports.failures();
        final Map<String, String> states = new java.util.LinkedHashMap<>();
        for (final String sonic : control.call(c -> new java.util.ArrayList<>(c.portNames()))) {
            if (sonic == null) {
                continue;
            }
            final String linux = sonicToLinux(sonic);
            final AfPacketPort port = attached.get(linux);
            if (port != null) {
                states.put(sonic, (port.linkUp() ? "up" : "down (link)") + " on " + linux + ", mtu " + port.mtu());
            } else if (failed.containsKey(linux)) {
                states.put(sonic, "DOWN: " + linux + " not attached: " + failed.get(linux));
            } else {
                states.put(sonic, "DOWN: no interface " + linux);
            }
        }
        return states;
    }

    private String sonicToLinux(final String sonic) {
        for (final Map.Entry<String, String> e : linuxToSonic.entrySet()) {
            if (e.getValue().equals(sonic)) {
                return e.getKey();
            }
        }
        return "?";
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

    /**
     * Sets what runs when a port's operational state changes (see {@link LinkListener}); replaces the previous one.
     * Ports attached before the call are not replayed: read {@link #ports()} after setting it.
     *
     * @param listener the listener.
     */
    public void onLinkChanged(final LinkListener listener) {
        this.linkListener = java.util.Objects.requireNonNull(listener, "listener");
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
     * @return the control agent: the one thread that owns the control model (requests are serialized with port
     *     attach/detach; a committed command wakes the data plane).
     */
    public ControlAgent control() {
        return control;
    }

    /** @return the data plane's clock (emulated time, e.g. for traffic-manager snapshots on the data-plane thread). */
    public MonotonicClock clock() {
        return clock;
    }

    /** @return the data-plane loop (cycles, failure). */
    public LiveLoop loop() {
        return loop;
    }

    /** @return frames the data plane has taken from the ports so far (any thread). */
    public long framesReceived() {
        return pipeline.agent().framesReceived();
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
            control.close();
            try {
                loop.close();
            } finally {
                pipeline.close();
            }
        }
    }
}
