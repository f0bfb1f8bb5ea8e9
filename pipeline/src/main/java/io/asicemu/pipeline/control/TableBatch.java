package io.asicemu.pipeline.control;

import io.asicemu.pipeline.DataPlaneAgent;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One atomic batch of table updates (a P4Runtime Write, a CLI edit): routes, next hops and neighbors. Each update is
 * validated against the current model plus the earlier updates of the same batch; {@link #commit()} either applies
 * all of them, as one command the data plane takes between packet batches, or throws a {@link TableException} for
 * the first bad update and applies nothing.
 * <p>
 * Not thread safe: built and committed by one control thread.
 */
public final class TableBatch {
    private final PipelineControl control;
    private final Map<IpPrefix, Integer> stagedRoutes = new HashMap<>();
    private final Set<IpPrefix> removedRoutes = new HashSet<>();
    private final java.util.BitSet stagedLengths4 = new java.util.BitSet(33);
    private final java.util.BitSet stagedLengths6 = new java.util.BitSet(129);
    private final Map<Integer, NextHop> stagedNextHops = new HashMap<>();
    private final Set<Integer> stagedGroups = new HashSet<>();
    private final Map<Integer, GroupSpec> stagedSpecs = new HashMap<>();
    private final Set<Integer> removedNextHops = new HashSet<>();
    private final Set<Integer> removedGroups = new HashSet<>();
    private final Map<Integer, Integer> stagedRifPorts = new HashMap<>();
    private final Set<Integer> removedRifs = new HashSet<>();
    private String[] stagedAclNames;
    private final List<Consumer<ForwardingTables>> edits = new ArrayList<>();
    private int updates;

    /** A next hop as the control model keeps it. */
    record NextHop(IpPrefix address, int rif) {
    }

    /**
     * A controller's group as the control model keeps it (to rebuild it when a member next hop moves);
     * {@code watchPorts} null when no member watches a port.
     */
    record GroupSpec(String name, int[] nextHops, int[] weights, int[] watchPorts) {
    }

    TableBatch(final PipelineControl control) {
        this.control = control;
    }

    private Integer route(final IpPrefix p) {
        if (removedRoutes.contains(p)) {
            return null;
        }
        final Integer staged = stagedRoutes.get(p);
        return staged != null ? staged : control.routes().get(p);
    }

    private boolean nextHopExists(final int id) {
        return !removedNextHops.contains(id)
            && (stagedNextHops.containsKey(id) || control.nextHops().containsKey(id));
    }

    private NextHop nextHop(final int id) {
        return stagedNextHops.containsKey(id) ? stagedNextHops.get(id) : control.nextHops().get(id);
    }

    private boolean controllerGroupExists(final int id) {
        return !removedGroups.contains(id) && (stagedGroups.contains(id) || control.groups().contains(id));
    }

    private int[] groupMembers(final int id) {
        final GroupSpec staged = stagedSpecs.get(id);
        final GroupSpec spec = staged != null ? staged : control.groupSpecs().get(id);
        return spec == null ? new int[0] : spec.nextHops();
    }

    private Integer controllerRifPort(final int rif) {
        if (removedRifs.contains(rif)) {
            return null;
        }
        final Integer staged = stagedRifPorts.get(rif);
        return staged != null ? staged : control.controllerRifPorts().get(rif);
    }

    private boolean rifExists(final int rif) {
        return rif >= 0 && (rif < control.configRouterInterfaceCount() || controllerRifPort(rif) != null);
    }

    /** Every route of the model after this batch's updates so far. */
    private Map<IpPrefix, Integer> currentRoutes() {
        final Map<IpPrefix, Integer> all = new HashMap<>(control.routes());
        all.keySet().removeAll(removedRoutes);
        all.putAll(stagedRoutes);
        return all;
    }

    private TableException fail(final TableException.Code code, final String message) {
        return new TableException(code, updates, message);
    }

    /**
     * Defines a next hop: an address reached through a router interface.
     *
     * @param id the next-hop id (P4Runtime action parameter), unique.
     * @param interfaceName {@code EthernetN} or {@code VlanN} with a router interface.
     * @param address the next hop's address.
     * @return this.
     */
    public TableBatch addNextHop(final int id, final String interfaceName, final IpPrefix address) {
        final Integer rif = control.compiled().routerInterfaces().get(interfaceName);
        if (rif == null) {
            throw fail(TableException.Code.NOT_FOUND, "no router interface " + interfaceName);
        }
        if (id < 0 || id >= control.sizing().maxNextHops()) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED,
                "next-hop id out of 0.." + control.sizing().maxNextHops());
        }
        if (nextHopExists(id)) {
            throw fail(TableException.Code.ALREADY_EXISTS, "next hop " + id);
        }
        final NextHop hop = new NextHop(address, rif);
        stagedNextHops.put(id, hop);
        edits.add(t -> t.nextHop(id, address.high(), address.low(), address.v6(), rif));
        updates++;
        return this;
    }

    /**
     * Defines an ECMP/WCMP group over next hops; members are chosen per packet by the ars-flowlet engine with the
     * settings its config gives the group's name ({@code ARS_NEXTHOP_GROUP}, else the switch's {@code ecmp_lb_mode}).
     *
     * @param id the group id (not used by the configuration's STATIC_ROUTE groups).
     * @param name the group's name for ARS settings.
     * @param nextHopIds member next hops (defined earlier, or in this batch).
     * @param weights member weights, 1 or more each.
     * @return this.
     */
    public TableBatch addGroup(final int id, final String name, final int[] nextHopIds, final int[] weights) {
        return addGroup(id, name, nextHopIds, weights, null);
    }

    /**
     * Defines a group whose members may each watch a port (P4Runtime {@code watch_port}): a member takes traffic only
     * while its egress port and its watch port are up.
     *
     * @param id the group id.
     * @param name the group's name for ARS settings.
     * @param nextHopIds member next hops (defined earlier, or in this batch).
     * @param weights member weights, 1 or more each.
     * @param watchPorts per member a port index or -1 (none); null: no member watches a port.
     * @return this.
     */
    public TableBatch addGroup(final int id, final String name, final int[] nextHopIds, final int[] weights,
        final int[] watchPorts) {
        if (id < control.compiled().groupCount() || id >= control.sizing().maxGroups() || controllerGroupExists(id)) {
            throw fail(TableException.Code.ALREADY_EXISTS, "group id " + id + " is taken or out of range");
        }
        checkMembers(nextHopIds, weights);
        checkWatchPorts(nextHopIds, watchPorts);
        removedGroups.remove(id);
        stageGroup(id, name, nextHopIds, weights, watchPorts);
        updates++;
        return this;
    }

    private void checkMembers(final int[] nextHopIds, final int[] weights) {
        if (nextHopIds.length == 0 || nextHopIds.length != weights.length) {
            throw fail(TableException.Code.INVALID_ARGUMENT, "a group needs members with one weight each");
        }
        for (int m = 0; m < nextHopIds.length; m++) {
            if (!nextHopExists(nextHopIds[m])) {
                throw fail(TableException.Code.NOT_FOUND, "next hop " + nextHopIds[m]);
            }
            if (weights[m] < 1) {
                throw fail(TableException.Code.INVALID_ARGUMENT, "weights must be >= 1");
            }
        }
    }

    private void checkWatchPorts(final int[] nextHopIds, final int[] watchPorts) {
        if (watchPorts == null) {
            return;
        }
        if (watchPorts.length != nextHopIds.length) {
            throw fail(TableException.Code.INVALID_ARGUMENT, "one watch port (or -1) per member");
        }
        for (final int port : watchPorts) {
            if (port < -1 || port >= control.portNames().size()) {
                throw fail(TableException.Code.INVALID_ARGUMENT, "no watch port " + port);
            }
        }
    }

    /** Compiles a group's selector from its members (checked) and stages it. */
    private void stageGroup(final int id, final String name, final int[] nextHopIds, final int[] weights,
        final int[] watchPorts) {
        final int[] ports = new int[nextHopIds.length];
        for (int m = 0; m < nextHopIds.length; m++) {
            final NextHop hop = nextHop(nextHopIds[m]);
            final int port = hop == null ? 0 : routerInterfacePort(hop.rif());
            ports[m] = Math.max(port, 0);
        }
        final io.asicemu.flowlet.GroupSettings settings;
        try {
            settings = control.compiled().flowletConfig().groupSettings(name);
        } catch (final RuntimeException e) {
            throw fail(TableException.Code.INVALID_ARGUMENT, e.getMessage());
        }
        final int[] members = nextHopIds.clone();
        final int[] w = weights.clone();
        final int[] watch = watchPorts == null ? null : watchPorts.clone();
        stagedGroups.add(id);
        stagedSpecs.put(id, new GroupSpec(name, members, w, watch));
        final io.asicemu.flowlet.LoadBalanceGroup group = new io.asicemu.flowlet.LoadBalanceGroup(settings, ports, w,
            control.compiled().tables().hashEngine(),
            settings.mode() == io.asicemu.flowlet.ecmp.LoadBalanceMode.FLOWLET_QUALITY
                ? new io.asicemu.flowlet.ars.PortQuality(control.sizing().maxPorts(),
                    control.compiled().flowletConfig().qualitySettings()) : null);
        edits.add(t -> t.group(id, members, group, watch));
    }

    /** The port of a configured or controller router interface (controller ones are known before commit). */
    private int routerInterfacePort(final int rif) {
        final Integer controllerPort = controllerRifPort(rif);
        if (controllerPort != null) {
            return controllerPort;
        }
        return rif < control.configRouterInterfaceCount() ? control.compiled().tables().routerInterfacePort(rif) : 0;
    }

    /**
     * Inserts or modifies a route through a group.
     *
     * @param prefix the prefix.
     * @param groupId the group.
     * @param insert true: must not exist; false: must exist.
     * @return this.
     */
    public TableBatch writeRouteToGroup(final IpPrefix prefix, final int groupId, final boolean insert) {
        final Integer existing = route(prefix);
        if (insert == (existing != null)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                "route " + prefix);
        }
        if (!controllerGroupExists(groupId) && !(groupId >= 0 && groupId < control.compiled().groupCount())) {
            throw fail(TableException.Code.NOT_FOUND, "group " + groupId);
        }
        final int value = RouteTarget.encode(RouteTarget.GROUP, groupId);
        removedRoutes.remove(prefix);
        stageRoute(prefix, value);
        edits.add(t -> t.lpm(prefix.v6()).add(prefix.high(), prefix.low(), prefix.length(), value));
        updates++;
        return this;
    }

    /**
     * Inserts or modifies a route.
     *
     * @param prefix the prefix.
     * @param nextHopId the next hop, or -1 with {@code drop} true for a blackhole.
     * @param drop whether the route drops.
     * @param insert true: must not exist; false: must exist.
     * @return this.
     */
    public TableBatch writeRoute(final IpPrefix prefix, final int nextHopId, final boolean drop,
        final boolean insert) {
        final Integer existing = route(prefix);
        if (insert && existing != null) {
            throw fail(TableException.Code.ALREADY_EXISTS, "route " + prefix);
        }
        if (!insert && existing == null) {
            throw fail(TableException.Code.NOT_FOUND, "route " + prefix);
        }
        if (!drop && !nextHopExists(nextHopId)) {
            throw fail(TableException.Code.NOT_FOUND, "next hop " + nextHopId);
        }
        final int value = drop ? RouteTarget.encode(RouteTarget.DROP, 0)
            : RouteTarget.encode(RouteTarget.NEXT_HOP, nextHopId);
        removedRoutes.remove(prefix);
        stageRoute(prefix, value);
        edits.add(t -> t.lpm(prefix.v6()).add(prefix.high(), prefix.low(), prefix.length(), value));
        updates++;
        return this;
    }

    private void stageRoute(final IpPrefix prefix, final int value) {
        stagedRoutes.put(prefix, value);
        (prefix.v6() ? stagedLengths6 : stagedLengths4).set(prefix.length());
    }

    /** @return whether a route of this length may exist (in the model or staged by this batch). */
    private boolean lengthInUse(final boolean v6, final int length) {
        return control.routeLengthCount(v6, length) > 0 || (v6 ? stagedLengths6 : stagedLengths4).get(length);
    }

    /**
     * Deletes a route; addresses under it fall back to the longest shorter prefix.
     *
     * @param prefix the prefix.
     * @return this.
     */
    public TableBatch deleteRoute(final IpPrefix prefix) {
        if (route(prefix) == null) {
            throw fail(TableException.Code.NOT_FOUND, "route " + prefix);
        }
        stagedRoutes.remove(prefix);
        removedRoutes.add(prefix);
        int coverLength = -1;
        int coverValue = 0;
        for (int l = prefix.length() - 1; l >= 0; l--) {
            if (!lengthInUse(prefix.v6(), l)) {
                continue;
            }
            final Integer cover = route(prefix.truncate(l));
            if (cover != null) {
                coverLength = l;
                coverValue = cover;
                break;
            }
        }
        final int length = coverLength;
        final int value = coverValue;
        edits.add(t -> t.lpm(prefix.v6()).delete(prefix.high(), prefix.low(), prefix.length(), length, value));
        updates++;
        return this;
    }

    /**
     * Adds or replaces a static neighbor.
     *
     * @param interfaceName the router interface it sits behind.
     * @param address its address.
     * @param mac its MAC.
     * @return this.
     */
    public TableBatch addNeighbor(final String interfaceName, final IpPrefix address, final long mac) {
        final Integer rif = control.compiled().routerInterfaces().get(interfaceName);
        if (rif == null) {
            throw fail(TableException.Code.NOT_FOUND, "no router interface " + interfaceName);
        }
        edits.add(t -> t.neighbors().put(address.high(), address.low(), address.v6(), mac, rif, true));
        updates++;
        return this;
    }

    /**
     * Removes a neighbor.
     *
     * @param address its address.
     * @return this.
     */
    public TableBatch removeNeighbor(final IpPrefix address) {
        edits.add(t -> t.neighbors().remove(address.high(), address.low(), address.v6()));
        updates++;
        return this;
    }

    /**
     * Adds a static FDB entry (never aged, never moved by learning).
     *
     * @param vlanId the VLAN (must exist).
     * @param mac the MAC.
     * @param portName the SONiC port.
     * @return this.
     */
    public TableBatch addStaticFdb(final int vlanId, final long mac, final String portName) {
        final Integer port = control.compiled().portIndex().get(portName);
        if (port == null) {
            throw fail(TableException.Code.NOT_FOUND, "no port " + portName);
        }
        if (vlanId < 1 || vlanId > 4094 || !control.compiled().tables().vlanExists(vlanId)) {
            throw fail(TableException.Code.NOT_FOUND, "no VLAN " + vlanId);
        }
        edits.add(t -> t.fdb().putStatic(vlanId, mac, port));
        updates++;
        return this;
    }

    /**
     * Removes an FDB entry, static or learned.
     *
     * @param vlanId the VLAN.
     * @param mac the MAC.
     * @return this.
     */
    public TableBatch removeFdb(final int vlanId, final long mac) {
        edits.add(t -> t.fdb().remove(vlanId, mac));
        updates++;
        return this;
    }

    /**
     * Adds or replaces a port router interface chosen by a controller (P4Runtime's router_interface_table): the port
     * routes frames sent to {@code mac} and routed frames leave it with {@code mac} as source.
     *
     * @param rif the interface id, at or above {@link PipelineControl#configRouterInterfaceCount()}.
     * @param portName the SONiC port, without another router interface.
     * @param mac the interface MAC.
     * @param insert true: must not exist; false: must exist (a modify).
     * @return this.
     */
    public TableBatch writeRouterInterface(final int rif, final String portName, final long mac,
        final boolean insert) {
        final Integer port = control.compiled().portIndex().get(portName);
        if (port == null) {
            throw fail(TableException.Code.NOT_FOUND, "no port " + portName);
        }
        if (rif < control.configRouterInterfaceCount() || rif >= control.sizing().maxRouterInterfaces()) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED, "router interface id " + rif + " outside "
                + control.configRouterInterfaceCount() + ".." + (control.sizing().maxRouterInterfaces() - 1));
        }
        final Integer existing = controllerRifPort(rif);
        if (insert == (existing != null)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                "router interface " + rif);
        }
        if (control.compiled().tables().portRouterInterface(port) != io.asicemu.pipeline.table.ForwardingTables.NONE
            && control.compiled().routerInterfaces().containsKey(portName)) {
            throw fail(TableException.Code.ALREADY_EXISTS, portName + " has a configured router interface");
        }
        for (final int other : allControllerRifs()) {
            if (other != rif && port.equals(controllerRifPort(other))) {
                throw fail(TableException.Code.ALREADY_EXISTS, portName + " has router interface " + other);
            }
        }
        final int mtu = control.compiled().tables().portMtu(port);
        removedRifs.remove(rif);
        stagedRifPorts.put(rif, port);
        edits.add(t -> t.routerInterface(rif, port, mac, mtu));
        updates++;
        return this;
    }

    private Set<Integer> allControllerRifs() {
        final Set<Integer> all = new HashSet<>(control.controllerRifPorts().keySet());
        all.addAll(stagedRifPorts.keySet());
        all.removeAll(removedRifs);
        return all;
    }

    /**
     * Removes a controller's router interface; refused while a next hop uses it.
     *
     * @param rif the interface id.
     * @return this.
     */
    public TableBatch removeRouterInterface(final int rif) {
        if (controllerRifPort(rif) == null) {
            throw fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        for (final int id : allNextHops()) {
            if (nextHop(id) != null && nextHop(id).rif() == rif) {
                throw fail(TableException.Code.FAILED_PRECONDITION, "next hop " + id + " uses router interface "
                    + rif);
            }
        }
        stagedRifPorts.remove(rif);
        removedRifs.add(rif);
        edits.add(t -> t.removeRouterInterface(rif));
        updates++;
        return this;
    }

    private Set<Integer> allNextHops() {
        final Set<Integer> all = new HashSet<>(control.nextHops().keySet());
        all.addAll(stagedNextHops.keySet());
        all.removeAll(removedNextHops);
        return all;
    }

    /**
     * Defines or modifies a next hop on a router interface given by id (configured or a controller's).
     *
     * @param id the next-hop id.
     * @param rif the router interface id.
     * @param address the next hop's address (its neighbor entry gives the MAC).
     * @param insert true: must not exist; false: must exist.
     * @return this.
     */
    public TableBatch writeNextHop(final int id, final int rif, final IpPrefix address, final boolean insert) {
        if (id < 0 || id >= control.sizing().maxNextHops()) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED,
                "next-hop id out of 0.." + control.sizing().maxNextHops());
        }
        if (insert == nextHopExists(id)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND, "next hop " + id);
        }
        if (!rifExists(rif)) {
            throw fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        removedNextHops.remove(id);
        stagedNextHops.put(id, new NextHop(address, rif));
        edits.add(t -> t.nextHop(id, address.high(), address.low(), address.v6(), rif));
        if (!insert) {
            refreshGroupsUsing(id);
        }
        updates++;
        return this;
    }

    /** A next hop moved to another interface: groups over it rebuild their member ports. */
    private void refreshGroupsUsing(final int nextHopId) {
        for (final int g : allControllerGroups()) {
            final int[] members = groupMembers(g);
            for (final int m : members) {
                if (m == nextHopId) {
                    final GroupSpec spec = stagedSpecs.containsKey(g) ? stagedSpecs.get(g)
                        : control.groupSpecs().get(g);
                    if (spec != null) {
                        stageGroup(g, spec.name(), spec.nextHops(), spec.weights(), spec.watchPorts());
                    }
                    break;
                }
            }
        }
    }

    private Set<Integer> allControllerGroups() {
        final Set<Integer> all = new HashSet<>(control.groups());
        all.addAll(stagedGroups);
        all.removeAll(removedGroups);
        return all;
    }

    /**
     * Removes a next hop; refused while a route or group uses it.
     *
     * @param id the next-hop id.
     * @return this.
     */
    public TableBatch removeNextHop(final int id) {
        if (!nextHopExists(id)) {
            throw fail(TableException.Code.NOT_FOUND, "next hop " + id);
        }
        final int target = RouteTarget.encode(RouteTarget.NEXT_HOP, id);
        for (final Map.Entry<IpPrefix, Integer> r : currentRoutes().entrySet()) {
            if (r.getValue() == target) {
                throw fail(TableException.Code.FAILED_PRECONDITION, "route " + r.getKey() + " uses next hop " + id);
            }
        }
        for (final int g : allControllerGroups()) {
            for (final int m : groupMembers(g)) {
                if (m == id) {
                    throw fail(TableException.Code.FAILED_PRECONDITION, "group " + g + " uses next hop " + id);
                }
            }
        }
        stagedNextHops.remove(id);
        removedNextHops.add(id);
        edits.add(t -> t.removeNextHop(id));
        updates++;
        return this;
    }

    /**
     * Replaces the members and weights of a group added by {@link #addGroup}.
     *
     * @param id the group id.
     * @param name the group's name for ARS settings.
     * @param nextHopIds member next hops.
     * @param weights member weights, 1 or more each.
     * @return this.
     */
    public TableBatch modifyGroup(final int id, final String name, final int[] nextHopIds, final int[] weights) {
        return modifyGroup(id, name, nextHopIds, weights, null);
    }

    /**
     * Replaces the members, weights and watch ports of a group added by {@link #addGroup}.
     *
     * @param id the group id.
     * @param name the group's name for ARS settings.
     * @param nextHopIds member next hops.
     * @param weights member weights, 1 or more each.
     * @param watchPorts per member a port index or -1 (none); null: no member watches a port.
     * @return this.
     */
    public TableBatch modifyGroup(final int id, final String name, final int[] nextHopIds, final int[] weights,
        final int[] watchPorts) {
        if (!controllerGroupExists(id)) {
            throw fail(TableException.Code.NOT_FOUND, "group " + id);
        }
        checkMembers(nextHopIds, weights);
        checkWatchPorts(nextHopIds, watchPorts);
        stageGroup(id, name, nextHopIds, weights, watchPorts);
        updates++;
        return this;
    }

    /**
     * Removes a group added by {@link #addGroup}; refused while a route uses it.
     *
     * @param id the group id.
     * @return this.
     */
    public TableBatch removeGroup(final int id) {
        if (!controllerGroupExists(id)) {
            throw fail(TableException.Code.NOT_FOUND, "group " + id);
        }
        final int target = RouteTarget.encode(RouteTarget.GROUP, id);
        for (final Map.Entry<IpPrefix, Integer> r : currentRoutes().entrySet()) {
            if (r.getValue() == target) {
                throw fail(TableException.Code.FAILED_PRECONDITION, "route " + r.getKey() + " uses group " + id);
            }
        }
        stagedGroups.remove(id);
        stagedSpecs.remove(id);
        removedGroups.add(id);
        edits.add(t -> t.removeGroup(id));
        updates++;
        return this;
    }

    /**
     * Adds or replaces a static neighbor behind a router interface given by id.
     *
     * @param rif the router interface id (configured or a controller's).
     * @param address its address.
     * @param mac its MAC.
     * @return this.
     */
    public TableBatch addNeighbor(final int rif, final IpPrefix address, final long mac) {
        if (!rifExists(rif)) {
            throw fail(TableException.Code.NOT_FOUND, "router interface " + rif);
        }
        edits.add(t -> t.neighbors().put(address.high(), address.low(), address.v6(), mac, rif, true));
        updates++;
        return this;
    }

    /**
     * Replaces the whole ingress ACL inside this batch (so the ACL changes with the routes, atomically); rule order
     * by priority, ACL counters restart.
     *
     * @param rules the rules (port indexes in {@link io.asicemu.pipeline.table.AclRule#inPorts}).
     * @return this.
     */
    public TableBatch replaceAcl(final List<io.asicemu.pipeline.table.AclRule> rules) {
        if (rules.size() > control.sizing().aclRules()) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED, rules.size() + " rules exceed "
                + control.sizing().aclRules());
        }
        final io.asicemu.pipeline.table.AclTable table = new io.asicemu.pipeline.table.AclTable(rules);
        stagedAclNames = table.names();
        edits.add(t -> t.acl(table));
        updates++;
        return this;
    }

    /** @return updates so far. */
    public int size() {
        return updates;
    }

    /**
     * Applies the batch as one data-plane command and records it in the model.
     *
     * @return the command's sequence number (see {@link PipelineControl#awaitApplied}).
     */
    public long commit() {
        for (final IpPrefix p : removedRoutes) {
            if (control.routes().remove(p) != null) {
                control.countRoute(p, -1);
            }
        }
        for (final Map.Entry<IpPrefix, Integer> r : stagedRoutes.entrySet()) {
            if (control.routes().put(r.getKey(), r.getValue()) == null) {
                control.countRoute(r.getKey(), 1);
            }
        }
        control.nextHops().keySet().removeAll(removedNextHops);
        control.nextHops().putAll(stagedNextHops);
        control.groups().removeAll(removedGroups);
        control.groupSpecs().keySet().removeAll(removedGroups);
        control.groups().addAll(stagedGroups);
        control.groupSpecs().putAll(stagedSpecs);
        control.controllerRifPorts().keySet().removeAll(removedRifs);
        control.controllerRifPorts().putAll(stagedRifPorts);
        if (stagedAclNames != null) {
            control.aclNames(stagedAclNames);
        }
        final List<Consumer<ForwardingTables>> all = List.copyOf(edits);
        return control.submit((DataPlaneAgent agent) -> {
            final ForwardingTables t = agent.tables();
            for (final Consumer<ForwardingTables> edit : all) {
                edit.accept(t);
            }
        });
    }
}
