package io.asicemu.pipeline.config;

import static io.asicemu.pipeline.config.ConfigRefusal.refuseAs;

import io.asicemu.pipeline.control.ConfigGroup;
import io.asicemu.pipeline.control.L3Changes;
import io.asicemu.pipeline.control.L3State;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The L3 part of a running-config change ({@link SwitchConfig#reconfigure}): compares the configuration in force
 * with a validated next one (STATIC_ROUTE, NEIGH; their next hops and groups) and stages the difference as the
 * batch's {@link L3Changes} updates — the same next-hop, group, route and neighbor operations and checks a
 * P4Runtime Write goes through, in the same batch as the knob changes, so it commits whole or not at all.
 * <p>
 * Objects are matched by what they are, not by id (ids are the compiler's and differ between configurations): a
 * next hop by address and interface, a group by its members and weights (as the compiler shares them), a route by
 * prefix, a neighbor by address. What the next configuration keeps keeps its pipeline id, slot and hit counters; new
 * next hops and groups get ids neither the configuration in force nor a controller uses (see {@link L3State}).
 * <p>
 * Collision rule: the configuration never replaces a controller's entry. A route or neighbor the next configuration
 * adds or changes at a prefix or address a controller wrote is refused, naming {@code TABLE|key}; an entry the
 * configuration in force had and a controller has since taken over (deleted and written again) is left to the
 * controller when the next configuration drops it.
 * <p>
 * Stateless; the control thread.
 */
final class L3ConfigChanges {
    /**
     * The configuration's objects as the data path has them after a change: identities → pipeline ids, and its
     * routes and neighbors in pipeline ids.
     */
    record View(
            Map<String, Integer> nextHopIds,
            Map<String, Integer> groupIds,
            Map<IpPrefix, Integer> routes,
            Map<IpPrefix, L3State.ConfigNeighbor> neighbors) {}

    private final L3State state;
    private final L3Changes l3;
    private final CompiledConfig target;
    private final Map<Integer, String> targetRifNames;
    private final Map<IpPrefix, String> routeKeys;
    /** Connected subnets and local addresses → the INTERFACE / VLAN_INTERFACE key that gives them. */
    private final Map<IpPrefix, String[]> interfaceKeys = new HashMap<>();

    private final Map<IpPrefix, String> neighborKeys;
    /**
     * Where the search for a free id goes on, per kind (0 next hops, 1 groups): upward below the start-up range, then
     * downward from the top. Ids taken here are staged, so the batch's view knows them; the search never goes back.
     */
    private final int[] lowCursor = new int[2];

    private final int[] highCursor = new int[2];

    private L3ConfigChanges(
            final L3State state, final L3Changes l3, final CompiledConfig target, final ConfigDb current) {
        this.state = state;
        this.l3 = l3;
        this.target = target;
        this.targetRifNames = L3State.rifNames(target.setup());
        this.routeKeys = keys(current, target.db(), "STATIC_ROUTE");
        this.neighborKeys = keys(current, target.db(), "NEIGH");
        for (final ConfigDb db : new ConfigDb[] {current, target.db()}) {
            for (final String table : new String[] {"INTERFACE", "VLAN_INTERFACE", "LOOPBACK_INTERFACE"}) {
                for (final String key : db.table(table).keySet()) {
                    final String[] parts = key.split("\\|");
                    if (parts.length == 2) {
                        final IpPrefix subnet = IpPrefix.parse(parts[1]);
                        interfaceKeys.put(subnet, new String[] {table, key});
                        interfaceKeys.put(subnet.hostOf(parts[1]), new String[] {table, key});
                    }
                }
            }
        }
        this.highCursor[0] = state.sizing().maxNextHops() - 1;
        this.highCursor[1] = state.sizing().maxGroups() - 1;
    }

    /**
     * Stages the difference between the configuration in force ({@link L3State}'s view) and {@code target}.
     *
     * @param state the committed L3 model.
     * @param l3 the batch's L3 part.
     * @param current the CONFIG_DB in force (names the keys of what is removed).
     * @param target the next configuration, compiled (validated).
     * @return what the configuration's objects will be once the batch commits ({@link L3State#configInForce}).
     * @throws ConfigException naming {@code TABLE|key} of the first change the control model refuses.
     */
    static View stage(final L3State state, final L3Changes l3, final ConfigDb current, final CompiledConfig target) {
        return new L3ConfigChanges(state, l3, target, current).stage();
    }

    private View stage() {
        // 1. Next hops: the target's by identity; new ones defined first (routes and groups refer to them).
        final int hopCount = target.setup().nextHopCount();
        final String[] hopKeys = new String[hopCount];
        final Map<String, Integer> nextHopIds = new HashMap<>();
        for (int t = 0; t < hopCount; t++) {
            final IpPrefix address = L3State.nextHopAddress(target.setup().tables(), t);
            final String rifName = targetRifNames.get(target.setup().tables().nextHopRif(t));
            hopKeys[t] = L3State.nextHopKey(address, rifName);
            Integer id = state.configNextHopIds().get(hopKeys[t]);
            if (id == null) {
                id = freeId(0, state.setup().nextHopCount(), state.sizing().maxNextHops());
                final int chosen = id;
                refuseAs("STATIC_ROUTE", "", "nexthop", () -> l3.configNextHop(chosen, liveRif(rifName), address));
            }
            nextHopIds.put(hopKeys[t], id);
        }
        // 2. Groups: by members and weights (and the route's name when ARS_NEXTHOP_GROUP gives it its own).
        final Map<String, Integer> groupIds = new HashMap<>();
        final int[] liveGroup = new int[target.setup().groups().size()];
        for (int g = 0; g < liveGroup.length; g++) {
            final ConfigGroup cg = target.setup().groups().get(g);
            final String key =
                    L3State.groupKey(cg.ownArs() ? cg.name() : "", cg.nextHops(), cg.weights(), t -> hopKeys[t]);
            Integer id = state.configGroupIds().get(key);
            if (id == null) {
                id = freeId(1, state.setup().groupCount(), state.sizing().maxGroups());
                final int[] members = new int[cg.nextHops().length];
                for (int m = 0; m < members.length; m++) {
                    members[m] = nextHopIds.get(hopKeys[cg.nextHops()[m]]);
                }
                final int chosen = id;
                refuseAs(
                        "STATIC_ROUTE",
                        cg.name(),
                        "nexthop",
                        () -> l3.configGroup(chosen, cg.name(), members, cg.weights()));
            }
            liveGroup[g] = id;
            groupIds.put(key, id);
        }
        // 3. Routes: removed ones first (their slots serve new ones in a full table), then new and changed ones.
        final Map<IpPrefix, Integer> routes = new LinkedHashMap<>();
        target.setup()
                .routes()
                .forEach((prefix, value) -> routes.put(prefix, live(value, hopKeys, nextHopIds, liveGroup)));
        for (final IpPrefix prefix : state.configRouteView().keySet()) {
            if (!routes.containsKey(prefix) && l3.isConfigRoute(prefix)) {
                refuseAs(routeTable(prefix), routeKey(prefix), "", () -> l3.deleteConfigRoute(prefix));
            }
        }
        routes.forEach((prefix, value) -> {
            if (!value.equals(state.configRouteView().get(prefix))) {
                refuseAs(routeTable(prefix), routeKey(prefix), "", () -> l3.configRoute(prefix, value));
            }
        });
        // 4. Groups and next hops no route of the configuration uses any more.
        for (final Map.Entry<String, Integer> g : state.configGroupIds().entrySet()) {
            if (!groupIds.containsKey(g.getKey())) {
                refuseAs("STATIC_ROUTE", "", "nexthop", () -> l3.removeConfigGroup(g.getValue()));
            }
        }
        for (final Map.Entry<String, Integer> h : state.configNextHopIds().entrySet()) {
            if (!nextHopIds.containsKey(h.getKey())) {
                refuseAs("STATIC_ROUTE", "", "nexthop", () -> l3.removeNextHop(h.getValue()));
            }
        }
        // 5. Neighbors (NEIGH): by address.
        final Map<IpPrefix, L3State.ConfigNeighbor> neighbors = new LinkedHashMap<>();
        target.setup().tables().neighbors().forEach((high, low, v6, mac, rif, isStatic) -> {
            if (isStatic) {
                neighbors.put(
                        new IpPrefix(v6, high, low, v6 ? 128 : 32),
                        new L3State.ConfigNeighbor(liveRif(targetRifNames.get(rif)), mac));
            }
        });
        for (final IpPrefix address : state.configNeighborView().keySet()) {
            if (!neighbors.containsKey(address) && l3.isConfigNeighbor(address)) {
                refuseAs("NEIGH", neighborKey(address), "", () -> l3.removeConfigNeighbor(address));
            }
        }
        neighbors.forEach((address, n) -> {
            if (!n.equals(state.configNeighborView().get(address))) {
                refuseAs("NEIGH", neighborKey(address), "neigh", () -> l3.configNeighbor(n.rif(), address, n.mac()));
            }
        });
        return new View(Map.copyOf(nextHopIds), Map.copyOf(groupIds), Map.copyOf(routes), Map.copyOf(neighbors));
    }

    /** A target route's value with the pipeline's ids for its next hop, group or interface. */
    private int live(
            final int value, final String[] hopKeys, final Map<String, Integer> nextHopIds, final int[] liveGroup) {
        final int id = RouteTarget.id(value);
        return switch (RouteTarget.kind(value)) {
            case RouteTarget.NEXT_HOP -> RouteTarget.encode(RouteTarget.NEXT_HOP, nextHopIds.get(hopKeys[id]));
            case RouteTarget.GROUP -> RouteTarget.encode(RouteTarget.GROUP, liveGroup[id]);
            case RouteTarget.CONNECTED -> RouteTarget.encode(RouteTarget.CONNECTED, liveRif(targetRifNames.get(id)));
            default -> value;
        };
    }

    /**
     * The router interface of that name on the running switch once the batch commits: {@link
     * RouterInterfaceConfigChanges#add} staged the next configuration's new interfaces before, so every name it uses
     * is there.
     */
    private int liveRif(final String name) {
        final L3State.ConfigRif rif = l3.configRif(name);
        if (rif == null) {
            throw new ConfigException("INTERFACE", name, "", "no router interface on " + name);
        }
        return rif.id();
    }

    /**
     * A free next-hop (kind 0) or group (kind 1) id for a new config object: first one the start-up configuration's
     * range freed (controllers never allocate there), else the highest free one (controllers allocate upward from
     * that range).
     */
    private int freeId(final int kind, final int configBase, final int limit) {
        while (lowCursor[kind] < configBase) {
            final int id = lowCursor[kind]++;
            if (isFree(kind, id)) {
                return id;
            }
        }
        while (highCursor[kind] >= configBase) {
            final int id = highCursor[kind]--;
            if (isFree(kind, id)) {
                return id;
            }
        }
        throw new ConfigException(
                "STATIC_ROUTE",
                "",
                "nexthop",
                "the " + (kind == 0 ? "next-hop" : "ECMP group") + " table (" + limit + ") is full");
    }

    /** Neither a controller's nor the configuration's (in force or staged by this batch). */
    private boolean isFree(final int kind, final int id) {
        return kind == 0 ? !l3.nextHopDefined(id) : !l3.groupDefined(id);
    }

    /** Connected and local routes come from INTERFACE/VLAN_INTERFACE/LOOPBACK_INTERFACE, the others from STATIC_ROUTE. */
    private String routeTable(final IpPrefix prefix) {
        if (routeKeys.containsKey(prefix)) {
            return "STATIC_ROUTE";
        }
        final String[] key = interfaceKeys.get(prefix);
        return key == null ? "INTERFACE" : key[0];
    }

    private String routeKey(final IpPrefix prefix) {
        if (routeKeys.containsKey(prefix)) {
            return routeKeys.get(prefix);
        }
        final String[] key = interfaceKeys.get(prefix);
        return key == null ? prefix.toString() : key[1];
    }

    private String neighborKey(final IpPrefix address) {
        return neighborKeys.getOrDefault(address, address.toString());
    }

    /** Prefix (STATIC_ROUTE) or address (NEIGH) → the CONFIG_DB key that gives it, in either configuration. */
    private static Map<IpPrefix, String> keys(final ConfigDb current, final ConfigDb next, final String table) {
        final Map<IpPrefix, String> keys = new HashMap<>();
        for (final ConfigDb db : new ConfigDb[] {current, next}) {
            for (final String key : db.table(table).keySet()) {
                final String[] parts = key.split("\\|");
                try {
                    keys.put(IpPrefix.parse(parts[parts.length - 1].trim()), key);
                } catch (final IllegalArgumentException e) {
                    // validated by the compiler: a key that does not parse was not in a configuration that loaded
                }
            }
        }
        return keys;
    }
}
