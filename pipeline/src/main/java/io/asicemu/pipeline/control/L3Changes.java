package io.asicemu.pipeline.control;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The L3 changes of one batch: routes (and the LPM miss routes), next hops, groups, neighbors, router interfaces and
 * L3 admit. Each update is validated against the committed {@link L3State} plus this batch's earlier updates, then
 * staged (model change kept here, data-plane edit added to the batch's {@link Staging}); {@link #commit()} records
 * the staged model changes in the state.
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
public final class L3Changes {
    private static final int NO_ROUTE = L3State.NO_ROUTE;

    private final Staging s;
    private final L3State state;
    private final SwitchSetup setup;
    private final Supplier<RuntimeKnobs> knobs;
    private final L2Changes l2;
    private final RouteChanges routes;
    private final Map<Integer, L3State.NextHop> stagedNextHops = new HashMap<>();
    private final Set<Integer> stagedGroups = new HashSet<>();
    private final Map<Integer, L3State.GroupSpec> stagedSpecs = new HashMap<>();
    private final Set<Integer> removedNextHops = new HashSet<>();
    private final Set<Integer> removedGroups = new HashSet<>();
    private final Map<Integer, Integer> stagedRifPorts = new HashMap<>();
    private final Set<Integer> removedRifs = new HashSet<>();
    /** Config ownership this batch changes (the config side's L3ConfigChanges stages a configuration's objects). */
    private final Map<Integer, L3State.GroupSpec> stagedConfigGroups = new HashMap<>();

    private final Set<Integer> removedConfigGroups = new HashSet<>();
    private final Map<Integer, L3State.GroupSpec> stagedProtocolGroups = new HashMap<>();
    private final Set<Integer> removedProtocolGroups = new HashSet<>();
    private final Map<IpPrefix, L3State.ConfigNeighbor> stagedConfigNeighbors = new HashMap<>();
    private final Set<IpPrefix> removedConfigNeighbors = new HashSet<>();
    private final Map<IpPrefix, Integer> stagedControllerNeighbors = new HashMap<>();
    private final Set<IpPrefix> removedControllerNeighbors = new HashSet<>();
    /** The configuration's router interfaces this batch adds or changes (by name) and removes. */
    private final Map<String, L3State.ConfigRif> stagedConfigRifs = new HashMap<>();

    private final Set<String> removedConfigRifs = new HashSet<>();
    /** Ports whose interface got a new IPv4 address: they announce it once the batch is applied. */
    private final List<Integer> announcements = new ArrayList<>();

    L3Changes(
            final Staging staging,
            final L3State state,
            final Supplier<RuntimeKnobs> knobs,
            final L2Changes l2,
            final int expectedUpdates) {
        this.s = staging;
        this.routes = new RouteChanges(staging, state, expectedUpdates);
        this.state = state;
        this.setup = state.setup();
        this.knobs = knobs;
        this.l2 = l2;
    }

    void writeDefaultRoute(final boolean v6, final int kind, final int id) {
        final int target;
        if (kind == RouteTarget.NEXT_HOP) {
            if (!nextHopExists(id)) {
                throw s.fail(TableException.Code.NOT_FOUND, "next hop " + id);
            }
            target = RouteTarget.encode(kind, id);
        } else if (kind == RouteTarget.GROUP) {
            if (!groupExists(id)) {
                throw s.fail(TableException.Code.NOT_FOUND, "group " + id);
            }
            target = RouteTarget.encode(kind, id);
        } else if (kind == RouteTarget.DROP) {
            target = 0;
        } else {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, "a default route forwards or drops");
        }
        routes.defaultRoutes[v6 ? 1 : 0] = target;
        s.update(t -> t.defaultRoute(v6, target));
    }

    private void refuseIfDefaultRouteUses(final int target, final String what) {
        for (int f = 0; f < 2; f++) {
            if (routes.defaultRoutes[f] == target) {
                throw s.fail(
                        TableException.Code.FAILED_PRECONDITION,
                        "the IPv" + (f == 0 ? 4 : 6) + " default route uses " + what);
            }
        }
    }

    /** Whether the route in force for this prefix is config_db's (after this batch's updates so far). */
    public boolean isConfigRoute(final IpPrefix p) {
        return routes.isConfigRoute(p);
    }

    /** Whether the configuration defines this group (after this batch's updates so far). */
    boolean isConfigGroup(final int id) {
        return !removedConfigGroups.contains(id)
                && (stagedConfigGroups.containsKey(id) || state.configGroups.containsKey(id));
    }

    /** Whether the neighbor at this address is config_db's (after this batch's updates so far). */
    public boolean isConfigNeighbor(final IpPrefix address) {
        return !removedConfigNeighbors.contains(address)
                && (stagedConfigNeighbors.containsKey(address) || state.configNeighbors.containsKey(address));
    }

    /** Whether a controller wrote the neighbor at this address (after this batch's updates so far). */
    boolean isControllerNeighbor(final IpPrefix address) {
        return !removedControllerNeighbors.contains(address)
                && (stagedControllerNeighbors.containsKey(address) || state.controllerNeighbors.containsKey(address));
    }

    /** @return whether a next hop exists after this batch's updates so far (config or controller). */
    public boolean nextHopDefined(final int id) {
        return nextHopExists(id);
    }

    private boolean nextHopExists(final int id) {
        return !removedNextHops.contains(id) && (stagedNextHops.containsKey(id) || state.nextHops.containsKey(id));
    }

    private L3State.NextHop nextHop(final int id) {
        return stagedNextHops.containsKey(id) ? stagedNextHops.get(id) : state.nextHops.get(id);
    }

    private boolean controllerGroupExists(final int id) {
        return !removedGroups.contains(id) && (stagedGroups.contains(id) || state.groups.contains(id));
    }

    /** A controller's group or one of the configuration's (STATIC_ROUTE) groups. */
    private boolean groupExists(final int id) {
        return controllerGroupExists(id) || isConfigGroup(id) || protocolGroupExists(id);
    }

    private boolean protocolGroupExists(final int id) {
        return !removedProtocolGroups.contains(id)
                && (stagedProtocolGroups.containsKey(id) || state.protocolGroups.containsKey(id));
    }

    /** @return whether the group exists after this batch's updates so far (for the knobs' checks). */
    public boolean groupDefined(final int id) {
        return groupExists(id);
    }

    private int[] groupMembers(final int id) {
        final L3State.GroupSpec staged = stagedSpecs.get(id);
        final L3State.GroupSpec spec = staged != null ? staged : state.groupSpecs.get(id);
        return spec == null ? new int[0] : spec.nextHops();
    }

    private Integer controllerRifPort(final int rif) {
        if (removedRifs.contains(rif)) {
            return null;
        }
        final Integer staged = stagedRifPorts.get(rif);
        return staged != null ? staged : state.controllerRifPorts.get(rif);
    }

    private boolean rifExists(final int rif) {
        return rif >= 0 && (configRif(rif) != null || controllerRifPort(rif) != null);
    }

    /** The configuration's router interface of that name after this batch's updates so far, or null. */
    public L3State.ConfigRif configRif(final String name) {
        if (removedConfigRifs.contains(name)) {
            return null;
        }
        final L3State.ConfigRif staged = stagedConfigRifs.get(name);
        return staged != null ? staged : state.configRifs.get(name);
    }

    /** The configuration's router interface with that id after this batch's updates so far, or null. */
    private L3State.ConfigRif configRif(final int id) {
        for (final L3State.ConfigRif staged : stagedConfigRifs.values()) {
            if (staged.id() == id) {
                return staged;
            }
        }
        final L3State.ConfigRif committed = state.configRifIds.get(id);
        if (committed == null || (removedConfigRifs.isEmpty() && stagedConfigRifs.isEmpty())) {
            return committed;
        }
        return configRif(nameOf(committed)) == committed ? committed : null;
    }

    private String nameOf(final L3State.ConfigRif rif) {
        for (final Map.Entry<String, L3State.ConfigRif> e : state.configRifs.entrySet()) {
            if (e.getValue() == rif) {
                return e.getKey();
            }
        }
        return "";
    }

    /** @return whether a port is routed (a configured or controller router interface) after this batch so far. */
    boolean hasRouterInterface(final int port, final String portName) {
        return state.controllerRifPorts.containsValue(port)
                || stagedRifPorts.containsValue(port)
                || configRif(portName) != null;
    }

    /** The controller's router interface on a port after this batch's updates so far, or null. */
    private Integer controllerRifOn(final int port) {
        for (final int rif : allControllerRifs()) {
            if (controllerRifPort(rif) == port) {
                return rif;
            }
        }
        return null;
    }

    /** Whether a router interface id is free (neither a controller's nor the configuration's, after this batch). */
    public boolean routerInterfaceFree(final int rif) {
        return !rifExists(rif);
    }

    void addNextHop(final int id, final String interfaceName, final IpPrefix address) {
        final L3State.ConfigRif configRif = configRif(interfaceName);
        if (configRif == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "no router interface " + interfaceName);
        }
        final int rif = configRif.id();
        if (id < 0 || id >= state.sizing().maxNextHops()) {
            throw s.fail(
                    TableException.Code.RESOURCE_EXHAUSTED,
                    "next-hop id out of 0.." + state.sizing().maxNextHops());
        }
        if (nextHopExists(id)) {
            throw s.fail(TableException.Code.ALREADY_EXISTS, "next hop " + id);
        }
        stagedNextHops.put(id, new L3State.NextHop(address, rif));
        s.update(t -> t.nextHop(id, address.high(), address.low(), address.v6(), rif));
    }

    void addGroup(
            final int id, final String name, final int[] nextHopIds, final int[] weights, final int[] watchPorts) {
        if (id < setup.groupCount() || id >= state.sizing().maxGroups() || groupExists(id)) {
            throw s.fail(TableException.Code.ALREADY_EXISTS, "group id " + id + " is taken or out of range");
        }
        checkMembers(nextHopIds, weights);
        checkWatchPorts(nextHopIds, watchPorts);
        removedGroups.remove(id);
        stageGroup(id, name, nextHopIds, weights, watchPorts, GroupWriter.CONTROLLER);
        s.counted();
    }

    private void checkMembers(final int[] nextHopIds, final int[] weights) {
        if (nextHopIds.length == 0 || nextHopIds.length != weights.length) {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, "a group needs members with one weight each");
        }
        for (int m = 0; m < nextHopIds.length; m++) {
            if (!nextHopExists(nextHopIds[m])) {
                throw s.fail(TableException.Code.NOT_FOUND, "next hop " + nextHopIds[m]);
            }
            if (weights[m] < 1) {
                throw s.fail(TableException.Code.INVALID_ARGUMENT, "weights must be >= 1");
            }
        }
    }

    private void checkWatchPorts(final int[] nextHopIds, final int[] watchPorts) {
        if (watchPorts == null) {
            return;
        }
        if (watchPorts.length != nextHopIds.length) {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, "one watch port (or -1) per member");
        }
        for (final int port : watchPorts) {
            if (port < -1 || port >= setup.portNames().size()) {
                throw s.fail(TableException.Code.INVALID_ARGUMENT, "no watch port " + port);
            }
        }
    }

    /** Who wrote a group: where its spec is kept and whose port quality it shares. */
    private enum GroupWriter {
        CONFIG,
        CONTROLLER,
        PROTOCOL
    }

    /** Compiles a group's selector from its members (checked), records it as its writer's and stages it. */
    private void stageGroup(
            final int id,
            final String name,
            final int[] nextHopIds,
            final int[] weights,
            final int[] watchPorts,
            final GroupWriter writer) {
        final int[] ports = new int[nextHopIds.length];
        for (int m = 0; m < nextHopIds.length; m++) {
            final L3State.NextHop hop = nextHop(nextHopIds[m]);
            final int port = hop == null ? 0 : routerInterfacePort(hop.rif());
            ports[m] = Math.max(port, 0);
        }
        final GroupSettings settings;
        try {
            settings = knobs.get().groupSettings(setup.flowletConfig().groupSettings(name), id);
        } catch (final RuntimeException e) {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, e.getMessage());
        }
        final int[] members = nextHopIds.clone();
        final int[] w = weights.clone();
        final int[] watch = watchPorts == null ? null : watchPorts.clone();
        switch (writer) {
            case CONFIG -> {
                removedConfigGroups.remove(id);
                stagedConfigGroups.put(id, new L3State.GroupSpec(name, members, w, null));
            }
            case CONTROLLER -> {
                stagedGroups.add(id);
                stagedSpecs.put(id, new L3State.GroupSpec(name, members, w, watch));
            }
            case PROTOCOL -> {
                removedProtocolGroups.remove(id);
                stagedProtocolGroups.put(id, new L3State.GroupSpec(name, members, w, null));
            }
        }
        final PortQuality quality;
        if (settings.mode() != LoadBalanceMode.FLOWLET_QUALITY) {
            quality = null;
        } else if (writer == GroupWriter.CONFIG && setup.tables().portQuality() != null) {
            // the configuration's groups share the switch's port quality, as ConfigCompiler builds them
            quality = setup.tables().portQuality();
        } else {
            quality = new PortQuality(
                    state.sizing().maxPorts(), setup.flowletConfig().qualitySettings());
        }
        final LoadBalanceGroup group =
                new LoadBalanceGroup(settings, ports, w, setup.tables().hashEngine(), quality);
        s.edit(t -> t.group(id, members, group, watch));
    }

    /** The port of a configured or controller router interface (controller ones are known before commit). */
    private int routerInterfacePort(final int rif) {
        final Integer controllerPort = controllerRifPort(rif);
        if (controllerPort != null) {
            return controllerPort;
        }
        final L3State.ConfigRif config = configRif(rif);
        return config != null ? config.port() : 0;
    }

    /**
     * Whether a controller may write the prefix: INSERT where no route is, or where the protocol's is (the
     * controller's entry hides it); MODIFY where the controller's route is, or the configuration's (taking it over).
     */
    private void checkControllerRouteWrite(final IpPrefix prefix, final boolean insert) {
        final boolean exists = routes.route(prefix) != NO_ROUTE && !routes.isProtocolRoute(prefix);
        if (insert && exists && routes.isConfigRoute(prefix)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "route " + prefix + " comes from config_db"
                            + " (INTERFACE or STATIC_ROUTE; config objects are not P4Runtime entries)");
        }
        if (insert == exists) {
            throw s.fail(
                    insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND, "route " + prefix);
        }
    }

    void writeRouteToGroup(final IpPrefix prefix, final int groupId, final boolean insert) {
        checkControllerRouteWrite(prefix, insert);
        if (!groupExists(groupId)) {
            throw s.fail(TableException.Code.NOT_FOUND, "group " + groupId);
        }
        routes.controllerRoute(prefix, RouteTarget.encode(RouteTarget.GROUP, groupId));
        s.counted();
    }

    void writeRoute(final IpPrefix prefix, final int nextHopId, final boolean drop, final boolean insert) {
        checkControllerRouteWrite(prefix, insert);
        if (!drop && !nextHopExists(nextHopId)) {
            throw s.fail(TableException.Code.NOT_FOUND, "next hop " + nextHopId);
        }
        routes.controllerRoute(
                prefix,
                drop ? RouteTarget.encode(RouteTarget.DROP, 0) : RouteTarget.encode(RouteTarget.NEXT_HOP, nextHopId));
        s.counted();
    }

    /** A controller's delete: its own route, or a configuration's it takes over; never the protocol's. */
    void deleteRoute(final IpPrefix prefix) {
        if (routes.route(prefix) == NO_ROUTE || routes.isProtocolRoute(prefix)) {
            throw s.fail(TableException.Code.NOT_FOUND, "route " + prefix);
        }
        routes.deleteControllerRoute(prefix);
    }

    void addNeighbor(final String interfaceName, final IpPrefix address, final long mac) {
        final L3State.ConfigRif configRif = configRif(interfaceName);
        if (configRif == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "no router interface " + interfaceName);
        }
        final int rif = configRif.id();
        controllerNeighbor(address, rif);
        s.update(t -> t.neighbors().put(address.high(), address.low(), address.v6(), mac, rif, true));
    }

    void addNeighbor(final int rif, final IpPrefix address, final long mac) {
        if (!rifExists(rif)) {
            throw s.fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        controllerNeighbor(address, rif);
        s.update(t -> t.neighbors().put(address.high(), address.low(), address.v6(), mac, rif, true));
    }

    /** A controller's write at an address makes the neighbor the controller's (a config one there is replaced). */
    private void controllerNeighbor(final IpPrefix address, final int rif) {
        removedControllerNeighbors.remove(address);
        stagedControllerNeighbors.put(address, rif);
        stagedConfigNeighbors.remove(address);
        removedConfigNeighbors.add(address);
    }

    void removeNeighbor(final IpPrefix address) {
        stagedControllerNeighbors.remove(address);
        removedControllerNeighbors.add(address);
        stagedConfigNeighbors.remove(address);
        removedConfigNeighbors.add(address);
        s.update(t -> t.neighbors().remove(address.high(), address.low(), address.v6()));
    }

    void writeRouterInterface(final int rif, final String portName, final long mac, final boolean insert) {
        final Integer port = setup.portIndex().get(portName);
        if (port == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "no port " + portName);
        }
        if (rif < state.configRouterInterfaceCount() || rif >= state.sizing().maxRouterInterfaces()) {
            throw s.fail(
                    TableException.Code.RESOURCE_EXHAUSTED,
                    "router interface id " + rif + " outside " + state.configRouterInterfaceCount() + ".."
                            + (state.sizing().maxRouterInterfaces() - 1));
        }
        if (l2.isVlanMember(port)) {
            throw s.fail(TableException.Code.FAILED_PRECONDITION, portName + " is a VLAN member, not a routed port");
        }
        final Integer existing = controllerRifPort(rif);
        if (insert == (existing != null)) {
            throw s.fail(
                    insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                    "router interface " + rif);
        }
        if (configRif(rif) != null) {
            // A router interface the configuration added at run time took this id (the highest free one).
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "router interface " + rif + " comes from config_db (INTERFACE or VLAN_INTERFACE; config objects"
                            + " are not P4Runtime entries)");
        }
        if (configRif(portName) != null) {
            // Objects created by config_db are not P4Runtime entries (Read does not show them, MODIFY and DELETE
            // find nothing), so an INSERT meeting one is a precondition failure, not a duplicate.
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    portName + " has a router interface from config_db"
                            + " INTERFACE (config objects are not P4Runtime entries; leave the port out of INTERFACE to manage it"
                            + " here)");
        }
        for (final int other : allControllerRifs()) {
            if (other != rif && port.equals(controllerRifPort(other))) {
                throw s.fail(TableException.Code.ALREADY_EXISTS, portName + " has router interface " + other);
            }
        }
        final int mtu = setup.tables().portMtu(port);
        removedRifs.remove(rif);
        stagedRifPorts.put(rif, port);
        s.update(t -> t.routerInterface(rif, port, mac, mtu));
    }

    private Set<Integer> allControllerRifs() {
        final Set<Integer> all = new HashSet<>(state.controllerRifPorts.keySet());
        all.addAll(stagedRifPorts.keySet());
        all.removeAll(removedRifs);
        return all;
    }

    void removeRouterInterface(final int rif) {
        if (controllerRifPort(rif) == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        for (final int id : allNextHops()) {
            if (nextHop(id) != null && nextHop(id).rif() == rif) {
                throw s.fail(
                        TableException.Code.FAILED_PRECONDITION, "next hop " + id + " uses router interface " + rif);
            }
        }
        stagedRifPorts.remove(rif);
        removedRifs.add(rif);
        s.update(t -> t.removeRouterInterface(rif));
    }

    private Set<Integer> allNextHops() {
        final Set<Integer> all = new HashSet<>(state.nextHops.keySet());
        all.addAll(stagedNextHops.keySet());
        all.removeAll(removedNextHops);
        return all;
    }

    void writeNextHop(final int id, final int rif, final IpPrefix address, final boolean insert) {
        if (id < 0 || id >= state.sizing().maxNextHops()) {
            throw s.fail(
                    TableException.Code.RESOURCE_EXHAUSTED,
                    "next-hop id out of 0.." + state.sizing().maxNextHops());
        }
        if (insert == nextHopExists(id)) {
            throw s.fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND, "next hop " + id);
        }
        if (!rifExists(rif)) {
            throw s.fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        removedNextHops.remove(id);
        stagedNextHops.put(id, new L3State.NextHop(address, rif));
        s.edit(t -> t.nextHop(id, address.high(), address.low(), address.v6(), rif));
        if (!insert) {
            refreshGroupsUsing(id);
        }
        s.counted();
    }

    /** A next hop moved to another interface: groups over it rebuild their member ports. */
    private void refreshGroupsUsing(final int nextHopId) {
        for (final int g : allControllerGroups()) {
            for (final int m : groupMembers(g)) {
                if (m == nextHopId) {
                    final L3State.GroupSpec spec =
                            stagedSpecs.containsKey(g) ? stagedSpecs.get(g) : state.groupSpecs.get(g);
                    if (spec != null) {
                        stageGroup(
                                g,
                                spec.name(),
                                spec.nextHops(),
                                spec.weights(),
                                spec.watchPorts(),
                                GroupWriter.CONTROLLER);
                    }
                    break;
                }
            }
        }
    }

    private Set<Integer> allControllerGroups() {
        final Set<Integer> all = new HashSet<>(state.groups);
        all.addAll(stagedGroups);
        all.removeAll(removedGroups);
        return all;
    }

    public void removeNextHop(final int id) {
        if (!nextHopExists(id)) {
            throw s.fail(TableException.Code.NOT_FOUND, "next hop " + id);
        }
        final int target = RouteTarget.encode(RouteTarget.NEXT_HOP, id);
        for (final Map.Entry<IpPrefix, Integer> r : routes.currentRoutes().entrySet()) {
            if (r.getValue() == target) {
                throw s.fail(TableException.Code.FAILED_PRECONDITION, "route " + r.getKey() + " uses next hop " + id);
            }
        }
        refuseIfDefaultRouteUses(target, "next hop " + id);
        for (final int g : allControllerGroups()) {
            for (final int m : groupMembers(g)) {
                if (m == id) {
                    throw s.fail(TableException.Code.FAILED_PRECONDITION, "group " + g + " uses next hop " + id);
                }
            }
        }
        for (final int g : allConfigGroups()) {
            for (final int m : configGroupSpec(g).nextHops()) {
                if (m == id) {
                    throw s.fail(TableException.Code.FAILED_PRECONDITION, "group " + g + " uses next hop " + id);
                }
            }
        }
        stagedNextHops.remove(id);
        removedNextHops.add(id);
        s.update(t -> t.removeNextHop(id));
    }

    void modifyGroup(
            final int id, final String name, final int[] nextHopIds, final int[] weights, final int[] watchPorts) {
        if (!controllerGroupExists(id)) {
            throw s.fail(TableException.Code.NOT_FOUND, "group " + id);
        }
        checkMembers(nextHopIds, weights);
        checkWatchPorts(nextHopIds, watchPorts);
        stageGroup(id, name, nextHopIds, weights, watchPorts, GroupWriter.CONTROLLER);
        s.counted();
    }

    void removeGroup(final int id) {
        if (!controllerGroupExists(id)) {
            throw s.fail(TableException.Code.NOT_FOUND, "group " + id);
        }
        refuseIfRoutesUseGroup(id);
        stagedGroups.remove(id);
        stagedSpecs.remove(id);
        removedGroups.add(id);
        s.update(t -> t.removeGroup(id));
    }

    void replaceL3Admit(final long[] macs, final long[] masks, final String[] portNames) {
        if (macs.length > ForwardingTables.L3_ADMIT_ENTRIES) {
            throw s.fail(
                    TableException.Code.RESOURCE_EXHAUSTED,
                    macs.length + " L3 admit entries exceed " + ForwardingTables.L3_ADMIT_ENTRIES);
        }
        final int[] ports = new int[portNames.length];
        for (int i = 0; i < ports.length; i++) {
            if (portNames[i] == null) {
                ports[i] = -1;
                continue;
            }
            final Integer index = setup.portIndex().get(portNames[i]);
            if (index == null) {
                throw s.fail(TableException.Code.INVALID_ARGUMENT, "no port " + portNames[i]);
            }
            ports[i] = index;
        }
        final long[] m = macs.clone();
        final long[] k = masks.clone();
        s.update(t -> t.l3Admit(m, k, ports));
    }

    /** @return the groups this batch removes (their written selection modes are forgotten at commit). */
    Set<Integer> removedGroups() {
        Set<Integer> all = removedGroups;
        if (!removedConfigGroups.isEmpty() || !removedProtocolGroups.isEmpty()) {
            all = new HashSet<>(removedGroups);
            all.addAll(removedConfigGroups);
            all.addAll(removedProtocolGroups);
        }
        return all;
    }

    // ---- the configuration's objects: staged by the config side's L3ConfigChanges (a reconfigure's difference) ----

    private Set<Integer> allConfigGroups() {
        final Set<Integer> all = new HashSet<>(state.configGroups.keySet());
        all.addAll(stagedConfigGroups.keySet());
        all.removeAll(removedConfigGroups);
        return all;
    }

    private L3State.GroupSpec configGroupSpec(final int id) {
        final L3State.GroupSpec staged = stagedConfigGroups.get(id);
        return staged != null ? staged : state.configGroups.get(id);
    }

    /** Defines a configuration's next hop at an id the config side's L3ConfigChanges chose (free on both sides). */
    public void configNextHop(final int id, final int rif, final IpPrefix address) {
        if (id < 0 || id >= state.sizing().maxNextHops() || nextHopExists(id)) {
            throw s.fail(TableException.Code.RESOURCE_EXHAUSTED, "next-hop id " + id + " is taken or out of range");
        }
        if (!rifExists(rif)) {
            throw s.fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        removedNextHops.remove(id);
        stagedNextHops.put(id, new L3State.NextHop(address, rif));
        s.update(t -> t.nextHop(id, address.high(), address.low(), address.v6(), rif));
    }

    /** Defines a configuration's group (members and weights fixed: another member set is another group). */
    public void configGroup(final int id, final String name, final int[] nextHopIds, final int[] weights) {
        if (id < 0 || id >= state.sizing().maxGroups() || groupExists(id)) {
            throw s.fail(TableException.Code.RESOURCE_EXHAUSTED, "group id " + id + " is taken or out of range");
        }
        checkMembers(nextHopIds, weights);
        stageGroup(id, name, nextHopIds, weights, null, GroupWriter.CONFIG);
        s.counted();
    }

    /** Refuses removing group {@code id} while a route (the default route included) uses it. */
    private void refuseIfRoutesUseGroup(final int id) {
        final int target = RouteTarget.encode(RouteTarget.GROUP, id);
        for (final Map.Entry<IpPrefix, Integer> r : routes.currentRoutes().entrySet()) {
            if (r.getValue() == target) {
                throw s.fail(TableException.Code.FAILED_PRECONDITION, "route " + r.getKey() + " uses group " + id);
            }
        }
        refuseIfDefaultRouteUses(target, "group " + id);
    }

    /** Removes a configuration's group; refused while a route uses it. */
    public void removeConfigGroup(final int id) {
        if (!isConfigGroup(id)) {
            throw s.fail(TableException.Code.NOT_FOUND, "group " + id);
        }
        refuseIfRoutesUseGroup(id);
        stagedConfigGroups.remove(id);
        removedConfigGroups.add(id);
        s.update(t -> t.removeGroup(id));
    }

    /**
     * Inserts or changes a configuration's route (any {@link RouteTarget} kind); refused when a controller wrote a
     * route for the same prefix: config_db never replaces a controller's entry.
     */
    public void configRoute(final IpPrefix prefix, final int value) {
        if (routes.isControllerRoute(prefix)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "route " + prefix + " was written by a controller (P4Runtime); delete it there first");
        }
        final int kind = RouteTarget.kind(value);
        final int id = RouteTarget.id(value);
        if (kind == RouteTarget.NEXT_HOP && !nextHopExists(id)) {
            throw s.fail(TableException.Code.NOT_FOUND, "next hop " + id);
        }
        if (kind == RouteTarget.GROUP && !groupExists(id)) {
            throw s.fail(TableException.Code.NOT_FOUND, "group " + id);
        }
        routes.configRoute(prefix, value);
        s.counted();
    }

    /** Deletes a configuration's route. */
    public void deleteConfigRoute(final IpPrefix prefix) {
        if (!isConfigRoute(prefix)) {
            throw s.fail(TableException.Code.NOT_FOUND, "config route " + prefix);
        }
        routes.deleteConfigRoute(prefix);
    }

    /**
     * Adds or changes a configuration's neighbor; refused when a controller wrote the neighbor at that address.
     */
    public void configNeighbor(final int rif, final IpPrefix address, final long mac) {
        if (isControllerNeighbor(address)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "neighbor " + address + " was written by a controller (P4Runtime); delete it there first");
        }
        if (!rifExists(rif)) {
            throw s.fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        removedConfigNeighbors.remove(address);
        stagedConfigNeighbors.put(address, new L3State.ConfigNeighbor(rif, mac));
        s.update(t -> t.neighbors().put(address.high(), address.low(), address.v6(), mac, rif, true));
    }

    /** Removes a configuration's neighbor. */
    public void removeConfigNeighbor(final IpPrefix address) {
        if (!isConfigNeighbor(address)) {
            throw s.fail(TableException.Code.NOT_FOUND, "config neighbor " + address);
        }
        stagedConfigNeighbors.remove(address);
        removedConfigNeighbors.add(address);
        s.update(t -> t.neighbors().remove(address.high(), address.low(), address.v6()));
    }

    // ---- the configuration's router interfaces: staged by the config side's RouterInterfaceConfigChanges ----

    /**
     * Adds a configuration's router interface (INTERFACE on a port, VLAN_INTERFACE on a VLAN) at an id free on both
     * sides, or changes the addresses of one it has; refused where a controller routes the port or made it a VLAN
     * member (config_db never replaces a controller's object).
     *
     * @param name the interface (EthernetN or VlanN).
     * @param id the pipeline id (the interface's own when it exists).
     * @param port its port, or {@link ForwardingTables#NONE}.
     * @param vlan its VLAN, or {@link ForwardingTables#NONE}.
     * @param mac the router MAC.
     * @param mtu its MTU.
     * @param v4 its IPv4 address (the ARP source), or null.
     * @param v6 its IPv6 address (the ND source), or null.
     */
    public void configRouterInterface(
            final String name,
            final int id,
            final int port,
            final int vlan,
            final long mac,
            final int mtu,
            final IpPrefix v4,
            final IpPrefix v6) {
        final L3State.ConfigRif existing = configRif(name);
        if (existing == null) {
            if (id < 0 || id >= state.sizing().maxRouterInterfaces() || rifExists(id)) {
                throw s.fail(
                        TableException.Code.RESOURCE_EXHAUSTED,
                        "router interface id " + id + " is taken or out of range");
            }
            if (port != ForwardingTables.NONE) {
                final Integer controller = controllerRifOn(port);
                if (controller != null) {
                    throw s.fail(
                            TableException.Code.FAILED_PRECONDITION,
                            name + " has router interface " + controller
                                    + " written by a controller (P4Runtime); delete it there first");
                }
                if (l2.isControllerVlanMember(port)) {
                    throw s.fail(
                            TableException.Code.FAILED_PRECONDITION,
                            name + " is a member of a VLAN a controller (P4Runtime) wrote; delete it there first");
                }
            }
            removedConfigRifs.remove(name);
            stagedConfigRifs.put(name, new L3State.ConfigRif(id, port, vlan));
            s.edit(t -> t.routerInterface(id, port, vlan, mac, mtu));
        } else if (existing.id() != id) {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, name + " is router interface " + existing.id());
        }
        s.update(t -> {
            t.clearRouterInterfaceAddresses(id);
            if (v4 != null) {
                t.routerInterfaceAddress(id, v4.high(), v4.low(), false);
            }
            if (v6 != null) {
                t.routerInterfaceAddress(id, v6.high(), v6.low(), true);
            }
        });
        if (v4 != null && port != ForwardingTables.NONE) {
            announcements.add(port);
        }
    }

    /**
     * Removes a configuration's router interface; refused while a next hop, a neighbor written by a controller or a
     * route still uses it. The neighbors the switch learned on it go with it.
     *
     * @param name the interface.
     */
    public void removeConfigRouterInterface(final String name) {
        final L3State.ConfigRif rif = configRif(name);
        if (rif == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "config router interface " + name);
        }
        final int id = rif.id();
        for (final int hop : allNextHops()) {
            if (nextHop(hop) != null && nextHop(hop).rif() == id) {
                throw s.fail(
                        TableException.Code.FAILED_PRECONDITION,
                        "next hop " + hop + " (" + nextHop(hop).address() + ") uses router interface " + name);
            }
        }
        final Map<IpPrefix, Integer> controllerNeighbors = new HashMap<>(state.controllerNeighbors);
        controllerNeighbors.keySet().removeAll(removedControllerNeighbors);
        controllerNeighbors.putAll(stagedControllerNeighbors);
        for (final Map.Entry<IpPrefix, Integer> n : controllerNeighbors.entrySet()) {
            if (n.getValue() == id) {
                throw s.fail(
                        TableException.Code.FAILED_PRECONDITION,
                        "neighbor " + n.getKey() + " on " + name
                                + " was written by a controller (P4Runtime); delete it there first");
            }
        }
        final int connected = RouteTarget.encode(RouteTarget.CONNECTED, id);
        for (final Map.Entry<IpPrefix, Integer> r : routes.currentRoutes().entrySet()) {
            if (r.getValue() == connected) {
                throw s.fail(TableException.Code.FAILED_PRECONDITION, "route " + r.getKey() + " uses " + name);
            }
        }
        stagedConfigRifs.remove(name);
        removedConfigRifs.add(name);
        s.update(t -> {
            final List<IpPrefix> learned = new ArrayList<>();
            t.neighbors().forEach((high, low, v6, mac, neighborRif, isStatic) -> {
                if (neighborRif == id && !isStatic) {
                    learned.add(new IpPrefix(v6, high, low, v6 ? 128 : 32));
                }
            });
            for (final IpPrefix n : learned) {
                t.neighbors().remove(n.high(), n.low(), n.v6());
            }
            t.removeRouterInterface(id);
        });
    }

    // ---- the routing protocol's objects: staged by ProtocolChanges ----

    /** @return the batch's routes (the protocol's routes are staged there too). */
    RouteChanges routes() {
        return routes;
    }

    /**
     * The router interface a protocol's next hop names: the configuration's interface of that name (INTERFACE,
     * VLAN_INTERFACE), else a controller's router interface on the port of that name; -1 if neither.
     */
    int routerInterfaceNamed(final String name) {
        final L3State.ConfigRif config = configRif(name);
        if (config != null) {
            return config.id();
        }
        final Integer port = setup.portIndex().get(name);
        final Integer controller = port == null ? null : controllerRifOn(port);
        return controller == null ? -1 : controller;
    }

    /** @return the highest free next-hop id above the start-up configuration's (-1 if none is free). */
    int freeNextHopId() {
        for (int id = state.sizing().maxNextHops() - 1; id >= setup.nextHopCount(); id--) {
            if (!nextHopExists(id)) {
                return id;
            }
        }
        return -1;
    }

    /** @return the highest free group id above the start-up configuration's (-1 if none is free). */
    int freeGroupId() {
        for (int id = state.sizing().maxGroups() - 1; id >= setup.groupCount(); id--) {
            if (!groupExists(id)) {
                return id;
            }
        }
        return -1;
    }

    /** Defines a protocol's next hop at a free id (only the protocol's routes and groups will use it). */
    void protocolNextHop(final int id, final int rif, final IpPrefix address) {
        removedNextHops.remove(id);
        stagedNextHops.put(id, new L3State.NextHop(address, rif));
        s.edit(t -> t.nextHop(id, address.high(), address.low(), address.v6(), rif));
    }

    /** Removes a protocol's next hop no protocol route or group uses any more. */
    void removeProtocolNextHop(final int id) {
        stagedNextHops.remove(id);
        removedNextHops.add(id);
        s.edit(t -> t.removeNextHop(id));
    }

    /** Defines a protocol's group at a free id over its next hops. */
    void protocolGroup(final int id, final String name, final int[] nextHopIds, final int[] weights) {
        checkMembers(nextHopIds, weights);
        stageGroup(id, name, nextHopIds, weights, null, GroupWriter.PROTOCOL);
    }

    /** Removes a protocol's group no protocol route uses any more. */
    void removeProtocolGroup(final int id) {
        stagedProtocolGroups.remove(id);
        removedProtocolGroups.add(id);
        s.edit(t -> t.removeGroup(id));
    }

    /** @return ports whose interface got an IPv4 address in this batch (announced once it is applied). */
    List<Integer> announcements() {
        return List.copyOf(announcements);
    }

    /** Records the staged L3 changes in the committed state. */
    void commit() {
        routes.commit();
        state.nextHops.keySet().removeAll(removedNextHops);
        state.nextHops.putAll(stagedNextHops);
        state.groups.removeAll(removedGroups);
        state.groupSpecs.keySet().removeAll(removedGroups);
        state.groups.addAll(stagedGroups);
        state.groupSpecs.putAll(stagedSpecs);
        state.controllerRifPorts.keySet().removeAll(removedRifs);
        state.controllerRifPorts.putAll(stagedRifPorts);
        state.configGroups.keySet().removeAll(removedConfigGroups);
        state.configGroups.putAll(stagedConfigGroups);
        state.protocolGroups.keySet().removeAll(removedProtocolGroups);
        state.protocolGroups.putAll(stagedProtocolGroups);
        state.configNeighbors.keySet().removeAll(removedConfigNeighbors);
        state.configNeighbors.putAll(stagedConfigNeighbors);
        state.controllerNeighbors.keySet().removeAll(removedControllerNeighbors);
        state.controllerNeighbors.putAll(stagedControllerNeighbors);
        for (final String name : removedConfigRifs) {
            final L3State.ConfigRif gone = state.configRifs.remove(name);
            if (gone != null) {
                state.configRifIds.remove(gone.id());
            }
        }
        stagedConfigRifs.forEach((name, rif) -> {
            final L3State.ConfigRif before = state.configRifs.put(name, rif);
            if (before != null) {
                state.configRifIds.remove(before.id());
            }
            state.configRifIds.put(rif.id(), rif);
        });
    }
}
