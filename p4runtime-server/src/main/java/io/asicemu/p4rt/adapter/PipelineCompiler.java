package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.adapter.PipelineTableBackend.Ids;
import io.asicemu.p4rt.adapter.PipelineTableBackend.Refusal;
import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.MeterSettings;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.MatchKind;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.pipeline.control.RuntimeKnobs;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclMirrorSessions;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteTarget;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Compiles the updates of one P4Runtime batch into one {@link TableBatch}: P4 object ids (router interface, next
 * hop, WCMP group) are mapped to pipeline ids allocated here, staged until {@link #commitIds()}; L2 tables and
 * multicast groups go through {@link L2Compiler}; the ingress and egress ACLs (with direct meters), the CoPP meters,
 * the clone sessions and the L3 admit table are tracked whole and rebuilt when the batch changes them. A
 * wcmp_group_table entry becomes one pipeline group whether it holds a one-shot set, an action-profile group or a
 * single member; members and groups of the selector are tracked here (read from the entity model on first use, then
 * staged) so that modifying a member or a group rebuilds the pipeline groups of the entries that use it. Entities the
 * pipeline does not model add nothing. Not thread safe: one per batch, under the backend's lock.
 */
final class PipelineCompiler {
    private final PipelineControl control;
    private final Ids ids;
    // Each map is fetched when the Write first reads it and copied when it first changes it (StagedMap): a Write costs
    // what it touches, not what the model holds.
    private final StagedMap<Integer, Integer> rif;
    private final StagedMap<Integer, Integer> nextHop;
    private final StagedMap<Integer, Integer> group;
    private final StagedMap<IpPrefix, Integer> neighborRif;
    private final StagedMap<EntryKey, P4Entity.TableEntry> acl;
    private final StagedMap<EntryKey, P4Entity.TableEntry> egressAcl;
    private final Supplier<MeterSettings[]> coppBefore;
    /** The CoPP meter cells after this Write's changes so far; null until first used. */
    private MeterSettings[] copp;

    private final StagedMap<Integer, P4Entity.CloneSession> clones;
    private final StagedMap<EntryKey, P4Entity.TableEntry> l3Admit;
    private boolean l3AdmitChanged;
    private final WrittenEntities model;
    private Map<Integer, P4Entity.ProfileMember> profileMembers;
    private Map<Integer, P4Entity.ProfileGroup> profileGroups;
    private Map<Integer, EntryAction> wcmpEntries;
    private boolean aclChanged;
    private boolean egressAclChanged;
    private boolean coppChanged;
    private boolean clonesChanged;

    /**
     * What the model holds before the batch, for the pipeline objects rebuilt whole when they change. Each supplier is
     * called at most once, when the batch first needs it, and must hand out a fresh copy that the compiler may change.
     */
    record Model(
            Supplier<Map<EntryKey, P4Entity.TableEntry>> acl,
            Supplier<Map<EntryKey, P4Entity.TableEntry>> egressAcl,
            Supplier<MeterSettings[]> copp,
            Supplier<Map<Integer, P4Entity.CloneSession>> clones,
            Supplier<Map<EntryKey, P4Entity.TableEntry>> l3Admit) {}

    PipelineCompiler(final PipelineControl control, final Ids ids, final Model before, final WrittenEntities model) {
        this.control = control;
        this.ids = ids;
        this.model = model;
        this.rif = new StagedMap<>(() -> ids.rif, HashMap::new);
        this.nextHop = new StagedMap<>(() -> ids.nextHop, HashMap::new);
        this.group = new StagedMap<>(() -> ids.group, HashMap::new);
        this.neighborRif = new StagedMap<>(() -> ids.neighborRif, HashMap::new);
        // the model's suppliers hand out fresh copies in their order: changed in place
        this.acl = new StagedMap<>(before.acl(), UnaryOperator.identity());
        this.egressAcl = new StagedMap<>(before.egressAcl(), UnaryOperator.identity());
        this.coppBefore = before.copp();
        this.clones = new StagedMap<>(before.clones(), TreeMap::new);
        this.l3Admit = new StagedMap<>(before.l3Admit(), UnaryOperator.identity());
    }

    /**
     * Stages the whole L3 admit table into the batch if this batch changed it: each entry is a (masked) destination
     * MAC on one port ({@code in_port} given) or on any.
     */
    void stageL3Admit(final TableBatch batch) {
        if (!l3AdmitChanged) {
            return;
        }
        final int n = l3Admit.size();
        final long[] macs = new long[n];
        final long[] masks = new long[n];
        final String[] ports = new String[n];
        int i = 0;
        for (final P4Entity.TableEntry e : l3Admit.values()) {
            masks[i] = 0xffff_ffff_ffffL;
            for (final FieldMatchValue m : e.key().matches()) {
                if (m.fieldId() == 1) {
                    macs[i] = m.value().longValue();
                    masks[i] = m.kind() == MatchKind.TERNARY ? m.mask().longValue() : 0xffff_ffff_ffffL;
                }
            }
            ports[i] = l3AdmitPort(e.key());
            i++;
        }
        batch.replaceL3Admit(macs, masks, ports);
    }

    /** @return the port name of an l3_admit entry's {@code in_port}, or null when it has none (any port). */
    private String l3AdmitPort(final EntryKey key) {
        for (final FieldMatchValue m : key.matches()) {
            if (m.fieldId() == 2) {
                final List<String> names = control.portNames();
                final int port = m.value().intValue();
                if (port < 0 || port >= names.size() || names.get(port) == null) {
                    throw new Refusal(UpdateStatus.INVALID_ARGUMENT, "l3_admit: no port " + port);
                }
                return names.get(port);
            }
        }
        return null;
    }

    boolean aclChanged() {
        return aclChanged;
    }

    Map<EntryKey, P4Entity.TableEntry> aclEntries() {
        return acl;
    }

    boolean egressAclChanged() {
        return egressAclChanged;
    }

    Map<EntryKey, P4Entity.TableEntry> egressAclEntries() {
        return egressAcl;
    }

    /** @return the CoPP meter of every CPU queue after the batch, or null if the batch did not change them. */
    AclMeterConfig[] coppMeters() {
        if (!coppChanged) {
            return null;
        }
        final AclMeterConfig[] configs = new AclMeterConfig[ForwardingTables.CPU_QUEUES];
        final MeterSettings[] cells = copp();
        for (int q = 0; q < configs.length && q < cells.length; q++) {
            configs[q] = meterConfig(cells[q]);
        }
        return configs;
    }

    /** @return the clone sessions after the batch, or null if the batch did not change them. */
    Map<Integer, AclMirrorSessions.Session> mirrorSessions() {
        if (!clonesChanged) {
            return null;
        }
        final Map<Integer, AclMirrorSessions.Session> sessions = new TreeMap<>();
        for (final P4Entity.CloneSession s : clones.values()) {
            final int[] ports = new int[s.replicas().size()];
            for (int r = 0; r < ports.length; r++) {
                ports[r] = s.replicas().get(r).port();
            }
            sessions.put(s.sessionId(), new AclMirrorSessions.Session(ports, s.truncateBytes()));
        }
        return sessions;
    }

    /**
     * The pipeline's meter settings for P4Runtime's (RFC 2698: PIR >= CIR, both bursts > 0).
     *
     * @return null for the default meter (everything green).
     * @throws Refusal INVALID_ARGUMENT for settings the meter cannot take.
     */
    static AclMeterConfig meterConfig(final MeterSettings settings) {
        if (settings == null) {
            return null;
        }
        try {
            return new AclMeterConfig(settings.cir(), settings.cburst(), settings.pir(), settings.pburst());
        } catch (final IllegalArgumentException e) {
            throw new Refusal(UpdateStatus.INVALID_ARGUMENT, e.getMessage());
        }
    }

    /** Makes this batch's id mappings the backend's (after the batch was committed). */
    void commitIds() {
        commitIds(rif, ids.rif);
        commitIds(nextHop, ids.nextHop);
        commitIds(group, ids.group);
        commitIds(neighborRif, ids.neighborRif);
    }

    private static <K> void commitIds(final StagedMap<K, Integer> staged, final Map<K, Integer> committed) {
        if (staged.changed()) { // its own copy, not the committed map
            committed.clear();
            committed.putAll(staged);
        }
    }

    /** @return the CoPP meter cells after this batch's changes so far (fetched at first use). */
    private MeterSettings[] copp() {
        if (copp == null) {
            copp = coppBefore.get();
        }
        return copp;
    }

    /**
     * Adds the pipeline edits of one update to the batch.
     *
     * @throws io.asicemu.pipeline.control.TableException or {@link Refusal} when the pipeline refuses it.
     */
    void compile(final WriteOp op, final TableBatch batch) {
        final P4Entity entity = op.entity();
        if (entity instanceof P4Entity.TableEntry entry) {
            if (!entry.isDefault()) {
                tableEntry(op.kind(), entry, batch);
            } else if (entry.key().tableId() == ids.ipv4 || entry.key().tableId() == ids.ipv6) {
                defaultRoute(entry, entry.key().tableId() == ids.ipv6, batch);
            } else if (entry.key().tableId() == ids.l2Fdb) {
                // The default action: NoAction floods unknown unicast, drop discards it (no action: NoAction).
                batch.dropUnknownUnicast(entry.action() != null
                        && actionName(PipelineTableBackend.direct(entry).call()).equals("ingress.drop"));
            }
        } else if (entity instanceof P4Entity.MulticastGroup g) {
            L2Compiler.multicastGroup(op.kind(), g, control, batch);
        } else if (entity instanceof P4Entity.RegisterCell r && ids.registerKnobs.containsKey(r.registerId())) {
            register(r, batch);
        } else if (entity instanceof P4Entity.ProfileMember m && m.profileId() == ids.wcmpSelector) {
            profileMember(op.kind(), m, batch);
        } else if (entity instanceof P4Entity.ProfileGroup g && g.profileId() == ids.wcmpSelector) {
            profileGroup(op.kind(), g, batch);
        } else if (entity instanceof P4Entity.CounterCell c && ids.isPipelineCounter(c.counterId())) {
            throw new Refusal(
                    UpdateStatus.UNIMPLEMENTED,
                    "counter " + c.counterId() + " is the pipeline's own; it cannot be written");
        } else if (entity instanceof P4Entity.DirectCounterCell d
                && (d.key().tableId() == ids.aclIngress || d.key().tableId() == ids.aclEgress)) {
            throw new Refusal(
                    UpdateStatus.UNIMPLEMENTED, "ACL counters are the pipeline's own; they cannot be written");
        } else if (entity instanceof P4Entity.MeterCell m && m.meterId() == ids.cpuQueueMeter) {
            meterConfig(m.settings());
            if (m.index() >= 0 && m.index() < copp().length) {
                copp()[(int) m.index()] = m.settings();
                coppChanged = true;
            }
        } else if (entity instanceof P4Entity.DirectMeterCell m && m.key().tableId() == ids.aclIngress) {
            meterConfig(m.settings());
            final P4Entity.TableEntry e = acl.get(m.key());
            if (e != null) // a missing entry is the model's NOT_FOUND
            {
                acl.put(
                        e.key(),
                        new P4Entity.TableEntry(
                                e.key(),
                                e.action(),
                                e.isDefault(),
                                e.idleTimeoutNs(),
                                e.metadata(),
                                m.settings(),
                                e.counter(),
                                e.sinceLastHitNs()));
                aclChanged = true;
            }
        } else if (entity instanceof P4Entity.CloneSession c) {
            cloneSession(op.kind(), c);
        }
    }

    private void cloneSession(final UpdateKind kind, final P4Entity.CloneSession c) {
        if (kind == UpdateKind.DELETE) {
            clones.remove(c.sessionId());
        } else {
            for (final P4Entity.Replica r : c.replicas()) {
                if (r.port() < 0 || r.port() >= control.portNames().size()) {
                    throw new Refusal(
                            UpdateStatus.INVALID_ARGUMENT, "clone session " + c.sessionId() + ": no port " + r.port());
                }
            }
            clones.put(c.sessionId(), c);
        }
        clonesChanged = true;
    }

    private void tableEntry(final UpdateKind kind, final P4Entity.TableEntry entry, final TableBatch batch) {
        final int table = entry.key().tableId();
        if (table == ids.ipv4 || table == ids.ipv6) {
            route(kind, entry, table == ids.ipv6, batch);
        } else if (table == ids.routerInterfaces) {
            routerInterface(kind, entry, batch);
        } else if (table == ids.neighbors) {
            neighbor(kind, entry, batch);
        } else if (table == ids.nextHops) {
            nextHop(kind, entry, batch);
        } else if (table == ids.wcmpGroups) {
            wcmpGroup(kind, entry, batch);
        } else if (table == ids.l2Fdb || table == ids.vlans || table == ids.vlanMembership) {
            L2Compiler.tableEntry(kind, entry, ids, control, batch);
        } else if (ids.qosTables.containsKey(table)) {
            final RuntimeKnob knob = ids.qosTables.get(table);
            final int key = exactInt(entry.key(), 1);
            batch.setKnob(
                    knob,
                    key,
                    kind == UpdateKind.DELETE
                            ? -1
                            : param(PipelineTableBackend.direct(entry).call(), 0));
        } else if (table == ids.aclIngress) {
            if (kind == UpdateKind.DELETE) {
                acl.remove(entry.key());
            } else {
                AclCompiler.rule("check", entry, ids.model, control);
                acl.put(entry.key(), entry);
            }
            aclChanged = true;
        } else if (table == ids.l3Admit) {
            if (kind == UpdateKind.DELETE) {
                l3Admit.remove(entry.key());
            } else {
                l3AdmitPort(entry.key()); // refuses an unknown port at this update
                l3Admit.put(entry.key(), entry);
            }
            l3AdmitChanged = true;
        } else if (table == ids.aclEgress) {
            if (kind == UpdateKind.DELETE) {
                egressAcl.remove(entry.key());
            } else {
                AclEgressCompiler.rule("check", entry, ids.model, control);
                egressAcl.put(entry.key(), entry);
            }
            egressAclChanged = true;
        }
    }

    /**
     * A register write: index = port * 8 + queue (ECN), port * 8 + PG (PFC), port (watchdog), 0 (ARS), as the P4
     * source documents, and the P4 wcmp_group_id for the group selection mode; no index = every index the pipeline has (PGs without a BUFFER_PG profile and ports without a
     * PFC_WD entry are skipped).
     */
    private void register(final P4Entity.RegisterCell r, final TableBatch batch) {
        final RuntimeKnob knob = ids.registerKnobs.get(r.registerId());
        final long value = r.value().longValue();
        if (knob == RuntimeKnob.GROUP_SELECTION_MODE) {
            if (r.index() >= 0) {
                batch.setKnob(knob, mapped(group, (int) r.index(), "WCMP group"), value);
                return;
            }
            for (final int id : group.values()) {
                batch.setKnob(knob, id, value);
            }
            return;
        }
        if (r.index() >= 0) {
            batch.setKnob(knob, (int) r.index(), value);
            return;
        }
        final RuntimeKnobs knobs = control.runtimeKnobs();
        for (int i = 0; i < knobs.size(knob); i++) {
            if (knobs.applicable(knob, i)) {
                batch.setKnob(knob, i, value);
            }
        }
    }

    private static FieldMatchValue field(final EntryKey key, final int fieldId) {
        for (final FieldMatchValue m : key.matches()) {
            if (m.fieldId() == fieldId) {
                return m;
            }
        }
        return null;
    }

    private static int exactInt(final EntryKey key, final int fieldId) {
        final FieldMatchValue m = field(key, fieldId);
        return m == null ? 0 : m.value().intValue();
    }

    private String actionName(final ActionCall call) {
        return ids.model.action(call.actionId()).name();
    }

    private static int param(final ActionCall call, final int index) {
        return call.params().get(index).intValue();
    }

    static IpPrefix address(final BigInteger value) {
        return PipelineTableBackend.isIpv4(value)
                ? new IpPrefix(false, 0, value.longValue(), 32)
                : new IpPrefix(true, value.shiftRight(64).longValue(), value.longValue(), 128);
    }

    private static int mapped(final Map<Integer, Integer> map, final int p4Id, final String what) {
        final Integer id = map.get(p4Id);
        if (id == null) {
            throw new Refusal(UpdateStatus.NOT_FOUND, "no " + what + " " + p4Id);
        }
        return id;
    }

    /**
     * The lowest pipeline id from {@code base} that neither this controller's entries nor another writer (the
     * configuration, the routing protocol: they take the highest free ids) holds.
     */
    private static int allocate(
            final Map<Integer, Integer> map,
            final int base,
            final int limit,
            final String what,
            final java.util.function.IntPredicate freeInModel) {
        final Set<Integer> used = new HashSet<>(map.values());
        for (int id = base; id < limit; id++) {
            if (!used.contains(id) && freeInModel.test(id)) {
                return id;
            }
        }
        throw new Refusal(UpdateStatus.RESOURCE_EXHAUSTED, "the pipeline has no free " + what);
    }

    private void route(
            final UpdateKind kind, final P4Entity.TableEntry entry, final boolean v6, final TableBatch batch) {
        if (exactInt(entry.key(), 1) != 0) {
            // Only the default VRF is modelled by the pipeline; other VRFs stay in the store, but their references
            // (@refers_to in the P4Info) are checked as the default VRF's are: a route to a missing next hop or
            // group is NOT_FOUND in every VRF.
            if (kind != UpdateKind.DELETE) {
                final ActionCall call = PipelineTableBackend.direct(entry).call();
                switch (actionName(call)) {
                    case "ingress.routing_lookup.set_nexthop_id" -> mapped(nextHop, param(call, 0), "next hop");
                    case "ingress.routing_lookup.set_wcmp_group_id" -> mapped(group, param(call, 0), "WCMP group");
                    default -> {
                        // drop and trap refer to nothing
                    }
                }
            }
            return;
        }
        final FieldMatchValue dst = field(entry.key(), 2);
        final BigInteger value = dst == null ? BigInteger.ZERO : dst.value();
        final int length = dst == null ? 0 : dst.prefixLength();
        final IpPrefix prefix = v6
                ? new IpPrefix(true, value.shiftRight(64).longValue(), value.longValue(), length)
                : new IpPrefix(false, 0, value.longValue(), length);
        if (kind == UpdateKind.DELETE) {
            batch.deleteRoute(prefix);
            return;
        }
        final boolean insert = kind == UpdateKind.INSERT;
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        switch (actionName(call)) {
            case "ingress.routing_lookup.set_nexthop_id" ->
                batch.writeRoute(prefix, mapped(nextHop, param(call, 0), "next hop"), false, insert);
            case "ingress.routing_lookup.set_wcmp_group_id" ->
                batch.writeRouteToGroup(prefix, mapped(group, param(call, 0), "WCMP group"), insert);
            case "ingress.drop" -> batch.writeRoute(prefix, -1, true, insert);
            default ->
                throw new Refusal(
                        UpdateStatus.UNIMPLEMENTED,
                        "the pipeline has no route action " + actionName(call) + " (trap with an ACL entry)");
        }
    }

    /**
     * The default entry of ipv4_table / ipv6_table: what a packet matching no route does (set_nexthop_id,
     * set_wcmp_group_id, drop; no action restores the P4 program's default, drop).
     */
    private void defaultRoute(final P4Entity.TableEntry entry, final boolean v6, final TableBatch batch) {
        if (entry.action() == null) {
            batch.writeDefaultRoute(v6, RouteTarget.DROP, 0);
            return;
        }
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        switch (actionName(call)) {
            case "ingress.routing_lookup.set_nexthop_id" ->
                batch.writeDefaultRoute(v6, RouteTarget.NEXT_HOP, mapped(nextHop, param(call, 0), "next hop"));
            case "ingress.routing_lookup.set_wcmp_group_id" ->
                batch.writeDefaultRoute(v6, RouteTarget.GROUP, mapped(group, param(call, 0), "WCMP group"));
            case "ingress.drop" -> batch.writeDefaultRoute(v6, RouteTarget.DROP, 0);
            default ->
                throw new Refusal(
                        UpdateStatus.UNIMPLEMENTED,
                        "the pipeline has no default route action " + actionName(call) + " (trap with an ACL entry)");
        }
    }

    private void routerInterface(final UpdateKind kind, final P4Entity.TableEntry entry, final TableBatch batch) {
        final int p4Id = exactInt(entry.key(), 1);
        if (kind == UpdateKind.DELETE) {
            batch.removeRouterInterface(mapped(rif, p4Id, "router interface"));
            rif.remove(p4Id);
            return;
        }
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        final int port = param(call, 0);
        final List<String> ports = control.portNames();
        if (port < 0 || port >= ports.size()) {
            throw new Refusal(UpdateStatus.INVALID_ARGUMENT, "no port " + port);
        }
        final long mac = call.params().get(1).longValue();
        if (kind == UpdateKind.INSERT) {
            if (rif.containsKey(p4Id)) {
                throw new Refusal(UpdateStatus.ALREADY_EXISTS, "router interface " + p4Id);
            }
            final int id = allocate(
                    rif,
                    control.configRouterInterfaceCount(),
                    control.sizing().maxRouterInterfaces(),
                    "router interface",
                    batch.l3Changes()::routerInterfaceFree);
            batch.writeRouterInterface(id, ports.get(port), mac, true);
            rif.put(p4Id, id);
        } else {
            batch.writeRouterInterface(mapped(rif, p4Id, "router interface"), ports.get(port), mac, false);
        }
    }

    private void neighbor(final UpdateKind kind, final P4Entity.TableEntry entry, final TableBatch batch) {
        final int p4Rif = exactInt(entry.key(), 1);
        final int pipelineRif = mapped(rif, p4Rif, "router interface");
        final FieldMatchValue id = field(entry.key(), 2);
        final IpPrefix address = address(id == null ? BigInteger.ZERO : id.value());
        final Integer owner = neighborRif.get(address);
        if (kind == UpdateKind.DELETE) {
            if (owner != null && owner == p4Rif) {
                batch.removeNeighbor(address);
                neighborRif.remove(address);
            }
            return;
        }
        if (owner != null && owner != p4Rif) {
            throw new Refusal(
                    UpdateStatus.ALREADY_EXISTS,
                    "the pipeline keys neighbors by address: " + address + " is already behind router interface "
                            + owner);
        }
        neighborRif.put(address, p4Rif);
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        batch.addNeighbor(pipelineRif, address, call.params().get(0).longValue());
    }

    private void nextHop(final UpdateKind kind, final P4Entity.TableEntry entry, final TableBatch batch) {
        final int p4Id = exactInt(entry.key(), 1);
        if (kind == UpdateKind.DELETE) {
            batch.removeNextHop(mapped(nextHop, p4Id, "next hop"));
            nextHop.remove(p4Id);
            return;
        }
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        final int pipelineRif = mapped(rif, param(call, 0), "router interface");
        final IpPrefix address = address(call.params().get(1));
        if (kind == UpdateKind.INSERT) {
            if (nextHop.containsKey(p4Id)) {
                throw new Refusal(UpdateStatus.ALREADY_EXISTS, "next hop " + p4Id);
            }
            final int id = allocate(
                    nextHop,
                    control.setup().nextHopCount(),
                    control.sizing().maxNextHops(),
                    "next hop",
                    candidate -> !batch.l3Changes().nextHopDefined(candidate));
            batch.writeNextHop(id, pipelineRif, address, true);
            nextHop.put(p4Id, id);
        } else {
            batch.writeNextHop(mapped(nextHop, p4Id, "next hop"), pipelineRif, address, false);
        }
    }

    private void wcmpGroup(final UpdateKind kind, final P4Entity.TableEntry entry, final TableBatch batch) {
        final int p4Id = exactInt(entry.key(), 1);
        loadProfiles();
        if (kind == UpdateKind.DELETE) {
            batch.removeGroup(mapped(group, p4Id, "WCMP group"));
            group.remove(p4Id);
            wcmpEntries.remove(p4Id);
            return;
        }
        final Members m = resolve(entry.action());
        if (kind == UpdateKind.INSERT) {
            if (group.containsKey(p4Id)) {
                throw new Refusal(UpdateStatus.ALREADY_EXISTS, "WCMP group " + p4Id);
            }
            final int id = allocate(
                    group,
                    control.setup().groupCount(),
                    control.sizing().maxGroups(),
                    "WCMP group",
                    candidate -> !batch.l3Changes().groupDefined(candidate));
            batch.addGroup(id, groupName(p4Id), m.nextHops, m.weights, m.watchPorts);
            group.put(p4Id, id);
        } else {
            batch.modifyGroup(mapped(group, p4Id, "WCMP group"), groupName(p4Id), m.nextHops, m.weights, m.watchPorts);
        }
        wcmpEntries.put(p4Id, entry.action());
    }

    private static String groupName(final int p4Id) {
        return "wcmp_group_" + p4Id;
    }

    /** A pipeline group's members: next hops, weights, watch ports (null when none is watched). */
    private record Members(int[] nextHops, int[] weights, int[] watchPorts) {}

    /** The members of a WCMP entry's action (one-shot set, action-profile group or single member). */
    private Members resolve(final EntryAction action) {
        final int n;
        final int[] nextHops;
        final int[] weights;
        final int[] watch;
        switch (action) {
            case EntryAction.OneShot oneShot -> {
                n = oneShot.actions().size();
                nextHops = new int[n];
                weights = new int[n];
                watch = new int[n];
                for (int m = 0; m < n; m++) {
                    final EntryAction.WeightedAction a = oneShot.actions().get(m);
                    nextHops[m] = mapped(nextHop, nextHopParam(a.call()), "next hop");
                    weights[m] = a.weight();
                    watch[m] = a.watchPort();
                }
            }
            case EntryAction.Group g -> {
                final P4Entity.ProfileGroup pg = profileGroups.get(g.groupId());
                if (pg == null) {
                    throw new Refusal(UpdateStatus.NOT_FOUND, "no action profile group " + g.groupId());
                }
                n = pg.members().size();
                nextHops = new int[n];
                weights = new int[n];
                watch = new int[n];
                for (int m = 0; m < n; m++) {
                    final P4Entity.GroupMember gm = pg.members().get(m);
                    nextHops[m] = memberNextHop(gm.memberId());
                    weights[m] = gm.weight();
                    watch[m] = gm.watchPort();
                }
            }
            case EntryAction.Member m -> {
                n = 1;
                nextHops = new int[] {memberNextHop(m.memberId())};
                weights = new int[] {1};
                watch = new int[] {-1};
            }
            case EntryAction.Direct d ->
                throw new Refusal(
                        UpdateStatus.INVALID_ARGUMENT,
                        "the WCMP table takes a one-shot set, a member or a group, not a direct action");
        }
        boolean watched = false;
        for (int m = 0; m < n; m++) {
            watched |= watch[m] >= 0;
        }
        return new Members(nextHops, weights, watched ? watch : null);
    }

    private int memberNextHop(final int memberId) {
        final P4Entity.ProfileMember pm = profileMembers.get(memberId);
        if (pm == null) {
            throw new Refusal(UpdateStatus.NOT_FOUND, "no action profile member " + memberId);
        }
        return mapped(nextHop, nextHopParam(pm.action()), "next hop");
    }

    private static int nextHopParam(final ActionCall call) {
        if (call.params().isEmpty()) {
            throw new Refusal(UpdateStatus.INVALID_ARGUMENT, "a WCMP member's action must name a next hop");
        }
        return param(call, 0);
    }

    /** Reads the selector's members and groups and the WCMP entries from the entity model, once per batch. */
    private void loadProfiles() {
        if (wcmpEntries != null) {
            return;
        }
        profileMembers = new HashMap<>();
        profileGroups = new HashMap<>();
        wcmpEntries = new HashMap<>();
        for (final P4Entity e : model.read(new ReadFilter.Members(ids.wcmpSelector, 0))) {
            final P4Entity.ProfileMember m = (P4Entity.ProfileMember) e;
            profileMembers.put(m.memberId(), m);
        }
        for (final P4Entity e : model.read(new ReadFilter.Groups(ids.wcmpSelector, 0))) {
            final P4Entity.ProfileGroup g = (P4Entity.ProfileGroup) e;
            profileGroups.put(g.groupId(), g);
        }
        for (final P4Entity e : model.read(new ReadFilter.Tables(ids.wcmpGroups, null, false, false, false))) {
            if (e instanceof P4Entity.TableEntry t && !t.isDefault()) {
                wcmpEntries.put(exactInt(t.key(), 1), t.action());
            }
        }
    }

    private void profileMember(final UpdateKind kind, final P4Entity.ProfileMember m, final TableBatch batch) {
        loadProfiles();
        if (kind == UpdateKind.DELETE) {
            profileMembers.remove(m.memberId());
            return; // the entity model refuses deleting a member in use
        }
        mapped(nextHop, nextHopParam(m.action()), "next hop");
        profileMembers.put(m.memberId(), m);
        if (kind == UpdateKind.MODIFY) {
            rebuildUsers(m.memberId(), -1, batch);
        }
    }

    private void profileGroup(final UpdateKind kind, final P4Entity.ProfileGroup g, final TableBatch batch) {
        loadProfiles();
        if (kind == UpdateKind.DELETE) {
            profileGroups.remove(g.groupId());
            return; // the entity model refuses deleting a group in use
        }
        for (final P4Entity.GroupMember gm : g.members()) {
            memberNextHop(gm.memberId());
        }
        profileGroups.put(g.groupId(), g);
        if (kind == UpdateKind.MODIFY) {
            rebuildUsers(-1, g.groupId(), batch);
        }
    }

    /** Rebuilds the pipeline group of every WCMP entry using the member (directly or through a group) or the group. */
    private void rebuildUsers(final int memberId, final int groupId, final TableBatch batch) {
        for (final Map.Entry<Integer, EntryAction> e : wcmpEntries.entrySet()) {
            final boolean uses = switch (e.getValue()) {
                case EntryAction.Member m -> m.memberId() == memberId;
                case EntryAction.Group g ->
                    g.groupId() == groupId
                            || groupId < 0
                                    && profileGroups.containsKey(g.groupId())
                                    && profileGroups.get(g.groupId()).members().stream()
                                            .anyMatch(gm -> gm.memberId() == memberId);
                default -> false;
            };
            if (uses) {
                final Members m = resolve(e.getValue());
                batch.modifyGroup(
                        mapped(group, e.getKey(), "WCMP group"),
                        groupName(e.getKey()),
                        m.nextHops,
                        m.weights,
                        m.watchPorts);
            }
        }
    }
}
