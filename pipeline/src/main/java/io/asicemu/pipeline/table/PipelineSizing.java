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
public record PipelineSizing(int maxPorts, int maxRouterInterfaces, int maxNextHops, int maxGroups, int fdbEntries,
    int neighbors, int aclRules, int maxFrameBytes, int batchSize, int cpuQueueSlots,
    int maxRoutes) {

    /** Validates. */
    public PipelineSizing {
        if (maxPorts < 1 || maxPorts > 1024 || maxRouterInterfaces < 1 || maxNextHops < 1 || maxGroups < 1
            || fdbEntries < 1 || neighbors < 1 || aclRules < 1 || maxFrameBytes < 128
            || batchSize < 1 || cpuQueueSlots < 1 || maxRoutes < 1 || maxRoutes > LpmTable.MAX_VALUE) {
            throw new IllegalArgumentException("invalid sizing: " + this);
        }
        if (maxNextHops > RouteTarget.MAX_ID || maxGroups > RouteTarget.MAX_ID) {
            throw new IllegalArgumentException("next hops and groups are limited to " + RouteTarget.MAX_ID);
        }
    }

    /**
     * @return sizes for a lab switch: 64 ports, 16k next hops, 4k groups, 32k FDB, 9.5 KiB frames, 1Mi routes.
     */
    public static PipelineSizing defaults() {
        return new PipelineSizing(64, 512, 16_384, 4_096, 32_768, 16_384, 1_024, 9_728, 64, 1_024, 1 << 20);
    }
}
