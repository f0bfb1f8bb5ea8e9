package io.asicemu.pipeline.control;

/**
 * A next-hop group the configuration's STATIC_ROUTEs create (routes over the same members share one).
 *
 * @param name the STATIC_ROUTE key that created it (its ARS settings come from {@code ARS_NEXTHOP_GROUP|name}, if
 *     any, else the switch's defaults).
 * @param ownArs whether {@code ARS_NEXTHOP_GROUP} has an entry for that name (then the group is that route's alone).
 * @param nextHops member next-hop ids (the configuration's), sorted by id then weight.
 * @param weights one weight per member.
 */
public record ConfigGroup(String name, boolean ownArs, int[] nextHops, int[] weights) {}
