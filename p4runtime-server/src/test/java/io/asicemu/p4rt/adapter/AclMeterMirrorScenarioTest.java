package io.asicemu.p4rt.adapter;

import static io.asicemu.p4rt.adapter.LoopbackRig.exact;
import static io.asicemu.p4rt.adapter.LoopbackRig.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.rpc.Code;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.testsupport.Rfc2698Oracle;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.CloneSessionEntry;
import p4.v1.P4RuntimeOuterClass.DirectCounterEntry;
import p4.v1.P4RuntimeOuterClass.DirectMeterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.MeterConfig;
import p4.v1.P4RuntimeOuterClass.MeterEntry;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.Replica;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * A controller over gRPC programs the egress ACL, the ingress ACL's direct meter, the CoPP meter and a clone session
 * into the real pipeline (stepped on a manual clock, in-memory ports) through {@link PipelineTableBackend}, and the
 * traffic shows it: egress drops on one port only with the direct counter equal to them, meter passes as RFC 2698
 * predicts (computed here by {@link Rfc2698Oracle}), PacketIn capped by the CoPP meter, a mirror copy beside the
 * routed original; bad meter configs are refused and change nothing.
 */
@Timeout(60)
class AclMeterMirrorScenarioTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"standalone": "false", "mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"},
                  "Ethernet12": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int IPV4_TABLE = 0x02000003;
    private static final int RIF_TABLE = 0x02000005;
    private static final int NEIGHBOR_TABLE = 0x02000006;
    private static final int NEXTHOP_TABLE = 0x02000007;
    private static final int ACL_IN = 0x0200000c;
    private static final int ACL_OUT = 0x0200000d;
    private static final int SET_NEXTHOP_ID = 0x01000005;
    private static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    private static final int SET_DST_MAC = 0x01000008;
    private static final int SET_IP_NEXTHOP = 0x01000009;
    private static final int ACL_TRAP = 0x01000010;
    private static final int ACL_SET_TC = 0x01000012;
    private static final int ACL_MIRROR = 0x01000014;
    private static final int ACL_EGRESS_DROP = 0x01000015;
    private static final int CPU_QUEUE_METER = 0x14000001;
    private static final long HOST_RIF_MAC = 0x02_00_00_00_aa_00L;
    private static final long HOST_MAC = 0x02_00_00_00_01_02L;

    private ManualClock clock;
    private final Arena arena = Arena.ofConfined();
    private LoopbackRig rig;
    private Pipeline pipeline;
    private Map<String, InMemoryPort> ports;
    private PipelineCpuPortBackend backend;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    private LoopbackRig.Controller controller;
    private LinkedBlockingQueue<StreamMessageResponse> received;

    @BeforeEach
    void start() throws Exception {
        rig = new LoopbackRig(CONFIG, false);
        pipeline = rig.pipeline;
        clock = rig.clock;
        ports = rig.ports;
        backend = rig.backend;
        stub = rig.stub;
        controller = rig.controller(10);
        received = controller.received;
        write(routing());
        step();
    }

    @AfterEach
    void stop() throws Exception {
        controller.close();
        rig.close();
        arena.close();
    }

    private StreamMessageResponse next() throws InterruptedException {
        return controller.next();
    }

    private int port(final String name) {
        return pipeline.control().portIndex(name);
    }

    private static FieldMatch ternary(final int id, final long value, final long mask) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setTernary(FieldMatch.Ternary.newBuilder().setValue(v(value)).setMask(v(mask)))
                .build();
    }

    private static FieldMatch optional(final int id, final long value) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setOptional(FieldMatch.Optional.newBuilder().setValue(v(value)))
                .build();
    }

    private static TableAction action(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return TableAction.newBuilder().setAction(b).build();
    }

    private static Update update(final Update.Type type, final Entity e) {
        return Update.newBuilder().setType(type).setEntity(e).build();
    }

    private static Update insert(final TableEntry.Builder e) {
        return update(Update.Type.INSERT, Entity.newBuilder().setTableEntry(e).build());
    }

    private static WriteRequest request(final Update... updates) {
        return WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(10))
                .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                .addAllUpdates(List.of(updates))
                .build();
    }

    private void write(final Update... updates) {
        stub.write(request(updates));
    }

    private List<Integer> refusedCodes(final Update... updates) throws Exception {
        final var e = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(request(updates)));
        final com.google.rpc.Status status = StatusProto.fromThrowable(e);
        final List<Integer> codes = new ArrayList<>();
        for (final com.google.protobuf.Any any : status.getDetailsList()) {
            codes.add(any.unpack(p4.v1.P4RuntimeOuterClass.Error.class).getCanonicalCode());
        }
        return codes;
    }

    private List<Entity> read(final Entity e) {
        final List<Entity> out = new ArrayList<>();
        stub.read(ReadRequest.newBuilder().setDeviceId(1).addEntities(e).build())
                .forEachRemaining(r -> out.addAll(r.getEntitiesList()));
        return out;
    }

    /** Router interfaces on Ethernet0/4/8, neighbors and next hops behind 4 and 8, a /24 to each. */
    private Update[] routing() {
        return new Update[] {
            insert(TableEntry.newBuilder()
                    .setTableId(RIF_TABLE)
                    .addMatch(exact(1, 1))
                    .setAction(action(SET_PORT_AND_SRC_MAC, port("Ethernet0"), HOST_RIF_MAC))),
            insert(TableEntry.newBuilder()
                    .setTableId(RIF_TABLE)
                    .addMatch(exact(1, 2))
                    .setAction(action(SET_PORT_AND_SRC_MAC, port("Ethernet4"), 0x02_00_00_00_aa_04L))),
            insert(TableEntry.newBuilder()
                    .setTableId(RIF_TABLE)
                    .addMatch(exact(1, 3))
                    .setAction(action(SET_PORT_AND_SRC_MAC, port("Ethernet8"), 0x02_00_00_00_aa_08L))),
            insert(TableEntry.newBuilder()
                    .setTableId(NEIGHBOR_TABLE)
                    .addMatch(exact(1, 2))
                    .addMatch(exact(2, 0x0A000202L))
                    .setAction(action(SET_DST_MAC, 0x02_00_00_00_02_02L))),
            insert(TableEntry.newBuilder()
                    .setTableId(NEIGHBOR_TABLE)
                    .addMatch(exact(1, 3))
                    .addMatch(exact(2, 0x0A000302L))
                    .setAction(action(SET_DST_MAC, 0x02_00_00_00_03_02L))),
            insert(TableEntry.newBuilder()
                    .setTableId(NEXTHOP_TABLE)
                    .addMatch(exact(1, 10))
                    .setAction(action(SET_IP_NEXTHOP, 2, 0x0A000202L))),
            insert(TableEntry.newBuilder()
                    .setTableId(NEXTHOP_TABLE)
                    .addMatch(exact(1, 11))
                    .setAction(action(SET_IP_NEXTHOP, 3, 0x0A000302L))),
            insert(route(0xC0A80400L, 10)),
            insert(route(0xC0A80800L, 11))
        };
    }

    private static TableEntry.Builder route(final long prefix, final int nextHop) {
        return TableEntry.newBuilder()
                .setTableId(IPV4_TABLE)
                .addMatch(exact(1, 0))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(2)
                        .setLpm(FieldMatch.LPM.newBuilder().setValue(v(prefix)).setPrefixLen(24)))
                .setAction(action(SET_NEXTHOP_ID, nextHop));
    }

    private byte[] udp(final int dst) {
        final MemorySegment s = arena.allocate(512);
        final int length = new FrameBuilder()
                .reset()
                .macs(HOST_RIF_MAC, HOST_MAC)
                .ipv4(0x0A000102, dst)
                .ttl(64)
                .udpPorts(1000, 2000)
                .buildUdp(s, 0, 100);
        return s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Steps the data plane, jumping the clock to each deadline, until no frame waits (bounded). */
    private void step() {
        for (int i = 0; i < 100_000; i++) {
            pipeline.agent().doWork();
            if (ports.get("Ethernet0").pendingRx() == 0 && !pipeline.agent().hasQueuedPackets()) {
                return;
            }
            final long next = pipeline.agent().nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
        }
        throw new IllegalStateException("the switch did not go idle");
    }

    private void send(final byte[] frame) {
        assertThat(ports.get("Ethernet0").inject(frame, clock.nowNs())).isTrue();
    }

    private List<byte[]> take(final String name) {
        final InMemoryPort p = ports.get(name);
        final List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < p.transmittedCount(); i++) {
            frames.add(p.transmitted(i));
        }
        p.clearTransmitted();
        return frames;
    }

    @Test
    void shouldDropOnlyPacketsToTheFilteredPortAndCountThemWhenEgressAclIsProgrammed() {
        final TableEntry.Builder rule = TableEntry.newBuilder()
                .setTableId(ACL_OUT)
                .setPriority(10)
                .addMatch(ternary(3, 17, 0xff))
                .addMatch(optional(5, port("Ethernet8")));
        write(insert(rule.clone().setAction(action(ACL_EGRESS_DROP))));
        step();
        for (int i = 0; i < 7; i++) {
            send(udp(0xC0A80401));
            send(udp(0xC0A80801));
        }
        step();
        assertThat(take("Ethernet4")).hasSize(7);
        assertThat(take("Ethernet8")).isEmpty();
        final List<Entity> counters = read(Entity.newBuilder()
                .setDirectCounterEntry(DirectCounterEntry.newBuilder()
                        .setTableEntry(TableEntry.newBuilder().setTableId(ACL_OUT)))
                .build());
        assertThat(counters).hasSize(1);
        assertThat(counters.get(0).getDirectCounterEntry().getData().getPacketCount())
                .isEqualTo(7);
        assertThat(counters.get(0).getDirectCounterEntry().getData().getByteCount())
                .as("bytes as they leave")
                .isEqualTo(7L * udp(0xC0A80801).length);
        assertThat(pipeline.agent().counters().drops(port("Ethernet8"), DropReason.EGRESS_ACL_DROP))
                .isEqualTo(7);
        assertThat(read(Entity.newBuilder()
                        .setTableEntry(TableEntry.newBuilder().setTableId(ACL_OUT))
                        .build()))
                .as("reads return what was written")
                .extracting(e -> e.getTableEntry().getAction())
                .containsExactly(action(ACL_EGRESS_DROP));
        write(update(Update.Type.DELETE, Entity.newBuilder().setTableEntry(rule).build()));
        step();
        send(udp(0xC0A80801));
        step();
        assertThat(take("Ethernet8")).as("deleted: forwarded again").hasSize(1);
    }

    @Test
    void shouldPassWhatRfc2698PredictsAndRefuseBadConfigsWhenAclDirectMeterIsWritten() throws Exception {
        final byte[] frame = udp(0xC0A80401);
        final long cir = 50_000;
        final long cburst = 4L * frame.length;
        final long pir = 80_000;
        final long pburst = 6L * frame.length;
        final TableEntry.Builder key = TableEntry.newBuilder()
                .setTableId(ACL_IN)
                .setPriority(10)
                .addMatch(ternary(7, 0xC0A80400L, 0xFFFFFF00L));
        write(insert(key.clone().setAction(action(ACL_SET_TC, 0))));
        final Entity meter = Entity.newBuilder()
                .setDirectMeterEntry(DirectMeterEntry.newBuilder()
                        .setTableEntry(key)
                        .setConfig(MeterConfig.newBuilder()
                                .setCir(cir)
                                .setCburst(cburst)
                                .setPir(pir)
                                .setPburst(pburst)))
                .build();
        write(update(Update.Type.MODIFY, meter));
        assertThat(refusedCodes(update(
                        Update.Type.MODIFY,
                        Entity.newBuilder()
                                .setDirectMeterEntry(meter.getDirectMeterEntry().toBuilder()
                                        .setConfig(MeterConfig.newBuilder()
                                                .setCir(cir)
                                                .setCburst(0)
                                                .setPir(pir)
                                                .setPburst(pburst)))
                                .build())))
                .as("zero burst (RFC 2698: > 0)")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        assertThat(refusedCodes(
                        insert(route(0xC0A80900L, 10)),
                        update(
                                Update.Type.MODIFY,
                                Entity.newBuilder()
                                        .setDirectMeterEntry(meter.getDirectMeterEntry().toBuilder()
                                                .setConfig(MeterConfig.newBuilder()
                                                        .setCir(pir)
                                                        .setCburst(cburst)
                                                        .setPir(cir)
                                                        .setPburst(pburst)))
                                        .build())))
                .as("pir < cir refuses the whole atomic batch")
                .containsExactly(Code.ABORTED.getNumber(), Code.INVALID_ARGUMENT.getNumber());
        assertThat(read(Entity.newBuilder()
                        .setDirectMeterEntry(DirectMeterEntry.newBuilder()
                                .setTableEntry(TableEntry.newBuilder().setTableId(ACL_IN)))
                        .build()))
                .as("nothing changed")
                .containsExactly(meter);
        assertThat(read(Entity.newBuilder()
                        .setTableEntry(TableEntry.newBuilder().setTableId(IPV4_TABLE))
                        .build()))
                .hasSize(2);
        step();

        final Rfc2698Oracle oracle = new Rfc2698Oracle(cir, cburst, pir, pburst);
        int expected = 0;
        int forwarded = 0;
        final long startNs = clock.nowNs() + 1_000_000;
        for (int i = 0; i < 20; i++) // a burst of 20 frames at one instant: PBS / B = 6 pass
        {
            clock.nowNs(startNs);
            send(frame);
            expected += oracle.color(frame.length, startNs) == Rfc2698Oracle.RED ? 0 : 1;
        }
        step();
        forwarded += take("Ethernet4").size();
        assertThat(forwarded).isEqualTo(6);
        for (int i = 1; i <= 300; i++) // then 1 frame per ms (142 kB/s offered, above PIR)
        {
            final long t = startNs + i * 1_000_000L;
            clock.nowNs(t);
            send(frame);
            expected += oracle.color(frame.length, t) == Rfc2698Oracle.RED ? 0 : 1;
            step();
            forwarded += take("Ethernet4").size();
        }
        assertThat(forwarded).isEqualTo(expected);
        assertThat(pipeline.agent().counters().drops(DropReason.ACL_METER_RED)).isEqualTo(320 - expected);
        assertThat(expected)
                .as("0.3 s at PIR = 24 000 B = 169 frames, plus the 6 of the burst")
                .isEqualTo(6 + 169);
    }

    @Test
    void shouldCapPacketInRateWhenCppMeterPolicesTheCpuQueue() throws Exception {
        write(
                update(
                        Update.Type.MODIFY,
                        Entity.newBuilder()
                                .setMeterEntry(MeterEntry.newBuilder()
                                        .setMeterId(CPU_QUEUE_METER)
                                        .setIndex(Index.newBuilder().setIndex(2))
                                        .setConfig(MeterConfig.newBuilder()
                                                .setCir(100)
                                                .setCburst(5)
                                                .setPir(100)
                                                .setPburst(5)))
                                .build()),
                insert(TableEntry.newBuilder()
                        .setTableId(ACL_IN)
                        .setPriority(10)
                        .addMatch(ternary(10, 17, 0xff))
                        .setAction(action(ACL_TRAP, 2, 5))));
        assertThat(refusedCodes(update(
                        Update.Type.MODIFY,
                        Entity.newBuilder()
                                .setMeterEntry(MeterEntry.newBuilder()
                                        .setMeterId(CPU_QUEUE_METER)
                                        .setIndex(Index.newBuilder().setIndex(2))
                                        .setConfig(MeterConfig.newBuilder()
                                                .setCir(100)
                                                .setCburst(5)
                                                .setPir(50)
                                                .setPburst(5)))
                                .build())))
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        step();
        final Rfc2698Oracle oracle = new Rfc2698Oracle(100, 5, 100, 5);
        int expected = 0;
        final long startNs = clock.nowNs() + 1_000_000;
        for (int i = 0; i < 300; i++) // 1000 packets/s for 0.3 s
        {
            final long t = startNs + i * 1_000_000L;
            clock.nowNs(t);
            send(udp(0xC0A80401));
            expected += oracle.color(1, t) == Rfc2698Oracle.RED ? 0 : 1;
            step();
        }
        final int handed = backend.pollPacketIns(1_000);
        assertThat(handed).isEqualTo(expected);
        for (int i = 0; i < expected; i++) {
            assertThat(next().hasPacket()).isTrue();
        }
        assertThat(received.poll(200, TimeUnit.MILLISECONDS))
                .as("no more PacketIn")
                .isNull();
        assertThat(expected).as("5 of burst + 100/s over 0.299 s").isEqualTo(34);
        assertThat(pipeline.agent().counters().drops(DropReason.COPP_METER_RED)).isEqualTo(300 - expected);
        assertThat(take("Ethernet4")).as("trapped, not forwarded").isEmpty();
    }

    @Test
    void shouldDeliverCopyOnSessionPortWhileOriginalForwardsWhenAclMirrors() {
        write(
                update(
                        Update.Type.INSERT,
                        Entity.newBuilder()
                                .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                                        .setCloneSessionEntry(CloneSessionEntry.newBuilder()
                                                .setSessionId(9)
                                                .addReplicas(Replica.newBuilder()
                                                        .setPort(v(port("Ethernet12")))
                                                        .setInstance(0))
                                                .setPacketLengthBytes(64)))
                                .build()),
                insert(TableEntry.newBuilder()
                        .setTableId(ACL_IN)
                        .setPriority(10)
                        .addMatch(ternary(7, 0xC0A80400L, 0xFFFFFF00L))
                        .setAction(action(ACL_MIRROR, 9))));
        step();
        final byte[] frame = udp(0xC0A80401);
        send(frame);
        step();
        final List<byte[]> routed = take("Ethernet4");
        assertThat(routed).as("the original is routed").hasSize(1);
        assertThat(routed.get(0)[22] & 0xff).isEqualTo(63);
        final List<byte[]> copies = take("Ethernet12");
        assertThat(copies).hasSize(1);
        assertThat(copies.get(0))
                .as("the copy as received, cut to packet_length_bytes")
                .isEqualTo(Arrays.copyOf(frame, 64));
        write(update(
                Update.Type.DELETE,
                Entity.newBuilder()
                        .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                                .setCloneSessionEntry(
                                        CloneSessionEntry.newBuilder().setSessionId(9)))
                        .build()));
        step();
        send(frame);
        step();
        assertThat(take("Ethernet4")).hasSize(1);
        assertThat(take("Ethernet12")).as("no session, no copy").isEmpty();
    }
}
