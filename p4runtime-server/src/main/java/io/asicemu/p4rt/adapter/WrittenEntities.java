package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.CounterValue;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.MeterSettings;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.P4Entity.CloneSession;
import io.asicemu.p4rt.backend.P4Entity.CounterCell;
import io.asicemu.p4rt.backend.P4Entity.DigestConfig;
import io.asicemu.p4rt.backend.P4Entity.DirectCounterCell;
import io.asicemu.p4rt.backend.P4Entity.DirectMeterCell;
import io.asicemu.p4rt.backend.P4Entity.GroupMember;
import io.asicemu.p4rt.backend.P4Entity.MeterCell;
import io.asicemu.p4rt.backend.P4Entity.MulticastGroup;
import io.asicemu.p4rt.backend.P4Entity.ProfileGroup;
import io.asicemu.p4rt.backend.P4Entity.ProfileMember;
import io.asicemu.p4rt.backend.P4Entity.RegisterCell;
import io.asicemu.p4rt.backend.P4Entity.TableEntry;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.ActionInfo;
import io.asicemu.p4rt.info.ActionProfileInfo;
import io.asicemu.p4rt.info.IndexedResourceInfo;
import io.asicemu.p4rt.info.P4InfoModel;
import io.asicemu.p4rt.info.TableInfo;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The P4Runtime view of the switch as the controller wrote it: table entries (canonical key, priority, metadata,
 * action and parameters, idle timeout), default entries, action-profile members and groups, written counter and
 * meter cells, registers, multicast groups, clone sessions and digest settings, and the idle timers of entries
 * with a timeout. It is the one place the P4 rules of a write are checked (existence and duplicates by P4 key, table
 * and profile sizes from the P4Info, references between P4 objects, one-shot vs member/group style, watch and replica
 * ports); the pipeline's control model checks the rest (config_db objects, pipeline resources, values the data path
 * cannot take) when {@link PipelineTableBackend} stages the same batch. Nothing here forwards a packet and nothing
 * here is a second copy of the data path's state: the backend writes a batch here only together with committing its
 * pipeline batch, and answers Reads from here plus the pipeline (counters, registers, FDB hits).
 * <p>
 * Not a {@link io.asicemu.p4rt.backend.P4Backend}: owned by one backend, which serializes every call on its own
 * monitor (the methods are synchronized as well, for the test-scope standalone backend that shares this class).
 */
final class WrittenEntities {
    /** Clone (mirror) sessions the emulated chip offers. */
    static final int CLONE_SESSION_COUNT = 16;

    /** Undo record: kind (a {@link Runnable}, or ENTRY_DELETED / ENTRY_WRITTEN), entries, key, old, counter, meter, hit. */
    private static final int UNDO_STRIDE = 7;

    private static final Object ENTRY_DELETED = new Object();
    private static final Object ENTRY_WRITTEN = new Object();

    private final P4InfoModel model;
    private final IntPredicate portExists;
    private final Int2ObjectHashMap<LinkedHashMap<EntryKey, TableEntry>> tables = new Int2ObjectHashMap<>();
    private final Map<Integer, TableEntry> defaults = new HashMap<>();
    private final Map<EntryKey, CounterValue> directCounters = new HashMap<>();
    private final Map<EntryKey, MeterSettings> directMeters = new HashMap<>();
    private final Map<Integer, TreeMap<Integer, ProfileMember>> members = new HashMap<>();
    private final Map<Integer, TreeMap<Integer, ProfileGroup>> groups = new HashMap<>();
    private final Map<Integer, long[][]> counters = new HashMap<>();
    private final Map<Integer, MeterSettings[]> meters = new HashMap<>();
    private final Map<Integer, BigInteger[]> registers = new HashMap<>();
    private final TreeMap<Integer, MulticastGroup> multicastGroups = new TreeMap<>();
    private final TreeMap<Integer, CloneSession> cloneSessions = new TreeMap<>();
    private final TreeMap<Integer, DigestConfig> digestConfigs = new TreeMap<>();
    /**
     * The undo log of the batch being written, applied last-first if an all-or-nothing batch fails. A table entry's
     * undo is a record of {@link #UNDO_STRIDE} slots in one array kept across batches (a batch of entries needs no
     * object per entry); the rarer entities log a {@link Runnable} in the first slot of theirs.
     */
    private Object[] undo = new Object[16 * UNDO_STRIDE];

    private int undoCount;
    // Direct counters and meters and idle timers hold keys only of tables that have them (the codec refuses the
    // others), so a Write to any other table skips those maps.
    private final Map<EntryKey, long[]> lastHitNs = new HashMap<>();
    private final LongSupplier clockNs;

    /**
     * @param model      the P4Info in force.
     * @param portExists whether a data port number exists (watch ports, replicas).
     * @param clockNs    the time source of idle timeouts (a manual clock in tests).
     */
    WrittenEntities(final P4InfoModel model, final IntPredicate portExists, final LongSupplier clockNs) {
        this.clockNs = clockNs;
        this.model = model;
        this.portExists = portExists;
        reset();
    }

    synchronized void reset() {
        tables.clear();
        defaults.clear();
        directCounters.clear();
        directMeters.clear();
        members.clear();
        groups.clear();
        counters.clear();
        meters.clear();
        registers.clear();
        multicastGroups.clear();
        cloneSessions.clear();
        digestConfigs.clear();
        lastHitNs.clear();
        for (final TableInfo t : model.tables()) {
            tables.put(t.id(), new LinkedHashMap<>());
            defaults.put(t.id(), initialDefault(t));
        }
        for (final IndexedResourceInfo c : model.counters()) {
            counters.put(c.id(), new long[2][(int) c.size()]);
        }
        for (final IndexedResourceInfo m : model.meters()) {
            meters.put(m.id(), new MeterSettings[(int) m.size()]);
        }
        for (final IndexedResourceInfo r : model.registers()) {
            final BigInteger[] cells = new BigInteger[(int) r.size()];
            java.util.Arrays.fill(cells, BigInteger.ZERO);
            registers.put(r.id(), cells);
        }
    }

    private TableEntry initialDefault(final TableInfo t) {
        int actionId = t.constDefaultActionId();
        if (actionId == 0) {
            for (final var ref : t.actionRefs().entrySet()) {
                final ActionInfo a = model.action(ref.getKey());
                if (ref.getValue().allowsDefault()
                        && a.params().isEmpty()
                        && (actionId == 0 || a.name().equals("NoAction"))) {
                    actionId = a.id();
                }
            }
        }
        if (actionId == 0) {
            final ActionInfo a = model.action(
                    t.actionRefs().keySet().stream().sorted().findFirst().orElseThrow());
            actionId = a.id();
        }
        final List<BigInteger> zeros = new ArrayList<>();
        model.action(actionId).params().forEach(p -> zeros.add(BigInteger.ZERO));
        return new TableEntry(
                new EntryKey(t.id(), List.of(), 0),
                new EntryAction.Direct(new ActionCall(actionId, zeros)),
                true,
                0,
                new byte[0],
                null,
                null);
    }

    synchronized List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing) {
        final List<UpdateOutcome> out = new ArrayList<>(ops.size());
        clearUndo();
        boolean failed = false;
        for (final WriteOp op : ops) {
            if (failed && allOrNothing) {
                out.add(new UpdateOutcome(UpdateStatus.ABORTED, "not applied: an earlier update of the batch failed"));
                continue;
            }
            final UpdateOutcome o = apply(op);
            failed |= !o.ok();
            out.add(o);
        }
        if (failed && allOrNothing) {
            rollBack();
            for (int i = 0; i < out.size(); i++) {
                if (out.get(i).ok()) {
                    out.set(
                            i,
                            new UpdateOutcome(UpdateStatus.ABORTED, "rolled back: another update of the batch failed"));
                }
            }
        }
        clearUndo();
        return out;
    }

    /** Logs the undo of a change other than a table entry's. */
    private void pushUndo(final Runnable r) {
        pushUndo(r, null, null, null, null, null, null);
    }

    private void pushUndo(
            final Object kind,
            final Map<EntryKey, TableEntry> entries,
            final EntryKey key,
            final TableEntry old,
            final CounterValue oldCounter,
            final MeterSettings oldMeter,
            final long[] oldHit) {
        int i = undoCount * UNDO_STRIDE;
        if (i == undo.length) {
            undo = java.util.Arrays.copyOf(undo, undo.length * 2);
        }
        undo[i++] = kind;
        undo[i++] = entries;
        undo[i++] = key;
        undo[i++] = old;
        undo[i++] = oldCounter;
        undo[i++] = oldMeter;
        undo[i] = oldHit;
        undoCount++;
    }

    /** Undoes the logged changes, the last first. */
    @SuppressWarnings("unchecked")
    private void rollBack() {
        while (undoCount > 0) {
            undoCount--;
            final int i = undoCount * UNDO_STRIDE;
            final Object kind = undo[i];
            if (kind instanceof Runnable r) {
                r.run();
                continue;
            }
            final Map<EntryKey, TableEntry> entries = (Map<EntryKey, TableEntry>) undo[i + 1];
            final EntryKey key = (EntryKey) undo[i + 2];
            final TableEntry old = (TableEntry) undo[i + 3];
            final CounterValue oldCounter = (CounterValue) undo[i + 4];
            final MeterSettings oldMeter = (MeterSettings) undo[i + 5];
            final long[] oldHit = (long[]) undo[i + 6];
            if (kind == ENTRY_WRITTEN) {
                entries.remove(key);
                directCounters.remove(key);
                directMeters.remove(key);
                lastHitNs.remove(key);
                if (old != null) {
                    restoreEntry(entries, old, oldCounter, oldMeter);
                }
            } else {
                restoreEntry(entries, old, oldCounter, oldMeter);
            }
            if (oldHit != null) {
                lastHitNs.put(key, oldHit);
            }
        }
    }

    /** Forgets the log (and drops its references, so a batch's entries are not kept alive by it). */
    private void clearUndo() {
        java.util.Arrays.fill(undo, 0, undoCount * UNDO_STRIDE, null);
        undoCount = 0;
    }

    private UpdateOutcome apply(final WriteOp op) {
        return switch (op.entity()) {
            case TableEntry e -> e.isDefault() ? writeDefault(op.kind(), e) : writeEntry(op.kind(), e);
            case ProfileMember m -> writeMember(op.kind(), m);
            case ProfileGroup g -> writeGroup(op.kind(), g);
            case CounterCell c -> writeCounter(c);
            case MeterCell m -> writeMeter(m);
            case RegisterCell r -> writeRegister(r);
            case DirectCounterCell c -> writeDirectCounter(c);
            case DirectMeterCell m -> writeDirectMeter(m);
            case MulticastGroup g -> writeMulticast(op.kind(), g);
            case CloneSession s -> writeClone(op.kind(), s);
            case DigestConfig d -> writeDigest(op.kind(), d);
        };
    }

    private static UpdateOutcome fail(final UpdateStatus status, final String fmt, final Object... args) {
        return new UpdateOutcome(status, String.format(fmt, args));
    }

    private UpdateOutcome writeDefault(final UpdateKind kind, final TableEntry e) {
        final TableInfo t = model.table(e.key().tableId());
        if (kind != UpdateKind.MODIFY) {
            return fail(UpdateStatus.INVALID_ARGUMENT, "the default entry of '%s' can only be modified", t.name());
        }
        if (t.constDefaultActionId() != 0) {
            return fail(UpdateStatus.PERMISSION_DENIED, "the default action of '%s' is const", t.name());
        }
        final TableEntry old = defaults.put(t.id(), e);
        pushUndo(() -> defaults.put(t.id(), old));
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeEntry(final UpdateKind kind, final TableEntry e) {
        final TableInfo t = model.table(e.key().tableId());
        final LinkedHashMap<EntryKey, TableEntry> entries = tables.get(t.id());
        final TableEntry old = entries.get(e.key());
        if (kind == UpdateKind.DELETE) {
            if (old == null) {
                return fail(UpdateStatus.NOT_FOUND, "no such entry in '%s'", t.name());
            }
            final CounterValue oldCounter = t.directCounterId() != 0 ? directCounters.remove(e.key()) : null;
            final MeterSettings oldMeter = t.directMeterId() != 0 ? directMeters.remove(e.key()) : null;
            final long[] oldHit = t.idleTimeout() ? lastHitNs.remove(e.key()) : null;
            entries.remove(e.key());
            pushUndo(ENTRY_DELETED, entries, e.key(), old, oldCounter, oldMeter, oldHit);
            return UpdateOutcome.OK;
        }
        if (kind == UpdateKind.INSERT && old != null) {
            return fail(UpdateStatus.ALREADY_EXISTS, "entry already exists in '%s'", t.name());
        }
        if (kind == UpdateKind.MODIFY && old == null) {
            return fail(UpdateStatus.NOT_FOUND, "no such entry in '%s'", t.name());
        }
        if (kind == UpdateKind.INSERT && entries.size() >= t.size()) {
            return fail(UpdateStatus.RESOURCE_EXHAUSTED, "table '%s' is full (%d entries)", t.name(), t.size());
        }
        final UpdateOutcome refs = checkActionRefs(t, e.action(), old);
        if (!refs.ok()) {
            return refs;
        }
        final CounterValue oldCounter = t.directCounterId() != 0 ? directCounters.get(e.key()) : null;
        final MeterSettings oldMeter = t.directMeterId() != 0 ? directMeters.get(e.key()) : null;
        entries.put(e.key(), stripped(e));
        final long[] oldHit = t.idleTimeout() ? lastHitNs.remove(e.key()) : null;
        if (t.idleTimeout() && e.idleTimeoutNs() > 0) {
            lastHitNs.put(e.key(), new long[] {clockNs.getAsLong()});
        }
        if (t.directCounterId() != 0) {
            if (e.counter() != null) {
                directCounters.put(e.key(), e.counter());
            } else if (kind == UpdateKind.INSERT) {
                directCounters.put(e.key(), CounterValue.ZERO);
            }
        }
        if (t.directMeterId() != 0) {
            if (e.meter() != null) {
                directMeters.put(e.key(), e.meter());
            } else {
                directMeters.remove(e.key());
            }
        }
        pushUndo(ENTRY_WRITTEN, entries, e.key(), old, oldCounter, oldMeter, oldHit);
        return UpdateOutcome.OK;
    }

    private static TableEntry stripped(final TableEntry e) {
        if (!e.isDefault() && e.meter() == null && e.counter() == null && e.sinceLastHitNs() == -1) {
            return e; // already what is kept (the common Write): no copy
        }
        return new TableEntry(e.key(), e.action(), false, e.idleTimeoutNs(), e.metadata(), null, null);
    }

    private void restoreEntry(
            final Map<EntryKey, TableEntry> entries,
            final TableEntry old,
            final CounterValue c,
            final MeterSettings m) {
        entries.put(old.key(), old);
        if (c != null) {
            directCounters.put(old.key(), c);
        }
        if (m != null) {
            directMeters.put(old.key(), m);
        }
    }

    private UpdateOutcome checkActionRefs(final TableInfo t, final EntryAction action, final TableEntry old) {
        final ActionProfileInfo profile = model.actionProfile(t.implementationId());
        switch (action) {
            case EntryAction.Member m -> {
                if (!members.getOrDefault(profile.id(), new TreeMap<>()).containsKey(m.memberId())) {
                    return fail(
                            UpdateStatus.NOT_FOUND, "member %d does not exist in '%s'", m.memberId(), profile.name());
                }
            }
            case EntryAction.Group g -> {
                if (!groups.getOrDefault(profile.id(), new TreeMap<>()).containsKey(g.groupId())) {
                    return fail(UpdateStatus.NOT_FOUND, "group %d does not exist in '%s'", g.groupId(), profile.name());
                }
            }
            case EntryAction.OneShot s -> {
                if (!members.getOrDefault(profile.id(), new TreeMap<>()).isEmpty()
                        || !groups.getOrDefault(profile.id(), new TreeMap<>()).isEmpty()) {
                    return fail(
                            UpdateStatus.INVALID_ARGUMENT,
                            "'%s' is programmed with members/groups: one-shot and member/group styles cannot be mixed",
                            profile.name());
                }
                long total = weightOf(s);
                for (final TableEntry other : tables.get(t.id()).values()) {
                    if (other != old && other.action() instanceof EntryAction.OneShot o) {
                        total += weightOf(o);
                    }
                }
                if (total > profile.size()) {
                    return fail(
                            UpdateStatus.RESOURCE_EXHAUSTED,
                            "selector '%s' would hold %d weights, more than %d",
                            profile.name(),
                            total,
                            profile.size());
                }
                for (final EntryAction.WeightedAction w : s.actions()) {
                    if (w.watchPort() >= 0 && !portExists(w.watchPort())) {
                        return fail(UpdateStatus.INVALID_ARGUMENT, "watch_port %d does not exist", w.watchPort());
                    }
                }
            }
            case EntryAction.Direct d -> {}
        }
        return UpdateOutcome.OK;
    }

    private static long weightOf(final EntryAction.OneShot s) {
        long sum = 0;
        for (final EntryAction.WeightedAction w : s.actions()) {
            sum += w.weight();
        }
        return sum;
    }

    private boolean profileHasOneShots(final int profileId) {
        for (final int tableId : model.actionProfile(profileId).tableIds()) {
            for (final TableEntry e : tables.get(tableId).values()) {
                if (e.action() instanceof EntryAction.OneShot) {
                    return true;
                }
            }
        }
        return false;
    }

    private UpdateOutcome writeMember(final UpdateKind kind, final ProfileMember m) {
        final ActionProfileInfo p = model.actionProfile(m.profileId());
        if (profileHasOneShots(p.id())) {
            return fail(
                    UpdateStatus.INVALID_ARGUMENT,
                    "'%s' is programmed with one-shot sets: member/group programming cannot be mixed in",
                    p.name());
        }
        final TreeMap<Integer, ProfileMember> map = members.computeIfAbsent(p.id(), k -> new TreeMap<>());
        final ProfileMember old = map.get(m.memberId());
        if (kind == UpdateKind.INSERT && old != null) {
            return fail(UpdateStatus.ALREADY_EXISTS, "member %d already exists", m.memberId());
        }
        if (kind != UpdateKind.INSERT && old == null) {
            return fail(UpdateStatus.NOT_FOUND, "member %d does not exist", m.memberId());
        }
        if (kind == UpdateKind.INSERT && map.size() >= p.size()) {
            return fail(UpdateStatus.RESOURCE_EXHAUSTED, "'%s' holds %d members already", p.name(), p.size());
        }
        if (kind == UpdateKind.DELETE) {
            if (memberInUse(p, m.memberId())) {
                return fail(
                        UpdateStatus.FAILED_PRECONDITION,
                        "member %d is used by a group or a table entry",
                        m.memberId());
            }
            map.remove(m.memberId());
        } else {
            map.put(m.memberId(), m);
        }
        pushUndo(() -> {
            if (old == null) {
                map.remove(m.memberId());
            } else {
                map.put(old.memberId(), old);
            }
        });
        return UpdateOutcome.OK;
    }

    private boolean memberInUse(final ActionProfileInfo p, final int memberId) {
        for (final ProfileGroup g : groups.getOrDefault(p.id(), new TreeMap<>()).values()) {
            for (final GroupMember gm : g.members()) {
                if (gm.memberId() == memberId) {
                    return true;
                }
            }
        }
        for (final int tableId : p.tableIds()) {
            for (final TableEntry e : tables.get(tableId).values()) {
                if (e.action() instanceof EntryAction.Member em && em.memberId() == memberId) {
                    return true;
                }
            }
        }
        return false;
    }

    private UpdateOutcome writeGroup(final UpdateKind kind, final ProfileGroup g) {
        final ActionProfileInfo p = model.actionProfile(g.profileId());
        if (profileHasOneShots(p.id())) {
            return fail(
                    UpdateStatus.INVALID_ARGUMENT,
                    "'%s' is programmed with one-shot sets: member/group programming cannot be mixed in",
                    p.name());
        }
        final TreeMap<Integer, ProfileGroup> map = groups.computeIfAbsent(p.id(), k -> new TreeMap<>());
        final ProfileGroup old = map.get(g.groupId());
        if (kind == UpdateKind.INSERT && old != null) {
            return fail(UpdateStatus.ALREADY_EXISTS, "group %d already exists", g.groupId());
        }
        if (kind != UpdateKind.INSERT && old == null) {
            return fail(UpdateStatus.NOT_FOUND, "group %d does not exist", g.groupId());
        }
        if (kind == UpdateKind.DELETE) {
            for (final int tableId : p.tableIds()) {
                for (final TableEntry e : tables.get(tableId).values()) {
                    if (e.action() instanceof EntryAction.Group eg && eg.groupId() == g.groupId()) {
                        return fail(UpdateStatus.FAILED_PRECONDITION, "group %d is used by a table entry", g.groupId());
                    }
                }
            }
            map.remove(g.groupId());
        } else {
            if (kind == UpdateKind.MODIFY && g.maxSize() != 0 && g.maxSize() != old.maxSize()) {
                return fail(UpdateStatus.INVALID_ARGUMENT, "max_size of group %d cannot change", g.groupId());
            }
            final TreeMap<Integer, ProfileMember> ms = members.getOrDefault(p.id(), new TreeMap<>());
            for (final GroupMember gm : g.members()) {
                if (!ms.containsKey(gm.memberId())) {
                    return fail(UpdateStatus.NOT_FOUND, "member %d does not exist", gm.memberId());
                }
                if (gm.watchPort() >= 0 && !portExists(gm.watchPort())) {
                    return fail(UpdateStatus.INVALID_ARGUMENT, "watch_port %d does not exist", gm.watchPort());
                }
            }
            if (kind == UpdateKind.INSERT
                    && map.size() >= model.table(p.tableIds().get(0)).size()) {
                return fail(UpdateStatus.RESOURCE_EXHAUSTED, "'%s' holds its maximum of groups", p.name());
            }
            map.put(
                    g.groupId(),
                    kind == UpdateKind.MODIFY && g.maxSize() == 0
                            ? new ProfileGroup(g.profileId(), g.groupId(), g.members(), old.maxSize())
                            : g);
        }
        pushUndo(() -> {
            if (old == null) {
                map.remove(g.groupId());
            } else {
                map.put(old.groupId(), old);
            }
        });
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeCounter(final CounterCell c) {
        final long[][] cells = counters.get(c.counterId());
        final long from = c.index() < 0 ? 0 : c.index();
        final long to = c.index() < 0 ? cells[0].length : c.index() + 1;
        final long[][] saved = {cells[0].clone(), cells[1].clone()};
        for (long i = from; i < to; i++) {
            cells[0][(int) i] = c.value().bytes();
            cells[1][(int) i] = c.value().packets();
        }
        pushUndo(() -> {
            System.arraycopy(saved[0], 0, cells[0], 0, saved[0].length);
            System.arraycopy(saved[1], 0, cells[1], 0, saved[1].length);
        });
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeMeter(final MeterCell m) {
        final MeterSettings[] cells = meters.get(m.meterId());
        final MeterSettings[] saved = cells.clone();
        if (m.index() < 0) {
            java.util.Arrays.fill(cells, m.settings());
        } else {
            cells[(int) m.index()] = m.settings();
        }
        pushUndo(() -> System.arraycopy(saved, 0, cells, 0, saved.length));
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeRegister(final RegisterCell r) {
        final BigInteger[] cells = registers.get(r.registerId());
        final BigInteger[] saved = cells.clone();
        if (r.index() < 0) {
            java.util.Arrays.fill(cells, r.value());
        } else {
            cells[(int) r.index()] = r.value();
        }
        pushUndo(() -> System.arraycopy(saved, 0, cells, 0, saved.length));
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeDirectCounter(final DirectCounterCell c) {
        if (!tables.get(c.key().tableId()).containsKey(c.key())) {
            return fail(UpdateStatus.NOT_FOUND, "no such entry for the direct counter");
        }
        final CounterValue old = directCounters.put(c.key(), c.value());
        pushUndo(() -> directCounters.put(c.key(), old));
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeDirectMeter(final DirectMeterCell m) {
        if (!tables.get(m.key().tableId()).containsKey(m.key())) {
            return fail(UpdateStatus.NOT_FOUND, "no such entry for the direct meter");
        }
        final MeterSettings old =
                m.settings() == null ? directMeters.remove(m.key()) : directMeters.put(m.key(), m.settings());
        pushUndo(() -> {
            if (old == null) {
                directMeters.remove(m.key());
            } else {
                directMeters.put(m.key(), old);
            }
        });
        return UpdateOutcome.OK;
    }

    private <T> UpdateOutcome writeKeyed(
            final TreeMap<Integer, T> map,
            final UpdateKind kind,
            final int id,
            final T value,
            final int capacity,
            final String what) {
        final T old = map.get(id);
        if (kind == UpdateKind.INSERT && old != null) {
            return fail(UpdateStatus.ALREADY_EXISTS, "%s %d already exists", what, id);
        }
        if (kind != UpdateKind.INSERT && old == null) {
            return fail(UpdateStatus.NOT_FOUND, "%s %d does not exist", what, id);
        }
        if (kind == UpdateKind.INSERT && map.size() >= capacity) {
            return fail(UpdateStatus.RESOURCE_EXHAUSTED, "all %d %ss are in use", capacity, what);
        }
        final Consumer<TreeMap<Integer, T>> restore = m -> {
            if (old == null) {
                m.remove(id);
            } else {
                m.put(id, old);
            }
        };
        if (kind == UpdateKind.DELETE) {
            map.remove(id);
        } else {
            map.put(id, value);
        }
        pushUndo(() -> restore.accept(map));
        return UpdateOutcome.OK;
    }

    private UpdateOutcome writeMulticast(final UpdateKind kind, final MulticastGroup g) {
        for (final P4Entity.Replica r : g.replicas()) {
            if (!portExists(r.port())) {
                return fail(UpdateStatus.INVALID_ARGUMENT, "replica port %d does not exist", r.port());
            }
        }
        return writeKeyed(multicastGroups, kind, g.groupId(), g, model.multicastGroupCount(), "multicast group");
    }

    private UpdateOutcome writeClone(final UpdateKind kind, final CloneSession s) {
        for (final P4Entity.Replica r : s.replicas()) {
            if (!portExists(r.port())) {
                return fail(UpdateStatus.INVALID_ARGUMENT, "replica port %d does not exist", r.port());
            }
        }
        return writeKeyed(cloneSessions, kind, s.sessionId(), s, CLONE_SESSION_COUNT, "clone session");
    }

    private UpdateOutcome writeDigest(final UpdateKind kind, final DigestConfig d) {
        return writeKeyed(digestConfigs, kind, d.digestId(), d, Integer.MAX_VALUE, "digest config");
    }

    synchronized List<P4Entity> read(final ReadFilter filter) {
        final List<P4Entity> out = new ArrayList<>();
        switch (filter) {
            case ReadFilter.Tables f -> readTables(f, out);
            case ReadFilter.Members f ->
                members.entrySet().stream()
                        .filter(e -> f.profileId() == 0 || e.getKey() == f.profileId())
                        .forEach(e -> e.getValue().values().stream()
                                .filter(m -> f.memberId() == 0 || m.memberId() == f.memberId())
                                .forEach(out::add));
            case ReadFilter.Groups f ->
                groups.entrySet().stream()
                        .filter(e -> f.profileId() == 0 || e.getKey() == f.profileId())
                        .forEach(e -> e.getValue().values().stream()
                                .filter(g -> f.groupId() == 0 || g.groupId() == f.groupId())
                                .forEach(out::add));
            case ReadFilter.Counters f ->
                model.counters().stream()
                        .filter(c -> f.counterId() == 0 || c.id() == f.counterId())
                        .forEach(c -> cells(
                                c,
                                f.index(),
                                i -> out.add(new CounterCell(
                                        c.id(),
                                        i,
                                        new CounterValue(
                                                counters.get(c.id())[0][(int) i], counters.get(c.id())[1][(int) i])))));
            case ReadFilter.Meters f ->
                model.meters().stream()
                        .filter(c -> f.meterId() == 0 || c.id() == f.meterId())
                        .forEach(c -> cells(
                                c, f.index(), i -> out.add(new MeterCell(c.id(), i, meters.get(c.id())[(int) i]))));
            case ReadFilter.Registers f ->
                model.registers().stream()
                        .filter(c -> f.registerId() == 0 || c.id() == f.registerId())
                        .forEach(c -> cells(
                                c,
                                f.index(),
                                i -> out.add(
                                        new RegisterCell(c.id(), i, registers.get(c.id())[(int) i]))));
            case ReadFilter.DirectCounters f ->
                directEntries(f.tableId(), f.key())
                        .forEach(k ->
                                out.add(new DirectCounterCell(k, directCounters.getOrDefault(k, CounterValue.ZERO))));
            case ReadFilter.DirectMeters f ->
                directEntries(f.tableId(), f.key()).forEach(k -> out.add(new DirectMeterCell(k, directMeters.get(k))));
            case ReadFilter.MulticastGroups f ->
                multicastGroups.values().stream()
                        .filter(g -> f.groupId() == 0 || g.groupId() == f.groupId())
                        .forEach(out::add);
            case ReadFilter.CloneSessions f ->
                cloneSessions.values().stream()
                        .filter(g -> f.sessionId() == 0 || g.sessionId() == f.sessionId())
                        .forEach(out::add);
            case ReadFilter.Digests f ->
                digestConfigs.values().stream()
                        .filter(g -> f.digestId() == 0 || g.digestId() == f.digestId())
                        .forEach(out::add);
        }
        return out;
    }

    /**
     * The entries of one table as written, each with its direct meter (a fresh map in write order): the "before" of a
     * pipeline object rebuilt whole (ACLs, L3 admit), without going through a {@link ReadFilter}.
     */
    synchronized Map<EntryKey, TableEntry> entriesWithMeters(final int tableId) {
        final LinkedHashMap<EntryKey, TableEntry> entries = tables.get(tableId);
        final Map<EntryKey, TableEntry> out = new LinkedHashMap<>(Math.max(16, entries.size() * 2));
        for (final TableEntry e : entries.values()) {
            final MeterSettings meter = directMeters.get(e.key());
            out.put(
                    e.key(),
                    meter == null
                            ? e
                            : new TableEntry(e.key(), e.action(), false, e.idleTimeoutNs(), e.metadata(), meter, null));
        }
        return out;
    }

    /** The written cells of an indirect meter (a copy; null: never written). */
    synchronized MeterSettings[] meterCells(final int meterId) {
        return meters.get(meterId).clone();
    }

    /** The clone sessions as written, by session id (a copy). */
    synchronized Map<Integer, CloneSession> cloneSessions() {
        return new HashMap<>(cloneSessions);
    }

    private static void cells(final IndexedResourceInfo r, final long index, final java.util.function.LongConsumer c) {
        if (index >= 0) {
            if (index < r.size()) {
                c.accept(index);
            }
            return;
        }
        for (long i = 0; i < r.size(); i++) {
            c.accept(i);
        }
    }

    private List<EntryKey> directEntries(final int tableId, final EntryKey key) {
        final List<EntryKey> keys = new ArrayList<>();
        for (final TableInfo t : model.tables()) {
            if (tableId != 0 && t.id() != tableId) {
                continue;
            }
            for (final EntryKey k : tables.get(t.id()).keySet()) {
                if (key == null || key.equals(k)) {
                    keys.add(k);
                }
            }
        }
        return keys;
    }

    private void readTables(final ReadFilter.Tables f, final List<P4Entity> out) {
        for (final TableInfo t : model.tables()) {
            if (f.tableId() != 0 && t.id() != f.tableId()) {
                continue;
            }
            if (f.defaultEntry()) {
                out.add(defaults.get(t.id()));
                continue;
            }
            for (final TableEntry e : tables.get(t.id()).values()) {
                if (f.key() == null || matchesPattern(f.key(), e.key())) {
                    final long[] hit = lastHitNs.get(e.key());
                    out.add(new TableEntry(
                            e.key(),
                            e.action(),
                            false,
                            e.idleTimeoutNs(),
                            e.metadata(),
                            f.withMeter() ? directMeters.get(e.key()) : null,
                            f.withCounter() && t.directCounterId() != 0
                                    ? directCounters.getOrDefault(e.key(), CounterValue.ZERO)
                                    : null,
                            f.withIdle() ? (hit == null ? 0 : clockNs.getAsLong() - hit[0]) : -1));
                }
            }
        }
    }

    private static boolean matchesPattern(final EntryKey pattern, final EntryKey key) {
        if (pattern.priority() != 0 && pattern.priority() != key.priority()) {
            return false;
        }
        return key.matches().containsAll(pattern.matches());
    }

    private boolean portExists(final int port) {
        return portExists.test(port);
    }

    synchronized void entryHit(final EntryKey key) {
        final long[] last = lastHitNs.get(key);
        if (last != null) {
            last[0] = clockNs.getAsLong();
        }
    }

    /**
     * Finds the entries whose idle timeout passed since their last hit or notification and restarts their timers
     * (spec: notify once per timeout period).
     *
     * @return the entries to notify.
     */
    synchronized List<TableEntry> expireIdle() {
        final List<TableEntry> idle = new ArrayList<>();
        final long nowNs = clockNs.getAsLong();
        for (final var e : lastHitNs.entrySet()) {
            final TableEntry entry = tables.get(e.getKey().tableId()).get(e.getKey());
            if (nowNs - e.getValue()[0] >= entry.idleTimeoutNs()) {
                idle.add(entry);
                e.getValue()[0] = nowNs;
            }
        }
        return idle;
    }
}
