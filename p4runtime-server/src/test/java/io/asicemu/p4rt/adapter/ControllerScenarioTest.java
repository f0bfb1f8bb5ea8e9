package io.asicemu.p4rt.adapter;

import static io.asicemu.p4rt.adapter.LoopbackRig.exact;
import static io.asicemu.p4rt.adapter.LoopbackRig.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import com.google.rpc.Code;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.time.ManualClock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.ActionProfileAction;
import p4.v1.P4RuntimeOuterClass.ActionProfileActionSet;
import p4.v1.P4RuntimeOuterClass.CounterData;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.DirectCounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * The controller scenario end to end, over a real gRPC client on loopback and the real pipeline (stepped on a
 * manual clock): A becomes primary and programs router interfaces, neighbors, next hops, a one-shot WCMP group
 * (weights 3:1) and a route into the pipeline through {@link PipelineTableBackend}; RoCEv2 frames of 512 flows follow
 * the group (and a MODIFY to 1:1); an ACL entry traps ARP and A receives it as PacketIn; A's PacketOut leaves the
 * right port; A reads the pipeline's counters; B with a lower election id is refused; when A leaves, B is not promoted
 * until it re-arbitrates higher, and then B's write reaches the data path.
 */
@Timeout(60)
class ControllerScenarioTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"standalone": "false", "mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int IPV4_TABLE = 0x02000003;
    private static final int RIF_TABLE = 0x02000005;
    private static final int NEIGHBOR_TABLE = 0x02000006;
    private static final int NEXTHOP_TABLE = 0x02000007;
    private static final int WCMP_TABLE = 0x02000008;
    private static final int ACL_IN = 0x0200000c;
    private static final int SET_WCMP_GROUP_ID = 0x01000006;
    private static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    private static final int SET_DST_MAC = 0x01000008;
    private static final int SET_IP_NEXTHOP = 0x01000009;
    private static final int WCMP_SET_NEXTHOP_ID = 0x0100000a;
    private static final int ACL_TRAP = 0x01000010;
    private static final int PORT_IN_COUNTER = 0x12000001;
    private static final int PORT_OUT_COUNTER = 0x12000002;
    private static final long HOST_RIF_MAC = 0x02_00_00_00_aa_00L;
    private static final long UPLINK4_MAC = 0x02_00_00_00_aa_04L;
    private static final long UPLINK8_MAC = 0x02_00_00_00_aa_08L;
    private static final long PEER4_MAC = 0x02_00_00_00_02_02L;
    private static final long PEER8_MAC = 0x02_00_00_00_03_02L;
    private static final long HOST_MAC = 0x02_00_00_00_01_02L;
    private static final int FLOWS = 512;

    private LoopbackRig rig;
    private ManualClock clock;
    private Pipeline pipeline;
    private InMemoryPort eth0;
    private InMemoryPort eth4;
    private InMemoryPort eth8;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;

    /** RoCEv2 RC SEND-only of flow i: 10.0.1.(2 + i % 200) → 192.168.(i / 8).(1 + i % 8), own UDP source and QP. */
    private static byte[] roce(final Arena arena, final int flow) {
        final MemorySegment s = arena.allocate(256);
        final int length = new FrameBuilder()
                .reset()
                .macs(HOST_RIF_MAC, HOST_MAC)
                .ipv4(0x0A000102 + flow % 200, 0xC0A80001 + ((flow / 8) << 8) + flow % 8)
                .ttl(64)
                .udpPorts(49152 + flow, 4791)
                .bth(0x04, 0x100 + flow, flow)
                .buildRoce(s, 0, 64);
        return s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static Action action(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return b.build();
    }

    private static Update update(final Update.Type type, final TableEntry.Builder e) {
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    private static TableAction direct(final Action a) {
        return TableAction.newBuilder().setAction(a).build();
    }

    private static TableEntry.Builder route(final long address, final int length) {
        return TableEntry.newBuilder()
                .setTableId(IPV4_TABLE)
                .addMatch(exact(1, 0))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(2)
                        .setLpm(FieldMatch.LPM.newBuilder().setValue(v(address)).setPrefixLen(length)));
    }

    private static TableEntry.Builder arpTrapKey() {
        return TableEntry.newBuilder()
                .setTableId(ACL_IN)
                .setPriority(10)
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(3)
                        .setTernary(FieldMatch.Ternary.newBuilder()
                                .setValue(v(0x0806))
                                .setMask(v(0xffff))));
    }

    @BeforeEach
    void start() throws Exception {
        rig = new LoopbackRig(CONFIG, true);
        clock = rig.clock;
        pipeline = rig.pipeline;
        eth0 = rig.ports.get("Ethernet0");
        eth4 = rig.ports.get("Ethernet4");
        eth8 = rig.ports.get("Ethernet8");
        stub = rig.stub;
    }

    @AfterEach
    void stop() throws Exception {
        rig.close();
    }

    private int port(final String name) {
        return pipeline.control().portIndex(name);
    }

    /** Router interfaces on all three ports, two neighbors and next hops, WCMP 3:1, a /16 through it, ARP trap. */
    private WriteRequest program(final long electionId) {
        return WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(electionId))
                .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(RIF_TABLE)
                                .addMatch(exact(1, 1))
                                .setAction(direct(action(SET_PORT_AND_SRC_MAC, port("Ethernet0"), HOST_RIF_MAC)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(RIF_TABLE)
                                .addMatch(exact(1, 2))
                                .setAction(direct(action(SET_PORT_AND_SRC_MAC, port("Ethernet4"), UPLINK4_MAC)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(RIF_TABLE)
                                .addMatch(exact(1, 3))
                                .setAction(direct(action(SET_PORT_AND_SRC_MAC, port("Ethernet8"), UPLINK8_MAC)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(NEIGHBOR_TABLE)
                                .addMatch(exact(1, 2))
                                .addMatch(exact(2, 0x0A000202L))
                                .setAction(direct(action(SET_DST_MAC, PEER4_MAC)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(NEIGHBOR_TABLE)
                                .addMatch(exact(1, 3))
                                .addMatch(exact(2, 0x0A000302L))
                                .setAction(direct(action(SET_DST_MAC, PEER8_MAC)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(NEXTHOP_TABLE)
                                .addMatch(exact(1, 10))
                                .setAction(direct(action(SET_IP_NEXTHOP, 2, 0x0A000202L)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(NEXTHOP_TABLE)
                                .addMatch(exact(1, 11))
                                .setAction(direct(action(SET_IP_NEXTHOP, 3, 0x0A000302L)))))
                .addUpdates(update(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(WCMP_TABLE)
                                .addMatch(exact(1, 1))
                                .setAction(TableAction.newBuilder()
                                        .setActionProfileActionSet(ActionProfileActionSet.newBuilder()
                                                .addActionProfileActions(ActionProfileAction.newBuilder()
                                                        .setAction(action(WCMP_SET_NEXTHOP_ID, 10))
                                                        .setWeight(3)
                                                        .setWatchPort(v(port("Ethernet4"))))
                                                .addActionProfileActions(ActionProfileAction.newBuilder()
                                                        .setAction(action(WCMP_SET_NEXTHOP_ID, 11))
                                                        .setWeight(1)
                                                        .setWatchPort(v(port("Ethernet8"))))))))
                .addUpdates(update(
                        Update.Type.INSERT, route(0xC0A80000L, 16).setAction(direct(action(SET_WCMP_GROUP_ID, 1)))))
                .addUpdates(update(Update.Type.INSERT, arpTrapKey().setAction(direct(action(ACL_TRAP, 0, 1)))))
                .build();
    }

    /** Steps the data plane, jumping the clock to each deadline, until all frames left (bounded). */
    private void run() {
        for (int i = 0; i < 100_000; i++) {
            pipeline.agent().doWork();
            if (eth0.pendingRx() == 0 && !pipeline.agent().hasQueuedPackets()) {
                return;
            }
            final long next = pipeline.agent().nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
        }
        throw new IllegalStateException("the switch did not go idle");
    }

    /** Replays one round of every flow; returns flow → egress port name (checks the L3 rewrite of every frame). */
    private Map<Integer, String> replayRound(final Arena arena) {
        final Map<Integer, String> egress = new HashMap<>();
        for (int flow = 0; flow < FLOWS; flow += 32) {
            for (int f = flow; f < flow + 32; f++) {
                assertThat(eth0.inject(roce(arena, f), clock.nowNs())).isTrue();
            }
            run();
            collect(eth4, "Ethernet4", PEER4_MAC, UPLINK4_MAC, egress);
            collect(eth8, "Ethernet8", PEER8_MAC, UPLINK8_MAC, egress);
        }
        return egress;
    }

    private static void collect(
            final InMemoryPort port,
            final String name,
            final long dstMac,
            final long srcMac,
            final Map<Integer, String> egress) {
        for (int i = 0; i < port.transmittedCount(); i++) {
            final byte[] f = port.transmitted(i);
            final ByteString frame = ByteString.copyFrom(f);
            assertThat(frame.substring(0, 6))
                    .isEqualTo(ByteString.copyFrom(BigInteger.valueOf(dstMac).toByteArray(), 0, 6));
            assertThat(new BigInteger(1, f, 6, 6).longValue())
                    .as("source MAC of the router interface")
                    .isEqualTo(srcMac);
            assertThat(f[22] & 0xff).as("TTL decremented").isEqualTo(63);
            final int qp = ((f[14 + 20 + 8 + 5] & 0xff) << 16)
                    | ((f[14 + 20 + 8 + 6] & 0xff) << 8)
                    | (f[14 + 20 + 8 + 7] & 0xff);
            assertThat(egress.put(qp - 0x100, name)).as("one copy per flow").isNull();
        }
        port.clearTransmitted();
    }

    private long[] counter(final int counterId, final int index) {
        final List<Entity> out = new ArrayList<>();
        stub.read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setCounterEntry(CounterEntry.newBuilder()
                                        .setCounterId(counterId)
                                        .setIndex(Index.newBuilder().setIndex(index))))
                        .build())
                .forEachRemaining(r -> out.addAll(r.getEntitiesList()));
        assertThat(out).hasSize(1);
        final CounterData d = out.get(0).getCounterEntry().getData();
        return new long[] {d.getPacketCount(), d.getByteCount()};
    }

    @Test
    void shouldForwardOverWcmpPuntArpAndArbitrateWhenControllersProgramThePipeline() throws Exception {
        final LoopbackRig.Controller a = rig.stream();
        assertThat(a.arbitrate(10)).isEqualTo(Code.OK.getNumber());
        final LoopbackRig.Controller b = rig.stream();
        assertThat(b.arbitrate(5)).isEqualTo(Code.ALREADY_EXISTS.getNumber());

        final WriteRequest bad = program(10).toBuilder()
                .addUpdates(update(
                        Update.Type.INSERT, route(0xAC100000L, 12).setAction(direct(action(SET_WCMP_GROUP_ID, 99)))))
                .build();
        final var refusedBatch = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(bad));
        final com.google.rpc.Status status = StatusProto.fromThrowable(refusedBatch);
        assertThat(status.getCode()).isEqualTo(Code.UNKNOWN.getNumber());
        final List<Integer> codes = new ArrayList<>();
        for (final com.google.protobuf.Any any : status.getDetailsList()) {
            codes.add(any.unpack(p4.v1.P4RuntimeOuterClass.Error.class).getCanonicalCode());
        }
        assertThat(codes)
                .as("route to a missing group: nothing of the batch applied")
                .hasSize(bad.getUpdatesCount())
                .endsWith(Code.NOT_FOUND.getNumber())
                .containsOnly(Code.ABORTED.getNumber(), Code.NOT_FOUND.getNumber());
        stub.write(program(10));

        final Map<Integer, String> round1;
        final Map<Integer, String> round2;
        try (Arena arena = Arena.ofConfined()) {
            round1 = replayRound(arena);
            round2 = replayRound(arena);
        }
        assertThat(round1).hasSize(FLOWS);
        assertThat(round2).as("every flow keeps its member").isEqualTo(round1);
        final long toEth4 = round1.values().stream().filter("Ethernet4"::equals).count();
        final long toEth8 = FLOWS - toEth4;
        // weights 3:1 → 384 : 128 expected; 4 standard deviations of a binomial(512, 3/4) is 39 (sqrt(96) = 9.8)
        assertThat(toEth4).isBetween(384L - 39, 384L + 39);
        System.out.printf(
                "WCMP 3:1 over %d RoCEv2 flows x 2 rounds: Ethernet4 %d, Ethernet8 %d%n", FLOWS, toEth4, toEth8);

        final byte[] arp = LoopbackRig.arpRequest();
        assertThat(eth0.inject(arp, clock.nowNs())).isTrue();
        run();
        final StreamMessageResponse in = a.next();
        assertThat(in.getPacket().getPayload().toByteArray()).isEqualTo(arp);
        assertThat(in.getPacket().getMetadata(0).getValue()).isEqualTo(v(port("Ethernet0")));
        assertThat(in.getPacket().getMetadata(2).getValue()).isEqualTo(v(PuntReason.ACL_TRAP.index()));
        assertThat(b.received.poll(200, TimeUnit.MILLISECONDS))
                .as("the backup gets no PacketIn")
                .isNull();

        a.out.onNext(StreamMessageRequest.newBuilder()
                .setPacket(PacketOut.newBuilder()
                        .setPayload(ByteString.copyFrom(arp))
                        .addMetadata(
                                PacketMetadata.newBuilder().setMetadataId(1).setValue(v(port("Ethernet8"))))
                        .addMetadata(
                                PacketMetadata.newBuilder().setMetadataId(2).setValue(v(0))))
                .build());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (eth8.transmittedCount() == 0 && System.nanoTime() < deadline) {
            pipeline.agent().doWork();
            Thread.onSpinWait();
        }
        assertThat(eth8.transmittedCount()).isEqualTo(1);
        assertThat(eth8.transmitted(0)).isEqualTo(arp);
        assertThat(eth4.transmittedCount()).isZero();
        eth8.clearTransmitted();

        final int roceLength = roce(Arena.global(), 0).length;
        assertThat(counter(PORT_IN_COUNTER, port("Ethernet0")))
                .containsExactly(2L * FLOWS + 1, 2L * FLOWS * roceLength + arp.length);
        assertThat(counter(PORT_OUT_COUNTER, port("Ethernet4"))).containsExactly(2 * toEth4, 2 * toEth4 * roceLength);
        assertThat(counter(PORT_OUT_COUNTER, port("Ethernet8")))
                .containsExactly(2 * toEth8 + 1, 2 * toEth8 * roceLength + arp.length);
        System.out.printf(
                "counters: port_in[Ethernet0] %s, port_out[Ethernet4] %s, port_out[Ethernet8] %s%n",
                java.util.Arrays.toString(counter(PORT_IN_COUNTER, port("Ethernet0"))),
                java.util.Arrays.toString(counter(PORT_OUT_COUNTER, port("Ethernet4"))),
                java.util.Arrays.toString(counter(PORT_OUT_COUNTER, port("Ethernet8"))));
        final List<Entity> acl = new ArrayList<>();
        stub.read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setDirectCounterEntry(
                                        DirectCounterEntry.newBuilder().setTableEntry(arpTrapKey())))
                        .build())
                .forEachRemaining(r -> acl.addAll(r.getEntitiesList()));
        assertThat(acl).hasSize(1);
        assertThat(acl.get(0).getDirectCounterEntry().getData().getPacketCount())
                .isEqualTo(1);

        final TableEntry wcmp = program(10).getUpdates(7).getEntity().getTableEntry();
        final List<Entity> readBack = new ArrayList<>();
        stub.read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setTableEntry(TableEntry.newBuilder().setTableId(WCMP_TABLE)))
                        .build())
                .forEachRemaining(r -> readBack.addAll(r.getEntitiesList()));
        assertThat(readBack).extracting(Entity::getTableEntry).containsExactly(wcmp);

        final ActionProfileActionSet.Builder even = wcmp.getAction().getActionProfileActionSet().toBuilder();
        even.getActionProfileActionsBuilder(0).setWeight(1);
        stub.write(WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(10))
                .addUpdates(update(
                        Update.Type.MODIFY,
                        wcmp.toBuilder().setAction(TableAction.newBuilder().setActionProfileActionSet(even))))
                .build());
        final Map<Integer, String> evenRound;
        try (Arena arena = Arena.ofConfined()) {
            evenRound = replayRound(arena);
        }
        final long evenToEth4 =
                evenRound.values().stream().filter("Ethernet4"::equals).count();
        // weights 1:1 → 256 expected; 4 standard deviations of a binomial(512, 1/2) is 45
        assertThat(evenRound).hasSize(FLOWS);
        assertThat(evenToEth4).isBetween(256L - 45, 256L + 45);
        System.out.printf("after MODIFY to 1:1: Ethernet4 %d, Ethernet8 %d%n", evenToEth4, FLOWS - evenToEth4);

        final WriteRequest byB = WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(5))
                .addUpdates(update(Update.Type.DELETE, route(0xC0A80000L, 16)))
                .build();
        final var refused = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(byB));
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);

        a.close();
        assertThat(b.next().getArbitration().getStatus().getCode()).isEqualTo(Code.NOT_FOUND.getNumber());
        final var stillRefused = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(byB));
        assertThat(stillRefused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(b.arbitrate(11)).isEqualTo(Code.OK.getNumber());
        stub.write(
                byB.toBuilder().setElectionId(Uint128.newBuilder().setLow(11)).build());
        try (Arena arena = Arena.ofConfined()) {
            assertThat(eth0.inject(roce(arena, 0), clock.nowNs())).isTrue();
        }
        run();
        assertThat(eth4.transmittedCount() + eth8.transmittedCount())
                .as("B's delete reached the data path")
                .isZero();
        b.close();
    }
}
