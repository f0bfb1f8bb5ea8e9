package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.rpc.Code;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * A P4Runtime fuzzer in the manner of PINS' p4_fuzzer (issue 14), against the production backend on the real pipeline:
 * random INSERT/MODIFY/DELETE of entries of three tables of the P4Info (ipv4_table LPM routes, acl_ingress_table
 * ternary rules with priorities, l3_admit_table), checked against a model of what the switch must hold (valid updates
 * applied; INSERT of a present key → ALREADY_EXISTS, MODIFY/DELETE of an absent one → NOT_FOUND, a full table →
 * RESOURCE_EXHAUSTED), and the same updates mutated into invalid ones the spec refuses with INVALID_ARGUMENT (unknown
 * table, field or action id; a value wider than its field; an empty byte string; bits below an LPM prefix; a prefix
 * longer than the field; a duplicate field; a ternary value outside its mask; a zero mask; priority 0 on a ternary
 * table or a priority on an LPM one; a missing or extra action parameter; an action outside the table's refs;
 * is_const). After every invalid update the switch's Read is unchanged; every 25 steps and at the end Read equals
 * the model exactly. CI runs {@code -Dasicemu.p4fuzz.steps} (default 600) steps; the seed is
 * {@code -Dasicemu.p4fuzz.seed} (default 14).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class P4RuntimeFuzzTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"standalone": "false", "mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int L3_ADMIT = 0x02000001;
    private static final int IPV4 = 0x02000003;
    private static final int ACL = 0x0200000c;
    private static final int ADMIT = 0x01000004;
    private static final int DROP = 0x01000002;
    private static final int ACL_DROP = 0x0100000f;
    private static final int ACL_SET_TC = 0x01000012;
    private static final int ACL_SET_DSCP = 0x01000013;
    private static final int SET_NEXTHOP = 0x01000005;
    private static final long L3_ADMIT_SIZE = 64;

    /**
     * An invalid variant of a valid update (refused with INVALID_ARGUMENT). {@code ofKey}: it breaks the entry's key;
     * otherwise its action or flags, which a DELETE ignores (the spec: DELETE looks only at the key).
     */
    private record Mutation(String name, boolean ofKey, UnaryOperator<TableEntry> apply) {}

    private final SplittableRandom random = new SplittableRandom(Long.getLong("asicemu.p4fuzz.seed", 14));
    private final Map<String, TableEntry> model = new HashMap<>();
    private final List<String> keys = new ArrayList<>();

    @Test
    void shouldApplyValidUpdatesAndRefuseInvalidOnesWithTheSpecsCodeLeavingReadUnchanged() throws Exception {
        final int steps = Integer.getInteger("asicemu.p4fuzz.steps", 600);
        final Map<String, Integer> seen = new HashMap<>();
        try (LoopbackRig rig = new LoopbackRig(CONFIG, false);
                LoopbackRig.Controller controller = rig.controller(10)) {
            for (int step = 0; step < steps; step++) {
                final TableEntry entry = randomEntry();
                final String key = key(entry);
                final boolean present = model.containsKey(key);
                final Update.Type type = Update.Type.forNumber(1 + random.nextInt(3));
                if (random.nextInt(3) == 0) {
                    final List<Mutation> candidates = mutations(entry).stream()
                            .filter(c -> c.ofKey() || type != Update.Type.DELETE)
                            .toList();
                    final Mutation m = candidates.get(random.nextInt(candidates.size()));
                    final List<TableEntry> before = read(rig);
                    final int code = write(rig, type, m.apply().apply(entry));
                    assertThat(code)
                            .as("step %d: %s %s of %s", step, type, m.name(), entry)
                            .isEqualTo(Code.INVALID_ARGUMENT.getNumber());
                    assertThat(read(rig))
                            .as("step %d: Read after the refused %s", step, m.name())
                            .containsExactlyInAnyOrderElementsOf(before);
                    seen.merge("invalid " + m.name(), 1, Integer::sum);
                    continue;
                }
                final int expected;
                if (type == Update.Type.INSERT) {
                    expected = present
                            ? Code.ALREADY_EXISTS.getNumber()
                            : entry.getTableId() == L3_ADMIT && count(L3_ADMIT) >= L3_ADMIT_SIZE
                                    ? Code.RESOURCE_EXHAUSTED.getNumber()
                                    : Code.OK.getNumber();
                } else {
                    expected = present ? Code.OK.getNumber() : Code.NOT_FOUND.getNumber();
                }
                final int code = write(rig, type, entry);
                assertThat(code)
                        .as("step %d: %s of %s (present %s)", step, type, entry, present)
                        .isEqualTo(expected);
                if (code == Code.OK.getNumber()) {
                    if (type == Update.Type.DELETE) {
                        model.remove(key);
                        keys.remove(key);
                    } else {
                        if (model.put(key, entry) == null) {
                            keys.add(key);
                        }
                    }
                }
                seen.merge(type + " " + Code.forNumber(code), 1, Integer::sum);
                if (step % 25 == 0) {
                    assertThat(read(rig))
                            .as("step %d: Read equals the model", step)
                            .containsExactlyInAnyOrderElementsOf(model.values());
                }
            }
            assertThat(read(rig))
                    .as("Read equals the model at the end")
                    .containsExactlyInAnyOrderElementsOf(model.values());
        }
        System.out.println("p4runtime fuzz: " + steps + " steps, " + model.size() + " entries at the end; " + seen);
        assertThat(seen.keySet())
                .as("outcomes exercised")
                .contains("INSERT OK", "DELETE OK", "MODIFY OK", "INSERT ALREADY_EXISTS", "DELETE NOT_FOUND");
    }

    private long count(final int tableId) {
        return model.values().stream().filter(e -> e.getTableId() == tableId).count();
    }

    /** A valid entry: a new random key, or (often) the key of one the model holds, with a random action. */
    private TableEntry randomEntry() {
        if (!keys.isEmpty() && random.nextInt(2) == 0) {
            final TableEntry existing = model.get(keys.get(random.nextInt(keys.size())));
            return withRandomAction(existing.toBuilder().clearAction()).build();
        }
        final TableEntry.Builder b = TableEntry.newBuilder();
        switch (random.nextInt(3)) {
            case 0 -> {
                final int len = 8 + random.nextInt(25);
                final long prefix = random.nextLong(1L << 32) & (0xffff_ffffL << (32 - len)) & 0xffff_ffffL;
                b.setTableId(IPV4)
                        .addMatch(exact(1, 0))
                        .addMatch(FieldMatch.newBuilder()
                                .setFieldId(2)
                                .setLpm(FieldMatch.LPM
                                        .newBuilder()
                                        .setValue(v(prefix))
                                        .setPrefixLen(len)));
            }
            case 1 -> {
                final long mask = 0xffff_ff00L << random.nextInt(8) & 0xffff_ffffL;
                b.setTableId(ACL)
                        .setPriority(1 + random.nextInt(20))
                        .addMatch(ternary(7, random.nextLong(1L << 32) & mask, mask));
                if (random.nextBoolean()) {
                    b.addMatch(ternary(10, random.nextInt(256), 0xff));
                }
            }
            default -> {
                final long mac = 0x0200_0000_0000L | random.nextLong(1L << 32);
                b.setTableId(L3_ADMIT).setPriority(1 + random.nextInt(5)).addMatch(ternary(1, mac, 0xffff_ffff_ffffL));
            }
        }
        return withRandomAction(b).build();
    }

    private TableEntry.Builder withRandomAction(final TableEntry.Builder b) {
        final Action.Builder a = Action.newBuilder();
        switch (b.getTableId()) {
            case IPV4 -> a.setActionId(DROP);
            case ACL -> {
                switch (random.nextInt(3)) {
                    case 0 -> a.setActionId(ACL_DROP);
                    case 1 -> a.setActionId(ACL_SET_TC).addParams(param(1, random.nextInt(8)));
                    default -> a.setActionId(ACL_SET_DSCP).addParams(param(1, random.nextInt(64)));
                }
            }
            default -> a.setActionId(ADMIT);
        }
        return b.setAction(TableAction.newBuilder().setAction(a));
    }

    /** The invalid variants of an entry (all INVALID_ARGUMENT by the spec, PI and PINS). */
    private List<Mutation> mutations(final TableEntry e) {
        final List<Mutation> out = new ArrayList<>();
        out.add(new Mutation(
                "unknown table id",
                true,
                x -> x.toBuilder().setTableId(0x02fffff0).build()));
        out.add(new Mutation(
                "unknown match field id",
                true,
                x -> x.toBuilder().addMatch(exact(99, 1)).build()));
        out.add(new Mutation(
                "duplicate match field",
                true,
                x -> x.toBuilder().addMatch(x.getMatch(0)).build()));
        out.add(new Mutation(
                "unknown action id",
                false,
                x -> x.toBuilder()
                        .setAction(TableAction.newBuilder()
                                .setAction(Action.newBuilder().setActionId(0x01fffff0)))
                        .build()));
        out.add(new Mutation(
                "action outside the table's refs",
                false,
                x -> x.toBuilder()
                        .setAction(TableAction.newBuilder()
                                .setAction(Action.newBuilder().setActionId(x.getTableId() == L3_ADMIT ? DROP : ADMIT)))
                        .build()));
        out.add(new Mutation(
                "is_const", false, x -> x.toBuilder().setIsConst(true).build()));
        out.add(new Mutation(
                "empty byte string",
                true,
                x -> x.toBuilder()
                        .setMatch(0, withValue(x.getMatch(0), ByteString.EMPTY))
                        .build()));
        out.add(new Mutation(
                "value wider than the field",
                true,
                x -> x.toBuilder()
                        .setMatch(0, withValue(x.getMatch(0), ByteString.copyFrom(new byte[] {
                            1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
                        })))
                        .build()));
        if (e.getTableId() == IPV4) {
            out.add(new Mutation(
                    "bits below the LPM prefix",
                    true,
                    x -> x.toBuilder()
                            .setMatch(
                                    1,
                                    x.getMatch(1).toBuilder()
                                            .setLpm(x.getMatch(1).getLpm().toBuilder()
                                                    .setValue(v(0xffff_ffffL))
                                                    .setPrefixLen(8)))
                            .build()));
            out.add(new Mutation(
                    "prefix longer than the field",
                    true,
                    x -> x.toBuilder()
                            .setMatch(
                                    1,
                                    x.getMatch(1).toBuilder()
                                            .setLpm(x.getMatch(1).getLpm().toBuilder()
                                                    .setPrefixLen(33)))
                            .build()));
            out.add(new Mutation(
                    "priority on an LPM table",
                    true,
                    x -> x.toBuilder().setPriority(5).build()));
            out.add(new Mutation(
                    "missing exact field",
                    true,
                    x -> x.toBuilder().removeMatch(0).build()));
            out.add(new Mutation(
                    "extra action parameter",
                    false,
                    x -> x.toBuilder()
                            .setAction(TableAction.newBuilder()
                                    .setAction(Action.newBuilder()
                                            .setActionId(DROP)
                                            .addParams(param(1, 1))))
                            .build()));
            out.add(new Mutation(
                    "missing action parameter",
                    false,
                    x -> x.toBuilder()
                            .setAction(TableAction.newBuilder()
                                    .setAction(Action.newBuilder().setActionId(SET_NEXTHOP)))
                            .build()));
        } else {
            out.add(new Mutation(
                    "priority 0 on a ternary table",
                    true,
                    x -> x.toBuilder().setPriority(0).build()));
            out.add(new Mutation(
                    "ternary value outside its mask",
                    true,
                    x -> x.toBuilder()
                            .setMatch(
                                    0,
                                    x.getMatch(0).toBuilder()
                                            .setTernary(x.getMatch(0).getTernary().toBuilder()
                                                    .setValue(v(0xffff_ffffL))
                                                    .setMask(v(0xff))))
                            .build()));
            out.add(new Mutation(
                    "zero ternary mask",
                    true,
                    x -> x.toBuilder()
                            .setMatch(
                                    0,
                                    x.getMatch(0).toBuilder()
                                            .setTernary(x.getMatch(0).getTernary().toBuilder()
                                                    .setValue(v(0))
                                                    .setMask(v(0))))
                            .build()));
        }
        return out;
    }

    private static FieldMatch withValue(final FieldMatch m, final ByteString value) {
        return switch (m.getFieldMatchTypeCase()) {
            case EXACT ->
                m.toBuilder()
                        .setExact(FieldMatch.Exact.newBuilder().setValue(value))
                        .build();
            case LPM ->
                m.toBuilder().setLpm(m.getLpm().toBuilder().setValue(value)).build();
            case TERNARY ->
                m.toBuilder()
                        .setTernary(m.getTernary().toBuilder().setValue(value))
                        .build();
            default -> m;
        };
    }

    /** The entry's identity: table, match (by field id) and priority. */
    private static String key(final TableEntry e) {
        final List<FieldMatch> match = new ArrayList<>(e.getMatchList());
        match.sort(Comparator.comparingInt(FieldMatch::getFieldId));
        return e.getTableId() + "|" + match + "|" + e.getPriority();
    }

    private static int write(final LoopbackRig rig, final Update.Type type, final TableEntry entry) throws Exception {
        try {
            rig.stub.write(WriteRequest.newBuilder()
                    .setDeviceId(1)
                    .setElectionId(Uint128.newBuilder().setLow(10))
                    .addUpdates(Update.newBuilder()
                            .setType(type)
                            .setEntity(Entity.newBuilder().setTableEntry(entry)))
                    .build());
            return Code.OK.getNumber();
        } catch (final StatusRuntimeException ex) {
            final com.google.rpc.Status s = StatusProto.fromThrowable(ex);
            assertThat(s).as("a status with details: %s", ex).isNotNull();
            assertThat(s.getCode()).as("%s", ex).isEqualTo(Code.UNKNOWN.getNumber());
            assertThat(s.getDetailsCount()).isEqualTo(1);
            return s.getDetails(0).unpack(p4.v1.P4RuntimeOuterClass.Error.class).getCanonicalCode();
        } finally {
            rig.pipeline.agent().doWork(); // apply the queued batch (the rig steps the data plane on this thread)
        }
    }

    /** The entries of the three fuzzed tables, as Read returns them (table, match, priority, action). */
    private static List<TableEntry> read(final LoopbackRig rig) {
        final List<TableEntry> out = new ArrayList<>();
        final Set<Integer> tables = new HashSet<>(List.of(IPV4, ACL, L3_ADMIT));
        for (final int table : tables) {
            rig.stub
                    .read(ReadRequest.newBuilder()
                            .setDeviceId(1)
                            .addEntities(Entity.newBuilder()
                                    .setTableEntry(TableEntry.newBuilder().setTableId(table)))
                            .build())
                    .forEachRemaining((ReadResponse r) -> r.getEntitiesList().forEach(en -> {
                        final TableEntry t = en.getTableEntry();
                        final List<FieldMatch> match = new ArrayList<>(t.getMatchList());
                        match.sort(Comparator.comparingInt(FieldMatch::getFieldId));
                        out.add(TableEntry.newBuilder()
                                .setTableId(t.getTableId())
                                .addAllMatch(match)
                                .setPriority(t.getPriority())
                                .setAction(t.getAction())
                                .build());
                    }));
        }
        return out;
    }

    private static ByteString v(final long value) {
        return LoopbackRig.v(value);
    }

    private static FieldMatch exact(final int id, final long value) {
        return LoopbackRig.exact(id, value);
    }

    private static FieldMatch ternary(final int id, final long value, final long mask) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setTernary(FieldMatch.Ternary.newBuilder().setValue(v(value)).setMask(v(mask)))
                .build();
    }

    private static Action.Param param(final int id, final long value) {
        return Action.Param.newBuilder().setParamId(id).setValue(v(value)).build();
    }
}
