package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.MonotonicClock;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * A Write returns only after the data plane (on its own thread) applied its batch: while the data-plane thread is held
 * inside a command, a route INSERT does not return; once released it returns and the very next packet is routed by
 * it. If the data plane does not apply the batch within the backend's timeout the RPC ends with DEADLINE_EXCEEDED, and
 * the queued batch is still applied afterwards.
 */
@Timeout(60)
class WriteAppliedTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"standalone": "false", "mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int IPV4_TABLE = 0x02000003;
    private static final int RIF_TABLE = 0x02000005;
    private static final int NEIGHBOR_TABLE = 0x02000006;
    private static final int NEXTHOP_TABLE = 0x02000007;
    private static final int SET_NEXTHOP_ID = 0x01000005;
    private static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    private static final int SET_DST_MAC = 0x01000008;
    private static final int SET_IP_NEXTHOP = 0x01000009;
    private static final long HOST_RIF_MAC = 0x02_00_00_00_aa_00L;
    private static final String OUT_PKTS = "SAI_PORT_STAT_IF_OUT_UCAST_PKTS";

    private Pipeline pipeline;
    private Thread dataPlane;
    private volatile boolean running = true;
    private P4RuntimeServer server;
    private ManagedChannel channel;
    private StreamObserver<StreamMessageRequest> stream;
    private final List<InMemoryPort> ports = new ArrayList<>();

    private void start(final Duration applyTimeout) throws Exception {
        pipeline = Pipeline.create(new MonotonicClock(), PipelineSizing.defaults(), Map.of());
        for (final String name : List.of("Ethernet0", "Ethernet4")) {
            final InMemoryPort port = new InMemoryPort(name);
            ports.add(port);
            pipeline.control().attachPort(name, port);
        }
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        dataPlane = Thread.ofPlatform().name("data-plane").start(() -> {
            while (running) {
                if (pipeline.agent().doWork() == 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                }
            }
        });
        final PipelineCpuPortBackend backend = new PipelineCpuPortBackend(
                new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model(), applyTimeout),
                pipeline.control());
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(1, backend));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(
                        InetAddress.getLoopbackAddress().getHostAddress(), server.port())
                .usePlaintext()
                .build();
        final java.util.concurrent.LinkedBlockingQueue<StreamMessageResponse> received =
                new java.util.concurrent.LinkedBlockingQueue<>();
        stream = P4RuntimeGrpc.newStub(channel).streamChannel(new StreamObserver<>() {
            @Override
            public void onNext(final StreamMessageResponse value) {
                received.add(value);
            }

            @Override
            public void onError(final Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        stream.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        assertThat(received.poll(10, TimeUnit.SECONDS)
                        .getArbitration()
                        .getStatus()
                        .getCode())
                .isZero();
        write(
                table(TableEntry.newBuilder()
                        .setTableId(RIF_TABLE)
                        .addMatch(exact(1, 1))
                        .setAction(direct(SET_PORT_AND_SRC_MAC, port("Ethernet0"), HOST_RIF_MAC))),
                table(TableEntry.newBuilder()
                        .setTableId(RIF_TABLE)
                        .addMatch(exact(1, 2))
                        .setAction(direct(SET_PORT_AND_SRC_MAC, port("Ethernet4"), 0x02_00_00_00_aa_04L))),
                table(TableEntry.newBuilder()
                        .setTableId(NEIGHBOR_TABLE)
                        .addMatch(exact(1, 2))
                        .addMatch(exact(2, 0x0A000202L))
                        .setAction(direct(SET_DST_MAC, 0x02_00_00_00_02_02L))),
                table(TableEntry.newBuilder()
                        .setTableId(NEXTHOP_TABLE)
                        .addMatch(exact(1, 10))
                        .setAction(direct(SET_IP_NEXTHOP, 2, 0x0A000202L))));
    }

    @AfterEach
    void stop() throws Exception {
        stream.onCompleted();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        running = false;
        dataPlane.join(5_000);
        pipeline.close();
        for (final InMemoryPort p : ports) {
            p.close();
        }
    }

    @Test
    void shouldReturnFromWriteOnlyAfterTheDataPlaneAppliedItWhenTheDataPlaneRunsOnItsOwnThread() throws Exception {
        start(Duration.ofSeconds(10));
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        holdDataPlane(held, release);

        final CompletableFuture<Void> write = CompletableFuture.runAsync(() -> write(routeInsert()));
        Thread.sleep(500);
        assertThat(write)
                .as("the Write waits while the data plane has not applied it")
                .isNotDone();

        release.countDown();
        write.get(10, TimeUnit.SECONDS);
        // the very next packet, sent right after the Write returned, is routed by the new entry
        packetThroughIngress();
        awaitOutPackets("Ethernet4", 1);
    }

    @Test
    void shouldEndTheWriteWithDeadlineExceededWhenTheDataPlaneDoesNotApplyItInTime() throws Exception {
        start(Duration.ofMillis(300));
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        holdDataPlane(held, release);

        final StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> write(routeInsert()));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(e.getStatus().getDescription()).contains("did not apply");

        release.countDown();
        final List<Entity> read = new ArrayList<>();
        P4RuntimeGrpc.newBlockingStub(channel)
                .read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setTableEntry(TableEntry.newBuilder().setTableId(IPV4_TABLE)))
                        .build())
                .forEachRemaining(r -> read.addAll(r.getEntitiesList()));
        assertThat(read).as("the batch stays recorded").hasSize(1);
        packetThroughIngress();
        awaitOutPackets("Ethernet4", 1);
    }

    @Test
    void shouldStageWritesInFlightWithoutAThreadWaitingForEachAndAnswerThemOnlyOnceApplied() throws Exception {
        start(Duration.ofSeconds(10));
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        holdDataPlane(held, release);

        final int writes = 8;
        final CountDownLatch answered = new CountDownLatch(writes);
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final P4RuntimeGrpc.P4RuntimeStub async = P4RuntimeGrpc.newStub(channel);
        for (int i = 0; i < writes; i++) {
            async.write(
                    WriteRequest.newBuilder()
                            .setDeviceId(1)
                            .setElectionId(Uint128.newBuilder().setLow(1))
                            .addUpdates(routeInsert(0xC0A80000L + ((long) i << 8), 24))
                            .build(),
                    new StreamObserver<>() {
                        @Override
                        public void onNext(final p4.v1.P4RuntimeOuterClass.WriteResponse value) {}

                        @Override
                        public void onError(final Throwable t) {
                            failures.add(t);
                            answered.countDown();
                        }

                        @Override
                        public void onCompleted() {
                            answered.countDown();
                        }
                    });
        }
        // each Write is staged and committed while the ones before it wait for the data plane (Read shows them all)
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (routesRead() < writes && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(routesRead())
                .as("routes staged while the data plane is held")
                .isEqualTo(writes);
        assertThat(answered.getCount())
                .as("no Write is answered before the data plane applied it")
                .isEqualTo(writes);
        assertThat(threadsWaitingInAwaitApplied())
                .as("threads parked in awaitApplied while %d Writes are pending", writes)
                .isLessThanOrEqualTo(1); // the one completer, not one gRPC thread per Write

        release.countDown();
        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(failures).isEmpty();
        packetThroughIngress(); // 10.1.0.2 → 192.168.1.1: the second Write's /24
        awaitOutPackets("Ethernet4", 1);
    }

    private int routesRead() {
        final List<Entity> read = new ArrayList<>();
        P4RuntimeGrpc.newBlockingStub(channel)
                .read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setTableEntry(TableEntry.newBuilder().setTableId(IPV4_TABLE)))
                        .build())
                .forEachRemaining(r -> read.addAll(r.getEntitiesList()));
        return read.size();
    }

    private static long threadsWaitingInAwaitApplied() {
        return Thread.getAllStackTraces().values().stream()
                .filter(stack -> java.util.Arrays.stream(stack)
                        .anyMatch(f -> f.getMethodName().equals("awaitApplied")))
                .count();
    }

    /** Holds the data-plane thread inside a command until {@code release}. */
    private void holdDataPlane(final CountDownLatch held, final CountDownLatch release) throws InterruptedException {
        pipeline.control().submit(agent -> {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
    }

    private void awaitOutPackets(final String port, final long expected) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (pipeline.control().counters().port(port, OUT_PKTS) < expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(pipeline.control().counters().port(port, OUT_PKTS))
                .as(port + " unicast packets out")
                .isEqualTo(expected);
    }

    private void packetThroughIngress() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(256);
            final int length = new FrameBuilder()
                    .reset()
                    .macs(HOST_RIF_MAC, 0x02_00_00_00_01_02L)
                    .ipv4(0x0A000102, 0xC0A80101)
                    .ttl(64)
                    .udpPorts(49152, 4791)
                    .bth(0x04, 0x100, 1)
                    .buildRoce(s, 0, 64);
            pipeline.control()
                    .cpuPort()
                    .packetOutThroughIngress(s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), port("Ethernet0"));
        }
    }

    private int port(final String name) {
        return pipeline.control().portIndex(name);
    }

    private static Update routeInsert() {
        return routeInsert(0xC0A80000L, 16);
    }

    private static Update routeInsert(final long prefix, final int length) {
        return table(TableEntry.newBuilder()
                .setTableId(IPV4_TABLE)
                .addMatch(exact(1, 0))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(2)
                        .setLpm(FieldMatch.LPM.newBuilder().setValue(v(prefix)).setPrefixLen(length)))
                .setAction(direct(SET_NEXTHOP_ID, 10)));
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

    private static TableAction direct(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return TableAction.newBuilder().setAction(b).build();
    }

    private static Update table(final TableEntry.Builder e) {
        return Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }
}
