package io.asicemu.p4rt.adapter;

import static io.asicemu.p4rt.adapter.LoopbackRig.exact;
import static io.asicemu.p4rt.adapter.LoopbackRig.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import com.google.rpc.Code;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.testsupport.Tshark;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.DigestEntry;
import p4.v1.P4RuntimeOuterClass.DigestList;
import p4.v1.P4RuntimeOuterClass.DigestListAck;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.IdleTimeoutNotification;
import p4.v1.P4RuntimeOuterClass.MulticastGroupEntry;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.Replica;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * The L2 scenario over a real gRPC client on loopback and the real pipeline (stepped on a manual clock): a controller
 * creates VLAN 10 with two untagged members and a tagged one; unknown unicast floods to exactly those members (tshark
 * reads the 802.1Q tag of the tagged copy); the learned source MAC arrives as an {@code l2_learn_digest} DigestList
 * and is not repeated before its ack or ack timeout; a static l2_fdb entry forwards to one port; a multicast group a
 * VLAN floods to replicates to its ports; memberships naming an unknown VLAN or port are refused and change nothing.
 */
@Timeout(60)
class L2ControllerScenarioTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"},
                  "Ethernet12": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int L2_FDB = 0x02000009;
    private static final int VLAN_TABLE = 0x0200000a;
    private static final int VLAN_MEMBERSHIP = 0x0200000b;
    private static final int L2_FORWARD = 0x0100000b;
    private static final int DROP = 0x01000002;
    private static final int NO_ACTION = 0x01000001;
    private static final int VLAN_ALLOW = 0x0100000c;
    private static final int TAGGED = 0x0100000d;
    private static final int UNTAGGED = 0x0100000e;
    private static final int LEARN_DIGEST = 0x17000001;
    private static final long HOST_A = 0x02_00_00_00_01_0aL;
    private static final long HOST_B = 0x02_00_00_00_01_0bL;
    private static final long HOST_C = 0x02_00_00_00_01_0cL;
    private static final long ELECTION = 10;

    @TempDir
    Path dir;

    private LoopbackRig rig;
    private ManualClock clock;
    private Pipeline pipeline;
    private Map<String, InMemoryPort> ports;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;

    @BeforeEach
    void start() throws Exception {
        rig = new LoopbackRig(CONFIG, true);
        clock = rig.clock;
        pipeline = rig.pipeline;
        ports = rig.ports;
        stub = rig.stub;
    }

    @AfterEach
    void stop() throws Exception {
        rig.close();
    }

    private LoopbackRig.Controller controller() throws InterruptedException {
        return rig.controller(ELECTION);
    }

    private static DigestList nextDigest(final LoopbackRig.Controller c) throws InterruptedException {
        final StreamMessageResponse r = c.next();
        assertThat(r.hasDigest()).as("a DigestList, got %s", r).isTrue();
        return r.getDigest();
    }

    private static void ack(final LoopbackRig.Controller c, final DigestList list) {
        c.out.onNext(StreamMessageRequest.newBuilder()
                .setDigestAck(DigestListAck.newBuilder()
                        .setDigestId(list.getDigestId())
                        .setListId(list.getListId()))
                .build());
    }

    private int port(final String name) {
        return pipeline.control().portIndex(name);
    }

    private static TableAction action(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return TableAction.newBuilder().setAction(b).build();
    }

    private static Update insert(final TableEntry.Builder e) {
        return Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    private static TableEntry.Builder vlan(final int vlanId, final int floodGroup) {
        return TableEntry.newBuilder()
                .setTableId(VLAN_TABLE)
                .addMatch(exact(1, vlanId))
                .setAction(action(VLAN_ALLOW, floodGroup));
    }

    private TableEntry.Builder member(final int vlanId, final int port, final boolean tagged) {
        return TableEntry.newBuilder()
                .setTableId(VLAN_MEMBERSHIP)
                .addMatch(exact(1, vlanId))
                .addMatch(exact(2, port))
                .setAction(action(tagged ? TAGGED : UNTAGGED));
    }

    private static Update digestConfig(
            final Update.Type type, final int maxListSize, final long maxTimeoutNs, final long ackTimeoutNs) {
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder()
                        .setDigestEntry(DigestEntry.newBuilder()
                                .setDigestId(LEARN_DIGEST)
                                .setConfig(DigestEntry.Config.newBuilder()
                                        .setMaxListSize(maxListSize)
                                        .setMaxTimeoutNs(maxTimeoutNs)
                                        .setAckTimeoutNs(ackTimeoutNs))))
                .build();
    }

    private WriteRequest.Builder write(final Update... updates) {
        return WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(ELECTION))
                .addAllUpdates(List.of(updates));
    }

    /** VLAN 10: Ethernet0 and Ethernet4 untagged, Ethernet8 tagged; learn digests per the given config. */
    private void vlan10(final Update digestConfig) {
        stub.write(write(
                        insert(vlan(10, 0)),
                        insert(member(10, port("Ethernet0"), false)),
                        insert(member(10, port("Ethernet4"), false)),
                        insert(member(10, port("Ethernet8"), true)),
                        digestConfig)
                .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                .build());
    }

    private static byte[] udp(final long dst, final long src, final int vlanId) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(256);
            final FrameBuilder b = new FrameBuilder().reset().macs(dst, src);
            if (vlanId > 0) {
                b.vlan(vlanId, 0);
            }
            final int length =
                    b.ipv4(0x0A00000A, 0x0A00000B).ttl(64).udpPorts(1000, 2000).buildUdp(s, 0, 64);
            return s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Injects a frame, steps the data plane until every frame left (bounded). */
    private void send(final String port, final byte[] frame) {
        assertThat(ports.get(port).inject(frame, clock.nowNs())).isTrue();
        for (int i = 0; i < 100_000; i++) {
            pipeline.agent().doWork();
            if (ports.get(port).pendingRx() == 0 && !pipeline.agent().hasQueuedPackets()) {
                return;
            }
            final long next = pipeline.agent().nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
        }
        throw new IllegalStateException("the switch did not go idle");
    }

    private List<byte[]> take(final String port) {
        final InMemoryPort p = ports.get(port);
        final List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < p.transmittedCount(); i++) {
            frames.add(p.transmitted(i));
        }
        p.clearTransmitted();
        return frames;
    }

    /** Writes frames as a classic microsecond pcap for tshark. */
    private Path pcap(final String name, final List<byte[]> frames) throws IOException {
        int size = 24;
        for (final byte[] f : frames) {
            size += 16 + f.length;
        }
        final ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xa1b2c3d4)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(65535)
                .putInt(1);
        int second = 1;
        for (final byte[] f : frames) {
            b.putInt(second++).putInt(0).putInt(f.length).putInt(f.length).put(f);
        }
        final Path path = dir.resolve(name + ".pcap");
        Files.write(path, b.array());
        return path;
    }

    private static List<ByteString> members(final DigestList list, final int index) {
        final List<ByteString> out = new ArrayList<>();
        for (final P4Data d : list.getData(index).getStruct().getMembersList()) {
            out.add(d.getBitstring());
        }
        return out;
    }

    /** Waits until the P4Runtime side drained every learn event (it then offered them to the digest engine). */
    private void awaitLearnEventsDrained() {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pipeline.control().cpuPort().learnEvents().pending() > 0) {
            assertThat(System.nanoTime() - deadline)
                    .as("learn events drained within 10 s")
                    .isNegative();
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldFloodToExactlyTheVlanMembersAndDigestTheLearnedMacOnceUntilAckedWhenVlan10IsProgrammed()
            throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            vlan10(digestConfig(Update.Type.INSERT, 1, 0, TimeUnit.MINUTES.toNanos(1)));
            send("Ethernet0", udp(HOST_B, HOST_A, 0));

            final List<byte[]> untagged = take("Ethernet4");
            final List<byte[]> tagged = take("Ethernet8");
            assertThat(take("Ethernet12")).as("not a member").isEmpty();
            assertThat(take("Ethernet0")).as("not back to the source").isEmpty();
            final List<List<String>> tag =
                    Tshark.fields(pcap("eth8", tagged), null, "vlan.id", "eth.src", "eth.dst", "udp.dstport");
            assertThat(tag).containsExactly(List.of("10", "02:00:00:00:01:0a", "02:00:00:00:01:0b", "2000"));
            final List<List<String>> plain =
                    Tshark.fields(pcap("eth4", untagged), null, "vlan.id", "eth.src", "udp.dstport");
            assertThat(plain).containsExactly(List.of("", "02:00:00:00:01:0a", "2000"));
            System.out.printf("flood in VLAN 10: Ethernet4 %s, Ethernet8 %s (tshark)%n", plain, tag);

            final DigestList first = nextDigest(a);
            assertThat(first.getDigestId()).isEqualTo(LEARN_DIGEST);
            assertThat(first.getDataCount()).isEqualTo(1);
            assertThat(members(first, 0)).containsExactly(v(10), v(HOST_A), v(port("Ethernet0")));

            send("Ethernet4", udp(HOST_B, HOST_A, 0)); // HOST_A moves to Ethernet4
            final DigestList moved = nextDigest(a);
            assertThat(members(moved, 0)).containsExactly(v(10), v(HOST_A), v(port("Ethernet4")));
            assertThat(moved.getListId()).isNotEqualTo(first.getListId());

            send("Ethernet0", udp(HOST_B, HOST_A, 0)); // and back: the same data as the un-acked first list
            awaitLearnEventsDrained();
            assertThat(a.received.poll(300, TimeUnit.MILLISECONDS))
                    .as("no repeat before the ack")
                    .isNull();

            ack(a, first);
            ack(a, first); // acks are handled in order: the StreamError for this repeat proves the first was taken
            assertThat(a.next().getError().getCanonicalCode())
                    .as("second ack of the same list")
                    .isEqualTo(Code.NOT_FOUND.getNumber());
            send("Ethernet4", udp(HOST_B, HOST_A, 0)); // (10, A, Ethernet4) is still un-acked: suppressed
            send("Ethernet0", udp(HOST_B, HOST_A, 0)); // (10, A, Ethernet0) was acked: reported again
            final DigestList again = nextDigest(a);
            assertThat(members(again, 0)).containsExactly(v(10), v(HOST_A), v(port("Ethernet0")));
            awaitLearnEventsDrained();
            assertThat(a.received.poll(300, TimeUnit.MILLISECONDS))
                    .as("nothing else")
                    .isNull();
        }
    }

    @Test
    void shouldBatchToMaxListSizeReportAgainAfterAckTimeoutAndHoldForMaxTimeoutWhenConfigured() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            final long ackTimeoutNs = TimeUnit.MILLISECONDS.toNanos(300);
            vlan10(digestConfig(Update.Type.INSERT, 2, TimeUnit.SECONDS.toNanos(30), ackTimeoutNs));
            send("Ethernet0", udp(HOST_B, HOST_A, 0));
            send("Ethernet4", udp(HOST_A, HOST_B, 0));
            final DigestList pair = nextDigest(a);
            final long receivedNs = System.nanoTime();
            assertThat(pair.getDataCount()).as("max_list_size 2").isEqualTo(2);
            assertThat(members(pair, 0)).containsExactly(v(10), v(HOST_A), v(port("Ethernet0")));
            assertThat(members(pair, 1)).containsExactly(v(10), v(HOST_B), v(port("Ethernet4")));

            stub.write(
                    write(digestConfig(Update.Type.MODIFY, 1, 0, ackTimeoutNs)).build());
            while (System.nanoTime() - receivedNs < 2 * ackTimeoutNs) {
                assertThat(a.received.poll(10, TimeUnit.MILLISECONDS)).isNull();
            }
            send("Ethernet8", udp(HOST_B, HOST_A, 10)); // A moves to Ethernet8 (tagged) ...
            send("Ethernet0", udp(HOST_B, HOST_A, 0)); // ... and back, never acked: the ack timeout passed
            assertThat(members(nextDigest(a), 0)).containsExactly(v(10), v(HOST_A), v(port("Ethernet8")));
            assertThat(members(nextDigest(a), 0)).containsExactly(v(10), v(HOST_A), v(port("Ethernet0")));

            final long maxTimeoutNs = TimeUnit.MILLISECONDS.toNanos(250);
            stub.write(write(digestConfig(Update.Type.MODIFY, 100, maxTimeoutNs, TimeUnit.MINUTES.toNanos(1)))
                    .build());
            final long sentNs = System.nanoTime();
            send("Ethernet4", udp(HOST_A, HOST_C, 0));
            final DigestList late = nextDigest(a);
            final long waitedNs = System.nanoTime() - sentNs;
            assertThat(waitedNs).as("held for max_timeout_ns (list not full)").isGreaterThanOrEqualTo(maxTimeoutNs);
            assertThat(late.getDataCount()).isEqualTo(1);
            assertThat(members(late, 0)).containsExactly(v(10), v(HOST_C), v(port("Ethernet4")));
            System.out.printf(
                    "max_timeout_ns %d ms: the 1-entry list came after %d ms%n",
                    maxTimeoutNs / 1_000_000, waitedNs / 1_000_000);
        }
    }

    @Test
    void shouldForwardByStaticFdbAndReplicateByMulticastGroupWhenProgrammed() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            vlan10(digestConfig(Update.Type.INSERT, 1, 0, TimeUnit.MINUTES.toNanos(1)));
            stub.write(write(insert(TableEntry.newBuilder()
                            .setTableId(L2_FDB)
                            .addMatch(exact(1, 10))
                            .addMatch(exact(2, HOST_C))
                            .setAction(action(L2_FORWARD, port("Ethernet4")))))
                    .build());
            send("Ethernet0", udp(HOST_C, HOST_A, 0));
            assertThat(take("Ethernet4")).as("static entry").hasSize(1);
            assertThat(take("Ethernet8")).isEmpty();
            assertThat(take("Ethernet12")).isEmpty();

            final Update group = Update.newBuilder()
                    .setType(Update.Type.INSERT)
                    .setEntity(Entity.newBuilder()
                            .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                                    .setMulticastGroupEntry(MulticastGroupEntry.newBuilder()
                                            .setMulticastGroupId(5)
                                            .addReplicas(Replica.newBuilder()
                                                    .setPort(v(port("Ethernet4")))
                                                    .setInstance(0))
                                            .addReplicas(Replica.newBuilder()
                                                    .setPort(v(port("Ethernet12")))
                                                    .setInstance(0))
                                            .addReplicas(Replica.newBuilder()
                                                    .setPort(v(port("Ethernet12")))
                                                    .setInstance(1)))))
                    .build();
            stub.write(write(
                            group,
                            insert(vlan(20, 5)),
                            insert(member(20, port("Ethernet0"), true)),
                            insert(member(20, port("Ethernet12"), true)))
                    .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                    .build());
            send("Ethernet0", udp(HOST_B, HOST_A, 20));
            final List<List<String>> four = Tshark.fields(pcap("g4", take("Ethernet4")), null, "vlan.id", "eth.dst");
            final List<List<String>> twelve =
                    Tshark.fields(pcap("g12", take("Ethernet12")), null, "vlan.id", "eth.dst");
            assertThat(four)
                    .as("replica on a port outside VLAN 20: untagged")
                    .containsExactly(List.of("", "02:00:00:00:01:0b"));
            assertThat(twelve)
                    .as("two replicas (instances 0 and 1), tagged member of VLAN 20")
                    .containsExactly(List.of("20", "02:00:00:00:01:0b"), List.of("20", "02:00:00:00:01:0b"));
            assertThat(take("Ethernet8")).as("not a replica").isEmpty();
            System.out.printf("multicast group 5: Ethernet4 %s, Ethernet12 %s (tshark)%n", four, twelve);
        }
    }

    /**
     * Steps the data plane (1 ms of emulated time per step, so hits get new stamps) for {@code wallMs} and returns the
     * idle-timeout notifications the controller got meanwhile (other stream messages are skipped).
     */
    private List<IdleTimeoutNotification> stepAndCollectIdle(
            final LoopbackRig.Controller c, final long wallMs, final byte[] frameEachStep) throws InterruptedException {
        final List<IdleTimeoutNotification> out = new ArrayList<>();
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wallMs);
        while (System.nanoTime() - end < 0) {
            if (frameEachStep != null) {
                send("Ethernet0", frameEachStep);
                take("Ethernet4");
            }
            clock.advanceNs(1_000_000);
            pipeline.agent().doWork();
            for (StreamMessageResponse r = c.received.poll(); r != null; r = c.received.poll()) {
                if (r.hasIdleTimeoutNotification()) {
                    out.add(r.getIdleTimeoutNotification());
                }
            }
            Thread.sleep(5);
        }
        return out;
    }

    @Test
    void shouldNotifyAnIdleStaticFdbEntryOnlyAfterPacketsStopMatchingItForItsIdleTimeout() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            vlan10(digestConfig(Update.Type.INSERT, 1, 0, TimeUnit.MINUTES.toNanos(1)));
            final long idleNs = TimeUnit.MILLISECONDS.toNanos(400);
            stub.write(write(insert(TableEntry.newBuilder()
                            .setTableId(L2_FDB)
                            .addMatch(exact(1, 10))
                            .addMatch(exact(2, HOST_C))
                            .setAction(action(L2_FORWARD, port("Ethernet4")))
                            .setIdleTimeoutNs(idleNs)))
                    .build());
            assertThat(stepAndCollectIdle(a, 1_200, udp(HOST_C, HOST_A, 0)))
                    .as("hit every ~5 ms for 1.2 s (3 timeouts): never idle")
                    .isEmpty();
            final long quietFrom = System.nanoTime();
            final List<IdleTimeoutNotification> idle = stepAndCollectIdle(a, 1_000, null);
            assertThat(idle)
                    .as("one notification per 400 ms idle period, first after >= 400 ms")
                    .hasSizeBetween(1, 3);
            final TableEntry entry = idle.get(0).getTableEntry(0);
            assertThat(entry.getTableId()).isEqualTo(L2_FDB);
            assertThat(entry.getIdleTimeoutNs()).isEqualTo(idleNs);
            assertThat(entry.getMatchList()).containsExactlyInAnyOrder(exact(1, 10), exact(2, HOST_C));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - quietFrom))
                    .isGreaterThanOrEqualTo(400);
        }
    }

    @Test
    void shouldDiscardFramesToAStaticFdbEntryWhoseActionIsDropAndCountTheReason() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            vlan10(digestConfig(Update.Type.INSERT, 1, 0, TimeUnit.MINUTES.toNanos(1)));
            send("Ethernet0", udp(HOST_B, HOST_A, 0));
            assertThat(take("Ethernet4")).as("unknown unicast floods").hasSize(1);
            take("Ethernet8");
            stub.write(write(insert(TableEntry.newBuilder()
                            .setTableId(L2_FDB)
                            .addMatch(exact(1, 10))
                            .addMatch(exact(2, HOST_B))
                            .setAction(action(DROP))))
                    .build());
            send("Ethernet0", udp(HOST_B, HOST_A, 0));
            send("Ethernet0", udp(HOST_B, HOST_A, 0));
            assertThat(take("Ethernet4")).isEmpty();
            assertThat(take("Ethernet8")).isEmpty();
            assertThat(pipeline.control().counters().port("Ethernet0", "SAI_IN_DROP_REASON_FDB_AND_BLACKHOLE_DISCARDS"))
                    .isEqualTo(2);
            assertThat(readTable(L2_FDB)).hasSize(1);
        }
    }

    @Test
    void shouldDropUnknownUnicastWhileTheFdbDefaultEntryIsDropAndFloodAgainWhenItIsNoAction() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            vlan10(digestConfig(Update.Type.INSERT, 1, 0, TimeUnit.MINUTES.toNanos(1)));
            final Update dropDefault = Update.newBuilder()
                    .setType(Update.Type.MODIFY)
                    .setEntity(Entity.newBuilder()
                            .setTableEntry(TableEntry.newBuilder()
                                    .setTableId(L2_FDB)
                                    .setIsDefaultAction(true)
                                    .setAction(action(DROP))))
                    .build();
            stub.write(write(dropDefault).build());
            send("Ethernet0", udp(HOST_C, HOST_A, 0));
            assertThat(take("Ethernet4")).as("unknown unicast dropped").isEmpty();
            assertThat(take("Ethernet8")).isEmpty();
            assertThat(pipeline.control().counters().port("Ethernet0", "SAI_IN_DROP_REASON_FDB_AND_BLACKHOLE_DISCARDS"))
                    .isEqualTo(1);
            send("Ethernet0", udp(0xffff_ffff_ffffL, HOST_A, 0));
            assertThat(take("Ethernet4")).as("broadcast still floods").hasSize(1);
            take("Ethernet8");
            final Update noAction = Update.newBuilder()
                    .setType(Update.Type.MODIFY)
                    .setEntity(Entity.newBuilder()
                            .setTableEntry(TableEntry.newBuilder()
                                    .setTableId(L2_FDB)
                                    .setIsDefaultAction(true)
                                    .setAction(action(NO_ACTION))))
                    .build();
            stub.write(write(noAction).build());
            send("Ethernet0", udp(HOST_C, HOST_A, 0));
            assertThat(take("Ethernet4")).as("flooded again").hasSize(1);
        }
    }

    @Test
    void shouldDropFramesOfAVlanWhoseEntryIsDropAndForwardThemAgainWhenModifiedToAllow() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            stub.write(write(
                            insert(TableEntry.newBuilder()
                                    .setTableId(VLAN_TABLE)
                                    .addMatch(exact(1, 30))
                                    .setAction(action(DROP))),
                            insert(member(30, port("Ethernet0"), true)),
                            insert(member(30, port("Ethernet4"), true)))
                    .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                    .build());
            send("Ethernet0", udp(HOST_B, HOST_A, 30));
            assertThat(take("Ethernet4")).as("VLAN 30 drops").isEmpty();
            assertThat(pipeline.control().counters().port("Ethernet0", "SAI_IN_DROP_REASON_INGRESS_VLAN_FILTER"))
                    .isEqualTo(1);
            stub.write(write(Update.newBuilder()
                            .setType(Update.Type.MODIFY)
                            .setEntity(Entity.newBuilder().setTableEntry(vlan(30, 0)))
                            .build())
                    .build());
            send("Ethernet0", udp(HOST_B, HOST_A, 30));
            assertThat(take("Ethernet4"))
                    .as("VLAN 30 floods to its other member")
                    .hasSize(1);
        }
    }

    private List<Integer> refusedCodes(final WriteRequest request) {
        final StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(request));
        final com.google.rpc.Status status = StatusProto.fromThrowable(e);
        assertThat(status.getCode()).isEqualTo(Code.UNKNOWN.getNumber());
        final List<Integer> codes = new ArrayList<>();
        for (final com.google.protobuf.Any any : status.getDetailsList()) {
            try {
                codes.add(any.unpack(p4.v1.P4RuntimeOuterClass.Error.class).getCanonicalCode());
            } catch (final com.google.protobuf.InvalidProtocolBufferException ex) {
                throw new AssertionError(ex);
            }
        }
        return codes;
    }

    private List<Entity> readTable(final int tableId) {
        final List<Entity> out = new ArrayList<>();
        stub.read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setTableEntry(TableEntry.newBuilder().setTableId(tableId)))
                        .build())
                .forEachRemaining(r -> out.addAll(r.getEntitiesList()));
        return out;
    }

    @Test
    void shouldRefuseWithCanonicalCodesAndChangeNothingWhenAMembershipNamesAnUnknownVlanOrPort() throws Exception {
        try (LoopbackRig.Controller a = controller()) {
            final List<Integer> noVlan =
                    refusedCodes(write(insert(vlan(30, 0)), insert(member(31, port("Ethernet0"), false)))
                            .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                            .build());
            assertThat(noVlan).containsExactly(Code.ABORTED.getNumber(), Code.NOT_FOUND.getNumber());
            final List<Integer> noPort = refusedCodes(write(insert(vlan(30, 0)), insert(member(30, 77, false)))
                    .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC)
                    .build());
            assertThat(noPort).containsExactly(Code.ABORTED.getNumber(), Code.INVALID_ARGUMENT.getNumber());
            final List<Integer> noGroup =
                    refusedCodes(write(insert(vlan(30, 9))).build());
            assertThat(noGroup).as("flood group 9 does not exist").containsExactly(Code.NOT_FOUND.getNumber());
            assertThat(readTable(VLAN_TABLE)).isEmpty();
            assertThat(readTable(VLAN_MEMBERSHIP)).isEmpty();

            send("Ethernet0", udp(HOST_B, HOST_A, 30));
            for (final String p : ports.keySet()) {
                assertThat(take(p))
                        .as("VLAN 30 does not exist in the data path: nothing leaves " + p)
                        .isEmpty();
            }
            final List<Integer> continued = refusedCodes(write(
                            insert(vlan(30, 0)),
                            insert(member(30, port("Ethernet4"), false)),
                            insert(member(30, 77, false)))
                    .setAtomicity(WriteRequest.Atomicity.CONTINUE_ON_ERROR)
                    .build());
            assertThat(continued)
                    .containsExactly(Code.OK.getNumber(), Code.OK.getNumber(), Code.INVALID_ARGUMENT.getNumber());
            assertThat(readTable(VLAN_MEMBERSHIP)).hasSize(1);
            final List<Integer> inUse = refusedCodes(write(Update.newBuilder()
                            .setType(Update.Type.DELETE)
                            .setEntity(Entity.newBuilder().setTableEntry(vlan(30, 0)))
                            .build())
                    .build());
            assertThat(inUse).as("VLAN 30 still has a member").containsExactly(Code.FAILED_PRECONDITION.getNumber());
            assertThat(readTable(VLAN_TABLE)).hasSize(1);
        }
    }
}
