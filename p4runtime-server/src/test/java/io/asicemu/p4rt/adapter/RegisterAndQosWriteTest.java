package io.asicemu.p4rt.adapter;

import static io.asicemu.p4rt.adapter.LoopbackRig.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.rpc.Code;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.TmOptions;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.RegisterEntry;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * P4Runtime register writes (RegisterEntry MODIFY) and QoS map table entries reach the real pipeline, over a real
 * gRPC client on loopback, with traffic through in-memory ports on a manual clock. Expected numbers come from the
 * reference formulas: WRED marks with p = 100 % at and above Kmax on the instantaneous queue at dequeue (§7); a
 * lossless PG holds reserved + static_th, then xoff of headroom, then drops (§1.2, §6.3). A burst of N frames is
 * injected at one instant, so the k-th frame leaves a queue of (N − k) frames of C charged bytes.
 */
@Timeout(60)
class RegisterAndQosWriteTest {
    private static final int PAYLOAD = 1000;
    private static final int N = 20;
    private static final int LENGTH = 14 + 20 + 8 + PAYLOAD;
    private static final int CELL = TmOptions.defaults().cellBytes();
    private static final long C = (LENGTH + CELL - 1) / CELL * (long) CELL;
    private static final String CONFIG = String.format("""
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "WRED_PROFILE": {"W": {"wred_green_enable": "true", "green_min_threshold": "%d",
             "green_max_threshold": "%d", "green_drop_probability": "100", "ecn": "ecn_all"}},
         "QUEUE": {"Ethernet4|0": {"wred_profile": "W"}},
         "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "10000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "%d",
                                         "xoff": "%d", "xon": "%d"}},
         "BUFFER_PG": {"Ethernet0|3": {"profile": "lossless"}},
         "DSCP_TO_TC_MAP": {"AZ": {"3": "3"}},
         "TC_TO_PRIORITY_GROUP_MAP": {"AZ": {"3": "3"}},
         "TC_TO_QUEUE_MAP": {"AZ": {"3": "3"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZ", "tc_to_pg_map": "AZ", "tc_to_queue_map": "AZ",
                                        "pfc_enable": "3"}},
         "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"},
                    "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "400"}}}
        """, 19 * C, 19 * C, 10 * C, 5 * C, 2 * C);
    private static final int ECN_MIN = 0x16000001;
    private static final int ECN_MAX = 0x16000002;
    private static final int ECN_PROB = 0x16000003;
    private static final int PFC_XOFF = 0x16000004;
    private static final int WD_DETECTION = 0x16000006;
    private static final int WD_RESTORATION = 0x16000007;
    private static final int FLOWLET_IDLE = 0x16000008;
    private static final int HASH_SEED = 0x16000009;
    private static final int DSCP_TO_TC = 0x0200000e;
    private static final int TC_TO_QUEUE = 0x02000010;
    private static final int SET_TC = 0x01000016;
    private static final int SET_QUEUE = 0x01000017;

    private ManualClock clock;
    private final Arena arena = Arena.ofConfined();
    private LoopbackRig rig;
    private Pipeline pipeline;
    private InMemoryPort eth0;
    private InMemoryPort eth4;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    private LoopbackRig.Controller controller;
    private int eth4Index;

    @BeforeEach
    void start() throws Exception {
        rig = new LoopbackRig(CONFIG, true);
        pipeline = rig.pipeline;
        clock = rig.clock;
        eth0 = rig.ports.get("Ethernet0");
        eth4 = rig.ports.get("Ethernet4");
        eth4Index = rig.port("Ethernet4");
        stub = rig.stub;
        controller = rig.controller(1);
    }

    @AfterEach
    void stop() throws Exception {
        controller.close();
        rig.close();
        arena.close();
    }

    private static Update register(final int id, final long index, final long value) {
        return Update.newBuilder()
                .setType(Update.Type.MODIFY)
                .setEntity(Entity.newBuilder()
                        .setRegisterEntry(RegisterEntry.newBuilder()
                                .setRegisterId(id)
                                .setIndex(Index.newBuilder().setIndex(index))
                                .setData(P4Data.newBuilder().setBitstring(v(value)))))
                .build();
    }

    private static Update qos(
            final Update.Type type, final int table, final long key, final int action, final long param) {
        final TableEntry.Builder e = TableEntry.newBuilder()
                .setTableId(table)
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(1)
                        .setExact(FieldMatch.Exact.newBuilder().setValue(v(key))));
        if (type != Update.Type.DELETE) {
            e.setAction(TableAction.newBuilder()
                    .setAction(Action.newBuilder()
                            .setActionId(action)
                            .addParams(Action.Param.newBuilder().setParamId(1).setValue(v(param)))));
        }
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    private void write(final Update... updates) {
        stub.write(request(updates));
    }

    private static WriteRequest request(final Update... updates) {
        final WriteRequest.Builder b = WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(1))
                .setAtomicity(WriteRequest.Atomicity.ROLLBACK_ON_ERROR);
        for (final Update u : updates) {
            b.addUpdates(u);
        }
        return b.build();
    }

    private List<Integer> refusedCodes(final Update... updates) throws Exception {
        final StatusRuntimeException ex =
                catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(request(updates)));
        assertThat(ex).as("the write is refused").isNotNull();
        final com.google.rpc.Status s = StatusProto.fromThrowable(ex);
        if (s.getCode() != Code.UNKNOWN_VALUE) {
            return List.of(s.getCode());
        }
        final List<Integer> out = new ArrayList<>();
        for (final com.google.protobuf.Any a : s.getDetailsList()) {
            out.add(a.unpack(p4.v1.P4RuntimeOuterClass.Error.class).getCanonicalCode());
        }
        return out;
    }

    private long read(final int id, final long index) {
        final Iterator<ReadResponse> it = stub.read(ReadRequest.newBuilder()
                .setDeviceId(1)
                .addEntities(Entity.newBuilder()
                        .setRegisterEntry(RegisterEntry.newBuilder()
                                .setRegisterId(id)
                                .setIndex(Index.newBuilder().setIndex(index))))
                .build());
        final List<Long> values = new ArrayList<>();
        it.forEachRemaining(r -> r.getEntitiesList()
                .forEach(e -> values.add(new BigInteger(
                                1, e.getRegisterEntry().getData().getBitstring().toByteArray())
                        .longValue())));
        assertThat(values).hasSize(1);
        return values.get(0);
    }

    private byte[] frame(final int dscp) {
        final MemorySegment s = arena.allocate(2048);
        final int length = new FrameBuilder()
                .reset()
                .macs(0x02aabbccddeeL, 0x020000000102L)
                .ipv4(0x0A000102, 0xC0A80101)
                .dscp(dscp)
                .ecn(2)
                .udpPorts(1000, 2000)
                .buildUdp(s, 0, PAYLOAD);
        assertThat(length).isEqualTo(LENGTH);
        return s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** N frames at one instant, run to idle; returns what Ethernet4 sent. */
    private List<byte[]> burst(final int dscp) {
        for (int i = 0; i < N; i++) {
            assertThat(eth0.inject(frame(dscp), clock.nowNs())).isTrue();
        }
        for (int i = 0; i < 100_000; i++) {
            pipeline.agent().doWork();
            if (eth0.pendingRx() == 0 && !pipeline.agent().hasQueuedPackets()) {
                final List<byte[]> out = new ArrayList<>();
                for (int f = 0; f < eth4.transmittedCount(); f++) {
                    out.add(eth4.transmitted(f));
                }
                eth4.clearTransmitted();
                eth0.clearTransmitted();
                return out;
            }
            final long next = pipeline.agent().nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
        }
        throw new IllegalStateException("the switch did not go idle");
    }

    private static long ce(final List<byte[]> frames) {
        return frames.stream().filter(f -> (f[15] & 3) == 3).count();
    }

    private TmCountersSnapshot tm() throws Exception {
        final var future = pipeline.control().trafficManagerCounters();
        pipeline.agent().doWork();
        return future.get();
    }

    @Test
    void shouldReadConfigDbValuesBeforeAnyWrite() {
        final int eth0Index = pipeline.control().portIndex("Ethernet0");
        assertThat(read(ECN_MIN, eth4Index * 8L)).isEqualTo(19 * C);
        assertThat(read(ECN_MAX, eth4Index * 8L)).isEqualTo(19 * C);
        assertThat(read(ECN_PROB, eth4Index * 8L)).isEqualTo(100);
        assertThat(read(ECN_MIN, eth4Index * 8L + 1))
                .as("queue without WRED profile")
                .isZero();
        assertThat(read(PFC_XOFF, eth0Index * 8L + 3)).isEqualTo(5 * C);
        assertThat(read(WD_DETECTION, eth0Index)).isEqualTo(200);
        assertThat(read(WD_RESTORATION, eth0Index)).isEqualTo(400);
        assertThat(read(FLOWLET_IDLE, 0)).as("SAI ARS default idle time").isEqualTo(256_000);
        assertThat(read(HASH_SEED, 0))
                .as("ToR default seed (DEVICE_METADATA type absent)")
                .isZero();
    }

    @Test
    void shouldMarkPerWredFormulaWhenEcnThresholdRegistersAreLowered() throws Exception {
        // Kmin = Kmax = 19C: depths 20C and 19C mark.
        assertThat(ce(burst(0))).isEqualTo(2);
        write(register(ECN_MIN, eth4Index * 8L, 10 * C), register(ECN_MAX, eth4Index * 8L, 10 * C));
        final List<byte[]> out = burst(0);
        assertThat(out).hasSize(N);
        for (int k = 0; k < N; k++) {
            assertThat(out.get(k)[15] & 3)
                    .as("frame %d leaves a queue of %d C", k, N - k)
                    .isEqualTo((N - k) * C >= 10 * C ? 3 : 2);
        }
        assertThat(ce(out)).isEqualTo(11);
        assertThat(tm().queue(eth4Index, 0, QueueStat.WRED_ECN_MARKED_PACKETS)).isEqualTo(13);
        assertThat(read(ECN_MIN, eth4Index * 8L)).isEqualTo(10 * C);
        assertThat(read(ECN_MAX, eth4Index * 8L)).isEqualTo(10 * C);
    }

    @Test
    void shouldDropAtTheNewHeadroomCrossingWhenPfcXoffRegisterIsWritten() {
        final int eth0Index = pipeline.control().portIndex("Ethernet0");
        // static_th 10C shared, then xoff 5C of headroom: 15 of 20 frames pass.
        assertThat(burst(3)).hasSize(15);
        write(register(PFC_XOFF, eth0Index * 8L + 3, 2 * C));
        assertThat(burst(3)).as("10 shared + 2 headroom").hasSize(12);
        assertThat(read(PFC_XOFF, eth0Index * 8L + 3)).isEqualTo(2 * C);
    }

    @Test
    void shouldMoveAFlowToAnotherQueueWhenDscpToTcAndTcToQueueEntriesAreInserted() throws Exception {
        burst(46);
        assertThat(tm().queue(eth4Index, 0, QueueStat.PACKETS)).isEqualTo(N);
        write(
                qos(Update.Type.INSERT, DSCP_TO_TC, 46, SET_TC, 5),
                qos(Update.Type.INSERT, TC_TO_QUEUE, 5, SET_QUEUE, 6));
        burst(46);
        TmCountersSnapshot s = tm();
        assertThat(s.queue(eth4Index, 6, QueueStat.PACKETS)).isEqualTo(N);
        assertThat(s.queue(eth4Index, 0, QueueStat.PACKETS)).isEqualTo(N);
        write(qos(Update.Type.DELETE, DSCP_TO_TC, 46, 0, 0));
        burst(46);
        s = tm();
        assertThat(s.queue(eth4Index, 0, QueueStat.PACKETS))
                .as("entry deleted: the configured map again")
                .isEqualTo(2 * N);
        assertThat(s.queue(eth4Index, 6, QueueStat.PACKETS)).isEqualTo(N);
    }

    @Test
    void shouldRefuseOutOfRangeIndexOrValueWithInvalidArgumentAndChangeNothing() throws Exception {
        final int ports = pipeline.control().portNames().size();
        // Index inside the P4 register (2048) but past the chip's ports: the pipeline refuses it.
        assertThat(refusedCodes(register(ECN_MIN, eth4Index * 8L, 10 * C), register(ECN_MAX, ports * 8L, 10 * C)))
                .containsExactly(Code.ABORTED_VALUE, Code.INVALID_ARGUMENT_VALUE);
        // Index outside the P4 register: refused by the codec.
        assertThat(refusedCodes(register(ECN_MIN, 2048, 1))).containsExactly(Code.INVALID_ARGUMENT_VALUE);
        assertThat(refusedCodes(register(ECN_PROB, eth4Index * 8L, 101))).containsExactly(Code.INVALID_ARGUMENT_VALUE);
        assertThat(refusedCodes(register(ECN_MIN, eth4Index * 8L, 20 * C)))
                .as("Kmin above Kmax")
                .containsExactly(Code.INVALID_ARGUMENT_VALUE);
        assertThat(refusedCodes(register(FLOWLET_IDLE, 0, 1_000))).containsExactly(Code.INVALID_ARGUMENT_VALUE);
        assertThat(refusedCodes(register(WD_DETECTION, eth4Index, 300)))
                .as("Ethernet4 has no PFC_WD entry")
                .containsExactly(Code.FAILED_PRECONDITION_VALUE);
        assertThat(refusedCodes(register(WD_DETECTION, pipeline.control().portIndex("Ethernet0"), 50)))
                .as("below 100 ms")
                .containsExactly(Code.INVALID_ARGUMENT_VALUE);
        // Nothing changed: the register reads and the marking are CONFIG_DB's.
        assertThat(read(ECN_MIN, eth4Index * 8L)).isEqualTo(19 * C);
        assertThat(read(ECN_PROB, eth4Index * 8L)).isEqualTo(100);
        assertThat(ce(burst(0))).isEqualTo(2);
    }
}
