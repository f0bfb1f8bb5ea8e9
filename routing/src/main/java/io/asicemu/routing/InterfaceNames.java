package io.asicemu.routing;

/**
 * Resolves the interface indexes zebra sends ({@code RTA_OIF}, {@code rtnh_ifindex}) to names, in the network
 * namespace zebra runs in (the switch's). Called on the FPM server's I/O thread.
 */
@FunctionalInterface
public interface InterfaceNames {
    /** @return the name of interface {@code ifindex}, or null when there is none. */
    String nameOf(int ifindex);
}
