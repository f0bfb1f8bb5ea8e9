package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.backend.CounterValue;
import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.DataPlaneTimeoutException;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.MeterSettings;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.IndexedResourceInfo;
import io.asicemu.p4rt.info.P4InfoModel;
import io.asicemu.p4rt.info.TableInfo;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.pipeline.control.RuntimeKnobs;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.control.TableException;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.FdbTable;
import io.asicemu.pipeline.table.ForwardingTables;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Makes P4Runtime writes program the real pipeline: every batch is compiled into one {@link TableBatch} (router
 * interfaces, neighbors, next hops, IPv4/IPv6 routes, one-shot WCMP groups, the ingress ACL with its direct meters,
 * the egress ACL, the CoPP meters, clone sessions, L2 and QoS tables) that the pipeline's control model validates and
 * the data plane applies whole between packet batches. The P4 rules of the batch (P4 keys, sizes, references) are
 * checked by {@link WrittenEntities}, the controller's entries as written, which is changed only when the pipeline
 * batch commits. Read answers from the entries as written for what the controller owns (keys, actions, metadata,
 * idle timeouts), and from the pipeline for what the data path owns (counters, registers, FDB hit stamps). Entities
 * the pipeline does not model are kept as written only (see the module README).
 * <p>
 * Threading: every method may be called from any gRPC thread; writes, reads and resets are serialized on this
 * object (a write's wait for the data plane is not: it holds no lock). With an apply timeout (production: the data
 * plane runs on its own thread), a write returns ({@link #write}) or completes ({@link #writeAsync}, the service's
 * path: no thread waits, {@link AppliedWrites} answers) only after the data plane applied its batch, so the very next
 * packet sees it; a data plane that does not apply it in time ends the write with {@link DataPlaneTimeoutException}
 * (the batch stays queued and recorded: it will still be applied). Without one (tests that step the agent on their own
 * thread) the command is queued and applied at the next duty cycle.
 */
public final class PipelineTableBackend implements P4Backend {
    private static final BigInteger IPV4_LIMIT = BigInteger.ONE.shiftLeft(32);
    private static final long MASK_64 = -1L;
    private static final String ACL_RULE_PREFIX = "P4RT|acl_ingress_table|";
    private static final String EGRESS_ACL_RULE_PREFIX = "P4RT|acl_egress_table|";

    /** The controller's entries as written: the P4 rules' one check and Read's P4-shaped view. */
    private final WrittenEntities written;

    private volatile CpuPortListener listener;
    private final PipelineControl control;
    private final Ids ids;
    private final Map<EntryKey, String> aclRuleNames = new HashMap<>();
    private final Map<EntryKey, String> egressAclRuleNames = new HashMap<>();
    private final Duration applyTimeout;
    /** Writes committed but not yet applied by the data plane, answered when they are (with an apply timeout). */
    private final AppliedWrites appliedWrites;

    private long aclRuleSequence;
    private long lastCommit = -1;
    /** The pipeline's last-hit stamp of each watched static FDB entry at the previous idle check. */
    private final Map<Long, Long> lastFdbHits = new HashMap<>();

    private static final long HIT_READ_TIMEOUT_MS = 1_000;

    /**
     * @param control the pipeline's control API (configuration applied before the first write).
     * @param model   the P4Info in force.
     */
    public PipelineTableBackend(final PipelineControl control, final P4InfoModel model) {
        this(control, model, null);
    }

    /**
     * @param control      the pipeline's control API.
     * @param model        the P4Info in force.
     * @param applyTimeout how long a write waits for the data plane to apply its batch (the agent must run on its
     *                     own thread), or null not to wait.
     */
    public PipelineTableBackend(final PipelineControl control, final P4InfoModel model, final Duration applyTimeout) {
        this.control = control;
        this.ids = new Ids(model);
        this.applyTimeout = applyTimeout;
        this.appliedWrites = applyTimeout == null ? null : new AppliedWrites(control, applyTimeout);
        this.written = new WrittenEntities(model, this::portExists, System::nanoTime);
    }

    @Override
    public List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing) {
        final List<UpdateOutcome> out;
        final long commit;
        synchronized (this) {
            out = stage(ops, allOrNothing);
            commit = lastCommit;
        }
        // outside the monitor: the next Write compiles (and Reads answer) while this one waits for the data plane,
        // whose commands apply in commit order
        awaitDataPlane(commit);
        return out;
    }

    /**
     * Validates, compiles and commits the batch under this object's monitor like {@link #write}, then returns without
     * waiting: the future completes once the data plane applied the batch's command (answered by
     * {@link AppliedWrites}'s thread, in commit order), so no gRPC thread parks while the data plane works and the
     * next Write stages meanwhile. Without an apply timeout it completes at once (the command is queued).
     */
    @Override
    public CompletableFuture<List<UpdateOutcome>> writeAsync(final List<WriteOp> ops, final boolean allOrNothing) {
        synchronized (this) {
            final List<UpdateOutcome> out = stage(ops, allOrNothing);
            if (appliedWrites == null || lastCommit < 0) {
                return CompletableFuture.completedFuture(out);
            }
            // added under the monitor: the pending writes are queued in commit order, the data plane's order
            return appliedWrites.add(lastCommit, out);
        }
    }

    /** Compiles and commits one Write (caller holds the monitor); {@link #lastCommit} is its last command or -1. */
    private List<UpdateOutcome> stage(final List<WriteOp> ops, final boolean allOrNothing) {
        lastCommit = -1;
        return allOrNothing ? writeAtomically(ops) : writeEach(ops);
    }

    /**
     * CONTINUE_ON_ERROR: first tries the whole batch as one atomic pipeline command (the common case: every update
     * valid gives exactly the state that applying them one by one gives, with one compile, one P4-rule check and one
     * data-plane command instead of one per update); if any update fails nothing was applied, and the updates are
     * then applied one by one, each atomic on its own.
     */
    private List<UpdateOutcome> writeEach(final List<WriteOp> ops) {
        if (ops.size() > 1) {
            final List<UpdateOutcome> whole = writeAtomically(ops);
            if (allOk(whole)) {
                return whole;
            }
        }
        final List<UpdateOutcome> out = new ArrayList<>(ops.size());
        for (final WriteOp op : ops) {
            out.add(writeAtomically(List.of(op)).get(0));
        }
        return out;
    }

    private static boolean allOk(final List<UpdateOutcome> outcomes) {
        for (final UpdateOutcome o : outcomes) {
            if (!o.ok()) {
                return false;
            }
        }
        return true;
    }

    /** Waits until the data plane applied the last batch committed by this write (one wait per write). */
    private void awaitDataPlane(final long commit) {
        if (applyTimeout == null || commit < 0) {
            return;
        }
        try {
            control.awaitApplied(commit, applyTimeout);
        } catch (final TimeoutException e) {
            throw new DataPlaneTimeoutException(
                    "the data plane did not apply the write within " + applyTimeout
                            + "; it stays queued and recorded and will be applied",
                    e);
        }
    }

    /** Validates and compiles the whole batch into the pipeline, then checks its P4 rules in the entries as written; all or nothing. */
    private List<UpdateOutcome> writeAtomically(final List<WriteOp> ops) {
        final PipelineCompiler compiler = new PipelineCompiler(
                control,
                ids,
                new PipelineCompiler.Model(
                        () -> readAclEntries(ids.aclIngress),
                        () -> readAclEntries(ids.aclEgress),
                        this::readCoppMeters,
                        this::readCloneSessions,
                        () -> readAclEntries(ids.l3Admit)),
                written);
        final TableBatch batch;
        try {
            batch = control.batch(ops.size()); // sized once for the Write's updates
        } catch (final TableException e) {
            return refuseAll(ops.size(), 0, status(e.code()), e.getMessage());
        }
        for (int i = 0; i < ops.size(); i++) {
            try {
                compiler.compile(ops.get(i), batch);
            } catch (final TableException e) {
                return refuseAll(ops.size(), i, status(e.code()), "pipeline: " + e.getMessage());
            } catch (final Refusal e) {
                return refuseAll(ops.size(), i, e.status, "pipeline: " + e.getMessage());
            }
        }
        try {
            compiler.stageL3Admit(batch);
        } catch (final TableException e) {
            return refuseAll(ops.size(), ops.size() - 1, status(e.code()), "pipeline: " + e.getMessage());
        }
        // the rule names are copied only by a Write that changes the ACL (they grow with it)
        Map<EntryKey, String> names = null;
        long sequence = aclRuleSequence;
        if (compiler.aclChanged()) {
            names = new HashMap<>(aclRuleNames);
            final List<AclRule> rules = new ArrayList<>();
            names.keySet().retainAll(compiler.aclEntries().keySet());
            for (final P4Entity.TableEntry e : compiler.aclEntries().values()) {
                String name = names.get(e.key());
                if (name == null) {
                    name = ACL_RULE_PREFIX + ++sequence;
                    names.put(e.key(), name);
                }
                rules.add(AclCompiler.rule(name, e, ids.model, control));
            }
            try {
                batch.replaceAcl(rules);
            } catch (final TableException e) {
                return refuseAll(ops.size(), ops.size() - 1, status(e.code()), "pipeline: " + e.getMessage());
            }
        }
        Map<EntryKey, String> egressNames = null;
        try {
            if (compiler.egressAclChanged()) {
                egressNames = new HashMap<>(egressAclRuleNames);
                sequence = egressAcl(compiler, batch, egressNames, sequence);
            }
            if (compiler.coppMeters() != null) {
                batch.coppMeters(compiler.coppMeters());
            }
            if (compiler.mirrorSessions() != null) {
                batch.replaceMirrorSessions(compiler.mirrorSessions());
            }
        } catch (final TableException e) {
            return refuseAll(ops.size(), ops.size() - 1, status(e.code()), "pipeline: " + e.getMessage());
        }
        final List<UpdateOutcome> outcomes = written.write(ops, true);
        for (final UpdateOutcome o : outcomes) {
            if (!o.ok()) {
                return outcomes;
            }
        }
        lastCommit = batch.commit();
        compiler.commitIds();
        if (names != null) {
            aclRuleNames.clear();
            aclRuleNames.putAll(names);
        }
        if (egressNames != null) {
            egressAclRuleNames.clear();
            egressAclRuleNames.putAll(egressNames);
        }
        aclRuleSequence = sequence;
        return outcomes;
    }

    /** Stages the whole egress ACL after the batch; returns the rule name sequence. */
    private long egressAcl(
            final PipelineCompiler compiler,
            final TableBatch batch,
            final Map<EntryKey, String> names,
            final long sequenceBefore) {
        long sequence = sequenceBefore;
        final List<AclEgressRule> rules = new ArrayList<>();
        names.keySet().retainAll(compiler.egressAclEntries().keySet());
        for (final P4Entity.TableEntry e : compiler.egressAclEntries().values()) {
            String name = names.get(e.key());
            if (name == null) {
                name = EGRESS_ACL_RULE_PREFIX + ++sequence;
                names.put(e.key(), name);
            }
            rules.add(AclEgressCompiler.rule(name, e, ids.model, control));
        }
        batch.replaceEgressAcl(rules);
        return sequence;
    }

    /** The entries of an ACL table as written, with their direct meters. */
    private Map<EntryKey, P4Entity.TableEntry> readAclEntries(final int tableId) {
        return written.entriesWithMeters(tableId);
    }

    private MeterSettings[] readCoppMeters() {
        final MeterSettings[] cells = new MeterSettings[ForwardingTables.CPU_QUEUES];
        final MeterSettings[] written = this.written.meterCells(ids.cpuQueueMeter);
        System.arraycopy(written, 0, cells, 0, Math.min(cells.length, written.length));
        return cells;
    }

    private Map<Integer, P4Entity.CloneSession> readCloneSessions() {
        return written.cloneSessions();
    }

    private static List<UpdateOutcome> refuseAll(
            final int count, final int failed, final UpdateStatus status, final String message) {
        final List<UpdateOutcome> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(
                    i == failed
                            ? new UpdateOutcome(status, message)
                            : new UpdateOutcome(
                                    UpdateStatus.ABORTED, "not applied: update " + failed + " of the batch failed"));
        }
        return out;
    }

    /** The one mapping of the pipeline's outcome codes to P4Runtime's. */
    static UpdateStatus status(final TableException.Code code) {
        return switch (code) {
            case INVALID_ARGUMENT -> UpdateStatus.INVALID_ARGUMENT;
            case NOT_FOUND -> UpdateStatus.NOT_FOUND;
            case ALREADY_EXISTS -> UpdateStatus.ALREADY_EXISTS;
            case RESOURCE_EXHAUSTED -> UpdateStatus.RESOURCE_EXHAUSTED;
            case FAILED_PRECONDITION -> UpdateStatus.FAILED_PRECONDITION;
        };
    }

    @Override
    public synchronized List<P4Entity> read(final ReadFilter filter) {
        final List<P4Entity> entities = written.read(filter);
        if (filter instanceof ReadFilter.Registers && control.setup() != null) {
            final RuntimeKnobs knobs = control.runtimeKnobs();
            final List<P4Entity> out = new ArrayList<>(entities.size());
            for (final P4Entity e : entities) {
                out.add(e instanceof P4Entity.RegisterCell r ? register(r, knobs) : e);
            }
            return out;
        }
        if (!(filter instanceof ReadFilter.Counters
                || filter instanceof ReadFilter.Tables
                || filter instanceof ReadFilter.DirectCounters)) {
            return entities;
        }
        final CountersSnapshot counters = control.counters();
        final List<P4Entity> out = new ArrayList<>(entities.size());
        for (final P4Entity e : entities) {
            out.add(fromPipeline(e, counters));
        }
        return out;
    }

    /** A register the pipeline backs reads the value in force there (CONFIG_DB's until a write changes it). */
    private P4Entity register(final P4Entity.RegisterCell r, final RuntimeKnobs knobs) {
        final RuntimeKnob knob = ids.registerKnobs.get(r.registerId());
        int index = (int) r.index();
        if (knob == RuntimeKnob.GROUP_SELECTION_MODE) {
            final Integer group = ids.group.get(index);
            if (group == null) {
                return r;
            }
            index = group;
        }
        if (knob == null || index >= knobs.size(knob)) {
            return r;
        }
        return new P4Entity.RegisterCell(r.registerId(), r.index(), BigInteger.valueOf(knobs.value(knob, index)));
    }

    /** Replaces counter values the pipeline owns by its own. */
    private P4Entity fromPipeline(final P4Entity e, final CountersSnapshot counters) {
        if (e instanceof P4Entity.CounterCell c && ids.isPipelineCounter(c.counterId())) {
            return new P4Entity.CounterCell(c.counterId(), c.index(), counterCell(c.counterId(), c.index(), counters));
        }
        if (e instanceof P4Entity.TableEntry t && isAcl(t.key().tableId()) && t.counter() != null && !t.isDefault()) {
            return new P4Entity.TableEntry(
                    t.key(),
                    t.action(),
                    t.isDefault(),
                    t.idleTimeoutNs(),
                    t.metadata(),
                    t.meter(),
                    aclCounter(t.key(), counters),
                    t.sinceLastHitNs());
        }
        if (e instanceof P4Entity.DirectCounterCell d && isAcl(d.key().tableId())) {
            return new P4Entity.DirectCounterCell(d.key(), aclCounter(d.key(), counters));
        }
        return e;
    }

    private boolean isAcl(final int tableId) {
        return tableId == ids.aclIngress || tableId == ids.aclEgress;
    }

    private CounterValue aclCounter(final EntryKey key, final CountersSnapshot counters) {
        final String name = (key.tableId() == ids.aclEgress ? egressAclRuleNames : aclRuleNames).get(key);
        final Map<String, Long> stats =
                name == null ? null : counters.aclRules().get(name);
        return stats == null ? CounterValue.ZERO : new CounterValue(stats.get("Bytes"), stats.get("Packets"));
    }

    private CounterValue counterCell(final int counterId, final long index, final CountersSnapshot counters) {
        if (counterId == ids.dropReasonCounter) {
            return index < DropReason.count()
                    ? new CounterValue(
                            0,
                            counters.drops()
                                    .getOrDefault(DropReason.of((int) index).counterName(), 0L))
                    : CounterValue.ZERO;
        }
        final List<String> ports = control.portNames();
        if (index >= ports.size() || ports.get((int) index) == null) {
            return CounterValue.ZERO;
        }
        final String port = ports.get((int) index);
        if (counterId == ids.portInCounter) {
            return new CounterValue(
                    counters.port(port, "SAI_PORT_STAT_IF_IN_OCTETS"),
                    counters.port(port, "SAI_PORT_STAT_IF_IN_UCAST_PKTS")
                            + counters.port(port, "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS"));
        }
        return new CounterValue(
                counters.port(port, "SAI_PORT_STAT_IF_OUT_OCTETS"),
                counters.port(port, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS")
                        + counters.port(port, "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS"));
    }

    @Override
    public synchronized void reset() {
        written.reset();
        control.reinstallConfig();
        ids.clear();
        aclRuleNames.clear();
        egressAclRuleNames.clear();
    }

    @Override
    public boolean packetOut(final byte[] payload, final int egressPort, final boolean submitToIngress) {
        return submitToIngress
                ? control.cpuPort().packetOutThroughIngress(payload, egressPort)
                : control.cpuPort().packetOut(payload, egressPort);
    }

    @Override
    public void cpuPortListener(final CpuPortListener listener) {
        this.listener = listener;
    }

    @Override
    public boolean portExists(final int port) {
        return port >= 0 && port < control.portNames().size();
    }

    @Override
    public int portMtu(final int port) {
        return control.portMtu(port);
    }

    @Override
    public void entryHit(final EntryKey key) {
        written.entryHit(key);
    }

    /**
     * Brings the idle timers of {@code l2_fdb_table} entries (the table with NOTIFY_CONTROL) up to date from the
     * pipeline's FDB, which stamps a static entry whenever a packet matches it, then lets the model notify the entries
     * idle for their timeout. Waits for the data plane's next duty cycle (at most {@link #HIT_READ_TIMEOUT_MS}); called
     * by the packet-in poller, never on the data path.
     */
    @Override
    public int checkIdleTimeouts() {
        final Map<Long, EntryKey> watched = new HashMap<>();
        synchronized (this) {
            for (final P4Entity e : written.read(new ReadFilter.Tables(ids.l2Fdb, null, false, false, false))) {
                if (e instanceof P4Entity.TableEntry t && !t.isDefault() && t.idleTimeoutNs() > 0) {
                    watched.put(L2Compiler.fdbKey(t.key()), t.key());
                }
            }
        }
        if (!watched.isEmpty()) {
            final Map<Long, Long> hits;
            try {
                hits = control.staticFdbHits().get(HIT_READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (final TimeoutException | ExecutionException e) {
                return 0; // the data plane is not running (or is stepped by hand): nothing new to learn
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
            synchronized (this) {
                watched.forEach((fdbKey, key) -> {
                    final Long hit = hits.get(fdbKey);
                    if (hit != null && hit != FdbTable.NEVER_HIT && !hit.equals(lastFdbHits.put(fdbKey, hit))) {
                        written.entryHit(key);
                    }
                });
                lastFdbHits.keySet().retainAll(watched.keySet());
            }
        }
        // WrittenEntities holds its own monitor: the poller never waits here for a Write's data-plane round trip
        final List<P4Entity.TableEntry> idle = written.expireIdle();
        final CpuPortListener l = listener;
        if (l != null && !idle.isEmpty()) {
            l.onIdleTimeout(idle);
        }
        return idle.size();
    }

    /** A refusal the pipeline's control API has no code for (P4Runtime-only outcomes). */
    static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final UpdateStatus status;

        Refusal(final UpdateStatus status, final String message) {
            super(message);
            this.status = status;
        }
    }

    /** P4 object ids → pipeline ids, and the P4Info ids this adapter translates. */
    static final class Ids {
        final int ipv4;
        final int ipv6;
        final int routerInterfaces;
        final int neighbors;
        final int nextHops;
        final int wcmpGroups;
        final int aclIngress;
        final int l2Fdb;
        final int vlans;
        final int vlanMembership;
        final int aclEgress;
        final int l3Admit;
        final int cpuQueueMeter;
        final int wcmpSelector;
        final int portInCounter;
        final int portOutCounter;
        final int dropReasonCounter;
        final P4InfoModel model;
        final Map<Integer, Integer> rif = new HashMap<>();
        final Map<Integer, Integer> nextHop = new HashMap<>();
        final Map<Integer, Integer> group = new HashMap<>();
        final Map<io.asicemu.pipeline.table.IpPrefix, Integer> neighborRif = new HashMap<>();
        /** P4 register id → the pipeline's runtime setting it tunes. */
        final Map<Integer, RuntimeKnob> registerKnobs = new HashMap<>();
        /** QoS map table id → the pipeline's runtime setting its entries set. */
        final Map<Integer, RuntimeKnob> qosTables = new HashMap<>();

        Ids(final P4InfoModel model) {
            this.model = model;
            ipv4 = table(model, "ingress.routing_lookup.ipv4_table");
            ipv6 = table(model, "ingress.routing_lookup.ipv6_table");
            routerInterfaces = table(model, "ingress.routing_resolution.router_interface_table");
            neighbors = table(model, "ingress.routing_resolution.neighbor_table");
            nextHops = table(model, "ingress.routing_resolution.nexthop_table");
            wcmpGroups = table(model, "ingress.routing_resolution.wcmp_group_table");
            aclIngress = table(model, "ingress.acl_ingress.acl_ingress_table");
            l2Fdb = table(model, "ingress.l2.l2_fdb_table");
            vlans = table(model, "ingress.l2.vlan_table");
            vlanMembership = table(model, "ingress.l2.vlan_membership_table");
            aclEgress = table(model, "egress.acl_egress.acl_egress_table");
            l3Admit = table(model, "ingress.l3_admit.l3_admit_table");
            cpuQueueMeter = meter(model, "ingress.copp.cpu_queue_meter");
            wcmpSelector = profile(model, wcmpGroups);
            portInCounter = counter(model, "ingress.port_in_counter");
            portOutCounter = counter(model, "egress.port_out_counter");
            dropReasonCounter = counter(model, "ingress.drop_reason_counter");
            final Map<String, RuntimeKnob> registers = Map.ofEntries(
                    Map.entry("tm.ecn_min_threshold_bytes", RuntimeKnob.ECN_MIN_THRESHOLD_BYTES),
                    Map.entry("tm.ecn_max_threshold_bytes", RuntimeKnob.ECN_MAX_THRESHOLD_BYTES),
                    Map.entry("tm.ecn_max_probability_percent", RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT),
                    Map.entry("tm.ecn_yellow_min_threshold_bytes", RuntimeKnob.ECN_YELLOW_MIN_THRESHOLD_BYTES),
                    Map.entry("tm.ecn_yellow_max_threshold_bytes", RuntimeKnob.ECN_YELLOW_MAX_THRESHOLD_BYTES),
                    Map.entry("tm.ecn_yellow_max_probability_percent", RuntimeKnob.ECN_YELLOW_MAX_PROBABILITY_PERCENT),
                    Map.entry("tm.ecn_red_min_threshold_bytes", RuntimeKnob.ECN_RED_MIN_THRESHOLD_BYTES),
                    Map.entry("tm.ecn_red_max_threshold_bytes", RuntimeKnob.ECN_RED_MAX_THRESHOLD_BYTES),
                    Map.entry("tm.ecn_red_max_probability_percent", RuntimeKnob.ECN_RED_MAX_PROBABILITY_PERCENT),
                    Map.entry("tm.pfc_xoff_bytes", RuntimeKnob.PFC_XOFF_BYTES),
                    Map.entry("tm.pfc_xon_bytes", RuntimeKnob.PFC_XON_BYTES),
                    Map.entry("tm.pfc_watchdog_detection_time_ms", RuntimeKnob.PFC_WATCHDOG_DETECTION_MS),
                    Map.entry("tm.pfc_watchdog_restoration_time_ms", RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS),
                    Map.entry("ars.flowlet_idle_time_ns", RuntimeKnob.FLOWLET_IDLE_TIME_NS),
                    Map.entry("ars.hash_seed", RuntimeKnob.HASH_SEED),
                    Map.entry("ars.group_selection_mode", RuntimeKnob.GROUP_SELECTION_MODE));
            for (final IndexedResourceInfo r : model.registers()) {
                final RuntimeKnob knob = registers.get(r.name());
                if (knob != null) {
                    registerKnobs.put(r.id(), knob);
                }
            }
            qosTables.put(table(model, "ingress.qos.dscp_to_tc_table"), RuntimeKnob.DSCP_TO_TC);
            qosTables.put(table(model, "ingress.qos.dot1p_to_tc_table"), RuntimeKnob.DOT1P_TO_TC);
            qosTables.put(table(model, "ingress.qos.tc_to_queue_table"), RuntimeKnob.TC_TO_QUEUE);
            qosTables.put(table(model, "ingress.qos.tc_to_pg_table"), RuntimeKnob.TC_TO_PG);
        }

        private static int table(final P4InfoModel model, final String name) {
            for (final TableInfo t : model.tables()) {
                if (t.name().equals(name)) {
                    return t.id();
                }
            }
            throw new IllegalArgumentException("P4Info has no table " + name);
        }

        private static int profile(final P4InfoModel model, final int tableId) {
            for (final io.asicemu.p4rt.info.ActionProfileInfo p : model.actionProfiles()) {
                if (p.tableIds().contains(tableId)) {
                    return p.id();
                }
            }
            throw new IllegalArgumentException("P4Info has no action profile for table " + tableId);
        }

        private static int counter(final P4InfoModel model, final String name) {
            for (final IndexedResourceInfo c : model.counters()) {
                if (c.name().equals(name)) {
                    return c.id();
                }
            }
            throw new IllegalArgumentException("P4Info has no counter " + name);
        }

        private static int meter(final P4InfoModel model, final String name) {
            for (final IndexedResourceInfo m : model.meters()) {
                if (m.name().equals(name)) {
                    return m.id();
                }
            }
            throw new IllegalArgumentException("P4Info has no meter " + name);
        }

        boolean isPipelineCounter(final int counterId) {
            return counterId == portInCounter || counterId == portOutCounter || counterId == dropReasonCounter;
        }

        void clear() {
            rif.clear();
            nextHop.clear();
            group.clear();
            neighborRif.clear();
        }
    }

    static long lowBits(final BigInteger value) {
        return value.longValue() & MASK_64;
    }

    static boolean isIpv4(final BigInteger address) {
        return address.compareTo(IPV4_LIMIT) < 0;
    }

    static EntryAction.Direct direct(final P4Entity.TableEntry entry) {
        if (entry.action() instanceof EntryAction.Direct d) {
            return d;
        }
        throw new Refusal(
                UpdateStatus.UNIMPLEMENTED,
                "table " + entry.key().tableId() + " takes direct actions only in the pipeline");
    }
}
