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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Objects config_db creates (router interfaces, their connected and local routes) are not P4Runtime entries, and
 * every RPC says so alike: Read does not show them, MODIFY and DELETE find nothing (NOT_FOUND), and an INSERT that
 * meets one is FAILED_PRECONDITION naming config_db (it used to be ALREADY_EXISTS, which Read contradicted).
 */
@Timeout(30)
class ConfigObjectsTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}}}
        """;
    private static final int IPV4 = 0x02000003;
    private static final int RIF = 0x02000005;
    private static final int NEXTHOP = 0x02000007;

    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
    private final PipelineTableBackend backend;

    ConfigObjectsTest() {
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        backend = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
    }

    @AfterEach
    void close() {
        pipeline.close();
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

    private static WriteOp rif(final UpdateKind kind, final int id, final int port) {
        return op(
                kind,
                RIF,
                List.of(FieldMatchValue.exact(1, BigInteger.valueOf(id))),
                0x01000007,
                port,
                0x0200_0000_aa00L + port);
    }

    private static WriteOp connectedRoute(final UpdateKind kind, final int nextHop) {
        return op(
                kind,
                IPV4,
                List.of(
                        FieldMatchValue.exact(1, BigInteger.ZERO),
                        new FieldMatchValue(
                                2,
                                MatchKind.LPM,
                                BigInteger.valueOf(0x0A000100L),
                                BigInteger.ZERO,
                                24,
                                BigInteger.ZERO)),
                0x01000005,
                nextHop);
    }

    private UpdateOutcome one(final WriteOp op) {
        return backend.write(List.of(op), true).get(0);
    }

    private int entries(final int table) {
        return backend.read(new ReadFilter.Tables(table, null, false, false, false))
                .size();
    }

    @Test
    void shouldAgreeInEveryRpcThatAConfigRouterInterfaceIsNoP4RuntimeEntry() {
        assertThat(entries(RIF)).as("Read").isZero();
        assertThat(one(rif(UpdateKind.MODIFY, 1, 0)).status()).isEqualTo(UpdateStatus.NOT_FOUND);
        assertThat(one(rif(UpdateKind.DELETE, 1, 0)).status()).isEqualTo(UpdateStatus.NOT_FOUND);
        final UpdateOutcome insert = one(rif(UpdateKind.INSERT, 1, 0));
        assertThat(insert.status()).isEqualTo(UpdateStatus.FAILED_PRECONDITION);
        assertThat(insert.message()).contains("Ethernet0").contains("config_db");
        assertThat(entries(RIF)).as("Read after the refused insert").isZero();
        assertThat(one(rif(UpdateKind.INSERT, 1, 1)).status())
                .as("a port config left alone")
                .isEqualTo(UpdateStatus.OK);
    }

    @Test
    void shouldAgreeInEveryRpcThatAConfigConnectedRouteIsNoP4RuntimeEntry() {
        assertThat(backend.write(
                        List.of(
                                rif(UpdateKind.INSERT, 1, 1),
                                op(
                                        UpdateKind.INSERT,
                                        NEXTHOP,
                                        List.of(FieldMatchValue.exact(1, BigInteger.TEN)),
                                        0x01000009,
                                        1,
                                        0x0A000202L)),
                        true))
                .extracting(UpdateOutcome::status)
                .containsOnly(UpdateStatus.OK);
        assertThat(entries(IPV4)).as("Read").isZero();
        assertThat(one(connectedRoute(UpdateKind.MODIFY, 10)).status()).isEqualTo(UpdateStatus.NOT_FOUND);
        assertThat(one(connectedRoute(UpdateKind.DELETE, 10)).status()).isEqualTo(UpdateStatus.NOT_FOUND);
        final UpdateOutcome insert = one(connectedRoute(UpdateKind.INSERT, 10));
        assertThat(insert.status()).isEqualTo(UpdateStatus.FAILED_PRECONDITION);
        assertThat(insert.message()).contains("10.0.1.0/24").contains("config_db");
        assertThat(entries(IPV4)).isZero();
    }
}
