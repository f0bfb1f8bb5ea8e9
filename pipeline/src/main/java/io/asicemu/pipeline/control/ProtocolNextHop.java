package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.IpPrefix;

/**
 * One next hop of a routing protocol's route, as the routing stack gives it (zebra over FPM, SONiC's ROUTE_TABLE
 * {@code nexthop}, {@code ifname}, {@code weight}).
 *
 * @param address the gateway (a /32 or /128), or null for a directly connected route out of the interface.
 * @param interfaceName the interface it is reached through (EthernetN, VlanN).
 * @param weight its share of an ECMP route (≥ 1; 1 when the stack gives none).
 */
public record ProtocolNextHop(IpPrefix address, String interfaceName, int weight) {
    /** A gateway with weight 1. */
    public static ProtocolNextHop via(final IpPrefix address, final String interfaceName) {
        return new ProtocolNextHop(address, interfaceName, 1);
    }
}
