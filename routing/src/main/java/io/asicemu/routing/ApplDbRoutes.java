package io.asicemu.routing;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.SequencedMap;
import java.util.Set;
import java.util.StringJoiner;

/**
 * What SONiC's fpmsyncd writes to APPL_DB (Redis DB 0) for a route: key {@code ROUTE_TABLE:<prefix>} and its fields,
 * in fpmsyncd's order and formats. Read from sonic-swss fpmsyncd/routesync.cpp ({@code RouteSync::onRouteMsg},
 * {@code getNextHopList}, {@code getNextHopWt}, {@code RouteTableFieldValueTupleWrapper::fieldValueTupleVector}) at
 * sonic-net/sonic-swss@e6b0c5b, with libnl's {@code nl_addr2str} (inet_ntop; no {@code /len} on a host prefix):
 * <ul>
 *   <li>a blackhole: {@code protocol}, {@code blackhole=true};</li>
 *   <li>a unicast route: {@code protocol}, {@code nexthop} (gateways comma-separated, {@code 0.0.0.0} or {@code ::}
 *       for a directly connected path), {@code ifname} (comma-separated, {@code unknown} for an index without a
 *       name), {@code weight} (comma-separated, always present: libnl's next-hop weight is the raw {@code rtnh_hops},
 *       0 for a route without RTA_MULTIPATH, and fpmsyncd writes 1 for 0; so it is our weight − 1, at least 1);</li>
 *   <li>a unicast route whose one next hop is on {@code eth0}, {@code docker0} or {@code eth1-midplane}: fpmsyncd
 *       deletes the key (management routes stay out of the ASIC);</li>
 *   <li>unreachable and prohibit routes: fpmsyncd writes nothing (the key keeps what it had).</li>
 * </ul>
 * A withdraw deletes the key. Stateless.
 */
public final class ApplDbRoutes {
    /** APPL_DB's route table and its key separator. */
    public static final String TABLE = "ROUTE_TABLE";

    private static final Set<String> MANAGEMENT_INTERFACES = Set.of("eth0", "docker0", "eth1-midplane");

    private final ProtocolNames protocolNames;

    /** @param protocolNames how the {@code protocol} field names protocol numbers. */
    public ApplDbRoutes(final ProtocolNames protocolNames) {
        this.protocolNames = protocolNames;
    }

    /**
     * One APPL_DB change.
     *
     * @param key {@code ROUTE_TABLE:<prefix>}.
     * @param delete whether the key is deleted (then {@code fields} is empty).
     * @param fields the hash's fields in fpmsyncd's order, when set.
     */
    public record Write(String key, boolean delete, SequencedMap<String, String> fields) {}

    /** @return the APPL_DB key of {@code prefix}: {@code ROUTE_TABLE:10.0.0.0/24}, {@code ROUTE_TABLE:10.1.1.1}. */
    public static String key(final RoutePrefix prefix) {
        return TABLE + ":" + prefix.text();
    }

    /** @return what fpmsyncd writes for a route zebra sent, or null when it writes nothing. */
    public Write forReplace(final Route route) {
        final SequencedMap<String, String> fields = new LinkedHashMap<>();
        final String protocol = protocolNames.nameOf(route.protocol());
        switch (route.type()) {
            case BLACKHOLE -> {
                fields.put("protocol", protocol);
                fields.put("blackhole", "true");
                return new Write(key(route.prefix()), false, fields);
            }
            case UNREACHABLE, PROHIBIT -> {
                return null;
            }
            case UNICAST -> {
                // below
            }
        }
        if (isManagementRoute(route)) {
            return forWithdraw(route.prefix());
        }
        final StringJoiner gateways = new StringJoiner(",");
        final StringJoiner interfaces = new StringJoiner(",");
        final StringJoiner weights = new StringJoiner(",");
        for (final NextHop hop : route.nextHops()) {
            gateways.add(gateway(hop.gateway(), route.prefix().family()));
            interfaces.add(hop.interfaceName());
            weights.add(Integer.toString(Math.max(1, hop.weight() - 1)));
        }
        fields.put("protocol", protocol);
        fields.put("nexthop", gateways.toString());
        fields.put("ifname", interfaces.toString());
        fields.put("weight", weights.toString());
        return new Write(key(route.prefix()), false, fields);
    }

    /**
     * @return whether fpmsyncd keeps the route out of the ASIC: a unicast route whose one next hop is on a management
     *     interface ({@code eth0}, {@code docker0}, {@code eth1-midplane}).
     */
    public static boolean isManagementRoute(final Route route) {
        return route.type() == Route.Type.UNICAST
                && route.nextHops().size() == 1
                && MANAGEMENT_INTERFACES.contains(route.nextHops().getFirst().interfaceName());
    }

    /** @return the delete of a withdrawn prefix's key. */
    public Write forWithdraw(final RoutePrefix prefix) {
        return new Write(key(prefix), true, new LinkedHashMap<>());
    }

    private static String gateway(final InetAddress gateway, final AddressFamily family) {
        if (gateway == null) {
            return family == AddressFamily.IPV4 ? "0.0.0.0" : "::";
        }
        return AddressText.format(gateway.getAddress());
    }
}
