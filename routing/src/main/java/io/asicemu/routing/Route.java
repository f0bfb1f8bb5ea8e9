package io.asicemu.routing;

import java.util.List;

/**
 * One route zebra selected for forwarding, as it arrived over FPM. Immutable.
 *
 * @param prefix the destination.
 * @param type what happens to matching packets.
 * @param protocol who made the route ({@code rtm_protocol}: 186 BGP, 196 FRR's staticd, ...).
 * @param metric the route's priority ({@code RTA_PRIORITY}), 0 when absent.
 * @param nextHops the paths of a {@link Type#UNICAST} route (at least one); empty for the other types.
 */
public record Route(RoutePrefix prefix, Type type, int protocol, long metric, List<NextHop> nextHops) {
    /** The route types zebra sends for the main table ({@code rtm_type}). */
    public enum Type {
        /** RTN_UNICAST: forward to the next hops. */
        UNICAST,
        /** RTN_BLACKHOLE: drop silently. */
        BLACKHOLE,
        /** RTN_UNREACHABLE: drop, ICMP unreachable. */
        UNREACHABLE,
        /** RTN_PROHIBIT: drop, ICMP administratively prohibited. */
        PROHIBIT
    }

    /** Validates and copies the next hops. */
    public Route {
        nextHops = List.copyOf(nextHops);
        if ((type == Type.UNICAST) == nextHops.isEmpty()) {
            throw new IllegalArgumentException(
                    type == Type.UNICAST ? "a unicast route needs a next hop" : "a " + type + " route has none");
        }
    }
}
