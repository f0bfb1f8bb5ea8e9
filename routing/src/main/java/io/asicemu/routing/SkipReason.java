package io.asicemu.routing;

/** Why a message (or one netlink message of a frame) changed no route; each has a counter in {@link FpmCounters}. */
public enum SkipReason {
    /** The FPM header's version is not 1. */
    FPM_VERSION,
    /** The FPM message type is not netlink (1): protobuf FPM is not spoken. */
    FPM_NOT_NETLINK,
    /** A netlink message or attribute whose lengths do not add up (also counted as a decode error). */
    MALFORMED,
    /** A netlink message type other than RTM_NEWROUTE / RTM_DELROUTE / RTM_NEWNEXTHOP / RTM_DELNEXTHOP. */
    UNKNOWN_MESSAGE,
    /**
     * RTM_NEWNEXTHOP / RTM_DELNEXTHOP: next-hop objects are not kept; zebra is configured, as SONiC's templates do,
     * with {@code no fpm use-next-hop-groups}, so routes carry their next hops.
     */
    NEXTHOP_OBJECT,
    /** A route of a table other than the main one (254): VRFs are not served yet. */
    OTHER_TABLE,
    /** A route family other than IPv4 and IPv6 (MPLS, bridge). */
    UNSUPPORTED_FAMILY,
    /** RTN_LOCAL, RTN_BROADCAST, RTN_ANYCAST, RTN_MULTICAST: fpmsyncd ignores these too. */
    UNSUPPORTED_ROUTE_TYPE,
    /** A next hop through another family (RTA_VIA) or an encapsulation (MPLS, SRv6, EVPN). */
    UNSUPPORTED_NEXTHOP,
    /** A route naming only a next-hop object (RTA_NH_ID) with no next hops of its own. */
    UNRESOLVED_NEXTHOP_GROUP,
    /** A unicast route with no next hop at all. */
    NO_NEXTHOP,
    /** A withdraw of a prefix no route is held for. */
    UNKNOWN_PREFIX,
    /** A new prefix while the route limit is reached. */
    TABLE_FULL,
    /** A frame from a connection that already gave way to a newer one. */
    STALE_CONNECTION
}
