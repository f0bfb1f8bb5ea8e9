package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.IpPrefix;

/**
 * One neighbor (ARP/NDP) entry as {@code show arp} / {@code show ndp} list it.
 *
 * @param address the IP address (a host prefix).
 * @param mac the MAC.
 * @param routerInterface the router interface id.
 * @param isStatic whether static (config or controller) rather than learned.
 */
public record NeighborEntry(IpPrefix address, long mac, int routerInterface, boolean isStatic) {}
