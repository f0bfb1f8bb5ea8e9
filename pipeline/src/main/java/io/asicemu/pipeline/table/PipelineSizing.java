package io.asicemu.pipeline.table;

/**
 * Capacities of the data-path tables and buffers, fixed when the pipeline is built (a chip's table sizes).
 *
 * @param maxPorts front-panel ports.
 * @param maxRouterInterfaces router interfaces.
 * @param maxNextHops next hops.
 * @param maxGroups ECMP/WCMP groups.
 * @param fdbEntries L2 FDB entries.
 * @param neighbors ARP/ND entries.
 * @param aclRules ACL rules with counters.
 * @param maxFrameBytes the largest frame the packet store takes (the largest MTU frame plus VLAN headroom); the
 *     store itself holds frames in cells and is sized from the configured buffer (pools and headroom), not here.
 * @param batchSize frames per RX batch.
 * @param cpuQueueSlots packets the CPU port's punt queue holds.
 * @param maxRoutes IPv4 and IPv6 routes together (each has a hit counter).
 */
public record PipelineSizing(
        int maxPorts,
        int maxRouterInterfaces,
        int maxNextHops,
        int maxGroups,
        int fdbEntries,
        int neighbors,
        int aclRules,
        int maxFrameBytes,
        int batchSize,
        int cpuQueueSlots,
        int maxRoutes) {

    /** Validates. */
    public PipelineSizing {
        if (maxPorts < 1
                || maxPorts > 1024
                || maxRouterInterfaces < 1
                || maxNextHops < 1
                || maxGroups < 1
                || fdbEntries < 1
                || neighbors < 1
                || aclRules < 1
                || maxFrameBytes < 128
                || batchSize < 1
                || cpuQueueSlots < 1
                || maxRoutes < 1
                || maxRoutes > LpmTable.MAX_VALUE) {
            throw new IllegalArgumentException("invalid sizing: " + this);
        }
        if (maxNextHops > RouteTarget.MAX_ID || maxGroups > RouteTarget.MAX_ID) {
            throw new IllegalArgumentException("next hops and groups are limited to " + RouteTarget.MAX_ID);
        }
    }

    /** Default route capacity: the P4Info's ipv4_table (131,072) plus ipv6_table (17,000) entries. */
    public static final int DEFAULT_MAX_ROUTES = 131_072 + 17_000;

    /**
     * Sizes for a lab switch: 64 ports, 512 router interfaces, 16k next hops, 4k groups, 32k FDB entries, 16k
     * neighbors, 1024 ACL rules, 9.5 KiB frames, {@link #DEFAULT_MAX_ROUTES} routes. The tables then reserve
     * about 7 MiB ({@link ForwardingTables#reservedBytes()}); a full Internet table needs {@code maxRoutes} 1M (about
     * 20 MiB more for route slots and counters, plus the LPM's chunks as routes arrive).
     *
     * @return the defaults.
     */
    public static PipelineSizing defaults() {
        return new PipelineSizing(64, 512, 16_384, 4_096, 32_768, 16_384, 1_024, 9_728, 64, 1_024, DEFAULT_MAX_ROUTES);
    }

    /**
     * These sizes with other table capacities (the frame, batch and port sizes stay).
     *
     * @param routes IPv4 and IPv6 routes together.
     * @param nextHops next hops.
     * @param groups ECMP/WCMP groups.
     * @param neighborEntries ARP/ND entries.
     * @param fdb L2 FDB entries.
     * @param acl ACL rules (ingress and egress each).
     * @return the new sizing (validated).
     */
    public PipelineSizing withTables(
            final int routes,
            final int nextHops,
            final int groups,
            final int neighborEntries,
            final int fdb,
            final int acl) {
        return new PipelineSizing(
                maxPorts,
                maxRouterInterfaces,
                nextHops,
                groups,
                fdb,
                neighborEntries,
                acl,
                maxFrameBytes,
                batchSize,
                cpuQueueSlots,
                routes);
    }
}
