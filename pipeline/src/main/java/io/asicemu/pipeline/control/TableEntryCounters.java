package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.IpPrefix;
import java.util.Map;

/**
 * Per-entry hit counters of the L3 tables, as the data plane had them at one duty cycle: what a switch's route,
 * next-hop and neighbor flow counters show ({@code show ip route … counters}, P4 direct counters).
 *
 * @param routes every route (connected, local, static and controller) → packets and bytes that matched it.
 * @param nextHops every next-hop id → packets and bytes forwarded through it (group members counted one by one).
 * @param neighbors every neighbor address → packets and bytes sent to it.
 */
public record TableEntryCounters(
        Map<IpPrefix, Hits> routes, Map<Integer, Hits> nextHops, Map<IpPrefix, Hits> neighbors) {

    /**
     * One entry's counters.
     *
     * @param packets packets.
     * @param bytes bytes (frame lengths without FCS).
     */
    public record Hits(long packets, long bytes) {}

    /** @return non-zero entries, one per line: {@code ROUTE <prefix> Packets n Bytes n}, then NEXTHOP, NEIGH. */
    public String render() {
        final StringBuilder out = new StringBuilder();
        routes.forEach((p, h) -> line(out, "ROUTE " + p, h));
        nextHops.forEach((id, h) -> line(out, "NEXTHOP " + id, h));
        neighbors.forEach((a, h) -> line(out, "NEIGH " + a, h));
        return out.toString();
    }

    private static void line(final StringBuilder out, final String name, final Hits h) {
        if (h.packets() != 0) {
            out.append(name)
                    .append(" Packets ")
                    .append(h.packets())
                    .append(" Bytes ")
                    .append(h.bytes())
                    .append('\n');
        }
    }
}
