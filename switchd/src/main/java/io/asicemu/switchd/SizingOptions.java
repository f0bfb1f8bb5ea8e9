package io.asicemu.switchd;

import io.asicemu.pipeline.table.PipelineSizing;
import picocli.CommandLine.Option;

/**
 * Table capacities on the command line ({@code run}, {@code replay}): the data path reserves its tables from these,
 * so a lab of many small switches sets them low and a full-table test sets {@code --max-routes 1048576}. Defaults are
 * {@link PipelineSizing#defaults()}; the pipeline validates the combination.
 */
final class SizingOptions {
    private static final PipelineSizing DEFAULTS = PipelineSizing.defaults();

    @Option(
            names = "--max-routes",
            paramLabel = "N",
            description = "IPv4 + IPv6 routes (default: " + PipelineSizing.DEFAULT_MAX_ROUTES
                    + ", the P4Info's ipv4_table + ipv6_table; 20 B each reserved)")
    private int maxRoutes = DEFAULTS.maxRoutes();

    @Option(names = "--max-next-hops", paramLabel = "N", description = "next hops (default: ${DEFAULT-VALUE})")
    private int maxNextHops = DEFAULTS.maxNextHops();

    @Option(names = "--max-groups", paramLabel = "N", description = "ECMP/WCMP groups (default: ${DEFAULT-VALUE})")
    private int maxGroups = DEFAULTS.maxGroups();

    @Option(names = "--max-neighbors", paramLabel = "N", description = "ARP/ND entries (default: ${DEFAULT-VALUE})")
    private int maxNeighbors = DEFAULTS.neighbors();

    @Option(names = "--fdb-entries", paramLabel = "N", description = "L2 FDB entries (default: ${DEFAULT-VALUE})")
    private int fdbEntries = DEFAULTS.fdbEntries();

    @Option(
            names = "--acl-rules",
            paramLabel = "N",
            description = "ACL rules, ingress and egress each (default: ${DEFAULT-VALUE})")
    private int aclRules = DEFAULTS.aclRules();

    /**
     * @return the sizing these options describe.
     * @throws IllegalArgumentException if a size is out of range.
     */
    PipelineSizing sizing() {
        return DEFAULTS.withTables(maxRoutes, maxNextHops, maxGroups, maxNeighbors, fdbEntries, aclRules);
    }
}
