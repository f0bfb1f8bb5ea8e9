package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.FdbTable;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.PipelineSizing;
import java.util.List;
import java.util.Map;

/**
 * The L2 changes of one batch: VLANs (flood group or drop), VLAN members, static FDB entries (forward or drop), the
 * unknown-unicast action and multicast groups. Validated against the committed {@link L2State} plus this batch's
 * earlier updates (on a copy of its {@link L2Model}, made on the first L2 update), data-plane edits added to the
 * batch's {@link Staging}; {@link #commit()} makes the copy the model.
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
public final class L2Changes {
    private final Staging s;
    private final L2State state;
    private final SwitchSetup setup;
    private final PipelineSizing sizing;
    private L3Changes l3;
    private L2Model staged;

    L2Changes(final Staging staging, final L2State state, final SwitchSetup setup, final PipelineSizing sizing) {
        this.s = staging;
        this.state = state;
        this.setup = setup;
        this.sizing = sizing;
    }

    /** The batch's L3 part, asked whether a port is routed (L3 and L2 parts check each other). */
    void l3(final L3Changes changes) {
        this.l3 = changes;
    }

    /** This batch's copy of the L2 model (made on the first L2 update). */
    private L2Model l2() {
        if (staged == null) {
            staged = state.model().copy();
        }
        return staged;
    }

    /** @return whether a port is a member of any VLAN after this batch's updates so far. */
    boolean isVlanMember(final int port) {
        final L2Model m = staged != null ? staged : state.model();
        for (final long key : m.members.keySet()) {
            if ((int) key == port) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a port is a member of a VLAN by a controller's write after this batch's updates so far. */
    boolean isControllerVlanMember(final int port) {
        final L2Model m = staged != null ? staged : state.model();
        for (final long key : m.members.keySet()) {
            if ((int) key == port && !m.configMembers.contains(key)) {
                return true;
            }
        }
        return false;
    }

    private int portOf(final String portName) {
        final Integer port = setup.portIndex().get(portName);
        if (port == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "no port " + portName);
        }
        return port;
    }

    private void requireVlan(final L2Model m, final int vlanId) {
        if (vlanId < 1 || vlanId > 4094 || !m.vlans.containsKey(vlanId)) {
            throw s.fail(TableException.Code.NOT_FOUND, "no VLAN " + vlanId);
        }
    }

    void addStaticFdb(final int vlanId, final long mac, final String portName) {
        stageStaticFdb(vlanId, mac, portOf(portName));
    }

    void addStaticFdbDrop(final int vlanId, final long mac) {
        stageStaticFdb(vlanId, mac, FdbTable.DROP_PORT);
    }

    private void stageStaticFdb(final int vlanId, final long mac, final int port) {
        final L2Model m = l2();
        requireVlan(m, vlanId);
        final long key = FdbTable.key(vlanId, mac);
        if (!m.staticFdb.containsKey(key) && m.staticFdb.size() >= sizing.fdbEntries()) {
            throw s.fail(TableException.Code.RESOURCE_EXHAUSTED, "the FDB holds " + sizing.fdbEntries());
        }
        m.staticFdb.put(key, port);
        s.update(t -> t.fdb().putStatic(vlanId, mac, port));
    }

    void dropUnknownUnicast(final boolean drop) {
        s.update(t -> t.dropUnknownUnicast(drop));
    }

    void removeFdb(final int vlanId, final long mac) {
        l2().staticFdb.remove(FdbTable.key(vlanId, mac));
        s.update(t -> t.fdb().remove(vlanId, mac));
    }

    void writeVlan(final int vlanId, final int multicastGroupId, final boolean insert) {
        final L2Model m = l2();
        checkVlanWrite(m, vlanId, insert);
        final int slot;
        if (multicastGroupId == 0) {
            slot = 0;
        } else {
            final Integer found = m.multicastSlots.get(multicastGroupId);
            if (found == null) {
                throw s.fail(TableException.Code.NOT_FOUND, "no multicast group " + multicastGroupId);
            }
            slot = found;
        }
        stageVlan(m, vlanId, multicastGroupId, slot, false);
    }

    private void checkVlanWrite(final L2Model m, final int vlanId, final boolean insert) {
        if (vlanId < 1 || vlanId > 4094) {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, "VLAN ids are 1..4094, not " + vlanId);
        }
        if (insert == m.vlans.containsKey(vlanId)) {
            throw s.fail(insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND, "VLAN " + vlanId);
        }
    }

    private void stageVlan(
            final L2Model m, final int vlanId, final int multicastGroupId, final int floodSlot, final boolean drop) {
        m.vlans.put(vlanId, multicastGroupId);
        s.update(t -> {
            t.addVlan(vlanId);
            t.vlanFloodSlot(vlanId, floodSlot);
            t.vlanDrop(vlanId, drop);
        });
    }

    void writeVlanDrop(final int vlanId, final boolean insert) {
        final L2Model m = l2();
        checkVlanWrite(m, vlanId, insert);
        stageVlan(m, vlanId, 0, 0, true);
    }

    void removeVlan(final int vlanId) {
        final L2Model m = l2();
        requireVlan(m, vlanId);
        if (m.configVlans.contains(vlanId)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION, "VLAN " + vlanId + " is defined by the configuration");
        }
        if (m.hasMembers(vlanId) || m.hasStaticFdb(vlanId)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "VLAN " + vlanId + " still has members or static FDB entries");
        }
        m.vlans.remove(vlanId);
        s.update(t -> t.removeVlan(vlanId));
    }

    void writeVlanMember(final int vlanId, final String portName, final boolean tagged, final boolean insert) {
        final int port = portOf(portName);
        final L2Model m = l2();
        requireVlan(m, vlanId);
        final long key = L2Model.memberKey(vlanId, port);
        if (insert == m.members.containsKey(key)) {
            throw s.fail(
                    insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                    portName + " in VLAN " + vlanId);
        }
        final Integer pvid = m.untagged.get(port);
        if (!tagged && pvid != null && pvid != vlanId) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    portName + " is already an untagged member of VLAN " + pvid);
        }
        if (l3.hasRouterInterface(port, portName)) {
            throw s.fail(TableException.Code.FAILED_PRECONDITION, portName + " has a router interface");
        }
        m.members.put(key, tagged);
        if (tagged) {
            m.untagged.remove(port, vlanId);
        } else {
            m.untagged.put(port, vlanId);
        }
        s.update(t -> {
            if (tagged && t.portPvid(port) == vlanId) {
                t.removeVlanMember(vlanId, port); // untagged → tagged: the port loses its PVID
            }
            t.addVlanMember(vlanId, port, tagged);
        });
    }

    void removeVlanMember(final int vlanId, final String portName) {
        final int port = portOf(portName);
        final L2Model m = l2();
        if (m.members.remove(L2Model.memberKey(vlanId, port)) == null) {
            throw s.fail(TableException.Code.NOT_FOUND, portName + " in VLAN " + vlanId);
        }
        m.untagged.remove(port, vlanId);
        m.configMembers.remove(L2Model.memberKey(vlanId, port));
        s.update(t -> t.removeVlanMember(vlanId, port));
    }

    void writeMulticastGroup(final int groupId, final List<String> portNames, final boolean insert) {
        if (groupId < 1) {
            throw s.fail(TableException.Code.INVALID_ARGUMENT, "multicast group ids start at 1");
        }
        final int[] ports = new int[portNames.size()];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = portOf(portNames.get(i));
        }
        final L2Model m = l2();
        final Integer existing = m.multicastSlots.get(groupId);
        if (insert == (existing != null)) {
            throw s.fail(
                    insert ? TableException.Code.ALREADY_EXISTS : TableException.Code.NOT_FOUND,
                    "multicast group " + groupId);
        }
        final int slot = existing != null ? existing : m.freeSlot();
        if (slot < 0) {
            throw s.fail(
                    TableException.Code.RESOURCE_EXHAUSTED,
                    "the pipeline holds " + (ForwardingTables.MULTICAST_SLOTS - 1) + " multicast groups");
        }
        m.multicastSlots.put(groupId, slot);
        m.multicastPorts.put(groupId, ports);
        s.update(t -> t.multicastGroup(slot, ports));
    }

    void removeMulticastGroup(final int groupId) {
        final L2Model m = l2();
        final Integer slot = m.multicastSlots.get(groupId);
        if (slot == null) {
            throw s.fail(TableException.Code.NOT_FOUND, "multicast group " + groupId);
        }
        for (final Map.Entry<Integer, Integer> vlan : m.vlans.entrySet()) {
            if (vlan.getValue() == groupId) {
                throw s.fail(
                        TableException.Code.FAILED_PRECONDITION,
                        "VLAN " + vlan.getKey() + " floods to multicast group " + groupId);
            }
        }
        m.multicastSlots.remove(groupId);
        m.multicastPorts.remove(groupId);
        final int freed = slot;
        s.update(t -> t.multicastGroup(freed, null));
    }

    // ---- the configuration's VLANs and memberships (the config side's L2ConfigChanges: a reconfigure's difference)
    // ----

    /** Creates a configuration's VLAN (flooding to its members); refused when a controller wrote that VLAN. */
    public void configVlan(final int vlanId) {
        final L2Model m = l2();
        if (m.vlans.containsKey(vlanId)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "VLAN " + vlanId + " was written by a controller (P4Runtime); delete it there first");
        }
        checkVlanWrite(m, vlanId, true);
        stageVlan(m, vlanId, 0, 0, false);
        m.configVlans.add(vlanId);
    }

    /** Removes a configuration's VLAN; refused while a controller's members or static FDB entries are in it. */
    public void removeConfigVlan(final int vlanId) {
        final L2Model m = l2();
        requireVlan(m, vlanId);
        if (m.hasMembers(vlanId) || m.hasStaticFdb(vlanId)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "VLAN " + vlanId + " still has members or static FDB entries a controller wrote");
        }
        m.configVlans.remove(vlanId);
        m.vlans.remove(vlanId);
        s.update(t -> t.removeVlan(vlanId));
    }

    /**
     * Makes a port a configuration's member of a VLAN or changes its tagging; refused when a controller wrote that
     * membership.
     */
    public void configVlanMember(final int vlanId, final String portName, final boolean tagged) {
        final int port = portOf(portName);
        final L2Model m = l2();
        final long key = L2Model.memberKey(vlanId, port);
        final boolean exists = m.members.containsKey(key);
        if (exists && !m.configMembers.contains(key)) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    portName + " in VLAN " + vlanId
                            + " was written by a controller (P4Runtime); delete it there first");
        }
        writeVlanMember(vlanId, portName, tagged, !exists);
        m.configMembers.add(key);
    }

    /** Takes a configuration's member out of a VLAN (one a controller took over stays the controller's). */
    public void removeConfigVlanMember(final int vlanId, final String portName) {
        final L2Model m = l2();
        if (m.configMembers.contains(L2Model.memberKey(vlanId, portOf(portName)))) {
            removeVlanMember(vlanId, portName);
        }
    }

    /** Makes this batch's copy the committed model (if it made one). */
    void commit() {
        if (staged != null) {
            state.commit(staged);
        }
    }
}
