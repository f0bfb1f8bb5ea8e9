package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.adapter.PipelineTableBackend.Ids;
import io.asicemu.p4rt.adapter.PipelineTableBackend.Refusal;
import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.table.FdbTable;
import java.util.ArrayList;
import java.util.List;

/**
 * Compiles the L2 entities of a P4Runtime batch into its {@link TableBatch}: {@code ingress.l2.vlan_table}
 * (vlan_allow(flood_group) → a VLAN flooding to its members, or to multicast group {@code flood_group} when not 0;
 * drop → a VLAN whose frames are dropped at ingress),
 * {@code ingress.l2.vlan_membership_table} (make_tagged_member / make_untagged_member), {@code ingress.l2.l2_fdb_table}
 * (l2_forward(port) → a static FDB entry; drop → a static entry that discards) and the replication engine's multicast group entries (replica ports).
 * Ports are the pipeline's port indexes (as in router_interface_table); an index without a port is
 * INVALID_ARGUMENT, a missing VLAN or multicast group NOT_FOUND (the pipeline's codes). Not thread safe: used under
 * the backend's lock.
 */
final class L2Compiler {
    private static final String L2_FORWARD = "ingress.l2.l2_forward";
    private static final String DROP = "ingress.drop";
    private static final String VLAN_ALLOW = "ingress.l2.vlan_allow";
    private static final String TAGGED = "ingress.l2.make_tagged_member";
    private static final String UNTAGGED = "ingress.l2.make_untagged_member";

    private L2Compiler() {}

    static void tableEntry(
            final UpdateKind kind,
            final P4Entity.TableEntry entry,
            final Ids ids,
            final PipelineControl control,
            final TableBatch batch) {
        final int table = entry.key().tableId();
        final int vlan = (int) exact(entry.key(), 1);
        final boolean insert = kind == UpdateKind.INSERT;
        if (table == ids.vlans) {
            if (kind == UpdateKind.DELETE) {
                batch.removeVlan(vlan);
                return;
            }
            final ActionCall call = PipelineTableBackend.direct(entry).call();
            final String action = ids.model.action(call.actionId()).name();
            if (action.equals(DROP)) {
                batch.writeVlanDrop(vlan, insert);
                return;
            }
            if (!action.equals(VLAN_ALLOW)) {
                throw new Refusal(UpdateStatus.UNIMPLEMENTED, "the pipeline has no vlan_table action " + action);
            }
            batch.writeVlan(vlan, call.params().get(0).intValue(), insert);
        } else if (table == ids.vlanMembership) {
            final String port = portName(control, (int) exact(entry.key(), 2));
            if (kind == UpdateKind.DELETE) {
                batch.removeVlanMember(vlan, port);
                return;
            }
            final ActionCall call = PipelineTableBackend.direct(entry).call();
            final String action = ids.model.action(call.actionId()).name();
            if (!action.equals(TAGGED) && !action.equals(UNTAGGED)) {
                throw new Refusal(UpdateStatus.UNIMPLEMENTED, "the pipeline has no membership action " + action);
            }
            batch.writeVlanMember(vlan, port, action.equals(TAGGED), insert);
        } else {
            final long mac = exact(entry.key(), 2);
            if (kind == UpdateKind.DELETE) {
                batch.removeFdb(vlan, mac);
                return;
            }
            final ActionCall call = PipelineTableBackend.direct(entry).call();
            final String action = ids.model.action(call.actionId()).name();
            if (action.equals(DROP)) {
                batch.addStaticFdbDrop(vlan, mac);
                return;
            }
            if (!action.equals(L2_FORWARD)) {
                throw new Refusal(UpdateStatus.UNIMPLEMENTED, "the pipeline has no l2_fdb action " + action);
            }
            batch.addStaticFdb(vlan, mac, portName(control, call.params().get(0).intValue()));
        }
    }

    static void multicastGroup(
            final UpdateKind kind,
            final P4Entity.MulticastGroup group,
            final PipelineControl control,
            final TableBatch batch) {
        if (kind == UpdateKind.DELETE) {
            batch.removeMulticastGroup(group.groupId());
            return;
        }
        final List<String> ports = new ArrayList<>(group.replicas().size());
        for (final P4Entity.Replica r : group.replicas()) {
            ports.add(portName(control, r.port()));
        }
        batch.writeMulticastGroup(group.groupId(), ports, kind == UpdateKind.INSERT);
    }

    /**
     * @param key an {@code l2_fdb_table} entry's key.
     * @return the pipeline FDB's key of that entry ({@code FdbTable.key(vlan_id, dst_mac)}).
     */
    static long fdbKey(final EntryKey key) {
        return FdbTable.key((int) exact(key, 1), exact(key, 2));
    }

    private static long exact(final EntryKey key, final int fieldId) {
        for (final FieldMatchValue m : key.matches()) {
            if (m.fieldId() == fieldId) {
                return m.value().longValue();
            }
        }
        return 0;
    }

    private static String portName(final PipelineControl control, final int port) {
        final List<String> names = control.portNames();
        if (port < 0 || port >= names.size() || names.get(port) == null) {
            throw new Refusal(UpdateStatus.INVALID_ARGUMENT, "no port " + port);
        }
        return names.get(port);
    }
}
