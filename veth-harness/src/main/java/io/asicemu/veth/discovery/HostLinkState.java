package io.asicemu.veth.discovery;

import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.NetDevice;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@link LinkSetup#prepareDataPort} changes on a host interface, captured before it does so that closing the
 * switch gives the interface back as it found it: administrative state (IFF_UP), {@code disable_ipv6} and
 * {@code addr_gen_mode} (read and written through /proc/sys; where that is read-only, as in unprivileged containers,
 * the interface belongs to the container anyway), and {@code arp_ignore} (read from /proc/sys, written back through
 * rtnetlink as it was set). The data path changes neither the MTU nor the offloads.
 * Control path; immutable.
 *
 * @param name the interface.
 * @param wasUp whether it was administratively up.
 * @param disableIpv6 the previous {@code net.ipv6.conf.NAME.disable_ipv6}, null if unreadable.
 * @param addrGenMode the previous {@code net.ipv6.conf.NAME.addr_gen_mode}, null if unreadable.
 * @param arpIgnore the previous {@code net.ipv4.conf.NAME.arp_ignore}, null if unreadable.
 */
public record HostLinkState(String name, boolean wasUp, String disableIpv6, String addrGenMode, String arpIgnore) {
    private static final Path IPV6_CONF = Path.of("/proc/sys/net/ipv6/conf");
    private static final Path IPV4_CONF = Path.of("/proc/sys/net/ipv4/conf");

    /**
     * @param name an interface.
     * @return its state now.
     * @throws IllegalStateException if the interface is gone.
     */
    public static HostLinkState capture(final String name) {
        final boolean up = (NetDevice.flags(name) & Kernel.IFF_UP) != 0;
        return new HostLinkState(
                name, up, read(name, "disable_ipv6"), read(name, "addr_gen_mode"), readArpIgnore(name));
    }

    /**
     * Puts the interface back as captured (best effort: an interface that vanished has nothing to restore).
     *
     * @return what could not be restored, empty if everything was.
     */
    public String restore() {
        final StringBuilder failed = new StringBuilder();
        try {
            if (!wasUp) {
                NetDevice.down(name);
            }
        } catch (final IllegalStateException e) {
            failed.append("link state: ").append(e.getMessage()).append("; ");
        }
        // addr_gen_mode first: writing it regenerates link-local addresses only while IPv6 is enabled
        write("addr_gen_mode", addrGenMode, failed);
        write("disable_ipv6", disableIpv6, failed);
        if (arpIgnore != null && !arpIgnore.equals(readArpIgnore(name))) {
            try {
                final int errno = io.asicemu.veth.ffm.Rtnetlink.ipv4DevConf(
                        NetDevice.index(name),
                        io.asicemu.veth.ffm.Rtnetlink.IPV4_DEVCONF_ARP_IGNORE,
                        Integer.parseInt(arpIgnore));
                if (errno != 0) {
                    failed.append("arp_ignore: errno ").append(errno).append("; ");
                }
            } catch (final IllegalStateException e) {
                failed.append("arp_ignore: ").append(e.getMessage()).append("; ");
            }
        }
        return failed.toString();
    }

    /**
     * The addresses an administrator gave the interface: IPv4 ones and IPv6 ones other than the link-local address
     * the kernel generates by itself.
     *
     * @param name an interface.
     * @return its addresses (empty if none or the interface is gone).
     */
    public static List<InetAddress> assignedAddresses(final String name) {
        try {
            final NetworkInterface nif = NetworkInterface.getByName(name);
            if (nif == null) {
                return List.of();
            }
            return nif.inetAddresses()
                    .filter(a -> !(a instanceof Inet6Address && a.isLinkLocalAddress()))
                    .toList();
        } catch (final SocketException e) {
            return List.of();
        }
    }

    private static String read(final String name, final String key) {
        try {
            return Files.readString(IPV6_CONF.resolve(name).resolve(key)).trim();
        } catch (final IOException e) {
            return null;
        }
    }

    private static String readArpIgnore(final String name) {
        try {
            return Files.readString(IPV4_CONF.resolve(name).resolve("arp_ignore"))
                    .trim();
        } catch (final IOException e) {
            return null;
        }
    }

    private void write(final String key, final String value, final StringBuilder failed) {
        if (value == null || value.equals(read(name, key))) {
            return;
        }
        try {
            Files.writeString(IPV6_CONF.resolve(name).resolve(key), value);
        } catch (final IOException e) {
            failed.append(key).append(": ").append(e.getMessage()).append("; ");
        }
    }
}
