package io.asicemu.p4rt.info;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.agrona.collections.Int2ObjectHashMap;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * Typed, immutable view of a P4Info: every object by id, with the limits the server enforces. The only place that
 * reads P4Info protobuf; everything downstream uses the records of this package. Thread safe (immutable).
 */
public final class P4InfoModel {
    private final Map<Integer, TableInfo> tables = new LinkedHashMap<>();
    private final Map<Integer, ActionInfo> actions = new LinkedHashMap<>();
    private final Map<Integer, ActionProfileInfo> profiles = new LinkedHashMap<>();
    private final Map<Integer, IndexedResourceInfo> counters = new LinkedHashMap<>();
    private final Map<Integer, IndexedResourceInfo> meters = new LinkedHashMap<>();
    private final Map<Integer, IndexedResourceInfo> registers = new LinkedHashMap<>();
    private final Map<Integer, DirectResourceInfo> directCounters = new LinkedHashMap<>();
    private final Map<Integer, DirectResourceInfo> directMeters = new LinkedHashMap<>();
    private final Map<Integer, DigestInfo> digests = new LinkedHashMap<>();
    /** Lookups by id without boxing it (P4 ids are above Integer's cache: a Write looks up several per entry). */
    private final Int2ObjectHashMap<TableInfo> tableById = new Int2ObjectHashMap<>();

    private final Int2ObjectHashMap<ActionInfo> actionById = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<ActionProfileInfo> profileById = new Int2ObjectHashMap<>();
    private final List<PacketMetadataInfo> packetIn = new ArrayList<>();
    private final List<PacketMetadataInfo> packetOut = new ArrayList<>();
    private final int multicastGroupCount;
    private final int multicastMaxReplicas;

    private P4InfoModel(final P4Info info) {
        for (final P4InfoOuterClass.Action a : info.getActionsList()) {
            final List<ParamInfo> params = new ArrayList<>();
            for (final P4InfoOuterClass.Action.Param p : a.getParamsList()) {
                params.add(new ParamInfo(p.getId(), p.getName(), p.getBitwidth()));
            }
            final var pre = a.getPreamble();
            actions.put(pre.getId(), new ActionInfo(pre.getId(), pre.getName(), pre.getAlias(), params));
        }
        for (final P4InfoOuterClass.DirectCounter c : info.getDirectCountersList()) {
            directCounters.put(
                    c.getPreamble().getId(),
                    new DirectResourceInfo(
                            c.getPreamble().getId(),
                            c.getPreamble().getName(),
                            c.getDirectTableId(),
                            unit(c.getSpec().getUnit())));
        }
        for (final P4InfoOuterClass.DirectMeter m : info.getDirectMetersList()) {
            directMeters.put(
                    m.getPreamble().getId(),
                    new DirectResourceInfo(
                            m.getPreamble().getId(),
                            m.getPreamble().getName(),
                            m.getDirectTableId(),
                            CounterUnit.BYTES));
        }
        for (final P4InfoOuterClass.Table t : info.getTablesList()) {
            tables.put(t.getPreamble().getId(), table(t));
        }
        for (final P4InfoOuterClass.ActionProfile p : info.getActionProfilesList()) {
            profiles.put(
                    p.getPreamble().getId(),
                    new ActionProfileInfo(
                            p.getPreamble().getId(),
                            p.getPreamble().getName(),
                            p.getTableIdsList(),
                            p.getWithSelector(),
                            p.getSize(),
                            p.getMaxGroupSize(),
                            !p.hasSumOfMembers(),
                            p.hasSumOfMembers() && p.getSumOfMembers().hasMaxMemberWeight()
                                    ? p.getSumOfMembers().getMaxMemberWeight()
                                    : Integer.MAX_VALUE));
        }
        for (final P4InfoOuterClass.Counter c : info.getCountersList()) {
            counters.put(
                    c.getPreamble().getId(),
                    new IndexedResourceInfo(
                            c.getPreamble().getId(),
                            c.getPreamble().getName(),
                            c.getSize(),
                            0,
                            unit(c.getSpec().getUnit())));
        }
        for (final P4InfoOuterClass.Meter m : info.getMetersList()) {
            meters.put(
                    m.getPreamble().getId(),
                    new IndexedResourceInfo(
                            m.getPreamble().getId(), m.getPreamble().getName(), m.getSize(), 0, CounterUnit.BOTH));
        }
        for (final P4InfoOuterClass.Register r : info.getRegistersList()) {
            final int width = r.getTypeSpec().getBitstring().getBit().getBitwidth();
            registers.put(
                    r.getPreamble().getId(),
                    new IndexedResourceInfo(
                            r.getPreamble().getId(), r.getPreamble().getName(), r.getSize(), width, CounterUnit.BOTH));
        }
        for (final P4InfoOuterClass.Digest d : info.getDigestsList()) {
            final List<ParamInfo> members = new ArrayList<>();
            final var struct = info.getTypeInfo()
                    .getStructsMap()
                    .get(d.getTypeSpec().getStruct().getName());
            if (struct != null) {
                int i = 1;
                for (final var m : struct.getMembersList()) {
                    members.add(new ParamInfo(
                            i++,
                            m.getName(),
                            m.getTypeSpec().getBitstring().getBit().getBitwidth()));
                }
            }
            digests.put(
                    d.getPreamble().getId(),
                    new DigestInfo(d.getPreamble().getId(), d.getPreamble().getName(), members));
        }
        for (final P4InfoOuterClass.ControllerPacketMetadata h : info.getControllerPacketMetadataList()) {
            final List<PacketMetadataInfo> target =
                    "packet_in".equals(h.getPreamble().getName())
                            ? packetIn
                            : "packet_out".equals(h.getPreamble().getName()) ? packetOut : null;
            if (target != null) {
                for (final var m : h.getMetadataList()) {
                    target.add(new PacketMetadataInfo(m.getId(), m.getName(), m.getBitwidth()));
                }
            }
        }
        multicastGroupCount = info.getPkgInfo().getPlatformProperties().getMulticastGroupTableSize();
        multicastMaxReplicas = info.getPkgInfo().getPlatformProperties().getMulticastGroupTableMaxReplicasPerEntry();
        tableById.putAll(tables);
        actionById.putAll(actions);
        profileById.putAll(profiles);
    }

    /** Builds the typed model of a P4Info message. */
    public static P4InfoModel of(final P4Info info) {
        return new P4InfoModel(info);
    }

    private TableInfo table(final P4InfoOuterClass.Table t) {
        final List<MatchFieldInfo> fields = new ArrayList<>();
        for (final P4InfoOuterClass.MatchField f : t.getMatchFieldsList()) {
            fields.add(new MatchFieldInfo(f.getId(), f.getName(), f.getBitwidth(), kind(f.getMatchType())));
        }
        final Map<Integer, ActionScope> refs = new HashMap<>();
        for (final P4InfoOuterClass.ActionRef r : t.getActionRefsList()) {
            refs.put(
                    r.getId(),
                    switch (r.getScope()) {
                        case TABLE_ONLY -> ActionScope.TABLE_ONLY;
                        case DEFAULT_ONLY -> ActionScope.DEFAULT_ONLY;
                        default -> ActionScope.TABLE_AND_DEFAULT;
                    });
        }
        int directCounter = 0;
        int directMeter = 0;
        for (final int id : t.getDirectResourceIdsList()) {
            if (directCounters.containsKey(id)) {
                directCounter = id;
            } else if (directMeters.containsKey(id)) {
                directMeter = id;
            }
        }
        final boolean oneShot = t.getPreamble().getAnnotationsList().stream().anyMatch(a -> a.startsWith("@oneshot"));
        return new TableInfo(
                t.getPreamble().getId(),
                t.getPreamble().getName(),
                t.getPreamble().getAlias(),
                fields,
                refs,
                t.getConstDefaultActionId(),
                t.getImplementationId(),
                directCounter,
                directMeter,
                t.getSize(),
                t.getIdleTimeoutBehavior() == P4InfoOuterClass.Table.IdleTimeoutBehavior.NOTIFY_CONTROL,
                t.getIsConstTable(),
                oneShot);
    }

    private static MatchKind kind(final P4InfoOuterClass.MatchField.MatchType type) {
        return switch (type) {
            case LPM -> MatchKind.LPM;
            case TERNARY -> MatchKind.TERNARY;
            case RANGE -> MatchKind.RANGE;
            case OPTIONAL -> MatchKind.OPTIONAL;
            default -> MatchKind.EXACT;
        };
    }

    private static CounterUnit unit(final P4InfoOuterClass.CounterSpec.Unit unit) {
        return switch (unit) {
            case BYTES -> CounterUnit.BYTES;
            case PACKETS -> CounterUnit.PACKETS;
            default -> CounterUnit.BOTH;
        };
    }

    public TableInfo table(final int id) {
        return tableById.get(id);
    }

    public Collection<TableInfo> tables() {
        return tables.values();
    }

    public ActionInfo action(final int id) {
        return actionById.get(id);
    }

    public Collection<ActionInfo> actions() {
        return actions.values();
    }

    public ActionProfileInfo actionProfile(final int id) {
        return profileById.get(id);
    }

    public Collection<ActionProfileInfo> actionProfiles() {
        return profiles.values();
    }

    public IndexedResourceInfo counter(final int id) {
        return counters.get(id);
    }

    public Collection<IndexedResourceInfo> counters() {
        return counters.values();
    }

    public IndexedResourceInfo meter(final int id) {
        return meters.get(id);
    }

    public Collection<IndexedResourceInfo> meters() {
        return meters.values();
    }

    public IndexedResourceInfo register(final int id) {
        return registers.get(id);
    }

    public Collection<IndexedResourceInfo> registers() {
        return registers.values();
    }

    public DirectResourceInfo directCounter(final int id) {
        return directCounters.get(id);
    }

    public DirectResourceInfo directMeter(final int id) {
        return directMeters.get(id);
    }

    public DigestInfo digest(final int id) {
        return digests.get(id);
    }

    public Collection<DigestInfo> digests() {
        return digests.values();
    }

    /** @return packet_in metadata fields in header order. */
    public List<PacketMetadataInfo> packetIn() {
        return List.copyOf(packetIn);
    }

    /** @return packet_out metadata fields in header order. */
    public List<PacketMetadataInfo> packetOut() {
        return List.copyOf(packetOut);
    }

    public int multicastGroupCount() {
        return multicastGroupCount;
    }

    public int multicastMaxReplicas() {
        return multicastMaxReplicas;
    }
}
