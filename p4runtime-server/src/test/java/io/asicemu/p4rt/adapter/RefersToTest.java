package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Table;

/**
 * The references the server enforces are declared with PINS' {@code @refers_to(table, field)} in the P4Info, each
 * names a real table and key field, and they are enforced in every VRF alike.
 */
@Timeout(30)
class RefersToTest {
    private static final Pattern REFERS_TO = Pattern.compile("@refers_to\\(([\\w:]+), (\\w+)\\)");
    private static final int VRF = 0x02000002;
    private static final int IPV4 = 0x02000003;
    private static final int RIF = 0x02000005;
    private static final int NEXTHOP = 0x02000007;

    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
    private final PipelineTableBackend backend;

    RefersToTest() {
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse("""
            {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"}}}"""));
        pipeline.agent().doWork();
        backend = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
    }

    @AfterEach
    void close() {
        pipeline.close();
    }

    private static List<String> refersTo(final P4Info info) {
        final List<String> all = new ArrayList<>();
        info.getTablesList().forEach(t -> t.getMatchFieldsList().forEach(f -> all.addAll(f.getAnnotationsList())));
        info.getActionsList().forEach(a -> a.getParamsList().forEach(p -> all.addAll(p.getAnnotationsList())));
        return all.stream().filter(a -> a.startsWith("@refers_to")).toList();
    }

    @Test
    void shouldNameAnExistingTableAndKeyFieldInEveryRefersTo() {
        final P4Info info = FixedPipelineInfo.p4info();
        final List<String> annotations = refersTo(info);
        assertThat(annotations).hasSize(8);
        for (final String annotation : annotations) {
            final Matcher m = REFERS_TO.matcher(annotation);
            assertThat(m.matches()).as(annotation).isTrue();
            if (m.group(1).equals("builtin::multicast_group_table")) {
                assertThat(m.group(2)).isEqualTo("multicast_group_id"); // the replication engine's, as in PINS
                continue;
            }
            final Table table = info.getTablesList().stream()
                    .filter(t -> t.getPreamble().getAlias().equals(m.group(1)))
                    .findFirst()
                    .orElseThrow();
            assertThat(table.getMatchFieldsList())
                    .as(annotation)
                    .anyMatch(f -> f.getName().equals(m.group(2)));
        }
    }

    private static WriteOp op(
            final UpdateKind kind,
            final int table,
            final List<FieldMatchValue> key,
            final int actionId,
            final long... params) {
        final List<BigInteger> values =
                java.util.Arrays.stream(params).mapToObj(BigInteger::valueOf).toList();
        return new WriteOp(
                kind,
                new P4Entity.TableEntry(
                        new EntryKey(table, key, 0),
                        new EntryAction.Direct(new ActionCall(actionId, values)),
                        false,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    private static FieldMatchValue exact(final int id, final long value) {
        return FieldMatchValue.exact(id, BigInteger.valueOf(value));
    }

    private static WriteOp route(final int vrf, final int nextHop) {
        return op(
                UpdateKind.INSERT,
                IPV4,
                List.of(
                        exact(1, vrf),
                        new FieldMatchValue(
                                2,
                                MatchKind.LPM,
                                BigInteger.valueOf(0xC0A80000L),
                                BigInteger.ZERO,
                                16,
                                BigInteger.ZERO)),
                0x01000005,
                nextHop);
    }

    private UpdateStatus one(final WriteOp op) {
        final UpdateOutcome outcome = backend.write(List.of(op), true).get(0);
        return outcome.status();
    }

    @Test
    void shouldRefuseARouteToAMissingNextHopInEveryVrfAlike() {
        assertThat(one(op(UpdateKind.INSERT, VRF, List.of(exact(1, 1)), 0x01000019)))
                .isEqualTo(UpdateStatus.OK);
        assertThat(one(route(0, 10))).as("VRF 0").isEqualTo(UpdateStatus.NOT_FOUND);
        assertThat(one(route(1, 10))).as("VRF 1").isEqualTo(UpdateStatus.NOT_FOUND);
        assertThat(one(op(UpdateKind.INSERT, RIF, List.of(exact(1, 1)), 0x01000007, 0, 0x0200_0000_aa00L)))
                .isEqualTo(UpdateStatus.OK);
        assertThat(one(op(UpdateKind.INSERT, NEXTHOP, List.of(exact(1, 10)), 0x01000009, 1, 0x0A000202L)))
                .isEqualTo(UpdateStatus.OK);
        assertThat(one(route(0, 10))).as("VRF 0, next hop present").isEqualTo(UpdateStatus.OK);
        assertThat(one(route(1, 10))).as("VRF 1, next hop present").isEqualTo(UpdateStatus.OK);
    }
}
