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
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ars.group_selection_mode (indexed by the controller's wcmp_group_id) and the switch-wide ARS registers through
 * {@link PipelineTableBackend}: writes reach the pipeline's runtime settings, reads answer them, bad ones are refused
 * with the canonical code and change nothing.
 */
@Timeout(30)
class RegisterGroupModeTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int RIF = 0x02000005;
    private static final int NEXTHOP = 0x02000007;
    private static final int WCMP = 0x02000008;
    private static final int GROUP_MODE = 0x1600000a;
    private static final int FLOWLET_IDLE = 0x16000008;
    private static final int HASH_SEED = 0x16000009;

    private final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
    private final PipelineTableBackend backend;

    RegisterGroupModeTest() {
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        backend = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
    }

    @AfterEach
    void close() {
        pipeline.close();
    }

    private static WriteOp entry(final int table, final long key, final EntryAction action) {
        return new WriteOp(
                UpdateKind.INSERT,
                new P4Entity.TableEntry(
                        new EntryKey(table, List.of(FieldMatchValue.exact(1, BigInteger.valueOf(key))), 0),
                        action,
                        false,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    private static EntryAction direct(final int action, final long... params) {
        return new EntryAction.Direct(new ActionCall(
                action,
                java.util.Arrays.stream(params).mapToObj(BigInteger::valueOf).toList()));
    }

    private static WriteOp register(final int id, final long index, final long value) {
        return new WriteOp(UpdateKind.MODIFY, new P4Entity.RegisterCell(id, index, BigInteger.valueOf(value)));
    }

    private long read(final int id, final long index) {
        final List<P4Entity> cells = backend.read(new ReadFilter.Registers(id, index));
        assertThat(cells).hasSize(1);
        return ((P4Entity.RegisterCell) cells.get(0)).value().longValue();
    }

    private List<UpdateStatus> write(final WriteOp... ops) {
        return backend.write(List.of(ops), true).stream()
                .map(UpdateOutcome::status)
                .toList();
    }

    @Test
    void shouldSetTheSelectionModeOfTheControllersGroupAndReadItBack() {
        assertThat(write(
                        entry(RIF, 1, direct(0x01000007, 0, 0x0200_0000_aa00L)),
                        entry(NEXTHOP, 10, direct(0x01000009, 1, 0x0A000202L)),
                        entry(
                                WCMP,
                                7,
                                new EntryAction.OneShot(List.of(new EntryAction.WeightedAction(
                                        new ActionCall(0x0100000a, List.of(BigInteger.TEN)), 1, 0))))))
                .allMatch(s -> s == UpdateStatus.OK);
        assertThat(read(GROUP_MODE, 7)).as("the configured mode: hash").isZero();

        assertThat(write(register(GROUP_MODE, 7, 1))).containsExactly(UpdateStatus.OK);
        assertThat(read(GROUP_MODE, 7)).isEqualTo(1);
        final int pipelineGroup =
                SwitchConfig.of(pipeline.control()).compiled().setup().groupCount();
        assertThat(pipeline.control().runtimeKnobs().value(RuntimeKnob.GROUP_SELECTION_MODE, pipelineGroup))
                .isEqualTo(1);

        assertThat(write(register(GROUP_MODE, 8, 2))).as("no WCMP group 8").containsExactly(UpdateStatus.NOT_FOUND);
        assertThat(write(register(GROUP_MODE, 7, 2), register(GROUP_MODE, 7, 4)))
                .containsExactly(UpdateStatus.ABORTED, UpdateStatus.INVALID_ARGUMENT);
        assertThat(read(GROUP_MODE, 7)).isEqualTo(1);
    }

    @Test
    void shouldWriteAndReadSwitchWideArsRegisters() {
        assertThat(read(FLOWLET_IDLE, 0)).isEqualTo(256_000);
        assertThat(write(register(FLOWLET_IDLE, 0, 64_000), register(HASH_SEED, 0, 0xDEADBEEFL)))
                .containsExactly(UpdateStatus.OK, UpdateStatus.OK);
        assertThat(read(FLOWLET_IDLE, 0)).isEqualTo(64_000);
        assertThat(read(HASH_SEED, 0)).isEqualTo(0xDEADBEEFL);
        pipeline.agent().doWork();
        assertThat(pipeline.agent().tables().hashEngine().seed()).isEqualTo(0xDEADBEEF);
        assertThat(write(register(FLOWLET_IDLE, 0, 40_000_000))).containsExactly(UpdateStatus.INVALID_ARGUMENT);
        assertThat(read(FLOWLET_IDLE, 0)).isEqualTo(64_000);
    }

    @Test
    void shouldWriteEveryIndexThePipelineHasWhenIndexIsUnset() {
        final int ecnProb = 0x16000003;
        final int pfcXoff = 0x16000004;
        assertThat(write(register(ecnProb, -1, 7), register(pfcXoff, -1, 4096)))
                .as("no PG has a BUFFER_PG profile here: the xoff wildcard has nothing to set")
                .containsExactly(UpdateStatus.OK, UpdateStatus.OK);
        final int queues = pipeline.control().portNames().size() * 8;
        for (int q = 0; q < queues; q++) {
            assertThat(read(ecnProb, q)).isEqualTo(7);
        }
        assertThat(pipeline.control().runtimeKnobs().value(RuntimeKnob.PFC_XOFF_BYTES, 0))
                .isZero();
    }
}
