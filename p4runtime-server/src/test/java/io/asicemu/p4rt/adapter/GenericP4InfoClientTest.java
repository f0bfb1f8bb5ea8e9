package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.info.MatchKind;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import p4.config.v1.P4InfoOuterClass.Action;
import p4.config.v1.P4InfoOuterClass.ActionRef;
import p4.config.v1.P4InfoOuterClass.MatchField;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Table;

/**
 * A client that knows only the P4Info, as a third-party one does: for every table it builds a valid entry from the
 * P4Info alone (every exact and LPM key and every parameter 1, prerequisites created first by following
 * {@code @refers_to}, wildcards for ternary/optional/range keys; a MODIFY sets every parameter that refers to
 * nothing to 0), then inserts it, reads it back, modifies it, reads
 * it again, deletes it, and checks that a duplicate INSERT is ALREADY_EXISTS and MODIFY/DELETE of a missing key are
 * NOT_FOUND (P4Runtime spec §9.1).
 */
@Timeout(60)
class GenericP4InfoClientTest {
    private static final Pattern REFERS_TO = Pattern.compile("@refers_to\\(([\\w:]+), (\\w+)\\)");
    private static final P4Info INFO = FixedPipelineInfo.p4info();
    /** PINS' name for the packet replication engine's multicast groups in {@code @refers_to}. */
    private static final String MULTICAST_GROUPS = "builtin::multicast_group_table";

    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
    private final PipelineTableBackend backend;

    GenericP4InfoClientTest() {
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse("""
            {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                      "Ethernet4": {"speed": "10000", "admin_status": "up"}}}"""));
        pipeline.agent().doWork();
        backend = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
    }

    @AfterEach
    void close() {
        pipeline.close();
    }

    static Stream<String> tables() {
        return INFO.getTablesList().stream().map(t -> t.getPreamble().getName());
    }

    private static Table table(final String nameOrAlias) {
        return INFO.getTablesList().stream()
                .filter(t -> t.getPreamble().getName().equals(nameOrAlias)
                        || t.getPreamble().getAlias().equals(nameOrAlias))
                .findFirst()
                .orElseThrow();
    }

    private static Action action(final int id) {
        return INFO.getActionsList().stream()
                .filter(a -> a.getPreamble().getId() == id)
                .findFirst()
                .orElseThrow();
    }

    private static List<String> referencedTables(final List<String> annotations) {
        final List<String> out = new ArrayList<>();
        for (final String a : annotations) {
            final Matcher m = REFERS_TO.matcher(a);
            if (m.matches()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private static boolean needsPriority(final Table t) {
        return t.getMatchFieldsList().stream()
                .anyMatch(f -> f.getMatchType() == MatchField.MatchType.TERNARY
                        || f.getMatchType() == MatchField.MatchType.RANGE
                        || f.getMatchType() == MatchField.MatchType.OPTIONAL);
    }

    private static EntryKey key(final Table t) {
        final List<FieldMatchValue> fields = new ArrayList<>();
        for (final MatchField f : t.getMatchFieldsList()) {
            switch (f.getMatchType()) {
                case EXACT -> fields.add(FieldMatchValue.exact(f.getId(), BigInteger.ONE));
                case LPM ->
                    fields.add(new FieldMatchValue(
                            f.getId(),
                            MatchKind.LPM,
                            BigInteger.ONE.shiftLeft(f.getBitwidth() - 8),
                            BigInteger.ZERO,
                            f.getBitwidth() / 2,
                            BigInteger.ZERO));
                default -> {
                    // ternary, optional and range keys are left out: a wildcard
                }
            }
        }
        return new EntryKey(t.getPreamble().getId(), fields, needsPriority(t) ? 10 : 0);
    }

    /** The first action an entry may use (not default-only), with every parameter {@code value}. */
    private static ActionCall call(final Table t, final long value) {
        final ActionRef ref = t.getActionRefsList().stream()
                .filter(r -> r.getScope() != ActionRef.Scope.DEFAULT_ONLY)
                .findFirst()
                .orElseThrow();
        final Action a = action(ref.getId());
        final List<BigInteger> params = new ArrayList<>();
        a.getParamsList()
                .forEach(p -> params.add(
                        referencedTables(p.getAnnotationsList()).isEmpty()
                                ? BigInteger.valueOf(value)
                                : BigInteger.ONE));
        return new ActionCall(ref.getId(), params);
    }

    private static P4Entity.TableEntry entry(final Table t, final long paramValue) {
        final ActionCall call = call(t, paramValue);
        final EntryAction action = t.getImplementationId() != 0
                ? new EntryAction.OneShot(List.of(new EntryAction.WeightedAction(call, 1, 0)))
                : new EntryAction.Direct(call);
        return new P4Entity.TableEntry(key(t), action, false, 0, new byte[0], null, null);
    }

    /** The tables this one's entry refers to, through its keys and its action's parameters. */
    private static List<String> prerequisites(final Table t) {
        final List<String> refs = new ArrayList<>();
        t.getMatchFieldsList().forEach(f -> refs.addAll(referencedTables(f.getAnnotationsList())));
        final ActionCall call = call(t, 1);
        action(call.actionId()).getParamsList().forEach(p -> refs.addAll(referencedTables(p.getAnnotationsList())));
        return refs;
    }

    private List<P4Entity> created(final Table t, final List<P4Entity> done) {
        for (final String ref : prerequisites(t)) {
            if (ref.equals(MULTICAST_GROUPS)) {
                final P4Entity group = new P4Entity.MulticastGroup(1, List.of(new P4Entity.Replica(0, 0)), new byte[0]);
                assertThat(backend.write(List.of(new WriteOp(UpdateKind.INSERT, group)), true)
                                .get(0)
                                .status())
                        .as("prerequisite multicast group")
                        .isEqualTo(UpdateStatus.OK);
                done.add(group);
                continue;
            }
            final Table prerequisite = table(ref);
            created(prerequisite, done);
            final P4Entity.TableEntry e = entry(prerequisite, 1);
            if (done.stream()
                    .noneMatch(
                            d -> d instanceof P4Entity.TableEntry te && te.key().equals(e.key()))) {
                assertThat(status(UpdateKind.INSERT, e))
                        .as("prerequisite %s", ref)
                        .isEqualTo(UpdateStatus.OK);
                done.add(e);
            }
        }
        return done;
    }

    private UpdateStatus status(final UpdateKind kind, final P4Entity.TableEntry e) {
        final UpdateOutcome out =
                backend.write(List.of(new WriteOp(kind, e)), true).get(0);
        return out.status();
    }

    private String message(final UpdateKind kind, final P4Entity.TableEntry e) {
        final UpdateOutcome out =
                backend.write(List.of(new WriteOp(kind, e)), true).get(0);
        return out.status() + " " + out.message();
    }

    private Optional<P4Entity.TableEntry> read(final Table t) {
        final List<P4Entity> all =
                backend.read(new ReadFilter.Tables(t.getPreamble().getId(), null, false, false, false));
        assertThat(all).hasSizeLessThanOrEqualTo(1);
        return all.stream().map(P4Entity.TableEntry.class::cast).findFirst();
    }

    @ParameterizedTest
    @MethodSource("tables")
    void shouldInsertReadModifyDeleteAnEntryBuiltFromTheP4InfoAlone(final String name) {
        final Table t = table(name);
        final List<P4Entity> prerequisites = created(t, new ArrayList<>());
        final P4Entity.TableEntry entry = entry(t, 1);
        assertThat(status(UpdateKind.MODIFY, entry)).as("MODIFY before INSERT").isEqualTo(UpdateStatus.NOT_FOUND);
        assertThat(status(UpdateKind.DELETE, entry)).as("DELETE before INSERT").isEqualTo(UpdateStatus.NOT_FOUND);
        assertThat(message(UpdateKind.INSERT, entry)).as("INSERT").startsWith("OK");
        assertThat(read(t)).get().satisfies(e -> {
            assertThat(e.key()).isEqualTo(entry.key());
            assertThat(e.action()).isEqualTo(entry.action());
        });
        assertThat(status(UpdateKind.INSERT, entry)).as("duplicate INSERT").isEqualTo(UpdateStatus.ALREADY_EXISTS);
        final P4Entity.TableEntry modified = entry(t, 0);
        assertThat(message(UpdateKind.MODIFY, modified)).as("MODIFY").startsWith("OK");
        assertThat(read(t)).get().satisfies(e -> assertThat(e.action()).isEqualTo(modified.action()));
        assertThat(message(UpdateKind.DELETE, modified)).as("DELETE").startsWith("OK");
        assertThat(read(t)).as("Read after DELETE").isEmpty();
        assertThat(status(UpdateKind.DELETE, modified)).as("DELETE again").isEqualTo(UpdateStatus.NOT_FOUND);
        for (int i = prerequisites.size() - 1; i >= 0; i--) {
            assertThat(backend.write(List.of(new WriteOp(UpdateKind.DELETE, prerequisites.get(i))), true)
                            .get(0)
                            .status())
                    .as("prerequisite cleanup")
                    .isEqualTo(UpdateStatus.OK);
        }
    }
}
