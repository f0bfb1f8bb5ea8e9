package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.FdbTable;
import io.asicemu.pipeline.table.ForwardingTables;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The control model of the L2 state a controller edits at run time: VLANs (with their flood group), VLAN memberships,
 * static FDB entries and the replication engine's multicast groups (group id → data-path slot and replica ports).
 * Batches validate against a copy and make it the model when they commit, so a refused batch leaves it untouched.
 * <p>
 * Not thread safe: the control writer's (callers of {@link PipelineControl} serialize).
 */
final class L2Model {
    /** VLAN id → its flood group id (0: flood to the members). Every VLAN, the configuration's too. */
    final Map<Integer, Integer> vlans = new HashMap<>();
    /** VLANs the configuration defines (not removable at run time). */
    final Set<Integer> configVlans = new HashSet<>();
    /** {@link #memberKey} → tagged. */
    final Map<Long, Boolean> members = new HashMap<>();
    /** The memberships the configuration owns (VLAN_MEMBER); the others are a controller's. */
    final Set<Long> configMembers = new HashSet<>();
    /** port → its untagged VLAN. */
    final Map<Integer, Integer> untagged = new HashMap<>();
    /** {@link FdbTable#key} → port of static entries. */
    final Map<Long, Integer> staticFdb = new HashMap<>();
    /** multicast group id → data-path slot. */
    final Map<Integer, Integer> multicastSlots = new HashMap<>();
    /** multicast group id → replica ports. */
    final Map<Integer, int[]> multicastPorts = new HashMap<>();

    static long memberKey(final int vlanId, final int port) {
        return ((long) vlanId << 32) | (port & 0xffff_ffffL);
    }

    /** The model of a freshly compiled configuration (its VLANs and members; call before hand-over). */
    static L2Model of(final ForwardingTables tables, final int maxPorts) {
        final L2Model m = new L2Model();
        for (int vlan = 1; vlan < 4095; vlan++) {
            if (!tables.vlanExists(vlan)) {
                continue;
            }
            m.vlans.put(vlan, 0);
            m.configVlans.add(vlan);
            for (int port = 0; port < maxPorts; port++) {
                if (tables.vlanMember(vlan, port)) {
                    final boolean tagged = tables.vlanTagged(vlan, port);
                    m.members.put(memberKey(vlan, port), tagged);
                    m.configMembers.add(memberKey(vlan, port));
                    if (!tagged) {
                        m.untagged.put(port, vlan);
                    }
                }
            }
        }
        return m;
    }

    L2Model copy() {
        final L2Model m = new L2Model();
        m.vlans.putAll(vlans);
        m.configVlans.addAll(configVlans);
        m.members.putAll(members);
        m.configMembers.addAll(configMembers);
        m.untagged.putAll(untagged);
        m.staticFdb.putAll(staticFdb);
        m.multicastSlots.putAll(multicastSlots);
        m.multicastPorts.putAll(multicastPorts);
        return m;
    }

    boolean hasMembers(final int vlanId) {
        for (final long key : members.keySet()) {
            if ((int) (key >>> 32) == vlanId) {
                return true;
            }
        }
        return false;
    }

    boolean hasStaticFdb(final int vlanId) {
        for (final long key : staticFdb.keySet()) {
            if ((int) (key >>> 48) == vlanId) {
                return true;
            }
        }
        return false;
    }

    /** @return a free data-path slot, or -1. */
    int freeSlot() {
        final Set<Integer> used = new HashSet<>(multicastSlots.values());
        for (int slot = 1; slot < ForwardingTables.MULTICAST_SLOTS; slot++) {
            if (!used.contains(slot)) {
                return slot;
            }
        }
        return -1;
    }
}
