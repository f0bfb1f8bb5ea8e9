package io.asicemu.routing;

import java.net.InetAddress;

/**
 * One path of a route.
 *
 * @param gateway the next router's address, or null for a directly connected path (the destination is on-link).
 * @param interfaceName the outgoing interface's name ({@code Ethernet0}), or {@link #UNKNOWN_INTERFACE} when zebra
 *     named none or its index is not known in this namespace (fpmsyncd's word for it).
 * @param weight the path's share among the route's paths, 1..256 (rtnetlink's {@code rtnh_hops + 1}).
 */
public record NextHop(InetAddress gateway, String interfaceName, int weight) {
    /** What fpmsyncd writes when an interface index has no name. */
    public static final String UNKNOWN_INTERFACE = "unknown";

    /** Validates. */
    public NextHop {
        if (interfaceName == null || interfaceName.isEmpty()) {
            throw new IllegalArgumentException("a next hop needs an interface name (or \"unknown\")");
        }
        if (weight < 1 || weight > 256) {
            throw new IllegalArgumentException("next-hop weight " + weight + " out of 1..256");
        }
    }
}
