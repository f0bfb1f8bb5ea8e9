package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.time.ManualClock;
import io.grpc.ManagedChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.HashMap;
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
import p4.v1.P4RuntimeOuterClass.ActionProfileGroup;
import p4.v1.P4RuntimeOuterClass.ActionProfileMember;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * WCMP groups through the production backend over gRPC, programmed as action-profile members and groups (indirect)
 * and as one-shot sets, with watch ports: member A leaves Ethernet4 but watches Ethernet12 (a port that carries no
 * traffic), member B leaves and watches Ethernet8. Taking Ethernet12's link down moves all of A's flows to B;
 * bringing it up gives every flow its first member back. Modifying a member (its next hop) rebuilds the group.
 */
@Timeout(60)
class WcmpWatchPortTest {
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
    private static final int WCMP_TABLE = 0x02000008;
    private static final int WCMP_SELECTOR = 0x11000001;
    private static final int SET_WCMP_GROUP_ID = 0x01000006;
    private static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    private static final int SET_DST_MAC = 0x01000008;
    private static final int SET_IP_NEXTHOP = 0x01000009;
    private static final int WCMP_SET_NEXTHOP_ID = 0x0100000a;
    private static final long HOST_RIF_MAC = 0x02_00_00_00_aa_00L;
    private static final long HOST_MAC = 0x02_00_00_00_01_02L;
    private static final int FLOWS = 512;

    private LoopbackRig rig;
    private ManualClock clock;
    private Pipeline pipeline;
    private InMemoryPort eth0;
    private InMemoryPort eth4;
    private InMemoryPort eth8;
    private InMemoryPort eth12;
    private ManagedChannel channel;
    private LoopbackRig.Controller controller;

    @BeforeEach
    void start() throws Exception {
        rig = new LoopbackRig(CONFIG, false);
        clock = rig.clock;
        pipeline = rig.pipeline;
        eth0 = rig.ports.get("Ethernet0");
        eth4 = rig.ports.get("Ethernet4");
        eth8 = rig.ports.get("Ethernet8");
        eth12 = rig.ports.get("Ethernet12");
        channel = rig.channel;
        controller = rig.controller(1);
        write(
                rif(1, port("Ethernet0"), HOST_RIF_MAC),
                rif(2, port("Ethernet4"), 0x02_00_00_00_aa_04L),
                rif(3, port("Ethernet8"), 0x02_00_00_00_aa_08L),
                neighbor(2, 0x0A000202L, 0x02_00_00_00_02_02L),
                neighbor(3, 0x0A000302L, 0x02_00_00_00_03_02L),
                table(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(NEXTHOP_TABLE)
                                .addMatch(exact(1, 10))
                                .setAction(direct(action(SET_IP_NEXTHOP, 2, 0x0A000202L)))),
                table(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(NEXTHOP_TABLE)
                                .addMatch(exact(1, 11))
                                .setAction(direct(action(SET_IP_NEXTHOP, 3, 0x0A000302L)))));
    }

    @AfterEach
    void stop() throws Exception {
        controller.close();
        rig.close();
    }

    @Test
    void shouldMoveAMembersFlowsToTheOthersWhenItsWatchPortGoesDownWithMembersAndGroups() throws Exception {
        write(
                member(1, 10),
                member(2, 11),
                Update.newBuilder()
                        .setType(Update.Type.INSERT)
                        .setEntity(Entity.newBuilder()
                                .setActionProfileGroup(ActionProfileGroup.newBuilder()
                                        .setActionProfileId(WCMP_SELECTOR)
                                        .setGroupId(1)
                                        .addMembers(ActionProfileGroup.Member.newBuilder()
                                                .setMemberId(1)
                                                .setWeight(1)
                                                .setWatchPort(v(port("Ethernet12"))))
                                        .addMembers(ActionProfileGroup.Member.newBuilder()
                                                .setMemberId(2)
                                                .setWeight(1)
                                                .setWatchPort(v(port("Ethernet8"))))))
                        .build(),
                table(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(WCMP_TABLE)
                                .addMatch(exact(1, 1))
                                .setAction(TableAction.newBuilder().setActionProfileGroupId(1))),
                route());
        checkWatchPort();

        // modifying a member re-targets the groups that use it: both members now lead to Ethernet8
        write(Update.newBuilder()
                .setType(Update.Type.MODIFY)
                .setEntity(Entity.newBuilder()
                        .setActionProfileMember(ActionProfileMember.newBuilder()
                                .setActionProfileId(WCMP_SELECTOR)
                                .setMemberId(1)
                                .setAction(action(WCMP_SET_NEXTHOP_ID, 11))))
                .build());
        assertThat(replayRound().values())
                .as("after MODIFY of member 1")
                .hasSize(FLOWS)
                .containsOnly("Ethernet8");
    }

    @Test
    void shouldMoveAMembersFlowsToTheOthersWhenItsWatchPortGoesDownWithAOneShotSet() throws Exception {
        write(
                table(
                        Update.Type.INSERT,
                        TableEntry.newBuilder()
                                .setTableId(WCMP_TABLE)
                                .addMatch(exact(1, 1))
                                .setAction(TableAction.newBuilder()
                                        .setActionProfileActionSet(ActionProfileActionSet.newBuilder()
                                                .addActionProfileActions(ActionProfileAction.newBuilder()
                                                        .setAction(action(WCMP_SET_NEXTHOP_ID, 10))
                                                        .setWeight(1)
                                                        .setWatchPort(v(port("Ethernet12"))))
                                                .addActionProfileActions(ActionProfileAction.newBuilder()
                                                        .setAction(action(WCMP_SET_NEXTHOP_ID, 11))
                                                        .setWeight(1)
                                                        .setWatchPort(v(port("Ethernet8"))))))),
                route());
        checkWatchPort();
    }

    private void checkWatchPort() {
        final Map<Integer, String> split = replayRound();
        assertThat(split).hasSize(FLOWS);
        final long toEth4 = split.values().stream().filter("Ethernet4"::equals).count();
        // 1:1 → 256 each; 4 standard deviations of binomial(512, 1/2) is 45
        assertThat(toEth4).as("flows to member A (Ethernet4)").isBetween(256L - 45, 256L + 45);

        eth12.linkUp(false);
        final Map<Integer, String> down = replayRound();
        assertThat(down.values())
                .as("watch port of A down: every flow on B")
                .hasSize(FLOWS)
                .containsOnly("Ethernet8");

        eth12.linkUp(true);
        assertThat(replayRound())
                .as("watch port up again: the split comes back flow for flow")
                .isEqualTo(split);
        System.out.printf(
                "watch_port: %d/%d flows on A, all %d on B while A's watch port is down, restored%n",
                toEth4, FLOWS, FLOWS);
    }

    private int port(final String name) {
        return pipeline.control().portIndex(name);
    }

    private void write(final Update... updates) {
        final WriteRequest.Builder w = WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(1))
                .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC);
        for (final Update u : updates) {
            w.addUpdates(u);
        }
        P4RuntimeGrpc.newBlockingStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .write(w.build());
    }

    private static Update member(final int id, final int nextHop) {
        return Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder()
                        .setActionProfileMember(ActionProfileMember.newBuilder()
                                .setActionProfileId(WCMP_SELECTOR)
                                .setMemberId(id)
                                .setAction(action(WCMP_SET_NEXTHOP_ID, nextHop))))
                .build();
    }

    private static Update route() {
        return table(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(IPV4_TABLE)
                        .addMatch(exact(1, 0))
                        .addMatch(FieldMatch.newBuilder()
                                .setFieldId(2)
                                .setLpm(FieldMatch.LPM
                                        .newBuilder()
                                        .setValue(v(0xC0A80000L))
                                        .setPrefixLen(16)))
                        .setAction(direct(action(SET_WCMP_GROUP_ID, 1))));
    }

    private static Update rif(final int id, final int port, final long mac) {
        return table(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(RIF_TABLE)
                        .addMatch(exact(1, id))
                        .setAction(direct(action(SET_PORT_AND_SRC_MAC, port, mac))));
    }

    private static Update neighbor(final int rif, final long ip, final long mac) {
        return table(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(NEIGHBOR_TABLE)
                        .addMatch(exact(1, rif))
                        .addMatch(exact(2, ip))
                        .setAction(direct(action(SET_DST_MAC, mac))));
    }

    private static ByteString v(final long value) {
        final byte[] raw = BigInteger.valueOf(value).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    private static FieldMatch exact(final int id, final long value) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setExact(FieldMatch.Exact.newBuilder().setValue(v(value)))
                .build();
    }

    private static Action action(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return b.build();
    }

    private static Update table(final Update.Type type, final TableEntry.Builder e) {
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    private static TableAction direct(final Action a) {
        return TableAction.newBuilder().setAction(a).build();
    }

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

    /** One frame of every flow through Ethernet0; returns flow → egress port name. */
    private Map<Integer, String> replayRound() {
        run(); // link changes and queued writes first
        final Map<Integer, String> egress = new HashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            for (int flow = 0; flow < FLOWS; flow += 32) {
                for (int f = flow; f < flow + 32; f++) {
                    assertThat(eth0.inject(roce(arena, f), clock.nowNs())).isTrue();
                }
                run();
                collect(eth4, "Ethernet4", egress);
                collect(eth8, "Ethernet8", egress);
                assertThat(eth12.transmittedCount()).isZero();
            }
        }
        return egress;
    }

    private static void collect(final InMemoryPort port, final String name, final Map<Integer, String> egress) {
        for (int i = 0; i < port.transmittedCount(); i++) {
            final byte[] f = port.transmitted(i);
            final int qp = ((f[14 + 20 + 8 + 5] & 0xff) << 16)
                    | ((f[14 + 20 + 8 + 6] & 0xff) << 8)
                    | (f[14 + 20 + 8 + 7] & 0xff);
            assertThat(egress.put(qp - 0x100, name)).as("one copy per flow").isNull();
        }
        port.clearTransmitted();
    }
}
