package io.asicemu.flowlet.config;

import io.asicemu.flowlet.ecmp.LoadBalanceMode;

/**
 * Typed {@code ARS_OBJECT|<name>} (SONiC Local ARS HLD shape): how groups bound to it place flowlets. Immutable.
 *
 * @param name                 name.
 * @param assignMode           {@code per_flowlet_quality} (HLD default) → FLOWLET_QUALITY; our additions
 *                             {@code per_flowlet_random} → FLOWLET_RANDOM and {@code per_packet_random} →
 *                             PER_PACKET_SPRAY.
 * @param flowletIdleTimeUs    idle time, µs (default 256; we accept 16..32000 where the HLD's uint16 says 2..2047).
 * @param maxFlows             flowlet table size (default 512).
 * @param primaryPathThreshold HLD {@code primary_path_threshold} (default 16; stored, no alternate paths yet).
 * @param alternativePathCost  HLD {@code alternative_path_cost} (default 0; stored).
 */
public record ArsObjectConfig(
        String name,
        LoadBalanceMode assignMode,
        long flowletIdleTimeUs,
        int maxFlows,
        int primaryPathThreshold,
        int alternativePathCost) {}
