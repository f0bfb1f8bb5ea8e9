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
    private final Map<Integer, NextHop> stagedNextHops = new HashMap<>();
    private final Set<Integer> stagedGroups = new HashSet<>();
    private final List<Consumer<ForwardingTables>> edits = new ArrayList<>();
    private int updates;

    /** A next hop as the control model keeps it. */
    record NextHop(IpPrefix address, int rif) {
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
        return stagedNextHops.containsKey(id) || control.nextHops().containsKey(id);
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
        if (id < control.compiled().groupCount() || id >= control.sizing().maxGroups() || stagedGroups.contains(id)
            || control.groups().contains(id)) {
            throw fail(TableException.Code.ALREADY_EXISTS, "group id " + id + " is taken or out of range");
        }
        if (nextHopIds.length == 0 || nextHopIds.length != weights.length) {
            throw fail(TableException.Code.INVALID_ARGUMENT, "a group needs members with one weight each");
        }
        final int[] ports = new int[nextHopIds.length];
        for (int m = 0; m < nextHopIds.length; m++) {
            if (!nextHopExists(nextHopIds[m])) {
                throw fail(TableException.Code.NOT_FOUND, "next hop " + nextHopIds[m]);
            }
            if (weights[m] < 1) {
                throw fail(TableException.Code.INVALID_ARGUMENT, "weights must be >= 1");
            }
            final NextHop hop = stagedNextHops.containsKey(nextHopIds[m]) ? stagedNextHops.get(nextHopIds[m])
                : control.nextHops().get(nextHopIds[m]);
            final int port = hop == null ? 0 : control.compiled().tables().routerInterfacePort(hop.rif());
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
        stagedGroups.add(id);
        final io.asicemu.flowlet.LoadBalanceGroup group = new io.asicemu.flowlet.LoadBalanceGroup(settings, ports, w,
            control.compiled().tables().hashEngine(),
            settings.mode() == io.asicemu.flowlet.ecmp.LoadBalanceMode.FLOWLET_QUALITY
                ? new io.asicemu.flowlet.ars.PortQuality(control.sizing().maxPorts(),
                    control.compiled().flowletConfig().qualitySettings()) : null);
        edits.add(t -> t.group(id, members, group));
        updates++;
        return this;
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
        if (!stagedGroups.contains(groupId) && !control.groups().contains(groupId)
            && !(groupId >= 0 && groupId < control.compiled().groupCount())) {
            throw fail(TableException.Code.NOT_FOUND, "group " + groupId);
        }
        final int value = RouteTarget.encode(RouteTarget.GROUP, groupId);
        removedRoutes.remove(prefix);
        stagedRoutes.put(prefix, value);
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
        stagedRoutes.put(prefix, value);
        edits.add(t -> t.lpm(prefix.v6()).add(prefix.high(), prefix.low(), prefix.length(), value));
        updates++;
        return this;
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
        control.routes().keySet().removeAll(removedRoutes);
        control.routes().putAll(stagedRoutes);
        control.nextHops().putAll(stagedNextHops);
        control.groups().addAll(stagedGroups);
        final List<Consumer<ForwardingTables>> all = List.copyOf(edits);
        return control.submit((DataPlaneAgent agent) -> {
            final ForwardingTables t = agent.tables();
            for (final Consumer<ForwardingTables> edit : all) {
                edit.accept(t);
            }
        });
    }
}
