package io.asicemu.p4rt.codec;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.CounterValue;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.MeterSettings;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.ActionInfo;
import io.asicemu.p4rt.info.ActionProfileInfo;
import io.asicemu.p4rt.info.ActionScope;
import io.asicemu.p4rt.info.DigestInfo;
import io.asicemu.p4rt.info.IndexedResourceInfo;
import io.asicemu.p4rt.info.MatchFieldInfo;
import io.asicemu.p4rt.info.MatchKind;
import io.asicemu.p4rt.info.P4InfoModel;
import io.asicemu.p4rt.info.ParamInfo;
import io.asicemu.p4rt.info.TableInfo;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4RuntimeOuterClass;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * Protobuf ↔ typed entities, validating every P4Runtime rule that depends only on the P4Info (match kinds and
 * widths, priorities, action refs and scopes, parameters, selector weights, canonical byte strings). Rules that
 * depend on state (existence, capacity, references) belong to the backend. Protobuf never crosses this class.
 * Stateless apart from the immutable model; thread safe.
 */
public final class EntityCodec {
    /** Width of port numbers in watch_port, replicas and packet metadata. */
    public static final int PORT_BITS = 16;

    private final P4InfoModel model;

    public EntityCodec(final P4InfoModel model) {
        this.model = model;
    }

    public P4InfoModel model() {
        return model;
    }

    private static CodecException invalid(final String fmt, final Object... args) {
        return new CodecException(UpdateStatus.INVALID_ARGUMENT, String.format(fmt, args));
    }

    // ---- Write ---------------------------------------------------------------------------------------------------

    /** Decodes and validates one update of a Write batch. */
    public WriteOp decodeUpdate(final Update update) throws CodecException {
        final UpdateKind kind = switch (update.getType()) {
            case INSERT -> UpdateKind.INSERT;
            case MODIFY -> UpdateKind.MODIFY;
            case DELETE -> UpdateKind.DELETE;
            default -> throw invalid("update type %s is not INSERT, MODIFY or DELETE", update.getType());
        };
        final Entity e = update.getEntity();
        final P4Entity entity = switch (e.getEntityCase()) {
            case TABLE_ENTRY -> tableEntry(kind, e.getTableEntry());
            case ACTION_PROFILE_MEMBER -> member(kind, e.getActionProfileMember());
            case ACTION_PROFILE_GROUP -> group(kind, e.getActionProfileGroup());
            case COUNTER_ENTRY -> counter(kind, e.getCounterEntry());
            case METER_ENTRY -> meter(kind, e.getMeterEntry());
            case REGISTER_ENTRY -> register(kind, e.getRegisterEntry());
            case DIRECT_COUNTER_ENTRY -> directCounter(kind, e.getDirectCounterEntry());
            case DIRECT_METER_ENTRY -> directMeter(kind, e.getDirectMeterEntry());
            case PACKET_REPLICATION_ENGINE_ENTRY -> replication(e.getPacketReplicationEngineEntry());
            case DIGEST_ENTRY -> digest(kind, e.getDigestEntry());
            case VALUE_SET_ENTRY ->
                throw invalid(
                        "value set 0x%08x does not exist: the pipeline has no value sets",
                        e.getValueSetEntry().getValueSetId());
            case EXTERN_ENTRY ->
                throw invalid(
                        "extern type 0x%x does not exist: the pipeline has no externs",
                        e.getExternEntry().getExternTypeId());
            case ENTITY_NOT_SET -> throw invalid("entity is not set");
        };
        return new WriteOp(kind, entity);
    }

    /**
     * Decodes and validates update {@code u} of a request read from the wire ({@link WireWriteRequest}: a table entry
     * with a direct action or none, a priority and metadata), with the checks and errors of
     * {@link #decodeUpdate(Update)} for the same update in protobuf form; the checks of what that shape cannot hold
     * (const, default and idle-timeout entries, meters, counters, profile actions) cannot fail here.
     */
    public WriteOp decodeUpdate(final WireWriteRequest w, final int u) throws CodecException {
        final UpdateKind kind = switch (w.type(u)) {
            case Update.Type.INSERT_VALUE -> UpdateKind.INSERT;
            case Update.Type.MODIFY_VALUE -> UpdateKind.MODIFY;
            case Update.Type.DELETE_VALUE -> UpdateKind.DELETE;
            default -> {
                final Update.Type type = Update.Type.forNumber(w.type(u));
                throw invalid(
                        "update type %s is not INSERT, MODIFY or DELETE",
                        type == null ? Update.Type.UNRECOGNIZED : type);
            }
        };
        final TableInfo t = tableOf(w.tableId(u));
        if (t.isConst()) {
            throw new CodecException(UpdateStatus.PERMISSION_DENIED, "table '" + t.name() + "' is const");
        }
        if (t.fields().isEmpty() && kind == UpdateKind.INSERT) {
            throw invalid("table '%s' has no key: only its default entry can be written", t.name());
        }
        final EntryKey key = key(t, w, u);
        EntryAction action = null;
        if (kind != UpdateKind.DELETE) {
            if (!w.hasAction(u)) {
                throw invalid("%s of an entry of '%s' needs an action", kind, t.name());
            }
            requireDirect(t, model.actionProfile(t.implementationId()));
            action = new EntryAction.Direct(action(t, w, u));
        }
        return new WriteOp(
                kind,
                new P4Entity.TableEntry(key, action, false, 0, w.metadata(u).toByteArray(), null, null));
    }

    private TableInfo tableOf(final int tableId) throws CodecException {
        final TableInfo t = model.table(tableId);
        if (t == null) {
            throw invalid("table id 0x%08x does not exist in the P4Info", tableId);
        }
        return t;
    }

    private P4Entity.TableEntry tableEntry(final UpdateKind kind, final P4RuntimeOuterClass.TableEntry te)
            throws CodecException {
        final TableInfo t = tableOf(te.getTableId());
        if (te.getIsConst()) {
            throw invalid("is_const must not be set in a write");
        }
        if (te.hasTimeSinceLastHit()) {
            throw invalid("time_since_last_hit must not be set in a write");
        }
        if (te.getIdleTimeoutNs() != 0 && !t.idleTimeout()) {
            throw invalid("table '%s' does not support idle timeout", t.name());
        }
        if (te.getIdleTimeoutNs() < 0) {
            throw invalid("idle_timeout_ns must not be negative");
        }
        if (te.hasCounterData() && t.directCounterId() == 0) {
            throw invalid("table '%s' has no direct counter", t.name());
        }
        if ((te.hasMeterConfig() || te.hasMeterCounterData()) && t.directMeterId() == 0) {
            throw invalid("table '%s' has no direct meter", t.name());
        }
        if (te.hasMeterCounterData()) {
            throw new CodecException(UpdateStatus.UNIMPLEMENTED, "per-colour meter counters are not supported");
        }
        if (te.getIsDefaultAction()) {
            if (te.getMatchCount() != 0 || te.getPriority() != 0) {
                throw invalid("a default entry has no match and no priority");
            }
            if (kind == UpdateKind.MODIFY && !te.hasAction()) {
                throw invalid("the default entry needs an action");
            }
            final EntryAction action = kind == UpdateKind.MODIFY ? defaultAction(t, te.getAction()) : null;
            return new P4Entity.TableEntry(
                    new EntryKey(t.id(), List.of(), 0),
                    action,
                    true,
                    0,
                    te.getMetadata().toByteArray(),
                    null,
                    null);
        }
        if (t.isConst()) {
            throw new CodecException(UpdateStatus.PERMISSION_DENIED, "table '" + t.name() + "' is const");
        }
        if (t.fields().isEmpty() && kind == UpdateKind.INSERT) {
            throw invalid("table '%s' has no key: only its default entry can be written", t.name());
        }
        final EntryKey key = key(t, te.getMatchList(), te.getPriority(), false);
        EntryAction action = null;
        if (kind != UpdateKind.DELETE) {
            if (!te.hasAction()) {
                throw invalid("%s of an entry of '%s' needs an action", kind, t.name());
            }
            action = entryAction(t, te.getAction());
        }
        return new P4Entity.TableEntry(
                key,
                action,
                false,
                te.getIdleTimeoutNs(),
                te.getMetadata().toByteArray(),
                te.hasMeterConfig() ? meterSettings(te.getMeterConfig()) : null,
                te.hasCounterData() ? counterValue(te.getCounterData()) : null);
    }

    private static boolean contains(final int[] ids, final int count, final int id) {
        for (int i = 0; i < count; i++) {
            if (ids[i] == id) {
                return true;
            }
        }
        return false;
    }

    /**
     * Decodes a table key. With {@code lenient} (reads), missing fields and a zero priority are wildcards.
     */
    EntryKey key(final TableInfo t, final List<FieldMatch> matches, final int priority, final boolean lenient)
            throws CodecException {
        final FieldMatchValue[] values = new FieldMatchValue[matches.size()];
        // a key has a handful of fields: a linear scan of the ids seen beats a HashSet of boxed ids on every update
        final int[] seen = new int[matches.size()];
        for (int i = 0; i < matches.size(); i++) {
            final FieldMatch fm = matches.get(i);
            final MatchFieldInfo f = t.field(fm.getFieldId());
            if (f == null) {
                throw invalid("table '%s' has no match field id %d", t.name(), fm.getFieldId());
            }
            if (contains(seen, i, f.id())) {
                throw invalid("match field '%s' appears twice", f.name());
            }
            seen[i] = f.id();
            values[i] = fieldMatch(f, fm);
        }
        return finishKey(t, values, seen, priority, lenient);
    }

    /**
     * Decodes the key of update {@code u} of a request read from the wire, with the checks of
     * {@link #key(TableInfo, List, int, boolean)} (not lenient).
     */
    private EntryKey key(final TableInfo t, final WireWriteRequest w, final int u) throws CodecException {
        final int from = w.matchStart(u);
        final int n = w.matchEnd(u) - from;
        final FieldMatchValue[] values = new FieldMatchValue[n];
        final int[] seen = new int[n];
        for (int i = 0; i < n; i++) {
            final int m = from + i;
            final MatchFieldInfo f = t.field(w.fieldId(m));
            if (f == null) {
                throw invalid("table '%s' has no match field id %d", t.name(), w.fieldId(m));
            }
            if (contains(seen, i, f.id())) {
                throw invalid("match field '%s' appears twice", f.name());
            }
            seen[i] = f.id();
            values[i] = fieldMatch(f, w.matchCase(m), w.first(m), w.second(m), w.prefixLen(m));
        }
        return finishKey(t, values, seen, w.priority(u), false);
    }

    private static EntryKey finishKey(
            final TableInfo t,
            final FieldMatchValue[] values,
            final int[] seen,
            final int priority,
            final boolean lenient)
            throws CodecException {
        for (final MatchFieldInfo f : t.fields()) {
            if (!lenient && f.kind() == MatchKind.EXACT && !contains(seen, seen.length, f.id())) {
                throw invalid("exact match field '%s' of '%s' is missing", f.name(), t.name());
            }
        }
        if (!lenient) {
            if (t.needsPriority() && priority <= 0) {
                throw invalid("table '%s' has ternary/range/optional fields: priority must be > 0", t.name());
            }
            if (!t.needsPriority() && priority != 0) {
                throw invalid("table '%s' has no ternary/range/optional field: priority must be 0", t.name());
            }
        }
        // a handful of fields: an insertion sort by id, and List.of, which EntryKey keeps without copying
        for (int i = 1; i < values.length; i++) {
            final FieldMatchValue v = values[i];
            int j = i - 1;
            while (j >= 0 && values[j].fieldId() > v.fieldId()) {
                values[j + 1] = values[j];
                j--;
            }
            values[j + 1] = v;
        }
        return new EntryKey(t.id(), List.of(values), priority);
    }

    private static FieldMatchValue fieldMatch(final MatchFieldInfo f, final FieldMatch fm) throws CodecException {
        final FieldMatch.FieldMatchTypeCase c = fm.getFieldMatchTypeCase();
        return switch (c) {
            case EXACT -> fieldMatch(f, c, fm.getExact().getValue(), ByteString.EMPTY, 0);
            case OPTIONAL -> fieldMatch(f, c, fm.getOptional().getValue(), ByteString.EMPTY, 0);
            case LPM ->
                fieldMatch(
                        f,
                        c,
                        fm.getLpm().getValue(),
                        ByteString.EMPTY,
                        fm.getLpm().getPrefixLen());
            case TERNARY ->
                fieldMatch(f, c, fm.getTernary().getValue(), fm.getTernary().getMask(), 0);
            case RANGE -> fieldMatch(f, c, fm.getRange().getLow(), fm.getRange().getHigh(), 0);
            default -> fieldMatch(f, c, ByteString.EMPTY, ByteString.EMPTY, 0);
        };
    }

    /**
     * One match field given as its oneof case and values: {@code first} is the exact/optional/LPM/ternary value or
     * the range's low end, {@code second} the ternary mask or the range's high end.
     */
    private static FieldMatchValue fieldMatch(
            final MatchFieldInfo f,
            final FieldMatch.FieldMatchTypeCase c,
            final ByteString first,
            final ByteString second,
            final int prefixLen)
            throws CodecException {
        final int w = f.bitwidth();
        final boolean kindOk = switch (f.kind()) {
            case EXACT -> c == FieldMatch.FieldMatchTypeCase.EXACT;
            case LPM -> c == FieldMatch.FieldMatchTypeCase.LPM;
            case TERNARY -> c == FieldMatch.FieldMatchTypeCase.TERNARY;
            case RANGE -> c == FieldMatch.FieldMatchTypeCase.RANGE;
            case OPTIONAL -> c == FieldMatch.FieldMatchTypeCase.OPTIONAL;
        };
        if (!kindOk) {
            throw invalid("%s is %s, not %s", ByteStrings.fieldLabel(f.name()), f.kind(), c);
        }
        switch (f.kind()) {
            case EXACT:
                return FieldMatchValue.exact(f.id(), ByteStrings.decodeField(first, w, f.name()));
            case OPTIONAL:
                return new FieldMatchValue(
                        f.id(),
                        MatchKind.OPTIONAL,
                        ByteStrings.decodeField(first, w, f.name()),
                        BigInteger.ZERO,
                        0,
                        BigInteger.ZERO);
            case LPM: {
                final int len = prefixLen;
                if (len <= 0 || len > w) {
                    throw invalid(
                            "%s: prefix_len %d must be in 1..%d (omit the field for a don't care)",
                            ByteStrings.fieldLabel(f.name()), len, w);
                }
                final BigInteger v = ByteStrings.decodeField(first, w, f.name());
                // a bit below the prefix is set iff the lowest set bit is one of the w - len host bits
                if (v.signum() != 0 && v.getLowestSetBit() < w - len) {
                    throw invalid("%s: bits below the /%d prefix must be zero", ByteStrings.fieldLabel(f.name()), len);
                }
                return new FieldMatchValue(f.id(), MatchKind.LPM, v, BigInteger.ZERO, len, BigInteger.ZERO);
            }
            case TERNARY: {
                final BigInteger v = ByteStrings.decodeField(first, w, f.name());
                final BigInteger m = ByteStrings.decodeField(second, w, f.name());
                if (m.signum() == 0) {
                    throw invalid("%s: mask 0 is a don't care and must be omitted", ByteStrings.fieldLabel(f.name()));
                }
                if (!v.and(m).equals(v)) {
                    throw invalid("%s: value has bits outside the mask", ByteStrings.fieldLabel(f.name()));
                }
                return new FieldMatchValue(f.id(), MatchKind.TERNARY, v, m, 0, BigInteger.ZERO);
            }
            default: {
                final BigInteger lo = ByteStrings.decodeField(first, w, f.name());
                final BigInteger hi = ByteStrings.decodeField(second, w, f.name());
                if (lo.compareTo(hi) > 0) {
                    throw invalid("%s: low > high", ByteStrings.fieldLabel(f.name()));
                }
                if (lo.signum() == 0 && hi.equals(BigInteger.ONE.shiftLeft(w).subtract(BigInteger.ONE))) {
                    throw invalid(
                            "%s: the full range is a don't care and must be omitted", ByteStrings.fieldLabel(f.name()));
                }
                return new FieldMatchValue(f.id(), MatchKind.RANGE, lo, BigInteger.ZERO, 0, hi);
            }
        }
    }

    private EntryAction defaultAction(final TableInfo t, final P4RuntimeOuterClass.TableAction ta)
            throws CodecException {
        if (!ta.hasAction()) {
            throw invalid("the default entry of '%s' takes a direct action", t.name());
        }
        return new EntryAction.Direct(action(t, ta.getAction(), true));
    }

    private EntryAction entryAction(final TableInfo t, final P4RuntimeOuterClass.TableAction ta) throws CodecException {
        final ActionProfileInfo profile = model.actionProfile(t.implementationId());
        switch (ta.getTypeCase()) {
            case ACTION:
                requireDirect(t, profile);
                return new EntryAction.Direct(action(t, ta.getAction(), false));
            case ACTION_PROFILE_MEMBER_ID:
                requireProfile(t, profile, false);
                return new EntryAction.Member(ta.getActionProfileMemberId());
            case ACTION_PROFILE_GROUP_ID:
                requireProfile(t, profile, true);
                return new EntryAction.Group(ta.getActionProfileGroupId());
            case ACTION_PROFILE_ACTION_SET:
                requireProfile(t, profile, true);
                return oneShot(t, profile, ta.getActionProfileActionSet());
            default:
                throw invalid("the action of an entry of '%s' is not set", t.name());
        }
    }

    private static void requireDirect(final TableInfo t, final ActionProfileInfo profile) throws CodecException {
        if (profile != null) {
            throw invalid(
                    "table '%s' is implemented by '%s': use a member, group or one-shot set", t.name(), profile.name());
        }
    }

    private static void requireProfile(final TableInfo t, final ActionProfileInfo p, final boolean selector)
            throws CodecException {
        if (p == null) {
            throw invalid("table '%s' is a direct table: it takes an action, not a profile reference", t.name());
        }
        if (selector && !p.withSelector()) {
            throw invalid("'%s' has no selector: groups and one-shot sets are not allowed", p.name());
        }
    }

    @SuppressWarnings("deprecation") // the deprecated watch field is still accepted from older controllers
    private EntryAction.OneShot oneShot(
            final TableInfo t, final ActionProfileInfo p, final P4RuntimeOuterClass.ActionProfileActionSet set)
            throws CodecException {
        if (set.getActionProfileActionsCount() == 0) {
            throw invalid("an empty one-shot action set is not allowed");
        }
        if (!set.getUnknownFields().asMap().isEmpty()) {
            throw new CodecException(UpdateStatus.UNIMPLEMENTED, "one-shot selection options are not supported");
        }
        final List<EntryAction.WeightedAction> actions = new ArrayList<>();
        long sum = 0;
        for (final P4RuntimeOuterClass.ActionProfileAction a : set.getActionProfileActionsList()) {
            if (a.getWeight() <= 0) {
                throw invalid("one-shot weight %d must be > 0", a.getWeight());
            }
            sum += a.getWeight();
            if (p.sumOfWeights() ? false : a.getWeight() > p.maxMemberWeight()) {
                throw invalid("weight %d is above max_member_weight %d", a.getWeight(), p.maxMemberWeight());
            }
            actions.add(new EntryAction.WeightedAction(
                    action(t, a.getAction(), false),
                    a.getWeight(),
                    watchPort(
                            a.getWatchKindCase() == P4RuntimeOuterClass.ActionProfileAction.WatchKindCase.WATCH_PORT,
                            a.getWatchPort(),
                            a.getWatchKindCase() == P4RuntimeOuterClass.ActionProfileAction.WatchKindCase.WATCH,
                            a.getWatch())));
        }
        final long limit = p.sumOfWeights() ? p.maxGroupSize() : Long.MAX_VALUE;
        if ((p.sumOfWeights() ? sum : actions.size()) > (p.sumOfWeights() ? limit : p.maxGroupSize())) {
            throw invalid("one-shot set of '%s' is larger than max_group_size %d", p.name(), p.maxGroupSize());
        }
        return new EntryAction.OneShot(actions);
    }

    private static int watchPort(final boolean hasBytes, final ByteString bytes, final boolean hasInt, final int port)
            throws CodecException {
        if (hasBytes) {
            return ByteStrings.decode(bytes, PORT_BITS, "watch_port").intValue();
        }
        if (hasInt) {
            if (port < 0 || port >= (1 << PORT_BITS)) {
                throw invalid("watch %d is not a port", port);
            }
            return port;
        }
        return -1;
    }

    /** Validates an action against a table's action refs (scope: entry or default) and decodes its parameters. */
    private ActionCall action(final TableInfo t, final P4RuntimeOuterClass.Action a, final boolean asDefault)
            throws CodecException {
        final ActionInfo info = actionOf(t, a.getActionId(), asDefault);
        final BigInteger[] values = new BigInteger[info.params().size()];
        for (int k = 0; k < a.getParamsCount(); k++) {
            final P4RuntimeOuterClass.Action.Param p = a.getParams(k);
            param(info, values, p.getParamId(), p.getValue());
        }
        return call(info, values);
    }

    /** The direct action of update {@code u} of a request read from the wire, checked as the protobuf one is. */
    private ActionCall action(final TableInfo t, final WireWriteRequest w, final int u) throws CodecException {
        final ActionInfo info = actionOf(t, w.actionId(u), false);
        final BigInteger[] values = new BigInteger[info.params().size()];
        for (int p = w.paramStart(u); p < w.paramEnd(u); p++) {
            param(info, values, w.paramId(p), w.paramValue(p));
        }
        return call(info, values);
    }

    /** Validates an action against a table's action refs (scope: entry or default). */
    private ActionInfo actionOf(final TableInfo t, final int actionId, final boolean asDefault) throws CodecException {
        final ActionScope scope = t.actionRefs().get(actionId);
        if (scope == null) {
            throw invalid("action 0x%08x is not an action of table '%s'", actionId, t.name());
        }
        if (asDefault ? !scope.allowsDefault() : !scope.allowsEntry()) {
            throw new CodecException(
                    UpdateStatus.PERMISSION_DENIED,
                    String.format(
                            "action '%s' is %s in table '%s'",
                            model.action(actionId).name(), scope, t.name()));
        }
        return model.action(actionId);
    }

    private static void param(
            final ActionInfo info, final BigInteger[] values, final int paramId, final ByteString value)
            throws CodecException {
        final List<ParamInfo> declared = info.params();
        // by id, not List.indexOf (record equals on every earlier parameter); the error text is built on error only
        int index = declared.size() - 1;
        while (index >= 0 && declared.get(index).id() != paramId) {
            index--;
        }
        if (index < 0) {
            throw invalid("action '%s' has no parameter id %d", info.name(), paramId);
        }
        final ParamInfo pi = declared.get(index);
        if (values[index] != null) {
            throw invalid("parameter '%s' of '%s' appears twice", pi.name(), info.name());
        }
        try {
            values[index] = ByteStrings.decode(value, pi.bitwidth(), "");
        } catch (final CodecException e) {
            throw new CodecException(e.status(), "parameter '" + pi.name() + "'" + e.getMessage());
        }
    }

    private static ActionCall call(final ActionInfo info, final BigInteger[] values) throws CodecException {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                throw invalid(
                        "parameter '%s' of '%s' is missing",
                        info.params().get(i).name(), info.name());
            }
        }
        return new ActionCall(info.id(), List.of(values));
    }

    private ActionProfileInfo profileOf(final int id) throws CodecException {
        final ActionProfileInfo p = model.actionProfile(id);
        if (p == null) {
            throw invalid("action profile id 0x%08x does not exist in the P4Info", id);
        }
        return p;
    }

    private P4Entity member(final UpdateKind kind, final P4RuntimeOuterClass.ActionProfileMember m)
            throws CodecException {
        final ActionProfileInfo p = profileOf(m.getActionProfileId());
        ActionCall call = null;
        if (kind != UpdateKind.DELETE) {
            call = action(model.table(p.tableIds().get(0)), m.getAction(), false);
        }
        return new P4Entity.ProfileMember(p.id(), m.getMemberId(), call);
    }

    @SuppressWarnings("deprecation") // the deprecated watch field is still accepted from older controllers
    private P4Entity group(final UpdateKind kind, final P4RuntimeOuterClass.ActionProfileGroup g)
            throws CodecException {
        final ActionProfileInfo p = profileOf(g.getActionProfileId());
        if (!p.withSelector()) {
            throw invalid("'%s' has no selector: groups are not allowed", p.name());
        }
        if (!g.getUnknownFields().asMap().isEmpty()) {
            throw new CodecException(
                    UpdateStatus.UNIMPLEMENTED, "group selection mode / size semantics options are not supported");
        }
        if (g.getMaxSize() < 0 || g.getMaxSize() > p.maxGroupSize()) {
            throw invalid(
                    "max_size %d is above the max_group_size %d of '%s'", g.getMaxSize(), p.maxGroupSize(), p.name());
        }
        final List<P4Entity.GroupMember> members = new ArrayList<>();
        final Set<Integer> seen = new HashSet<>();
        long sum = 0;
        if (kind != UpdateKind.DELETE) {
            for (final P4RuntimeOuterClass.ActionProfileGroup.Member m : g.getMembersList()) {
                if (m.getWeight() <= 0) {
                    throw invalid("member %d weight %d must be > 0", m.getMemberId(), m.getWeight());
                }
                if (!seen.add(m.getMemberId())) {
                    throw invalid("member %d appears twice in group %d", m.getMemberId(), g.getGroupId());
                }
                sum += p.sumOfWeights() ? m.getWeight() : 1;
                members.add(new P4Entity.GroupMember(
                        m.getMemberId(),
                        m.getWeight(),
                        watchPort(
                                m.getWatchKindCase()
                                        == P4RuntimeOuterClass.ActionProfileGroup.Member.WatchKindCase.WATCH_PORT,
                                m.getWatchPort(),
                                m.getWatchKindCase()
                                        == P4RuntimeOuterClass.ActionProfileGroup.Member.WatchKindCase.WATCH,
                                m.getWatch())));
            }
            final int limit = g.getMaxSize() != 0 ? g.getMaxSize() : p.maxGroupSize();
            if (sum > limit) {
                throw invalid("group %d size %d is above its limit %d", g.getGroupId(), sum, limit);
            }
        }
        return new P4Entity.ProfileGroup(p.id(), g.getGroupId(), members, g.getMaxSize());
    }

    private static void requireModify(final UpdateKind kind, final String what) throws CodecException {
        if (kind != UpdateKind.MODIFY) {
            throw invalid("%s can only be modified (not %s)", what, kind);
        }
    }

    private static long index(final IndexedResourceInfo r, final P4RuntimeOuterClass.Index index, final boolean present)
            throws CodecException {
        if (!present) {
            return -1;
        }
        if (index.getIndex() < 0 || index.getIndex() >= r.size()) {
            throw invalid("index %d of '%s' is outside 0..%d", index.getIndex(), r.name(), r.size() - 1);
        }
        return index.getIndex();
    }

    private P4Entity counter(final UpdateKind kind, final P4RuntimeOuterClass.CounterEntry c) throws CodecException {
        requireModify(kind, "a counter entry");
        final IndexedResourceInfo r = model.counter(c.getCounterId());
        if (r == null) {
            throw invalid("counter id 0x%08x does not exist in the P4Info", c.getCounterId());
        }
        return new P4Entity.CounterCell(r.id(), index(r, c.getIndex(), c.hasIndex()), counterValue(c.getData()));
    }

    private P4Entity meter(final UpdateKind kind, final P4RuntimeOuterClass.MeterEntry m) throws CodecException {
        requireModify(kind, "a meter entry");
        final IndexedResourceInfo r = model.meter(m.getMeterId());
        if (r == null) {
            throw invalid("meter id 0x%08x does not exist in the P4Info", m.getMeterId());
        }
        return new P4Entity.MeterCell(
                r.id(), index(r, m.getIndex(), m.hasIndex()), m.hasConfig() ? meterSettings(m.getConfig()) : null);
    }

    private P4Entity register(final UpdateKind kind, final P4RuntimeOuterClass.RegisterEntry e) throws CodecException {
        requireModify(kind, "a register entry");
        final IndexedResourceInfo r = model.register(e.getRegisterId());
        if (r == null) {
            throw invalid("register id 0x%08x does not exist in the P4Info", e.getRegisterId());
        }
        if (e.getData().getDataCase() != P4Data.DataCase.BITSTRING) {
            throw invalid("register '%s' holds a bitstring of %d bits", r.name(), r.bitwidth());
        }
        return new P4Entity.RegisterCell(
                r.id(),
                index(r, e.getIndex(), e.hasIndex()),
                ByteStrings.decode(e.getData().getBitstring(), r.bitwidth(), "register '" + r.name() + "'"));
    }

    private EntryKey directKey(final P4RuntimeOuterClass.TableEntry te, final boolean meter) throws CodecException {
        final TableInfo t = tableOf(te.getTableId());
        if (meter ? t.directMeterId() == 0 : t.directCounterId() == 0) {
            throw invalid("table '%s' has no direct %s", t.name(), meter ? "meter" : "counter");
        }
        return key(t, te.getMatchList(), te.getPriority(), false);
    }

    private P4Entity directCounter(final UpdateKind kind, final P4RuntimeOuterClass.DirectCounterEntry c)
            throws CodecException {
        requireModify(kind, "a direct counter entry");
        return new P4Entity.DirectCounterCell(directKey(c.getTableEntry(), false), counterValue(c.getData()));
    }

    private P4Entity directMeter(final UpdateKind kind, final P4RuntimeOuterClass.DirectMeterEntry m)
            throws CodecException {
        requireModify(kind, "a direct meter entry");
        return new P4Entity.DirectMeterCell(
                directKey(m.getTableEntry(), true), m.hasConfig() ? meterSettings(m.getConfig()) : null);
    }

    private P4Entity replication(final P4RuntimeOuterClass.PacketReplicationEngineEntry pre) throws CodecException {
        switch (pre.getTypeCase()) {
            case MULTICAST_GROUP_ENTRY: {
                final var g = pre.getMulticastGroupEntry();
                if (g.getMulticastGroupId() == 0) {
                    throw invalid("multicast_group_id 0 is invalid");
                }
                final List<P4Entity.Replica> replicas = replicas(g.getReplicasList());
                if (replicas.size() > model.multicastMaxReplicas()) {
                    throw new CodecException(
                            UpdateStatus.RESOURCE_EXHAUSTED,
                            String.format(
                                    "%d replicas exceed the %d a multicast group holds",
                                    replicas.size(), model.multicastMaxReplicas()));
                }
                return new P4Entity.MulticastGroup(
                        g.getMulticastGroupId(), replicas, g.getMetadata().toByteArray());
            }
            case CLONE_SESSION_ENTRY: {
                final var s = pre.getCloneSessionEntry();
                if (s.getSessionId() == 0) {
                    throw invalid("clone session_id 0 is invalid");
                }
                if (s.getPacketLengthBytes() < 0) {
                    throw invalid("packet_length_bytes must not be negative");
                }
                return new P4Entity.CloneSession(
                        s.getSessionId(),
                        replicas(s.getReplicasList()),
                        s.getClassOfService(),
                        s.getPacketLengthBytes());
            }
            default:
                throw invalid("packet replication engine entry is not set");
        }
    }

    @SuppressWarnings("deprecation") // the spec's deprecated egress_port is still accepted from older controllers
    private static List<P4Entity.Replica> replicas(final List<P4RuntimeOuterClass.Replica> in) throws CodecException {
        final List<P4Entity.Replica> out = new ArrayList<>();
        final Set<P4Entity.Replica> seen = new HashSet<>();
        for (final P4RuntimeOuterClass.Replica r : in) {
            final int port = r.getPortKindCase() == P4RuntimeOuterClass.Replica.PortKindCase.PORT
                    ? ByteStrings.decode(r.getPort(), PORT_BITS, "replica port").intValue()
                    : r.getEgressPort();
            final P4Entity.Replica replica = new P4Entity.Replica(port, r.getInstance());
            if (!seen.add(replica)) {
                throw invalid("replica (port %d, instance %d) appears twice", port, r.getInstance());
            }
            out.add(replica);
        }
        return out;
    }

    private P4Entity digest(final UpdateKind kind, final P4RuntimeOuterClass.DigestEntry d) throws CodecException {
        final DigestInfo info = model.digest(d.getDigestId());
        if (info == null) {
            throw invalid("digest id 0x%08x does not exist in the P4Info", d.getDigestId());
        }
        final var c = d.getConfig();
        if (kind != UpdateKind.DELETE && !d.hasConfig()) {
            throw invalid("digest entry needs a config");
        }
        if (c.getMaxTimeoutNs() < 0 || c.getMaxListSize() < 0 || c.getAckTimeoutNs() < 0) {
            throw invalid("digest config values must not be negative");
        }
        return new P4Entity.DigestConfig(info.id(), c.getMaxTimeoutNs(), c.getMaxListSize(), c.getAckTimeoutNs());
    }

    private static CounterValue counterValue(final P4RuntimeOuterClass.CounterData d) {
        return new CounterValue(d.getByteCount(), d.getPacketCount());
    }

    private static MeterSettings meterSettings(final P4RuntimeOuterClass.MeterConfig c) throws CodecException {
        if (c.getCir() < 0 || c.getCburst() < 0 || c.getPir() < 0 || c.getPburst() < 0 || c.getEburst() < 0) {
            throw invalid("meter rates and bursts must not be negative");
        }
        if (c.getPir() < c.getCir()) {
            throw invalid("meter pir %d is below cir %d", c.getPir(), c.getCir());
        }
        return new MeterSettings(c.getCir(), c.getCburst(), c.getPir(), c.getPburst(), c.getEburst());
    }

    // ---- Read ----------------------------------------------------------------------------------------------------

    /** Decodes one entity of a ReadRequest into a filter; unset ids and keys are wildcards. */
    public ReadFilter decodeRead(final Entity e) throws CodecException {
        switch (e.getEntityCase()) {
            case TABLE_ENTRY: {
                final var te = e.getTableEntry();
                if (te.getTableId() == 0) {
                    if (te.getMatchCount() != 0) {
                        throw invalid("a read of all tables cannot name match fields");
                    }
                    return new ReadFilter.Tables(
                            0, null, te.getIsDefaultAction(), te.hasCounterData(), te.hasMeterConfig());
                }
                final TableInfo t = tableOf(te.getTableId());
                final EntryKey key = te.getMatchCount() == 0 ? null : key(t, te.getMatchList(), te.getPriority(), true);
                if (te.hasTimeSinceLastHit() && !t.idleTimeout()) {
                    throw invalid("table '%s' does not support idle timeout", t.name());
                }
                return new ReadFilter.Tables(
                        t.id(),
                        key,
                        te.getIsDefaultAction(),
                        te.hasCounterData(),
                        te.hasMeterConfig(),
                        te.hasTimeSinceLastHit());
            }
            case ACTION_PROFILE_MEMBER: {
                final var m = e.getActionProfileMember();
                return new ReadFilter.Members(
                        m.getActionProfileId() == 0
                                ? 0
                                : profileOf(m.getActionProfileId()).id(),
                        m.getMemberId());
            }
            case ACTION_PROFILE_GROUP: {
                final var g = e.getActionProfileGroup();
                return new ReadFilter.Groups(
                        g.getActionProfileId() == 0
                                ? 0
                                : profileOf(g.getActionProfileId()).id(),
                        g.getGroupId());
            }
            case COUNTER_ENTRY: {
                final var c = e.getCounterEntry();
                if (c.getCounterId() == 0) {
                    return new ReadFilter.Counters(0, -1);
                }
                final IndexedResourceInfo r = model.counter(c.getCounterId());
                if (r == null) {
                    throw invalid("counter id 0x%08x does not exist in the P4Info", c.getCounterId());
                }
                return new ReadFilter.Counters(r.id(), index(r, c.getIndex(), c.hasIndex()));
            }
            case METER_ENTRY: {
                final var m = e.getMeterEntry();
                if (m.getMeterId() == 0) {
                    return new ReadFilter.Meters(0, -1);
                }
                final IndexedResourceInfo r = model.meter(m.getMeterId());
                if (r == null) {
                    throw invalid("meter id 0x%08x does not exist in the P4Info", m.getMeterId());
                }
                return new ReadFilter.Meters(r.id(), index(r, m.getIndex(), m.hasIndex()));
            }
            case REGISTER_ENTRY: {
                final var g = e.getRegisterEntry();
                if (g.getRegisterId() == 0) {
                    return new ReadFilter.Registers(0, -1);
                }
                final IndexedResourceInfo r = model.register(g.getRegisterId());
                if (r == null) {
                    throw invalid("register id 0x%08x does not exist in the P4Info", g.getRegisterId());
                }
                return new ReadFilter.Registers(r.id(), index(r, g.getIndex(), g.hasIndex()));
            }
            case DIRECT_COUNTER_ENTRY:
                return new ReadFilter.DirectCounters(
                        e.getDirectCounterEntry().getTableEntry().getTableId(),
                        directReadKey(e.getDirectCounterEntry().getTableEntry()));
            case DIRECT_METER_ENTRY:
                return new ReadFilter.DirectMeters(
                        e.getDirectMeterEntry().getTableEntry().getTableId(),
                        directReadKey(e.getDirectMeterEntry().getTableEntry()));
            case PACKET_REPLICATION_ENGINE_ENTRY: {
                final var pre = e.getPacketReplicationEngineEntry();
                if (pre.hasCloneSessionEntry()) {
                    return new ReadFilter.CloneSessions(
                            pre.getCloneSessionEntry().getSessionId());
                }
                if (pre.hasMulticastGroupEntry()) {
                    return new ReadFilter.MulticastGroups(
                            pre.getMulticastGroupEntry().getMulticastGroupId());
                }
                throw invalid("packet replication engine entry is not set");
            }
            case DIGEST_ENTRY:
                return new ReadFilter.Digests(e.getDigestEntry().getDigestId());
            case VALUE_SET_ENTRY:
                throw invalid("the pipeline has no value sets");
            case EXTERN_ENTRY:
                throw invalid("the pipeline has no externs");
            default:
                throw invalid("entity is not set");
        }
    }

    private EntryKey directReadKey(final P4RuntimeOuterClass.TableEntry te) throws CodecException {
        if (te.getTableId() == 0 || te.getMatchCount() == 0) {
            if (te.getTableId() != 0) {
                tableOf(te.getTableId());
            }
            return null;
        }
        return key(tableOf(te.getTableId()), te.getMatchList(), te.getPriority(), true);
    }

    // ---- Encode --------------------------------------------------------------------------------------------------

    /** Encodes a typed entity for a Read response, with canonical byte strings. */
    public Entity encode(final P4Entity entity) {
        final Entity.Builder b = Entity.newBuilder();
        switch (entity) {
            case P4Entity.TableEntry e -> b.setTableEntry(encodeTableEntry(e));
            case P4Entity.ProfileMember m ->
                b.setActionProfileMember(P4RuntimeOuterClass.ActionProfileMember.newBuilder()
                        .setActionProfileId(m.profileId())
                        .setMemberId(m.memberId())
                        .setAction(encodeAction(m.action())));
            case P4Entity.ProfileGroup g -> {
                final var gb = P4RuntimeOuterClass.ActionProfileGroup.newBuilder()
                        .setActionProfileId(g.profileId())
                        .setGroupId(g.groupId())
                        .setMaxSize(g.maxSize());
                for (final P4Entity.GroupMember m : g.members()) {
                    final var mb =
                            gb.addMembersBuilder().setMemberId(m.memberId()).setWeight(m.weight());
                    if (m.watchPort() >= 0) {
                        mb.setWatchPort(ByteStrings.encode(m.watchPort()));
                    }
                }
                b.setActionProfileGroup(gb);
            }
            case P4Entity.CounterCell c ->
                b.setCounterEntry(P4RuntimeOuterClass.CounterEntry.newBuilder()
                        .setCounterId(c.counterId())
                        .setIndex(P4RuntimeOuterClass.Index.newBuilder().setIndex(c.index()))
                        .setData(encodeCounter(c.value())));
            case P4Entity.MeterCell m -> {
                final var mb = P4RuntimeOuterClass.MeterEntry.newBuilder()
                        .setMeterId(m.meterId())
                        .setIndex(P4RuntimeOuterClass.Index.newBuilder().setIndex(m.index()));
                if (m.settings() != null) {
                    mb.setConfig(encodeMeter(m.settings()));
                }
                b.setMeterEntry(mb);
            }
            case P4Entity.RegisterCell r ->
                b.setRegisterEntry(P4RuntimeOuterClass.RegisterEntry.newBuilder()
                        .setRegisterId(r.registerId())
                        .setIndex(P4RuntimeOuterClass.Index.newBuilder().setIndex(r.index()))
                        .setData(P4Data.newBuilder().setBitstring(ByteStrings.encode(r.value()))));
            case P4Entity.DirectCounterCell c ->
                b.setDirectCounterEntry(P4RuntimeOuterClass.DirectCounterEntry.newBuilder()
                        .setTableEntry(encodeKey(c.key()))
                        .setData(encodeCounter(c.value())));
            case P4Entity.DirectMeterCell m -> {
                final var mb = P4RuntimeOuterClass.DirectMeterEntry.newBuilder().setTableEntry(encodeKey(m.key()));
                if (m.settings() != null) {
                    mb.setConfig(encodeMeter(m.settings()));
                }
                b.setDirectMeterEntry(mb);
            }
            case P4Entity.MulticastGroup g ->
                b.setPacketReplicationEngineEntry(P4RuntimeOuterClass.PacketReplicationEngineEntry.newBuilder()
                        .setMulticastGroupEntry(P4RuntimeOuterClass.MulticastGroupEntry.newBuilder()
                                .setMulticastGroupId(g.groupId())
                                .addAllReplicas(encodeReplicas(g.replicas()))
                                .setMetadata(ByteString.copyFrom(g.metadata()))));
            case P4Entity.CloneSession s ->
                b.setPacketReplicationEngineEntry(P4RuntimeOuterClass.PacketReplicationEngineEntry.newBuilder()
                        .setCloneSessionEntry(P4RuntimeOuterClass.CloneSessionEntry.newBuilder()
                                .setSessionId(s.sessionId())
                                .addAllReplicas(encodeReplicas(s.replicas()))
                                .setClassOfService(s.classOfService())
                                .setPacketLengthBytes(s.truncateBytes())));
            case P4Entity.DigestConfig d ->
                b.setDigestEntry(P4RuntimeOuterClass.DigestEntry.newBuilder()
                        .setDigestId(d.digestId())
                        .setConfig(P4RuntimeOuterClass.DigestEntry.Config.newBuilder()
                                .setMaxTimeoutNs(d.maxTimeoutNs())
                                .setMaxListSize(d.maxListSize())
                                .setAckTimeoutNs(d.ackTimeoutNs())));
        }
        return b.build();
    }

    private static List<P4RuntimeOuterClass.Replica> encodeReplicas(final List<P4Entity.Replica> replicas) {
        final List<P4RuntimeOuterClass.Replica> out = new ArrayList<>();
        for (final P4Entity.Replica r : replicas) {
            out.add(P4RuntimeOuterClass.Replica.newBuilder()
                    .setPort(ByteStrings.encode(r.port()))
                    .setInstance(r.instance())
                    .build());
        }
        return out;
    }

    /** Encodes the key part of an entry (table id, matches, priority). */
    public P4RuntimeOuterClass.TableEntry.Builder encodeKey(final EntryKey key) {
        final var b = P4RuntimeOuterClass.TableEntry.newBuilder()
                .setTableId(key.tableId())
                .setPriority(key.priority());
        for (final FieldMatchValue m : key.matches()) {
            final var fb = b.addMatchBuilder().setFieldId(m.fieldId());
            switch (m.kind()) {
                case EXACT -> fb.setExact(FieldMatch.Exact.newBuilder().setValue(ByteStrings.encode(m.value())));
                case OPTIONAL ->
                    fb.setOptional(FieldMatch.Optional.newBuilder().setValue(ByteStrings.encode(m.value())));
                case LPM ->
                    fb.setLpm(FieldMatch.LPM
                            .newBuilder()
                            .setValue(ByteStrings.encode(m.value()))
                            .setPrefixLen(m.prefixLength()));
                case TERNARY ->
                    fb.setTernary(FieldMatch.Ternary.newBuilder()
                            .setValue(ByteStrings.encode(m.value()))
                            .setMask(ByteStrings.encode(m.mask())));
                case RANGE ->
                    fb.setRange(FieldMatch.Range.newBuilder()
                            .setLow(ByteStrings.encode(m.value()))
                            .setHigh(ByteStrings.encode(m.high())));
            }
        }
        return b;
    }

    /** Encodes a full table entry. */
    public P4RuntimeOuterClass.TableEntry encodeTableEntry(final P4Entity.TableEntry e) {
        final var b = encodeKey(e.key()).setIsDefaultAction(e.isDefault()).setIdleTimeoutNs(e.idleTimeoutNs());
        if (e.metadata() != null) {
            b.setMetadata(ByteString.copyFrom(e.metadata()));
        }
        final TableInfo t = model.table(e.key().tableId());
        if (e.isDefault() && t != null && t.constDefaultActionId() != 0) {
            b.setIsConst(true);
        }
        if (e.action() != null) {
            final var ab = b.getActionBuilder();
            switch (e.action()) {
                case EntryAction.Direct d -> ab.setAction(encodeAction(d.call()));
                case EntryAction.Member m -> ab.setActionProfileMemberId(m.memberId());
                case EntryAction.Group g -> ab.setActionProfileGroupId(g.groupId());
                case EntryAction.OneShot s -> {
                    final var sb = ab.getActionProfileActionSetBuilder();
                    for (final EntryAction.WeightedAction w : s.actions()) {
                        final var wb = sb.addActionProfileActionsBuilder()
                                .setAction(encodeAction(w.call()))
                                .setWeight(w.weight());
                        if (w.watchPort() >= 0) {
                            wb.setWatchPort(ByteStrings.encode(w.watchPort()));
                        }
                    }
                }
            }
        }
        if (e.counter() != null) {
            b.setCounterData(encodeCounter(e.counter()));
        }
        if (e.meter() != null) {
            b.setMeterConfig(encodeMeter(e.meter()));
        }
        if (e.sinceLastHitNs() >= 0) {
            b.setTimeSinceLastHit(
                    P4RuntimeOuterClass.TableEntry.IdleTimeout.newBuilder().setElapsedNs(e.sinceLastHitNs()));
        }
        return b.build();
    }

    private P4RuntimeOuterClass.Action encodeAction(final ActionCall call) {
        final var b = P4RuntimeOuterClass.Action.newBuilder().setActionId(call.actionId());
        final List<ParamInfo> infos = model.action(call.actionId()).params();
        for (int i = 0; i < call.params().size(); i++) {
            b.addParamsBuilder()
                    .setParamId(infos.get(i).id())
                    .setValue(ByteStrings.encode(call.params().get(i)));
        }
        return b.build();
    }

    private static P4RuntimeOuterClass.CounterData encodeCounter(final CounterValue v) {
        return P4RuntimeOuterClass.CounterData.newBuilder()
                .setByteCount(v.bytes())
                .setPacketCount(v.packets())
                .build();
    }

    private static P4RuntimeOuterClass.MeterConfig encodeMeter(final MeterSettings m) {
        return P4RuntimeOuterClass.MeterConfig.newBuilder()
                .setCir(m.cir())
                .setCburst(m.cburst())
                .setPir(m.pir())
                .setPburst(m.pburst())
                .setEburst(m.eburst())
                .build();
    }
}
