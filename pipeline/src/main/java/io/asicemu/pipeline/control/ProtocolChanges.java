package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.List;
import java.util.StringJoiner;

/**
 * The routing protocol's changes in one batch: a route per prefix given by its next hops (address and interface, as
 * the routing stack gives them), or withdrawn. The protocol never names pipeline ids: each distinct next hop and each
 * distinct weighted set of next hops (an ECMP route) becomes one pipeline next hop or group, shared by the routes
 * using it and removed with the last of them ({@link ProtocolObjects}). Where the route is in force is
 * {@link RouteChanges}' rule (a controller's entry hides it; it hides the configuration's).
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
final class ProtocolChanges {
    private static final int NO_ROUTE = L3State.NO_ROUTE;

    private final Staging s;
    private final L3State state;
    private final L3Changes l3;
    private final RouteChanges routes;
    /** The batch's copy of the protocol's objects, made at its first change (null until then). */
    private ProtocolObjects objects;

    ProtocolChanges(final Staging staging, final L3State state, final L3Changes l3) {
        this.s = staging;
        this.state = state;
        this.l3 = l3;
        this.routes = l3.routes();
    }

    /**
     * Sets the protocol's route for a prefix, replacing the one it had.
     *
     * @param prefix the prefix.
     * @param nextHops its next hops: none for a blackhole (drop), one without an address for a directly connected
     *     route, one or more gateways otherwise (two or more: ECMP, by weight).
     */
    void route(final IpPrefix prefix, final List<ProtocolNextHop> nextHops) {
        final ProtocolObjects o = objects();
        final int before = routes.protocolTarget(prefix);
        final int target = acquire(o, nextHops);
        if (target == before) {
            release(o, target); // the same route again (a replay): nothing changes
        } else {
            routes.protocolRoute(prefix, target);
            if (before != NO_ROUTE) {
                release(o, before);
            }
        }
        s.counted();
    }

    /** Withdraws the protocol's route for a prefix (NOT_FOUND if it has none). */
    void withdraw(final IpPrefix prefix) {
        final int before = routes.protocolTarget(prefix);
        if (before == NO_ROUTE) {
            throw s.fail(TableException.Code.NOT_FOUND, "protocol route " + prefix);
        }
        routes.withdrawProtocolRoute(prefix);
        release(objects(), before);
        s.counted();
    }

    private ProtocolObjects objects() {
        if (objects == null) {
            objects = state.protocolObjects.copy();
        }
        return objects;
    }

    /** The target a route with these next hops forwards to, with one reference taken on what it uses. */
    private int acquire(final ProtocolObjects o, final List<ProtocolNextHop> nextHops) {
        if (nextHops.isEmpty()) {
            return RouteTarget.encode(RouteTarget.DROP, 0);
        }
        if (nextHops.size() == 1 && nextHops.get(0).address() == null) {
            return RouteTarget.encode(RouteTarget.CONNECTED, routerInterface(nextHops.get(0)));
        }
        final int[] ids = new int[nextHops.size()];
        final int[] weights = new int[ids.length];
        for (int m = 0; m < ids.length; m++) {
            final ProtocolNextHop hop = nextHops.get(m);
            if (hop.address() == null) {
                throw s.fail(
                        TableException.Code.INVALID_ARGUMENT,
                        "an ECMP route's next hops are gateways (" + hop.interfaceName() + " has no address)");
            }
            if (hop.weight() < 1) {
                throw s.fail(TableException.Code.INVALID_ARGUMENT, "weights must be >= 1");
            }
            ids[m] = acquireNextHop(o, hop.address(), routerInterface(hop));
            weights[m] = hop.weight();
        }
        if (ids.length == 1) {
            return RouteTarget.encode(RouteTarget.NEXT_HOP, ids[0]);
        }
        final String key = groupKey(ids, weights);
        Integer group = o.groupIds.get(key);
        if (group != null) {
            for (final int id : ids) {
                releaseNextHop(o, id); // the group already holds its members
            }
        } else {
            group = l3.freeGroupId();
            if (group < 0) {
                throw s.fail(
                        TableException.Code.RESOURCE_EXHAUSTED,
                        "the ECMP group table (" + state.sizing().maxGroups() + ") is full");
            }
            l3.protocolGroup(group, "protocol_group_" + group, ids, weights);
            o.groupIds.put(key, group);
            o.groupKeys.put(group, key);
            o.groupMembers.put(group, ids);
        }
        o.groupRefs.merge(group, 1, Integer::sum);
        return RouteTarget.encode(RouteTarget.GROUP, group);
    }

    private int routerInterface(final ProtocolNextHop hop) {
        final int rif = l3.routerInterfaceNamed(hop.interfaceName());
        if (rif < 0) {
            throw s.fail(TableException.Code.NOT_FOUND, "no router interface " + hop.interfaceName());
        }
        return rif;
    }

    private int acquireNextHop(final ProtocolObjects o, final IpPrefix address, final int rif) {
        final String key = address + "@" + rif;
        Integer id = o.nextHopIds.get(key);
        if (id == null) {
            id = l3.freeNextHopId();
            if (id < 0) {
                throw s.fail(
                        TableException.Code.RESOURCE_EXHAUSTED,
                        "the next-hop table (" + state.sizing().maxNextHops() + ") is full");
            }
            l3.protocolNextHop(id, rif, address);
            o.nextHopIds.put(key, id);
            o.nextHopKeys.put(id, key);
        }
        o.nextHopRefs.merge(id, 1, Integer::sum);
        return id;
    }

    /** Gives back the reference a route's target held; an object nothing uses any more goes. */
    private void release(final ProtocolObjects o, final int target) {
        final int id = RouteTarget.id(target);
        switch (RouteTarget.kind(target)) {
            case RouteTarget.NEXT_HOP -> releaseNextHop(o, id);
            case RouteTarget.GROUP -> {
                if (o.groupRefs.merge(id, -1, Integer::sum) == 0) {
                    o.groupRefs.remove(id);
                    o.groupIds.remove(o.groupKeys.remove(id));
                    l3.removeProtocolGroup(id);
                    for (final int member : o.groupMembers.remove(id)) {
                        releaseNextHop(o, member);
                    }
                }
            }
            default -> {
                // drop and connected routes hold nothing
            }
        }
    }

    private void releaseNextHop(final ProtocolObjects o, final int id) {
        if (o.nextHopRefs.merge(id, -1, Integer::sum) == 0) {
            o.nextHopRefs.remove(id);
            o.nextHopIds.remove(o.nextHopKeys.remove(id));
            l3.removeProtocolNextHop(id);
        }
    }

    /** A group's identity: its members with their weights, in the order given (the order is the hash's). */
    private static String groupKey(final int[] ids, final int[] weights) {
        final StringJoiner key = new StringJoiner(",");
        for (int m = 0; m < ids.length; m++) {
            key.add(ids[m] + "x" + weights[m]);
        }
        return key.toString();
    }

    /** Records the batch's objects in the committed state (its routes are {@link RouteChanges}'). */
    void commit() {
        if (objects != null) {
            state.protocolObjects = objects;
        }
    }
}
