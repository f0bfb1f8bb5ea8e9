package io.asicemu.pipeline.control;

import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.dataplane.DataPlaneCommand;
import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclMirrorSessions;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * One atomic batch of control changes (a P4Runtime Write, a CLI edit), coordinated across the parts of the control
 * model that own them: {@link L3Changes} (routes, next hops, groups, neighbors, router interfaces, L3 admit),
 * {@link L2Changes} (VLANs, members, static FDB, multicast groups), {@link AclChanges} (ACLs, mirror sessions, CoPP
 * meters) and {@link KnobChanges} (TM/ARS knobs, QoS map entries). Each update is validated by its part against the
 * committed model plus the earlier updates of the same batch; {@link #commit()} records every part's changes and
 * submits all data-plane edits as one command the data plane takes between packet batches. A refused update throws
 * a {@link TableException} naming it, and a batch that is not committed changes nothing.
 * <p>
 * Not thread safe: built and committed by one control thread.
 */
public final class TableBatch {
    private final Staging staging;
    private final L3Changes l3;
    private final ProtocolChanges protocol;
    private final L2Changes l2;
    private final AclChanges acl;
    private final KnobChanges knobs;
    private final ToLongFunction<DataPlaneCommand> submit;
    private final Runnable knobsCommitted;

    TableBatch(
            final L3State l3State,
            final L2State l2State,
            final AclState aclState,
            final RuntimeKnobs knobModel,
            final ToLongFunction<DataPlaneCommand> submit,
            final Runnable knobsCommitted,
            final int expectedUpdates) {
        this.staging = new Staging(expectedUpdates);
        this.l2 = new L2Changes(staging, l2State, l3State.setup(), l3State.sizing());
        this.l3 = new L3Changes(staging, l3State, () -> knobModel, l2, expectedUpdates);
        this.l2.l3(l3);
        this.protocol = new ProtocolChanges(staging, l3State, l3);
        this.acl = new AclChanges(staging, aclState, l3State.sizing());
        this.knobs = new KnobChanges(staging, knobModel, l3);
        this.submit = submit;
        this.knobsCommitted = knobsCommitted;
    }

    // ---- the routing protocol ({@link ProtocolChanges}) ----

    /**
     * Sets the routing protocol's route for a prefix (the routing stack's choice, as SONiC's route table receives
     * it), replacing the one it had. The protocol names next hops by address and interface; the model keeps one
     * pipeline next hop per distinct next hop and one group per distinct weighted set, shared by the routes using
     * them. The route is in force unless a controller wrote the prefix; it hides a configuration's route for the same
     * prefix until it is withdrawn.
     *
     * @param prefix the prefix.
     * @param nextHops none for a blackhole, one without an address for a directly connected route, else gateways.
     * @return this.
     * @throws TableException NOT_FOUND for an interface with no router interface, INVALID_ARGUMENT for a bad next-hop
     *     list, RESOURCE_EXHAUSTED when a table is full.
     */
    public TableBatch protocolRoute(final IpPrefix prefix, final List<ProtocolNextHop> nextHops) {
        protocol.route(prefix, List.copyOf(nextHops));
        return this;
    }

    /**
     * Withdraws the routing protocol's route for a prefix: the configuration's route for it is in force again, if it
     * has one.
     *
     * @param prefix the prefix.
     * @return this.
     * @throws TableException NOT_FOUND when the protocol has no route for it.
     */
    public TableBatch withdrawProtocolRoute(final IpPrefix prefix) {
        protocol.withdraw(prefix);
        return this;
    }

    // ---- L3 ({@link L3Changes}) ----

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
        l3.writeDefaultRoute(v6, kind, id);
        return this;
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
        l3.addNextHop(id, interfaceName, address);
        return this;
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
        l3.writeNextHop(id, rif, address, insert);
        return this;
    }

    /**
     * Removes a next hop; refused while a route, a group or a default route uses it.
     *
     * @param id the next-hop id.
     * @return this.
     */
    public TableBatch removeNextHop(final int id) {
        l3.removeNextHop(id);
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
    public TableBatch addGroup(
            final int id, final String name, final int[] nextHopIds, final int[] weights, final int[] watchPorts) {
        l3.addGroup(id, name, nextHopIds, weights, watchPorts);
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
    public TableBatch modifyGroup(
            final int id, final String name, final int[] nextHopIds, final int[] weights, final int[] watchPorts) {
        l3.modifyGroup(id, name, nextHopIds, weights, watchPorts);
        return this;
    }

    /**
     * Removes a group added by {@link #addGroup}; refused while a route or a default route uses it.
     *
     * @param id the group id.
     * @return this.
     */
    public TableBatch removeGroup(final int id) {
        l3.removeGroup(id);
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
        l3.writeRouteToGroup(prefix, groupId, insert);
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
    public TableBatch writeRoute(final IpPrefix prefix, final int nextHopId, final boolean drop, final boolean insert) {
        l3.writeRoute(prefix, nextHopId, drop, insert);
        return this;
    }

    /**
     * Deletes a route; addresses under it fall back to the longest shorter prefix.
     *
     * @param prefix the prefix.
     * @return this.
     */
    public TableBatch deleteRoute(final IpPrefix prefix) {
        l3.deleteRoute(prefix);
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
        l3.addNeighbor(interfaceName, address, mac);
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
        l3.addNeighbor(rif, address, mac);
        return this;
    }

    /**
     * Removes a neighbor.
     *
     * @param address its address.
     * @return this.
     */
    public TableBatch removeNeighbor(final IpPrefix address) {
        l3.removeNeighbor(address);
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
    public TableBatch writeRouterInterface(final int rif, final String portName, final long mac, final boolean insert) {
        l3.writeRouterInterface(rif, portName, mac, insert);
        return this;
    }

    /**
     * Removes a controller's router interface; refused while a next hop uses it.
     *
     * @param rif the interface id.
     * @return this.
     */
    public TableBatch removeRouterInterface(final int rif) {
        l3.removeRouterInterface(rif);
        return this;
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
        l3.replaceL3Admit(macs, masks, portNames);
        return this;
    }

    // ---- L2 ({@link L2Changes}) ----

    /**
     * Adds or replaces a static FDB entry (never aged, never moved by learning).
     *
     * @param vlanId the VLAN (must exist, in the model or earlier in this batch).
     * @param mac the MAC.
     * @param portName the SONiC port.
     * @return this.
     */
    public TableBatch addStaticFdb(final int vlanId, final long mac, final String portName) {
        l2.addStaticFdb(vlanId, mac, portName);
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
        l2.addStaticFdbDrop(vlanId, mac);
        return this;
    }

    /**
     * Sets what bridged unicast frames to a MAC the FDB does not know do (P4Runtime's l2_fdb_table default entry).
     *
     * @param drop true: drop them ({@code SAI_IN_DROP_REASON_FDB_AND_BLACKHOLE_DISCARDS}); false: flood (default).
     * @return this.
     */
    public TableBatch dropUnknownUnicast(final boolean drop) {
        l2.dropUnknownUnicast(drop);
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
        l2.removeFdb(vlanId, mac);
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
        l2.writeVlan(vlanId, multicastGroupId, insert);
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
        l2.writeVlanDrop(vlanId, insert);
        return this;
    }

    /**
     * Removes a VLAN created by {@link #writeVlan}; refused while it has members or static FDB entries, or when the
     * configuration defines it. Its learned FDB entries go with it.
     *
     * @param vlanId the VLAN.
     * @return this.
     */
    public TableBatch removeVlan(final int vlanId) {
        l2.removeVlan(vlanId);
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
    public TableBatch writeVlanMember(
            final int vlanId, final String portName, final boolean tagged, final boolean insert) {
        l2.writeVlanMember(vlanId, portName, tagged, insert);
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
        l2.removeVlanMember(vlanId, portName);
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
        l2.writeMulticastGroup(groupId, portNames, insert);
        return this;
    }

    /**
     * Removes a multicast group; refused while a VLAN floods to it.
     *
     * @param groupId the group id.
     * @return this.
     */
    public TableBatch removeMulticastGroup(final int groupId) {
        l2.removeMulticastGroup(groupId);
        return this;
    }

    // ---- ACL, meters, mirror ({@link AclChanges}) ----

    /**
     * Replaces the whole ingress ACL inside this batch (so the ACL changes with the routes, atomically); rule order
     * by priority, ACL counters restart.
     *
     * @param rules the rules (port indexes in {@link AclRule#inPorts}).
     * @return this.
     */
    public TableBatch replaceAcl(final List<AclRule> rules) {
        acl.replaceAcl(rules);
        return this;
    }

    /**
     * Replaces the whole egress ACL inside this batch (atomically with the other updates); rule order by priority,
     * egress ACL counters restart.
     *
     * @param rules the rules (port indexes in {@link AclEgressRule#outPorts}).
     * @return this.
     */
    public TableBatch replaceEgressAcl(final List<AclEgressRule> rules) {
        acl.replaceEgressAcl(rules);
        return this;
    }

    /**
     * Replaces every clone (mirror) session inside this batch; ACL mirror rules find theirs by id.
     *
     * @param sessions session id → ports and truncation.
     * @return this.
     */
    public TableBatch replaceMirrorSessions(final Map<Integer, AclMirrorSessions.Session> sessions) {
        acl.replaceMirrorSessions(sessions);
        return this;
    }

    /**
     * Sets the CoPP meters (packets per second, one per CPU queue) inside this batch; their buckets start full.
     *
     * @param configs one per CPU queue ({@link ForwardingTables#CPU_QUEUES}); null: that queue is not policed.
     * @return this.
     */
    public TableBatch coppMeters(final AclMeterConfig[] configs) {
        acl.coppMeters(configs);
        return this;
    }

    // ---- TM/ARS knobs and QoS maps ({@link KnobChanges}) ----

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
        knobs.setKnob(knob, index, value);
        return this;
    }

    /**
     * WRED/ECN thresholds and Pmax of an egress queue, the same for all three colours (three updates per colour).
     *
     * @param port the port index.
     * @param queue 0..7.
     * @param minBytes Kmin.
     * @param maxBytes Kmax (0 = maximum buffer size).
     * @param probPercent Pmax 0..100.
     * @return this.
     */
    public TableBatch setWred(
            final int port, final int queue, final long minBytes, final long maxBytes, final int probPercent) {
        final int i = port * 8 + queue;
        for (int colour = 0; colour < 3; colour++) {
            final RuntimeKnob min = RuntimeKnob.wred(colour, 0);
            final RuntimeKnob max = RuntimeKnob.wred(colour, 1);
            // Lowering both thresholds under the current Kmin sets Kmin first, raising them sets Kmax first.
            if (maxBytes != 0 && maxBytes < knobs.value(min, i)) {
                setKnob(min, i, minBytes);
                setKnob(max, i, maxBytes);
            } else {
                setKnob(max, i, maxBytes);
                setKnob(min, i, minBytes);
            }
            setKnob(RuntimeKnob.wred(colour, 2), i, probPercent);
        }
        return this;
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

    /** @return the batch's L3 part (a reconfigure stages the configuration's L3 objects there). */
    public L3Changes l3Changes() {
        return l3;
    }

    /** @return the batch's L2 part (a reconfigure stages the configuration's VLANs and members there). */
    public L2Changes l2Changes() {
        return l2;
    }

    /** @return the batch's knob part (a reconfigure stages the configuration's QoS maps there). */
    public KnobChanges knobChanges() {
        return knobs;
    }

    /** @return the batch's ACL part (a reconfigure stages the configuration's ACL there). */
    public AclChanges aclChanges() {
        return acl;
    }

    /**
     * Sets a port's admin state and MTU (a reconfigure's PORT {@code admin_status} / {@code mtu}); its speed stays.
     *
     * @param port the port index.
     * @param adminUp admin up.
     * @param mtu the MTU.
     */
    public void portSettings(final int port, final boolean adminUp, final int mtu) {
        staging.update(t -> t.port(port, adminUp, mtu, t.portSpeedMbps(port)));
    }

    /** @return updates so far. */
    public int size() {
        return staging.updates();
    }

    /**
     * Records every part's changes in the control model and applies the batch as one data-plane command.
     *
     * @return the command's sequence number (see {@link PipelineControl#awaitApplied}).
     */
    public long commit() {
        l3.commit();
        protocol.commit();
        acl.commit();
        l2.commit();
        final List<Consumer<ForwardingTables>> tableEdits = staging.edits();
        final boolean egressAclReplaced = acl.egressReplaced();
        final List<Consumer<DataPlaneAgent>> knobEdits = knobs.commit();
        final List<Integer> announcements = l3.announcements();
        final long sequence = submit.applyAsLong((DataPlaneAgent agent) -> {
            final ForwardingTables t = agent.tables();
            for (final Consumer<ForwardingTables> edit : tableEdits) {
                edit.accept(t);
            }
            if (egressAclReplaced) {
                agent.counters().resetEgressAcl();
            }
            for (final Consumer<DataPlaneAgent> edit : knobEdits) {
                edit.accept(agent);
            }
            for (final int port : announcements) {
                agent.announceAddress(port);
            }
        });
        if (!knobEdits.isEmpty()) {
            // The running config shows knob values (WRED thresholds, PFC xoff/xon, watchdog times, hash seed).
            knobsCommitted.run();
        }
        return sequence;
    }
}
