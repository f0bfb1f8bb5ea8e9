package io.asicemu.flowlet.config;

import io.asicemu.flowlet.ecmp.LoadBalanceMode;

/**
 * Typed {@code ARS_NEXTHOP_GROUP|<group>}: binds a next-hop group to an ARS object and may override the switch's
 * load-balance mode. The table follows the Local ARS design's binding of ARS objects to next hops; the fields
 * {@code lb_mode}, {@code resilient} and {@code resilient_buckets} are ours. Immutable.
 *
 * @param name             group name (the pipeline's next-hop group key).
 * @param arsObjName       ARS object, or null.
 * @param lbMode           mode override, or null to inherit (ARS object's assign mode, else the switch default).
 * @param resilient        resilient hashing.
 * @param resilientBuckets resilient bucket count.
 */
public record ArsNextHopGroupConfig(
        String name, String arsObjName, LoadBalanceMode lbMode, boolean resilient, int resilientBuckets) {}
