package io.asicemu.switchd.hostif;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.cpu.PacketInHandler;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.Rtnetlink;
import io.asicemu.veth.tap.HostInterfaceTap;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SONiC's host interfaces: for every front-panel port a Linux netdev in the switch's network namespace named as the
 * port ({@code Ethernet0}, …), a TAP with the switch's router MAC, the port's MTU, the port's INTERFACE addresses and
 * its carrier following the port's link; and LOOPBACK_INTERFACE addresses on a dummy {@code Loopback<n>} (on
 * {@code lo} where the kernel has no dummy driver). Punted frames reach the TAP of their ingress port ({@link #onPacket}, on the
 * CPU port's one consumer thread); what the kernel sends on a TAP leaves its port through
 * {@link CpuPort#packetOut} ({@link HostInterfaceReader}, its own thread, blocked in epoll while idle).
 * <p>
 * Nothing is lost silently: a punt whose TAP write fails, a punt from a port without a host interface, and a frame of
 * the kernel the injection queue refuses are counted here per port ({@link #stats}); the data plane counts the
 * refusal on the port too ({@code PACKET_OUT_QUEUE_FULL}), and the kernel counts what its TAP queue drops
 * ({@code tx_dropped} of the interface).
 * <p>
 * Threading: {@link #start} and {@link #close} on one control thread; {@link #onPacket} on the CPU port's consumer
 * thread; {@link #linkChanged} on the port-discovery thread. Counters are single-writer longs read by any thread.
 */
public final class HostInterfaces implements PacketInHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostInterfaces.class);
    /** The router MAC when DEVICE_METADATA has none (the pipeline's default, ConfigCompiler). */
    private static final String DEFAULT_ROUTER_MAC = "02:00:00:00:00:01";
    /** A port's MTU when PORT has none (SONiC's and the pipeline's default). */
    private static final String DEFAULT_MTU = "9100";

    private static final int EOPNOTSUPP = 95;

    private final CpuPort cpu;
    private final HostInterfaceTap[] tapByPort;
    private final Map<String, HostInterfaceTap> tapByName = new LinkedHashMap<>();
    private final Map<String, Integer> portByName = new LinkedHashMap<>();
    /** Punts written to each port's TAP (the consumer thread writes). */
    private final AtomicLongArray toKernel;
    /** Punts each port's TAP did not take (a failed write). */
    private final AtomicLongArray toKernelFailed;
    /** Frames the kernel sent on each port's TAP that went to packet-out (the reader writes). */
    private final AtomicLongArray fromKernel;
    /** Frames the kernel sent on each port's TAP that the injection queue refused. */
    private final AtomicLongArray fromKernelRefused;
    /** Punts from a port without a host interface (no TAP configured for it). */
    private final AtomicLongArray withoutInterface = new AtomicLongArray(1);

    /** Loopback interfaces made as dummy links (removed on close). */
    private final List<String> dummies = new ArrayList<>();
    /** Loopback addresses put on {@code lo} where the kernel has no dummy driver (removed on close). */
    private final List<String> onLo = new ArrayList<>();
    /** Loopback names whose addresses go on {@code lo}. */
    private final java.util.Set<String> loopbacksOnLo = new java.util.HashSet<>();

    private HostInterfaceReader reader;
    private PuntDrain drain;
    private volatile int lastWriteErrno;
    private boolean closed;

    private HostInterfaces(final CpuPort cpu, final int portCount) {
        this.cpu = cpu;
        this.tapByPort = new HostInterfaceTap[portCount];
        this.toKernel = new AtomicLongArray(portCount);
        this.toKernelFailed = new AtomicLongArray(portCount);
        this.fromKernel = new AtomicLongArray(portCount);
        this.fromKernelRefused = new AtomicLongArray(portCount);
    }

    /** How a port index is found for a SONiC port name (the pipeline's control API, under the switch's lock). */
    @FunctionalInterface
    public interface PortIndexes {
        /**
         * @param sonicName a configured port.
         * @return its index in the data path.
         */
        int indexOf(String sonicName);
    }

    /**
     * Creates every configured port's host interface (TAP, MAC, MTU, IPv6 address generation off, INTERFACE
     * addresses, up, carrier off until {@link #linkChanged} says otherwise), starts the reader of what the kernel
     * sends, and tells the data path that the kernel hosts the switch's addresses ({@link CpuPort#hostInterfaces}).
     * Punts are not drained yet: the caller hands this object to the P4Runtime poller or calls
     * {@link #startPuntDrain()}.
     *
     * @param config the CONFIG_DB (PORT, INTERFACE, DEVICE_METADATA).
     * @param cpu the pipeline's CPU port.
     * @param portCount how many port indexes the data path has.
     * @param ports SONiC name → port index.
     * @return the running host interfaces.
     * @throws IllegalStateException if an interface cannot be made (no /dev/net/tun, no CAP_NET_ADMIN, a name taken)
     *     or an address cannot be set; nothing is left behind.
     */
    public static HostInterfaces start(
            final ConfigDb config, final CpuPort cpu, final int portCount, final PortIndexes ports) {
        final HostInterfaces h = new HostInterfaces(cpu, portCount);
        try {
            h.create(config, ports);
            h.reader = HostInterfaceReader.start(h);
        } catch (final RuntimeException e) {
            h.close();
            throw e;
        }
        cpu.hostInterfaces(true);
        LOG.info(
                "host interfaces: {}{}{}",
                h.tapByName.keySet(),
                h.dummies.isEmpty() ? "" : ", loopbacks " + h.dummies,
                h.onLo.isEmpty() ? "" : ", loopback addresses on lo " + h.onLo);
        return h;
    }

    private void create(final ConfigDb config, final PortIndexes ports) {
        final byte[] mac = macBytes(config.table("DEVICE_METADATA")
                .getOrDefault("localhost", Map.of())
                .getOrDefault("mac", DEFAULT_ROUTER_MAC));
        for (final Map.Entry<String, Map<String, String>> e :
                config.table("PORT").entrySet()) {
            final String name = e.getKey();
            final int port = ports.indexOf(name);
            final int mtu = Integer.parseInt(e.getValue().getOrDefault("mtu", DEFAULT_MTU));
            final HostInterfaceTap tap = HostInterfaceTap.create(name, mac, mtu);
            tapByName.put(name, tap);
            portByName.put(name, port);
            if (port >= 0 && port < tapByPort.length) {
                tapByPort[port] = tap;
            }
            final int errno = Rtnetlink.ipv6AddrGenModeNone(tap.ifIndex());
            if (errno != 0) {
                throw new IllegalStateException("host interface " + name + ": addrgenmode none: errno " + errno + " ("
                        + Libc.strerror(errno) + ")");
            }
        }
        for (final String key : config.table("INTERFACE").keySet()) {
            final String[] parts = key.split("\\|");
            if (parts.length != 2 || !tapByName.containsKey(parts[0])) {
                continue; // a router interface without an address, or on something that has no host interface
            }
            final String[] address = parts[1].split("/");
            final HostInterfaceTap tap = tapByName.get(parts[0]);
            final int errno = Rtnetlink.addAddress(tap.ifIndex(), literal(address[0]), Integer.parseInt(address[1]));
            if (errno != 0) {
                throw new IllegalStateException("host interface " + parts[0] + ": INTERFACE|" + key + ": errno " + errno
                        + " (" + Libc.strerror(errno) + ")");
            }
        }
        tapByName.values().forEach(HostInterfaceTap::up);
        loopbacks(config);
    }

    /**
     * LOOPBACK_INTERFACE: each address on a dummy link named as the key ({@code Loopback0}) where the kernel has the
     * dummy driver; where it has not (EOPNOTSUPP, e.g. this project's CI kernel), on {@code lo}, which the kernel
     * treats the same way for a daemon that binds to the address (BGP's update-source).
     */
    private void loopbacks(final ConfigDb config) {
        for (final String key : config.table("LOOPBACK_INTERFACE").keySet()) {
            final String[] parts = key.split("\\|");
            if (parts.length != 2) {
                continue;
            }
            final String name = parts[0];
            if (!dummies.contains(name) && !loopbacksOnLo.contains(name)) {
                final int errno = Rtnetlink.addDummy(name);
                if (errno == 0) {
                    dummies.add(name);
                    Rtnetlink.ipv6AddrGenModeNone(io.asicemu.veth.ffm.NetDevice.index(name));
                    io.asicemu.veth.ffm.NetDevice.up(name);
                } else if (errno == EOPNOTSUPP) {
                    loopbacksOnLo.add(name);
                    LOG.info("host interfaces: no dummy driver in this kernel: {}'s addresses go on lo", name);
                } else {
                    throw new IllegalStateException("LOOPBACK_INTERFACE|" + key + ": cannot make " + name + ": errno "
                            + errno + " (" + Libc.strerror(errno) + ")");
                }
            }
            final boolean dummy = dummies.contains(name);
            final String[] address = parts[1].split("/");
            final int ifIndex = io.asicemu.veth.ffm.NetDevice.index(dummy ? name : "lo");
            final int errno = Rtnetlink.addAddress(ifIndex, literal(address[0]), Integer.parseInt(address[1]));
            if (errno != 0) {
                throw new IllegalStateException("LOOPBACK_INTERFACE|" + key + ": errno " + errno + " ("
                        + Libc.strerror(errno) + ")" + (dummy ? "" : " on lo"));
            }
            if (!dummy) {
                onLo.add(parts[1]);
            }
        }
    }

    private static InetAddress literal(final String address) {
        try {
            return InetAddress.ofLiteral(address); // never a name lookup: the config validated it as an address
        } catch (final IllegalArgumentException e) {
            throw new IllegalStateException("not an IP address: " + address, e);
        }
    }

    private static byte[] macBytes(final String mac) {
        final String[] octets = mac.split(":");
        final byte[] bytes = new byte[6];
        for (int i = 0; i < 6; i++) {
            bytes[i] = (byte) Integer.parseInt(octets[i], 16);
        }
        return bytes;
    }

    /**
     * Drains the CPU port on a thread of its own, for a switch without P4Runtime (with P4Runtime, its PacketIn poller
     * is the one consumer and dispatches to this object).
     */
    public void startPuntDrain() {
        drain = PuntDrain.start(cpu, this);
    }

    /**
     * Makes a host interface's carrier follow its front-panel port (LinuxSwitch's link listener; discovery thread).
     *
     * @param sonicPort the port.
     * @param up whether its link is up.
     */
    public synchronized void linkChanged(final String sonicPort, final boolean up) {
        final HostInterfaceTap tap = tapByName.get(sonicPort);
        if (tap != null && !closed) {
            tap.carrier(up);
        }
    }

    /** Consumer thread: writes a punted frame to the TAP of its ingress port. */
    @Override
    public void onPacket(
            final MemorySegment segment,
            final long offset,
            final int length,
            final int ingressPort,
            final int reason,
            final long timestampNs) {
        final HostInterfaceTap tap = ingressPort >= 0 && ingressPort < tapByPort.length ? tapByPort[ingressPort] : null;
        if (tap == null) {
            increment(withoutInterface, 0);
        } else if (tap.write(segment, offset, length)) {
            increment(toKernel, ingressPort);
        } else {
            increment(toKernelFailed, ingressPort);
            lastWriteErrno = tap.lastWriteErrno();
        }
    }

    /** Single writer per array element: a plain read and an opaque store, no read-modify-write instruction. */
    static void increment(final AtomicLongArray counters, final int index) {
        counters.setOpaque(index, counters.getPlain(index) + 1);
    }

    HostInterfaceTap[] tapsByPort() {
        return tapByPort;
    }

    CpuPort cpu() {
        return cpu;
    }

    AtomicLongArray fromKernel() {
        return fromKernel;
    }

    AtomicLongArray fromKernelRefused() {
        return fromKernelRefused;
    }

    /**
     * One host interface's counters.
     *
     * @param toKernel punts written to its TAP.
     * @param toKernelFailed punts its TAP did not take.
     * @param fromKernel frames the kernel sent on it that went to packet-out.
     * @param fromKernelRefused frames the kernel sent on it that the injection queue refused.
     */
    public record Stats(long toKernel, long toKernelFailed, long fromKernel, long fromKernelRefused) {}

    /**
     * @param sonicPort a port with a host interface.
     * @return its counters (zeros if it has none).
     */
    public Stats stats(final String sonicPort) {
        final Integer port = portByName.get(sonicPort);
        if (port == null || port < 0 || port >= tapByPort.length) {
            return new Stats(0, 0, 0, 0);
        }
        return new Stats(
                toKernel.getOpaque(port),
                toKernelFailed.getOpaque(port),
                fromKernel.getOpaque(port),
                fromKernelRefused.getOpaque(port));
    }

    /** @return punts from a port that has no host interface. */
    public long puntsWithoutInterface() {
        return withoutInterface.getOpaque(0);
    }

    /** @return the loopback addresses put on {@code lo} (the kernel has no dummy driver), as {@code ip/len}. */
    public List<String> loopbackAddressesOnLo() {
        return List.copyOf(onLo);
    }

    /** @return the loopback interfaces made as dummy links. */
    public List<String> loopbackDummies() {
        return List.copyOf(dummies);
    }

    /** @return the host interfaces' names. */
    public List<String> names() {
        return new ArrayList<>(tapByName.keySet());
    }

    /**
     * Stops the punt drain (if this object runs one) and the reader, then removes the interfaces (closing a TAP
     * removes it, with its addresses and neighbors). Call after the CPU port's other consumer (the P4Runtime poller)
     * stopped writing here.
     */
    @Override
    public void close() {
        cpu.hostInterfaces(false);
        if (drain != null) {
            drain.close();
        }
        if (reader != null) {
            reader.close();
        }
        synchronized (this) {
            closed = true;
            tapByName.values().forEach(HostInterfaceTap::close);
        }
        for (final String name : dummies) {
            final int ifIndex = Libc.ifNameToIndex(name);
            if (ifIndex > 0) {
                Rtnetlink.deleteLink(ifIndex);
            }
        }
        final int lo = Libc.ifNameToIndex("lo");
        for (final String cidr : onLo) {
            final String[] address = cidr.split("/");
            Rtnetlink.deleteAddress(lo, literal(address[0]), Integer.parseInt(address[1]));
        }
        if (lastWriteErrno != 0) {
            LOG.info(
                    "host interfaces: last failed TAP write: errno {} ({})",
                    lastWriteErrno,
                    Libc.strerror(lastWriteErrno));
        }
        LOG.info(
                "host interfaces removed: {}{}{}",
                tapByName.keySet(),
                dummies.isEmpty() ? "" : " and " + dummies,
                onLo.isEmpty() ? "" : ", addresses " + onLo + " from lo");
    }
}
