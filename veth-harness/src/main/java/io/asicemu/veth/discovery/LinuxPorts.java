package io.asicemu.veth.discovery;

import io.asicemu.pipeline.port.Port;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.afpacket.AfPacketPort;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the switch's Linux ports in step with the interfaces present: a {@link PortDiscovery} listener that, for
 * each data port that appears, brings it up silenced ({@link LinkSetup}), opens an {@link AfPacketPort} and hands it
 * to the data path through a {@link PortSink}; and for each that disappears, asks the sink to detach it (the sink
 * closes the port once the data-plane thread has let go of it). Logs one line per port event. Follows each port's
 * MTU (a larger one than its rings were sized for reopens the port). A port that cannot be attached (no
 * CAP_NET_ADMIN/CAP_NET_RAW, the interface vanished) is remembered with the reason ({@link #failures()}), so whoever
 * shows port state can report it down and say why.
 * <p>
 * Threading: callbacks run on the discovery thread; the sink must hand ports to the data-plane thread through its
 * command queue.
 */
public final class LinuxPorts implements PortDiscovery.Listener, AutoCloseable {
    /** Where attached ports go: the data-plane agent's port commands. */
    public interface PortSink {
        /** Adds a newly opened port to the data path. */
        void attach(Port port);

        /** Removes {@code port} from the data path and closes it once the data-plane thread no longer uses it. */
        void detach(Port port);

        /** An attached port's operational state changed (after {@link AfPacketPort#linkState} took it). */
        default void linkChanged(final Port port, final boolean up) {}
    }

    private static final Logger LOG = LoggerFactory.getLogger(LinuxPorts.class);

    private final AfPacketConfig config;
    private final PortSink sink;
    private final Map<String, AfPacketPort> ports = new ConcurrentHashMap<>();
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    private final Map<String, HostLinkState> before = new ConcurrentHashMap<>();
    private final boolean takeAddressedPorts;
    private final PortDiscovery discovery;

    /**
     * Ports that take any data-port interface, addressed or not (test topologies).
     *
     * @param isDataPort which interfaces are data ports ({@link PortDiscovery#dataPorts(String, String)}).
     * @param config ring settings of every port.
     * @param sink where ports go.
     */
    public LinuxPorts(final Predicate<String> isDataPort, final AfPacketConfig config, final PortSink sink) {
        this(isDataPort, config, sink, true);
    }

    /**
     * @param isDataPort which interfaces are data ports ({@link PortDiscovery#dataPorts(String, String)}).
     * @param config ring settings of every port.
     * @param sink where ports go.
     * @param takeAddressedPorts whether to take an interface that carries IPv4 or non-link-local IPv6 addresses
     *     (false: it is left alone and reported as a failure: it is likely the host's own, e.g. its uplink).
     */
    public LinuxPorts(
            final Predicate<String> isDataPort,
            final AfPacketConfig config,
            final PortSink sink,
            final boolean takeAddressedPorts) {
        this.config = config;
        this.sink = sink;
        this.takeAddressedPorts = takeAddressedPorts;
        this.discovery = new PortDiscovery(isDataPort, this);
    }

    /** Starts discovery on its own thread (attaching the ports present now first). */
    public LinuxPorts start() {
        discovery.start();
        return this;
    }

    /**
     * @return interfaces that were found but could not be attached, name → why (the last attempt's error); an entry
     *     goes away when the port is attached or its interface disappears.
     */
    public Map<String, String> failures() {
        return Map.copyOf(failures);
    }

    /** @return the attached ports by name (a snapshot). */
    public Map<String, AfPacketPort> ports() {
        return Map.copyOf(ports);
    }

    @Override
    public void onPortAdded(final String name, final int ifIndex) {
        try {
            if (!takeAddressedPorts) {
                final java.util.List<java.net.InetAddress> addresses = HostLinkState.assignedAddresses(name);
                if (!addresses.isEmpty()) {
                    throw new IllegalStateException(name + " carries addresses "
                            + addresses.stream()
                                    .map(java.net.InetAddress::getHostAddress)
                                    .toList() + ", so it is probably the host's own: not "
                            + "taken (remove the addresses, map the port elsewhere, or allow it with "
                            + "--take-addressed-ports)");
                }
            }
            before.putIfAbsent(name, HostLinkState.capture(name));
            LinkSetup.prepareDataPort(name);
            final AfPacketPort port = AfPacketPort.open(name, config);
            ports.put(name, port);
            failures.remove(name);
            LOG.info(
                    "port {} added (ifindex {}, mtu {}, {} KiB of ring memory)",
                    name,
                    ifIndex,
                    port.mtu(),
                    port.ringBytes() / 1024);
            sink.attach(port);
        } catch (final IllegalStateException e) {
            // the interface may have vanished already; the next reconcile reports it again if it is back
            failures.put(name, e.getMessage());
            LOG.warn(
                    "port {} (ifindex {}) could not be attached, it stays DOWN and drops nothing it never saw: {}",
                    name,
                    ifIndex,
                    e.getMessage());
        }
    }

    @Override
    public void onPortRemoved(final String name, final int ifIndex) {
        failures.remove(name);
        before.remove(name); // the interface is gone: nothing of it to restore
        final AfPacketPort port = ports.remove(name);
        if (port != null) {
            LOG.info("port {} removed (ifindex {})", name, ifIndex);
            sink.detach(port);
        }
    }

    @Override
    public void onLinkState(final String name, final boolean running) {
        final AfPacketPort port = ports.get(name);
        if (port != null) {
            port.linkState(running);
            LOG.info("port {} link {}", name, running ? "up" : "down");
            sink.linkChanged(port, running);
        }
    }

    @Override
    public void onLinkMtu(final String name, final int mtu) {
        final AfPacketPort port = ports.get(name);
        if (port == null) {
            return;
        }
        if (mtu >= 68 && mtu <= port.slotMtu()) {
            final int before = port.mtu();
            port.mtu(mtu);
            LOG.info(
                    "port {} mtu {} -> {} (larger frames are dropped and counted as SAI_PORT_STAT_IF_OUT_DISCARDS)",
                    name,
                    before,
                    mtu);
            return;
        }
        LOG.info(
                "port {} mtu {} -> {}: larger than its rings were sized for, reopening the port",
                name,
                port.mtu(),
                mtu);
        final int ifIndex = port.ifIndex();
        // the same interface: what it was before the switch first took it stays what close() gives back (removing
        // forgets it, and adding again would capture the switch's own settings: up, IPv6 off)
        final HostLinkState first = before.get(name);
        onPortRemoved(name, ifIndex);
        if (first != null) {
            before.put(name, first);
        }
        onPortAdded(name, ifIndex);
    }

    @Override
    public void close() {
        discovery.close();
        for (final AfPacketPort port : ports.values()) {
            sink.detach(port);
        }
        ports.clear();
        for (final HostLinkState state : before.values()) {
            final String failed = state.restore();
            if (failed.isEmpty()) {
                LOG.info(
                        "port {} restored ({}, disable_ipv6 {}, addr_gen_mode {})",
                        state.name(),
                        state.wasUp() ? "up" : "down",
                        state.disableIpv6(),
                        state.addrGenMode());
            } else {
                LOG.warn("port {} not fully restored: {}", state.name(), failed);
            }
        }
        before.clear();
    }
}
