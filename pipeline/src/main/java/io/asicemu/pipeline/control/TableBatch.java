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
 * One atomic batch of table updates (a P4Runtime Write, a CLI edit): routes, next hops and neighbors; VLANs, VLAN
 * members, static FDB entries and multicast groups. Each update is
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
    private final Map<IpPrefix, Integer> stagedSlots = new HashMap<>();
    private final Set<IpPrefix> releasedSlots = new HashSet<>();
    private final java.util.ArrayDeque<Integer> batchFreeSlots = new java.util.ArrayDeque<>();
    private int reservedSlots;
    private final int[] defaultRoutes;
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
    private L2Model stagedL2;
    private String[] stagedEgressAclNames;
    private final List<Consumer<ForwardingTables>> edits = new ArrayList<>();
    private final Map<Long, Long> stagedKnobs = new java.util.LinkedHashMap<>();
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
        this.defaultRoutes = control.defaultRoutes().clone();
    }

    /**
     * Sets what packets that match no route do (P4Runtime's default entry of ipv4_table / ipv6_table): forward to a
     * next hop or through a group, or drop as an LPM miss. A more specific route, a /0 included, still wins.
     *
     * @param v6 the family.
     * @param kind {@link RouteTarget#NEXT_HOP}, {@link RouteTarget#GROUP} or {@link RouteTarget#DROP}.
     * @param id the next hop or group (ignored for DROP).
     * @return this.
     */
    public TableBatch writeDefaultRoute(final boolean v6, final int kind, final int id) {
        final int target;
        if (kind == RouteTarget.NEXT_HOP) {
            if (!nextHopExists(id)) {
                throw fail(TableException.Code.NOT_FOUND, "next hop " + id);
            }
            target = RouteTarget.encode(kind, id);
        } else if (kind == RouteTarget.GROUP) {
            if (!controllerGroupExists(id) && !(id >= 0 && id < control.compiled().groupCount())) {
                throw fail(TableException.Code.NOT_FOUND, "group " + id);
            }
            target = RouteTarget.encode(kind, id);
        } else if (kind == RouteTarget.DROP) {
            target = 0;
        } else {
            throw fail(TableException.Code.INVALID_ARGUMENT, "a default route forwards or drops");
        }
        defaultRoutes[v6 ? 1 : 0] = target;
        edits.add(t -> t.defaultRoute(v6, target));
        updates++;
        return this;
    }

    private void refuseIfDefaultRouteUses(final int target, final String what) {
        for (int f = 0; f < 2; f++) {
            if (defaultRoutes[f] == target) {
                throw fail(TableException.Code.FAILED_PRECONDITION, "the IPv" + (f == 0 ? 4 : 6)
                    + " default route uses " + what);
            }
        }
    }

    /** Whether the route in force for this prefix is still the one config_db created. */
    private boolean isConfigRoute(final IpPrefix p, final int target) {
        final Integer configured = control.compiled().routes().get(p);
        return configured != null && configured == target;
    }

    private Integer route(final IpPrefix p) {
        if (removedRoutes.contains(p)) {
            return null;
        }
        final Integer staged = stagedRoutes.get(p);
        return staged != null ? staged : control.routes().get(p);
    }

    /** @return the route's slot after this batch's updates so far, 0 if it has none. */
    private int slotOf(final IpPrefix p) {
        final Integer staged = stagedSlots.get(p);
        if (staged != null) {
            return staged;
        }
        return releasedSlots.contains(p) ? 0 : control.routeSlots().slot(p);
    }

    /** Gives a route a slot (its own if it has one, else the next free one) and stages the data-plane edit. */
    private void stageRoute(final IpPrefix prefix, final int value) {
        int slot = slotOf(prefix);
        if (slot == 0) {
            // Slots freed earlier in this batch first (so delete-then-insert fits a full table), then new ones.
            if (!batchFreeSlots.isEmpty()) {
                slot = batchFreeSlots.pop();
            } else {
                slot = control.routeSlots().peekFree(reservedSlots);
                if (slot == 0) {
                    throw fail(TableException.Code.RESOURCE_EXHAUSTED, "route table full ("
                        + control.routeSlots().capacity() + " routes)");
                }
                reservedSlots++;
            }
            stagedSlots.put(prefix, slot);
        }
        removedRoutes.remove(prefix);
        stagedRoutes.put(prefix, value);
        (prefix.v6() ? stagedLengths6 : stagedLengths4).set(prefix.length());
        final int routeSlot = slot;
        edits.add(t -> t.route(prefix, routeSlot, value));
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
            settings = control.runtimeKnobs().groupSettings(control.compiled().flowletConfig().groupSettings(name), id);
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
        stageRoute(prefix, RouteTarget.encode(RouteTarget.GROUP, groupId));
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
        if (insert && existing != null && !stagedRoutes.containsKey(prefix) && isConfigRoute(prefix, existing)) {
            throw fail(TableException.Code.FAILED_PRECONDITION, "route " + prefix + " comes from config_db"
                + " (INTERFACE or STATIC_ROUTE; config objects are not P4Runtime entries)");
        }
        if (insert && existing != null) {
            throw fail(TableException.Code.ALREADY_EXISTS, "route " + prefix);
        }
        if (!insert && existing == null) {
            throw fail(TableException.Code.NOT_FOUND, "route " + prefix);
        }
        if (!drop && !nextHopExists(nextHopId)) {
            throw fail(TableException.Code.NOT_FOUND, "next hop " + nextHopId);
        }
        stageRoute(prefix, drop ? RouteTarget.encode(RouteTarget.DROP, 0)
            : RouteTarget.encode(RouteTarget.NEXT_HOP, nextHopId));
        updates++;
        return this;
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
        final int slot = slotOf(prefix);
        if (stagedSlots.remove(prefix) == null) {
            releasedSlots.add(prefix);
        }
        batchFreeSlots.push(slot);
        stagedRoutes.remove(prefix);
        removedRoutes.add(prefix);
        int coverLength = -1;
        int coverSlot = 0;
        for (int l = prefix.length() - 1; l >= 0; l--) {
            if (!lengthInUse(prefix.v6(), l)) {
                continue;
            }
            final IpPrefix cover = prefix.truncate(l);
            if (route(cover) != null) {
                coverLength = l;
                coverSlot = slotOf(cover);
                break;
            }
        }
        final int length = coverLength;
        final int cover = coverSlot;
        edits.add(t -> t.deleteRoute(prefix, slot, length, cover));
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

    /** This batch's copy of the L2 model (made on the first L2 update). */
    private L2Model l2() {
        if (stagedL2 == null) {
            stagedL2 = control.l2().copy();
        }
        return stagedL2;
    }

    private int portOf(final String portName) {
        final Integer port = control.compiled().portIndex().get(portName);
        if (port == null) {
            throw fail(TableException.Code.NOT_FOUND, "no port " + portName);
        }
        return port;
    }

    private void requireVlan(final L2Model m, final int vlanId) {
        if (vlanId < 1 || vlanId > 4094 || !m.vlans.containsKey(vlanId)) {
            throw fail(TableException.Code.NOT_FOUND, "no VLAN " + vlanId);
        }
    }

    /**
     * Adds or replaces a static FDB entry (never aged, never moved by learning).
     *
     * @param vlanId the VLAN (must exist, in the model or earlier in this batch).
     * @param mac the MAC.
     * @param portName the SONiC port.
     * @return this.
     */
    public TableBatch addStaticFdb(final int vlanId, final long mac, final String portName) {
        return stageStaticFdb(vlanId, mac, portOf(portName));
    }

    private TableBatch stageStaticFdb(final int vlanId, final long mac, final int port) {
        final L2Model m = l2();
        requireVlan(m, vlanId);
        final long key = io.asicemu.pipeline.table.FdbTable.key(vlanId, mac);
        if (!m.staticFdb.containsKey(key) && m.staticFdb.size() >= control.sizing().fdbEntries()) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED, "the FDB holds " + control.sizing().fdbEntries());
        }
        m.staticFdb.put(key, port);
        edits.add(t -> t.fdb().putStatic(vlanId, mac, port));
        updates++;
        return this;
    }

    /**
     * Adds or replaces a static FDB entry whose action is drop: frames bridged or routed to this MAC in this VLAN are
     * discarded ({@code SAI_IN_DROP_REASON_FDB_AND_BLACKHOLE_DISCARDS}).
     *
     * @param vlanId the VLAN.
     * @param mac the MAC.
     * @return this.
     */
    public TableBatch addStaticFdbDrop(final int vlanId, final long mac) {
        return stageStaticFdb(vlanId, mac, io.asicemu.pipeline.table.FdbTable.DROP_PORT);
    }

    /**
     * Sets what bridged unicast frames to a MAC the FDB does not know do (P4Runtime's l2_fdb_table default entry).
     *
     * @param drop true: drop them ({@code SAI_IN_DROP_REASON_FDB_AND_BLACKHOLE_DISCARDS}); false: flood (default).
     * @return this.
     */
    public TableBatch dropUnknownUnicast(final boolean drop) {
        edits.add(t -> t.dropUnknownUnicast(drop));
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
        l2().staticFdb.remove(io.asicemu.pipeline.table.FdbTable.key(vlanId, mac));
        edits.add(t -> t.fdb().remove(vlanId, mac));
        updates++;
        return this;
    }

    /**
     * Creates a VLAN, or with {@code insert} false changes its flood group.
     *
     * @param vlanId 1..4094.
     * @param multicastGroupId the multicast group its unknown unicast, broadcast and multicast frames replicate to
     *                         (must exist), or 0 to flood to the VLAN's members.
     * @param insert true: must not exist; false: must exist.
     * @return this.
     */
    public TableBatch writeVlan(final int vlanId, final int multicastGroupId, final boolean insert) {
        final L2Model m = l2();
        checkVlanWrite(m, vlanId, insert);
        final int slot;
        if (multicastGroupId == 0) {
            slot = 0;
        } else {
            final Integer s = m.multicastSlots.get(multicastGroupId);
            if (s == null) {
                throw fail(TableException.Code.NOT_FOUND, "no multicast group " + multicastGroupId);
            }
            slot = s;
        }
        return stageVlan(m, vlanId, multicastGroupId, slot, false);
    }

    private void checkVlanWrite(final L2Model m, final int vlanId, final boolean insert) {
        if (vlanId < 1 || vlanId > 4094) {
            throw fail(TableException.Code.INVALID_ARGUMENT, "VLAN ids are 1..4094, not " + vlanId);
        }
        if (insert == m.vlans.containsKey(vlanId)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                "VLAN " + vlanId);
        }
    }

    private TableBatch stageVlan(final L2Model m, final int vlanId, final int multicastGroupId, final int floodSlot,
        final boolean drop) {
        m.vlans.put(vlanId, multicastGroupId);
        edits.add(t -> {
            t.addVlan(vlanId);
            t.vlanFloodSlot(vlanId, floodSlot);
            t.vlanDrop(vlanId, drop);
        });
        updates++;
        return this;
    }

    /**
     * Creates (or, with {@code insert} false, changes) a controller VLAN whose frames are dropped at ingress
     * (P4Runtime's vlan_table entry with the drop action); members and FDB entries may still be set up in it.
     *
     * @param vlanId 1..4094.
     * @param insert true: must not exist; false: must exist.
     * @return this.
     */
    public TableBatch writeVlanDrop(final int vlanId, final boolean insert) {
        final L2Model m = l2();
        checkVlanWrite(m, vlanId, insert);
        return stageVlan(m, vlanId, 0, 0, true);
    }

    /**
     * Removes a VLAN created by {@link #writeVlan}; refused while it has members or static FDB entries, or when the
     * configuration defines it. Its learned FDB entries go with it.
     *
     * @param vlanId the VLAN.
     * @return this.
     */
    public TableBatch removeVlan(final int vlanId) {
        final L2Model m = l2();
        requireVlan(m, vlanId);
        if (m.configVlans.contains(vlanId)) {
            throw fail(TableException.Code.FAILED_PRECONDITION, "VLAN " + vlanId + " is defined by the configuration");
        }
        if (m.hasMembers(vlanId) || m.hasStaticFdb(vlanId)) {
            throw fail(TableException.Code.FAILED_PRECONDITION, "VLAN " + vlanId
                + " still has members or static FDB entries");
        }
        m.vlans.remove(vlanId);
        edits.add(t -> t.removeVlan(vlanId));
        updates++;
        return this;
    }

    /**
     * Makes a port a member of a VLAN, or with {@code insert} false changes its tagging. A port has at most one
     * untagged VLAN (its PVID) and a port with a router interface is routed, not bridged.
     *
     * @param vlanId the VLAN (must exist).
     * @param portName the SONiC port.
     * @param tagged whether it sends and expects 802.1Q-tagged frames in this VLAN.
     * @param insert true: must not be a member; false: must be one.
     * @return this.
     */
    public TableBatch writeVlanMember(final int vlanId, final String portName, final boolean tagged,
        final boolean insert) {
        final int port = portOf(portName);
        final L2Model m = l2();
        requireVlan(m, vlanId);
        final long key = L2Model.memberKey(vlanId, port);
        if (insert == m.members.containsKey(key)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                portName + " in VLAN " + vlanId);
        }
        final Integer pvid = m.untagged.get(port);
        if (!tagged && pvid != null && pvid != vlanId) {
            throw fail(TableException.Code.FAILED_PRECONDITION, portName + " is already an untagged member of VLAN "
                + pvid);
        }
        if (control.controllerRifPorts().containsValue(port) || stagedRifPorts.containsValue(port)
            || control.compiled().routerInterfaces().containsKey(portName)) {
            throw fail(TableException.Code.FAILED_PRECONDITION, portName + " has a router interface");
        }
        m.members.put(key, tagged);
        if (tagged) {
            m.untagged.remove(port, vlanId);
        } else {
            m.untagged.put(port, vlanId);
        }
        edits.add(t -> {
            if (tagged && t.portPvid(port) == vlanId) {
                t.removeVlanMember(vlanId, port); // untagged → tagged: the port loses its PVID
            }
            t.addVlanMember(vlanId, port, tagged);
        });
        updates++;
        return this;
    }

    /**
     * Takes a port out of a VLAN; the MACs learned on it in that VLAN are forgotten.
     *
     * @param vlanId the VLAN.
     * @param portName the SONiC port.
     * @return this.
     */
    public TableBatch removeVlanMember(final int vlanId, final String portName) {
        final int port = portOf(portName);
        final L2Model m = l2();
        if (m.members.remove(L2Model.memberKey(vlanId, port)) == null) {
            throw fail(TableException.Code.NOT_FOUND, portName + " in VLAN " + vlanId);
        }
        m.untagged.remove(port, vlanId);
        edits.add(t -> t.removeVlanMember(vlanId, port));
        updates++;
        return this;
    }

    /**
     * Creates or replaces a multicast group of the replication engine: one copy of a frame per replica port.
     *
     * @param groupId the group id (1 or more).
     * @param portNames the replica ports (a port may appear more than once: one copy each).
     * @param insert true: must not exist; false: must exist.
     * @return this.
     */
    public TableBatch writeMulticastGroup(final int groupId, final List<String> portNames, final boolean insert) {
        if (groupId < 1) {
            throw fail(TableException.Code.INVALID_ARGUMENT, "multicast group ids start at 1");
        }
        final int[] ports = new int[portNames.size()];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = portOf(portNames.get(i));
        }
        final L2Model m = l2();
        final Integer existing = m.multicastSlots.get(groupId);
        if (insert == (existing != null)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                "multicast group " + groupId);
        }
        final int slot = existing != null ? existing : m.freeSlot();
        if (slot < 0) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED, "the pipeline holds "
                + (io.asicemu.pipeline.table.ForwardingTables.MULTICAST_SLOTS - 1) + " multicast groups");
        }
        m.multicastSlots.put(groupId, slot);
        m.multicastPorts.put(groupId, ports);
        edits.add(t -> t.multicastGroup(slot, ports));
        updates++;
        return this;
    }

    /**
     * Removes a multicast group; refused while a VLAN floods to it.
     *
     * @param groupId the group id.
     * @return this.
     */
    public TableBatch removeMulticastGroup(final int groupId) {
        final L2Model m = l2();
        final Integer slot = m.multicastSlots.get(groupId);
        if (slot == null) {
            throw fail(TableException.Code.NOT_FOUND, "multicast group " + groupId);
        }
        for (final Map.Entry<Integer, Integer> vlan : m.vlans.entrySet()) {
            if (vlan.getValue() == groupId) {
                throw fail(TableException.Code.FAILED_PRECONDITION, "VLAN " + vlan.getKey()
                    + " floods to multicast group " + groupId);
            }
        }
        m.multicastSlots.remove(groupId);
        m.multicastPorts.remove(groupId);
        final int s = slot;
        edits.add(t -> t.multicastGroup(s, null));
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
        if (isVlanMember(port)) {
            throw fail(TableException.Code.FAILED_PRECONDITION, portName + " is a VLAN member, not a routed port");
        }
        final Integer existing = controllerRifPort(rif);
        if (insert == (existing != null)) {
            throw fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                "router interface " + rif);
        }
        if (control.compiled().tables().portRouterInterface(port) != io.asicemu.pipeline.table.ForwardingTables.NONE
            && control.compiled().routerInterfaces().containsKey(portName)) {
            // Objects created by config_db are not P4Runtime entries (Read does not show them, MODIFY and DELETE
            // find nothing), so an INSERT meeting one is a precondition failure, not a duplicate.
            throw fail(TableException.Code.FAILED_PRECONDITION, portName + " has a router interface from config_db"
                + " INTERFACE (config objects are not P4Runtime entries; leave the port out of INTERFACE to manage it"
                + " here)");
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

    private boolean isVlanMember(final int port) {
        final L2Model m = stagedL2 != null ? stagedL2 : control.l2();
        for (final long key : m.members.keySet()) {
            if ((int) key == port) {
                return true;
            }
        }
        return false;
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
        refuseIfDefaultRouteUses(target, "next hop " + id);
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
        refuseIfDefaultRouteUses(target, "group " + id);
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

    /**
     * Replaces the whole egress ACL inside this batch (atomically with the other updates); rule order by priority,
     * egress ACL counters restart.
     *
     * @param rules the rules (port indexes in {@link io.asicemu.pipeline.table.AclEgressRule#outPorts}).
     * @return this.
     */
    public TableBatch replaceEgressAcl(final List<io.asicemu.pipeline.table.AclEgressRule> rules) {
        if (rules.size() > control.sizing().aclRules()) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED, rules.size() + " egress rules exceed "
                + control.sizing().aclRules());
        }
        final io.asicemu.pipeline.table.AclEgressTable table = new io.asicemu.pipeline.table.AclEgressTable(rules);
        stagedEgressAclNames = table.names();
        edits.add(t -> t.egressAcl(table));
        updates++;
        return this;
    }

    /**
     * Changes a runtime setting (a P4Runtime register or QoS map entry, see {@link RuntimeKnob}) without touching
     * any table: the traffic manager, the ars-flowlet groups or the QoS maps take it in this batch's command.
     * Validated against {@link PipelineControl#runtimeKnobs()} plus this batch's earlier changes (so a batch raising
     * both ECN thresholds sets the max first).
     *
     * @param knob the setting.
     * @param index its index ({@link RuntimeKnob}).
     * @param value the new value.
     * @return this.
     * @throws TableException INVALID_ARGUMENT for an index or value out of range, FAILED_PRECONDITION when the
     *     port/PG has nothing to tune (no BUFFER_PG profile, no PFC_WD entry).
     */
    public TableBatch setKnob(final RuntimeKnob knob, final int index, final long value) {
        control.runtimeKnobs().check(knob, index, value, stagedKnobs, stagedGroups, updates);
        stagedKnobs.put(RuntimeKnobs.key(knob, index), value);
        updates++;
        return this;
    }

    /**
     * Replaces every clone (mirror) session inside this batch; ACL mirror rules find theirs by id.
     *
     * @param sessions session id → ports and truncation.
     * @return this.
     */
    public TableBatch replaceMirrorSessions(
        final Map<Integer, io.asicemu.pipeline.table.AclMirrorSessions.Session> sessions) {
        for (final Map.Entry<Integer, io.asicemu.pipeline.table.AclMirrorSessions.Session> e : sessions.entrySet()) {
            for (final int port : e.getValue().ports()) {
                if (port < 0 || port >= control.sizing().maxPorts()) {
                    throw fail(TableException.Code.INVALID_ARGUMENT, "mirror session " + e.getKey() + ": no port "
                        + port);
                }
            }
        }
        final io.asicemu.pipeline.table.AclMirrorSessions table =
            new io.asicemu.pipeline.table.AclMirrorSessions(sessions);
        edits.add(t -> t.mirrorSessions(table));
        updates++;
        return this;
    }

    /**
     * Sets the CoPP meters (packets per second, one per CPU queue) inside this batch; their buckets start full.
     *
     * @param configs one per CPU queue ({@link ForwardingTables#CPU_QUEUES}); null: that queue is not policed.
     * @return this.
     */
    public TableBatch coppMeters(final io.asicemu.pipeline.table.AclMeterConfig[] configs) {
        if (configs.length != ForwardingTables.CPU_QUEUES) {
            throw fail(TableException.Code.INVALID_ARGUMENT, "one CoPP meter per CPU queue ("
                + ForwardingTables.CPU_QUEUES + ")");
        }
        final io.asicemu.pipeline.table.AclMeters meters = new io.asicemu.pipeline.table.AclMeters(configs, true);
        edits.add(t -> t.coppMeters(meters));
        updates++;
        return this;
    }

    /**
     * WRED/ECN thresholds and Pmax of an egress queue (all colours), as one update each.
     *
     * @param port the port index.
     * @param queue 0..7.
     * @param minBytes Kmin.
     * @param maxBytes Kmax (0 = maximum buffer size).
     * @param probPercent Pmax 0..100.
     * @return this.
     */
    public TableBatch setWred(final int port, final int queue, final long minBytes, final long maxBytes,
        final int probPercent) {
        final int i = port * 8 + queue;
        if (maxBytes != 0 && maxBytes < control.runtimeKnobs().value(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, i)) {
            setKnob(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, i, minBytes);
            setKnob(RuntimeKnob.ECN_MAX_THRESHOLD_BYTES, i, maxBytes);
        } else {
            setKnob(RuntimeKnob.ECN_MAX_THRESHOLD_BYTES, i, maxBytes);
            setKnob(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, i, minBytes);
        }
        return setKnob(RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT, i, probPercent);
    }

    /**
     * PFC xoff (headroom) and xon of an ingress PG.
     *
     * @param port the port index.
     * @param pg 0..7.
     * @param xoffBytes xoff.
     * @param xonBytes xon.
     * @return this.
     */
    public TableBatch setPfcThresholds(final int port, final int pg, final long xoffBytes, final long xonBytes) {
        setKnob(RuntimeKnob.PFC_XOFF_BYTES, port * 8 + pg, xoffBytes);
        return setKnob(RuntimeKnob.PFC_XON_BYTES, port * 8 + pg, xonBytes);
    }

    /**
     * Replaces the L3 admit entries inside this batch: frames to a matching destination MAC (masked; on one port or
     * any) are routed on a port or VLAN that has a router interface, besides frames to the interface's own MAC.
     *
     * @param macs destination MACs.
     * @param masks their masks.
     * @param portNames the port of each entry, or null for any port.
     * @return this.
     */
    public TableBatch replaceL3Admit(final long[] macs, final long[] masks, final String[] portNames) {
        if (macs.length > ForwardingTables.L3_ADMIT_ENTRIES) {
            throw fail(TableException.Code.RESOURCE_EXHAUSTED, macs.length + " L3 admit entries exceed "
                + ForwardingTables.L3_ADMIT_ENTRIES);
        }
        final int[] ports = new int[portNames.length];
        for (int i = 0; i < ports.length; i++) {
            if (portNames[i] == null) {
                ports[i] = -1;
                continue;
            }
            final Integer index = control.compiled().portIndex().get(portNames[i]);
            if (index == null) {
                throw fail(TableException.Code.INVALID_ARGUMENT, "no port " + portNames[i]);
            }
            ports[i] = index;
        }
        final long[] m = macs.clone();
        final long[] k = masks.clone();
        edits.add(t -> t.l3Admit(m, k, ports));
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
        control.routeSlots().commit(reservedSlots, stagedSlots, releasedSlots, batchFreeSlots);
        System.arraycopy(defaultRoutes, 0, control.defaultRoutes(), 0, 2);
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
        if (stagedL2 != null) {
            control.l2(stagedL2);
        }
        final boolean egressAclReplaced = stagedEgressAclNames != null;
        if (egressAclReplaced) {
            control.egressAclNames(stagedEgressAclNames);
        }
        final List<Consumer<ForwardingTables>> all = List.copyOf(edits);
        control.runtimeKnobs().groupsRemoved(removedGroups);
        final List<Consumer<DataPlaneAgent>> knobEdits = control.runtimeKnobs().commit(stagedKnobs);
        return control.submit((DataPlaneAgent agent) -> {
            final ForwardingTables t = agent.tables();
            for (final Consumer<ForwardingTables> edit : all) {
                edit.accept(t);
            }
            if (egressAclReplaced) {
                agent.counters().resetEgressAcl();
            }
            for (final Consumer<DataPlaneAgent> edit : knobEdits) {
                edit.accept(agent);
            }
        });
    }
}
