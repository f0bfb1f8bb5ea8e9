package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.PrefixIntMap;
import io.asicemu.pipeline.table.RouteSlots;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The L3 part of the control model, as committed: routes and their slots, the LPM miss routes, next hops, the
 * controller's groups and router interfaces, the configuration's router interfaces ({@link #configRifs}: the start-up
 * configuration's, then as running-config changes add and remove them) and which routes, next hops, groups and
 * neighbors the configuration owns. Changes are staged by {@link L3Changes} and
 * recorded here only when their batch commits. A new configuration resets it.
 * <p>
 * Ownership: an object is the configuration's or a controller's, never both. Config next hops and groups keep the
 * start-up configuration's ids (below {@link SwitchSetup#nextHopCount()} / {@link SwitchSetup#groupCount()},
 * where controllers never allocate; router interfaces likewise below {@link #configRouterInterfaceCount()}); ones a later
 * a reconfigure (the config side) adds take ids freed there first,
 * then the highest free ids (controllers allocate upward from the start-up count), so neither side picks the other's
 * ids. A route or neighbor key (prefix, address) belongs to whoever wrote it first: the other side is refused, naming
 * it (the config side's L3ConfigChanges).
 * <p>
 * Not thread safe: the control thread only.
 */
public final class L3State {
    /** No route (targets are {@code kind << 20 | id} with kind ≥ 1, so never negative). */
    static final int NO_ROUTE = Integer.MIN_VALUE;

    /** A next hop as the control model keeps it. */
    record NextHop(IpPrefix address, int rif) {}

    /**
     * A controller's group as the control model keeps it (to rebuild it when a member next hop moves);
     * {@code watchPorts} null when no member watches a port.
     */
    record GroupSpec(String name, int[] nextHops, int[] weights, int[] watchPorts) {}

    /** A neighbor the configuration defines (NEIGH). */
    public record ConfigNeighbor(int rif, long mac) {}

    /**
     * A router interface the configuration defines (INTERFACE, VLAN_INTERFACE).
     *
     * @param id its pipeline id.
     * @param port its port ({@link ForwardingTables#NONE} for a VLAN interface).
     * @param vlan its VLAN ({@link ForwardingTables#NONE} for a port interface).
     */
    public record ConfigRif(int id, int port, int vlan) {}

    private final PipelineSizing sizing;
    private SwitchSetup setup;
    final Map<Integer, NextHop> nextHops = new HashMap<>();
    final Set<Integer> groups = new HashSet<>();
    final Map<Integer, GroupSpec> groupSpecs = new HashMap<>();
    final Map<Integer, Integer> controllerRifPorts = new HashMap<>();
    /** Route → target ({@link io.asicemu.pipeline.table.RouteTarget}); {@link #NO_ROUTE} when absent. */
    final PrefixIntMap routes = new PrefixIntMap(NO_ROUTE);
    /**
     * The configuration's routes (in {@link #configRouteView}) a controller took over (deleted, maybe wrote again):
     * the others of the view are the configuration's (kept as exceptions so a million config routes are not
     * copied into a set).
     */
    final Set<IpPrefix> takenOverRoutes = new HashSet<>();
    /**
     * The routing protocol's routes (the routing stack's choice for each prefix) → target in its own next hops and
     * groups; in force unless a controller's route hides it ({@link #shadowedProtocolRoutes}).
     */
    final PrefixIntMap protocolRoutes = new PrefixIntMap(NO_ROUTE);
    /** Protocol routes a controller's route for the same prefix hides (in force again once it is deleted). */
    final Set<IpPrefix> shadowedProtocolRoutes = new HashSet<>();
    /** The protocol's next hops and groups: identities, references, group members ({@link ProtocolChanges}). */
    ProtocolObjects protocolObjects = ProtocolObjects.EMPTY;
    /** The protocol's groups: pipeline id → name, members, weights (its next hops are in {@link #nextHops}). */
    final Map<Integer, GroupSpec> protocolGroups = new HashMap<>();
    /** The configuration's next hops by identity ({@link #nextHopKey}) → pipeline id. */
    final Map<String, Integer> configNextHopIds = new HashMap<>();
    /** The configuration's groups by identity ({@link #groupKey}) → pipeline id. */
    final Map<String, Integer> configGroupIds = new HashMap<>();
    /** The configuration's groups: pipeline id → name, members (pipeline next-hop ids), weights. */
    final Map<Integer, GroupSpec> configGroups = new HashMap<>();
    /** The configuration's neighbors (NEIGH). */
    final Map<IpPrefix, ConfigNeighbor> configNeighbors = new HashMap<>();
    /** The neighbors controllers wrote → their router interface. */
    final Map<IpPrefix, Integer> controllerNeighbors = new HashMap<>();
    /** The configuration's router interfaces by name (EthernetN, VlanN). */
    final Map<String, ConfigRif> configRifs = new HashMap<>();
    /** The same by pipeline id. */
    final Map<Integer, ConfigRif> configRifIds = new HashMap<>();
    /**
     * The configuration in force as the data path has it (pipeline ids): its routes (connected, local and
     * STATIC_ROUTE) and neighbors. A reconfigure
     * stages only where the next configuration differs from this, so an entry a controller took over and the
     * configuration did not change stays the controller's.
     */
    Map<IpPrefix, Integer> configRouteView = Map.of();

    Map<IpPrefix, ConfigNeighbor> configNeighborView = Map.of();
    private RouteSlots routeSlots;
    /** What an IPv4 ([0]) and IPv6 ([1]) LPM miss does (RouteTarget values; 0 = drop). */
    final int[] defaultRoutes = new int[2];

    private final int[] routeLengths4 = new int[33];
    private final int[] routeLengths6 = new int[129];
    private int configRouterInterfaces;

    L3State(final PipelineSizing sizing) {
        this.sizing = sizing;
    }

    /** Starts again from what a configuration defines (its routes, next hops and router interfaces). */
    void reset(final SwitchSetup next) {
        setup = next;
        routes.clear();
        routes.putAll(next.routes());
        routeSlots = next.routeSlots().copy();
        Arrays.fill(defaultRoutes, 0);
        Arrays.fill(routeLengths4, 0);
        Arrays.fill(routeLengths6, 0);
        routes.keySet().forEach(p -> countRoute(p, 1));
        nextHops.clear();
        groups.clear();
        groupSpecs.clear();
        controllerRifPorts.clear();
        takenOverRoutes.clear();
        configNextHopIds.clear();
        configGroupIds.clear();
        configGroups.clear();
        configNeighbors.clear();
        protocolRoutes.clear();
        shadowedProtocolRoutes.clear();
        protocolObjects = ProtocolObjects.EMPTY;
        protocolGroups.clear();
        controllerNeighbors.clear();
        final ForwardingTables t = next.tables();
        final Map<Integer, String> rifNames = rifNames(next);
        final Map<Integer, String> nextHopKeys = new HashMap<>();
        for (int id = 0; id < next.nextHopCount(); id++) {
            final IpPrefix address = nextHopAddress(t, id);
            nextHops.put(id, new NextHop(address, t.nextHopRif(id)));
            nextHopKeys.put(id, nextHopKey(address, rifNames.get(t.nextHopRif(id))));
            configNextHopIds.put(nextHopKeys.get(id), id);
        }
        for (int id = 0; id < next.groups().size(); id++) {
            final ConfigGroup g = next.groups().get(id);
            configGroups.put(
                    id,
                    new GroupSpec(g.name(), g.nextHops().clone(), g.weights().clone(), null));
            configGroupIds.put(groupKey(g.ownArs() ? g.name() : "", g.nextHops(), g.weights(), nextHopKeys::get), id);
        }
        t.neighbors().forEach((high, low, v6, mac, rif, isStatic) -> {
            if (isStatic) {
                configNeighbors.put(new IpPrefix(v6, high, low, v6 ? 128 : 32), new ConfigNeighbor(rif, mac));
            }
        });
        configRouteView = next.routes(); // the compiler's map, never changed after compiling
        configNeighborView = Map.copyOf(configNeighbors);
        int rifs = 0;
        configRifs.clear();
        configRifIds.clear();
        for (final Map.Entry<String, Integer> r : next.routerInterfaces().entrySet()) {
            final int rif = r.getValue();
            rifs = Math.max(rifs, rif + 1);
            final ConfigRif config = new ConfigRif(rif, t.routerInterfacePort(rif), t.routerInterfaceVlan(rif));
            configRifs.put(r.getKey(), config);
            configRifIds.put(rif, config);
        }
        configRouterInterfaces = rifs;
    }

    /** Records what a committed reconfigure left as the configuration's objects (the config side computes them). */
    public void configInForce(
            final Map<String, Integer> nextHopIds,
            final Map<String, Integer> groupIds,
            final Map<IpPrefix, Integer> routes,
            final Map<IpPrefix, ConfigNeighbor> neighbors) {
        configNextHopIds.clear();
        configNextHopIds.putAll(nextHopIds);
        configGroupIds.clear();
        configGroupIds.putAll(groupIds);
        configRouteView = routes;
        takenOverRoutes.retainAll(configRouteView.keySet());
        configNeighborView = neighbors;
    }

    /** @return the configuration's next hops in force: identity ({@link #nextHopKey}) → pipeline id (read only). */
    public Map<String, Integer> configNextHopIds() {
        return Collections.unmodifiableMap(configNextHopIds);
    }

    /** @return the configuration's groups in force: identity ({@link #groupKey}) → pipeline id (read only). */
    public Map<String, Integer> configGroupIds() {
        return Collections.unmodifiableMap(configGroupIds);
    }

    /** @return the configuration's routes in force, in pipeline ids (read only). */
    public Map<IpPrefix, Integer> configRouteView() {
        return Collections.unmodifiableMap(configRouteView);
    }

    /** @return the configuration's neighbors in force, by address (read only). */
    public Map<IpPrefix, ConfigNeighbor> configNeighborView() {
        return Collections.unmodifiableMap(configNeighborView);
    }

    /** Router interface id → its interface name (EthernetN, VlanN) in a configuration. */
    public static Map<Integer, String> rifNames(final SwitchSetup c) {
        final Map<Integer, String> names = new HashMap<>();
        c.routerInterfaces().forEach((name, rif) -> names.put(rif, name));
        return names;
    }

    public static IpPrefix nextHopAddress(final ForwardingTables t, final int id) {
        final boolean v6 = t.nextHopV6(id);
        return new IpPrefix(v6, t.nextHopHigh(id), t.nextHopLow(id), v6 ? 128 : 32);
    }

    /** A config next hop's identity: its address on a named interface (ids differ between configurations). */
    public static String nextHopKey(final IpPrefix address, final String interfaceName) {
        return address + "@" + interfaceName;
    }

    /**
     * A config group's identity, as the compiler shares groups: its members (by next-hop identity) with their weights
     * in any order, plus the route's name when {@code ARS_NEXTHOP_GROUP} gives that route a group of its own.
     */
    public static String groupKey(
            final String ownArsName,
            final int[] nextHops,
            final int[] weights,
            final java.util.function.IntFunction<String> nextHopKey) {
        final String[] members = new String[nextHops.length];
        for (int m = 0; m < nextHops.length; m++) {
            members[m] = nextHopKey.apply(nextHops[m]) + "x" + weights[m];
        }
        Arrays.sort(members);
        return ownArsName + "|" + String.join(",", members);
    }

    public SwitchSetup setup() {
        return setup;
    }

    public PipelineSizing sizing() {
        return sizing;
    }

    RouteSlots routeSlots() {
        return routeSlots;
    }

    /** Keeps the per-length route counts in step with {@link #routes} (a delete probes only lengths in use). */
    void countRoute(final IpPrefix prefix, final int delta) {
        (prefix.v6() ? routeLengths6 : routeLengths4)[prefix.length()] += delta;
    }

    int routeLengthCount(final boolean v6, final int length) {
        return (v6 ? routeLengths6 : routeLengths4)[length];
    }

    /** @return the ids of the configuration's router interfaces are below this (controller ones at or above). */
    public int configRouterInterfaceCount() {
        return configRouterInterfaces;
    }
}
