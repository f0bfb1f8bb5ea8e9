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
import io.asicemu.pipeline.control.TableException;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Batch semantics of {@link PipelineTableBackend} against the pipeline's control model, without gRPC. */
@Timeout(30)
class PipelineTableBackendTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int IPV4 = 0x02000003;
    private static final int RIF = 0x02000005;
    private static final int NEXTHOP = 0x02000007;
    private static final int ACL_IN = 0x0200000c;

    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
    private final PipelineTableBackend backend;

    PipelineTableBackendTest() {
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        backend = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
    }

    @AfterEach
    void close() {
        pipeline.close();
    }

    private static FieldMatchValue exact(final int id, final long value) {
        return FieldMatchValue.exact(id, BigInteger.valueOf(value));
    }

    private static WriteOp op(
            final UpdateKind kind,
            final int table,
            final List<FieldMatchValue> key,
            final int priority,
            final int actionId,
            final long... params) {
        final List<BigInteger> values = new ArrayList<>();
        for (final long p : params) {
            values.add(BigInteger.valueOf(p));
        }
        return new WriteOp(
                kind,
                new P4Entity.TableEntry(
                        new EntryKey(table, key, priority),
                        new EntryAction.Direct(new ActionCall(actionId, values)),
                        false,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    private static WriteOp rif(final UpdateKind kind, final int id, final int port) {
        return op(kind, RIF, List.of(exact(1, id)), 0, 0x01000007, port, 0x0200_0000_aa00L + port);
    }

    private static WriteOp nextHop(final UpdateKind kind, final int id, final int rif) {
        return op(kind, NEXTHOP, List.of(exact(1, id)), 0, 0x01000009, rif, 0x0A000202L);
    }

    private static WriteOp route(final UpdateKind kind, final int nextHop, final int actionId) {
        return op(
                kind,
                IPV4,
                List.of(
                        exact(1, 0),
                        new FieldMatchValue(
                                2,
                                MatchKind.LPM,
                                BigInteger.valueOf(0xC0A80000L),
                                BigInteger.ZERO,
                                16,
                                BigInteger.ZERO)),
                0,
                actionId,
                nextHop);
    }

    private static List<UpdateStatus> statuses(final List<UpdateOutcome> outcomes) {
        return outcomes.stream().map(UpdateOutcome::status).toList();
    }

    private int storedEntries(final int table) {
        return backend.read(new ReadFilter.Tables(table, null, false, false, false))
                .size();
    }

    @Test
    void shouldApplyNothingWhenAnAtomicBatchHasAnUpdateThePipelineRefuses() {
        final List<UpdateOutcome> out =
                backend.write(List.of(rif(UpdateKind.INSERT, 1, 0), nextHop(UpdateKind.INSERT, 10, 9)), true);
        assertThat(statuses(out)).containsExactly(UpdateStatus.ABORTED, UpdateStatus.NOT_FOUND);
        assertThat(storedEntries(RIF)).isZero();
        assertThat(statuses(backend.write(List.of(rif(UpdateKind.INSERT, 1, 0)), true)))
                .as("the pipeline never saw the first update either")
                .containsExactly(UpdateStatus.OK);
    }

    @Test
    void shouldReportEachOutcomeAndKeepGoodUpdatesWhenContinuingOnError() {
        final List<UpdateOutcome> out = backend.write(
                List.of(
                        rif(UpdateKind.INSERT, 1, 0),
                        rif(UpdateKind.INSERT, 1, 1),
                        rif(UpdateKind.INSERT, 2, 0),
                        nextHop(UpdateKind.INSERT, 10, 1)),
                false);
        assertThat(statuses(out))
                .containsExactly(
                        UpdateStatus.OK, UpdateStatus.ALREADY_EXISTS, UpdateStatus.ALREADY_EXISTS, UpdateStatus.OK);
        assertThat(out.get(2).message()).as("one router interface per port").contains("Ethernet0");
        assertThat(storedEntries(RIF)).isEqualTo(1);
        assertThat(storedEntries(NEXTHOP)).isEqualTo(1);
    }

    @Test
    void shouldMapPipelineCodesWhenDeletingReferencedObjectsOrUsingUnmodelledActions() {
        assertThat(statuses(backend.write(
                        List.of(
                                rif(UpdateKind.INSERT, 1, 1),
                                nextHop(UpdateKind.INSERT, 10, 1),
                                route(UpdateKind.INSERT, 10, 0x01000005)),
                        true)))
                .containsOnly(UpdateStatus.OK);
        assertThat(statuses(backend.write(List.of(nextHop(UpdateKind.DELETE, 10, 1)), true)))
                .containsExactly(UpdateStatus.FAILED_PRECONDITION);
        assertThat(statuses(backend.write(List.of(route(UpdateKind.MODIFY, 1, 0x01000003)), true)))
                .as("trap routes")
                .containsExactly(UpdateStatus.UNIMPLEMENTED);
        assertThat(statuses(backend.write(
                        List.of(op(
                                UpdateKind.INSERT,
                                ACL_IN,
                                List.of(new FieldMatchValue(
                                        7,
                                        MatchKind.TERNARY,
                                        BigInteger.valueOf(0x0A000001L),
                                        BigInteger.valueOf(0xFF00FF00L),
                                        0,
                                        BigInteger.ZERO)),
                                5,
                                0x0100000f)),
                        true)))
                .as("non-prefix address mask")
                .containsExactly(UpdateStatus.INVALID_ARGUMENT);
        assertThat(statuses(backend.write(
                        List.of(op(
                                UpdateKind.INSERT,
                                ACL_IN,
                                List.of(new FieldMatchValue(
                                        3,
                                        MatchKind.TERNARY,
                                        BigInteger.valueOf(0x0800),
                                        BigInteger.valueOf(0xFFFF),
                                        0,
                                        BigInteger.ZERO)),
                                5,
                                0x01000014,
                                1)),
                        true)))
                .as("mirror (to clone session 1)")
                .containsExactly(UpdateStatus.OK);
        assertThat(statuses(backend.write(
                        List.of(
                                route(UpdateKind.DELETE, 0, 0),
                                nextHop(UpdateKind.DELETE, 10, 1),
                                rif(UpdateKind.DELETE, 1, 1)),
                        true)))
                .containsOnly(UpdateStatus.OK);
        assertThat(storedEntries(IPV4) + storedEntries(NEXTHOP) + storedEntries(RIF))
                .isZero();
    }

    private static WriteOp neighbor(final UpdateKind kind, final int rif) {
        return op(kind, 0x02000006, List.of(exact(1, rif), exact(2, 0x0A000202L)), 0, 0x01000008, 0x0200_0000_0202L);
    }

    @Test
    void shouldRefuseSameNeighborAddressBehindTwoInterfacesWhenThePipelineKeysByAddress() {
        assertThat(statuses(backend.write(
                        List.of(
                                rif(UpdateKind.INSERT, 1, 0),
                                rif(UpdateKind.INSERT, 2, 1),
                                neighbor(UpdateKind.INSERT, 1)),
                        true)))
                .containsOnly(UpdateStatus.OK);
        final List<UpdateOutcome> out = backend.write(List.of(neighbor(UpdateKind.INSERT, 2)), true);
        assertThat(statuses(out)).containsExactly(UpdateStatus.ALREADY_EXISTS);
        assertThat(out.get(0).message()).contains("10.0.2.2");
        assertThat(statuses(
                        backend.write(List.of(neighbor(UpdateKind.DELETE, 1), neighbor(UpdateKind.INSERT, 2)), true)))
                .as("free again once deleted")
                .containsOnly(UpdateStatus.OK);
    }

    @Test
    void shouldMapEveryTableExceptionCodeToItsUpdateStatus() {
        for (final TableException.Code code : TableException.Code.values()) {
            assertThat(PipelineTableBackend.status(code).name()).isEqualTo(code.name());
        }
    }

    @Test
    void shouldClearPipelineStateWhenReset() {
        backend.write(List.of(rif(UpdateKind.INSERT, 1, 1), nextHop(UpdateKind.INSERT, 10, 1)), true);
        backend.reset();
        pipeline.agent().doWork();
        assertThat(storedEntries(RIF)).isZero();
        assertThat(statuses(
                        backend.write(List.of(rif(UpdateKind.INSERT, 1, 1), nextHop(UpdateKind.INSERT, 10, 1)), true)))
                .as("ids and next hops were freed")
                .containsOnly(UpdateStatus.OK);
    }
}
