package io.asicemu.pipeline.control;

import io.asicemu.pipeline.config.CompiledConfig;
import io.asicemu.pipeline.table.PipelineSizing;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The L3 part of the control model, as committed: routes and their slots, the LPM miss routes, next hops, the
 * controller's groups and router interfaces (the configuration's own are in its {@link CompiledConfig}). Changes are
 * staged by {@link L3Changes} and recorded here only when their batch commits. A new configuration resets it.
 * <p>
 * Not thread safe: the control thread only.
 */
final class L3State {
    /** A next hop as the control model keeps it. */
    record NextHop(IpPrefix address, int rif) {}

    /**
     * A controller's group as the control model keeps it (to rebuild it when a member next hop moves);
     * {@code watchPorts} null when no member watches a port.
     */
    record GroupSpec(String name, int[] nextHops, int[] weights, int[] watchPorts) {}

    private final PipelineSizing sizing;
    private CompiledConfig compiled;
    final Map<Integer, NextHop> nextHops = new HashMap<>();
    final Set<Integer> groups = new HashSet<>();
    final Map<Integer, GroupSpec> groupSpecs = new HashMap<>();
    final Map<Integer, Integer> controllerRifPorts = new HashMap<>();
    final Map<IpPrefix, Integer> routes = new HashMap<>();
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
    void reset(final CompiledConfig next) {
        compiled = next;
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
        for (int id = 0; id < next.nextHopCount(); id++) {
            nextHops.put(id, null);
        }
        int rifs = 0;
        for (final int rif : next.routerInterfaces().values()) {
            rifs = Math.max(rifs, rif + 1);
        }
        configRouterInterfaces = rifs;
    }

    CompiledConfig compiled() {
        return compiled;
    }

    PipelineSizing sizing() {
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
    int configRouterInterfaceCount() {
        return configRouterInterfaces;
    }
}
