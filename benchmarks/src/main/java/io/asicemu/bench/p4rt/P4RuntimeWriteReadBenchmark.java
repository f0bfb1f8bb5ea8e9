package io.asicemu.bench.p4rt;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.adapter.PipelineTableBackend;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.MonotonicClock;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;
import p4.v1.P4RuntimeOuterClass.WriteResponse;

/**
 * P4Runtime Write and Read through a real gRPC client and server over loopback (Netty), on the production backend
 * ({@code backend=pipeline}: {@link PipelineTableBackend} over a real pipeline whose data-plane agent runs on its own
 * thread; every Write returns only after the data plane applied it). The former {@code backend=store} (a P4-only table
 * store without a pipeline) left production in issue 15 and is no longer offered. {@code writeBatch}: one INSERT batch of {@code batchSize} IPv4 routes then one DELETE batch
 * of the same routes, so one op = 2 × batchSize entries. {@code writeLatency}: one Write per op, its latency
 * sampled (p99 from JMH's percentiles). {@code read100k}: a wildcard Read of 100 000 installed routes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class P4RuntimeWriteReadBenchmark {
    private static final int IPV4 = 0x02000003;
    private static final int SET_NEXTHOP = 0x01000005;
    private static final long DEVICE = 1;
    private static final int READ_ENTRIES = 100_000;

    private static final int RIF_TABLE = 0x02000005;
    private static final int NEIGHBOR_TABLE = 0x02000006;
    private static final int NEXTHOP_TABLE = 0x02000007;
    private static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    private static final int SET_DST_MAC = 0x01000008;
    private static final int SET_IP_NEXTHOP = 0x01000009;
    private static final int ACL_INGRESS = 0x0200000c;
    private static final int ACL_SET_TC = 0x01000012;
    private static final String CONFIG = "{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}, "
            + "\"PORT\": {\"Ethernet0\": {\"speed\": \"100000\", \"admin_status\": \"up\"}}}";

    @Param({"1", "100", "1000"})
    int batchSize;

    @Param({"pipeline"})
    String backend;

    /** {@code pipelinedWrite}: how many single-update Writes the client keeps in flight on the one channel. */
    @Param({"32"})
    int inFlight;

    /**
     * Ingress ACL entries written before the trial (at most the table's 256): the Writes measured do not touch the ACL,
     * so with more entries their cost must not grow (issue 15: before, every Write copied the ACL tables).
     */
    @Param({"0"})
    int aclEntries;

    private Pipeline pipeline;
    private Thread dataPlane;
    private volatile boolean running = true;

    private P4RuntimeServer server;
    private ManagedChannel channel;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    private StreamObserver<StreamMessageRequest> stream;
    private WriteRequest insert;
    private WriteRequest delete;
    private boolean inserted;
    /** {@code pipelinedWrite}: slots whose previous Write has been answered (each slot one Write at a time). */
    private ArrayBlockingQueue<Integer> freeSlots;

    private WriteRequest[] slotInsert;
    private WriteRequest[] slotDelete;
    private boolean[] slotInserted;
    private final java.util.List<StreamObserver<WriteResponse>> slotReply = new java.util.ArrayList<>();
    private volatile Throwable pipelinedFailure;
    private P4RuntimeGrpc.P4RuntimeStub asyncStub;
    private static final CapabilitiesRequest CAPABILITIES = CapabilitiesRequest.getDefaultInstance();
    private final ReadRequest readAll = ReadRequest.newBuilder()
            .setDeviceId(DEVICE)
            .addEntities(
                    Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(IPV4)))
            .build();

    private static ByteString canonical(final long v) {
        final byte[] raw = BigInteger.valueOf(v).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    private static Update route(final Update.Type type, final int index) {
        final long prefix = 0x0A000000L + ((long) index << 8);
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder()
                        .setTableEntry(TableEntry.newBuilder()
                                .setTableId(IPV4)
                                .addMatch(FieldMatch.newBuilder()
                                        .setFieldId(1)
                                        .setExact(FieldMatch.Exact.newBuilder().setValue(canonical(0))))
                                .addMatch(FieldMatch.newBuilder()
                                        .setFieldId(2)
                                        .setLpm(FieldMatch.LPM
                                                .newBuilder()
                                                .setValue(canonical(prefix))
                                                .setPrefixLen(24)))
                                .setAction(TableAction.newBuilder()
                                        .setAction(p4.v1.P4RuntimeOuterClass.Action.newBuilder()
                                                .setActionId(SET_NEXTHOP)
                                                .addParams(p4.v1.P4RuntimeOuterClass.Action.Param.newBuilder()
                                                        .setParamId(1)
                                                        .setValue(canonical(1)))))))
                .build();
    }

    /** Ingress ACL entry {@code i}: traffic class 0 for destination 11.0.i.0/24 (priority i + 1). */
    private static Update aclEntry(final int i) {
        return Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder()
                        .setTableEntry(TableEntry.newBuilder()
                                .setTableId(ACL_INGRESS)
                                .setPriority(i + 1)
                                .addMatch(FieldMatch.newBuilder()
                                        .setFieldId(7)
                                        .setTernary(FieldMatch.Ternary.newBuilder()
                                                .setValue(canonical(0x0B000000L + ((long) i << 8)))
                                                .setMask(canonical(0xFFFFFF00L))))
                                .setAction(TableAction.newBuilder()
                                        .setAction(p4.v1.P4RuntimeOuterClass.Action.newBuilder()
                                                .setActionId(ACL_SET_TC)
                                                .addParams(p4.v1.P4RuntimeOuterClass.Action.Param.newBuilder()
                                                        .setParamId(1)
                                                        .setValue(canonical(0)))))))
                .build();
    }

    private static Update entry(final int table, final long key, final int action, final long... params) {
        final p4.v1.P4RuntimeOuterClass.Action.Builder a =
                p4.v1.P4RuntimeOuterClass.Action.newBuilder().setActionId(action);
        for (int i = 0; i < params.length; i++) {
            a.addParams(p4.v1.P4RuntimeOuterClass.Action.Param.newBuilder()
                    .setParamId(i + 1)
                    .setValue(canonical(params[i])));
        }
        final TableEntry.Builder e = TableEntry.newBuilder()
                .setTableId(table)
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(1)
                        .setExact(FieldMatch.Exact.newBuilder().setValue(canonical(key))));
        if (table == NEIGHBOR_TABLE) {
            e.addMatch(FieldMatch.newBuilder()
                    .setFieldId(2)
                    .setExact(FieldMatch.Exact.newBuilder().setValue(canonical(0x0A0A0A02L))));
        }
        return Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder()
                        .setTableEntry(e.setAction(TableAction.newBuilder().setAction(a))))
                .build();
    }

    /** The device's backend: the production backend over a pipeline whose agent runs on its own thread. */
    private P4Backend newBackend() {
        pipeline = Pipeline.create(new MonotonicClock(), PipelineSizing.defaults(), java.util.Map.of());
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        dataPlane = Thread.ofPlatform().name("data-plane").unstarted(() -> {
            while (running) {
                if (pipeline.agent().doWork() == 0) {
                    java.util.concurrent.locks.LockSupport.park();
                }
            }
        });
        pipeline.agent().wakeUp(() -> java.util.concurrent.locks.LockSupport.unpark(dataPlane));
        dataPlane.start();
        return new PipelineTableBackend(
                pipeline.control(), FixedPipelineInfo.model(), java.time.Duration.ofSeconds(30));
    }

    private WriteRequest batch(final Update.Type type, final int from, final int count) {
        final WriteRequest.Builder b = WriteRequest.newBuilder()
                .setDeviceId(DEVICE)
                .setElectionId(Uint128.newBuilder().setLow(1));
        for (int i = from; i < from + count; i++) {
            b.addUpdates(route(type, i));
        }
        return b.build();
    }

    @Setup(Level.Trial)
    public void start() throws Exception {
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(DEVICE, newBackend()));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(
                        InetAddress.getLoopbackAddress().getHostAddress(), server.port())
                .usePlaintext()
                .maxInboundMessageSize(P4RuntimeServer.MAX_INBOUND_BYTES)
                .build();
        stub = P4RuntimeGrpc.newBlockingStub(channel);
        final LinkedBlockingQueue<StreamMessageResponse> arbitration = new LinkedBlockingQueue<>();
        stream = P4RuntimeGrpc.newStub(channel).streamChannel(new StreamObserver<>() {
            @Override
            public void onNext(final StreamMessageResponse value) {
                arbitration.add(value);
            }

            @Override
            public void onError(final Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        stream.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(DEVICE)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        if (arbitration.poll(10, TimeUnit.SECONDS) == null) {
            throw new IllegalStateException("no arbitration answer");
        }
        stub.write(WriteRequest.newBuilder()
                .setDeviceId(DEVICE)
                .setElectionId(Uint128.newBuilder().setLow(1))
                .addUpdates(entry(RIF_TABLE, 1, SET_PORT_AND_SRC_MAC, 0, 0x020000000101L))
                .addUpdates(entry(NEIGHBOR_TABLE, 1, SET_DST_MAC, 0x020000000202L))
                .addUpdates(entry(NEXTHOP_TABLE, 1, SET_IP_NEXTHOP, 1, 0x0A0A0A02L))
                .build());
        for (int i = 0; i < READ_ENTRIES; i += 1000) {
            stub.write(batch(Update.Type.INSERT, i, 1000));
        }
        if (aclEntries > 0) {
            final WriteRequest.Builder acl = WriteRequest.newBuilder()
                    .setDeviceId(DEVICE)
                    .setElectionId(Uint128.newBuilder().setLow(1));
            for (int i = 0; i < aclEntries; i++) {
                acl.addUpdates(aclEntry(i));
            }
            stub.write(acl.build());
        }
        insert = batch(Update.Type.INSERT, READ_ENTRIES, batchSize);
        delete = batch(Update.Type.DELETE, READ_ENTRIES, batchSize);
        pipelinedSlots();
    }

    /** Slot s inserts and deletes its own /24 (past the batches' routes), so Writes in flight never touch one key. */
    private void pipelinedSlots() {
        asyncStub = P4RuntimeGrpc.newStub(channel).withExecutor(Runnable::run); // answers on the client's I/O loop
        freeSlots = new ArrayBlockingQueue<>(inFlight);
        slotInsert = new WriteRequest[inFlight];
        slotDelete = new WriteRequest[inFlight];
        slotInserted = new boolean[inFlight];
        slotReply.clear();
        for (int slot = 0; slot < inFlight; slot++) {
            slotInsert[slot] = batch(Update.Type.INSERT, READ_ENTRIES + 1000 + slot, 1);
            slotDelete[slot] = batch(Update.Type.DELETE, READ_ENTRIES + 1000 + slot, 1);
            final Integer free = slot;
            slotReply.add(new StreamObserver<>() {
                @Override
                public void onNext(final WriteResponse value) {}

                @Override
                public void onError(final Throwable t) {
                    pipelinedFailure = t;
                    freeSlots.add(free);
                }

                @Override
                public void onCompleted() {
                    freeSlots.add(free);
                }
            });
            freeSlots.add(free);
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        for (int i = 0; i < inFlight; i++) { // the pipelined Writes still in flight are answered first
            if (freeSlots.poll(30, TimeUnit.SECONDS) == null) {
                throw new IllegalStateException("a pipelined Write was not answered in 30 s");
            }
        }
        stream.onCompleted();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        if (pipeline != null) {
            running = false;
            java.util.concurrent.locks.LockSupport.unpark(dataPlane);
            dataPlane.join(5_000);
            pipeline.close();
        }
    }

    /** One op = {@code 2 × batchSize} entries written (insert then delete). */
    @Benchmark
    public Object writeBatch() {
        stub.write(insert);
        return stub.write(delete);
    }

    /**
     * One op = one Write (the INSERT batch, then the DELETE batch the next time), its latency sampled: with
     * {@code -p batchSize=1} the latency of a single-update Write on an idle switch (no traffic), the apply included.
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object writeLatency() {
        final WriteRequest request = inserted ? delete : insert;
        inserted = !inserted;
        return stub.write(request);
    }

    /**
     * One op = one single-update Write sent on the async stub while up to {@code inFlight} others are outstanding on
     * the same channel, as a controller streams updates (each slot inserts, then deletes, its own route, sending its
     * next Write once the previous one is answered): Writes/s when Writes do not wait for each other's apply. The
     * sequential {@code writeBatch} with {@code batchSize=1} is the one-in-flight case.
     */
    @Benchmark
    public void pipelinedWrite() throws InterruptedException {
        final int slot = freeSlots.take();
        final Throwable failure = pipelinedFailure;
        if (failure != null) {
            throw new IllegalStateException("a pipelined Write failed", failure);
        }
        final WriteRequest request = slotInserted[slot] ? slotDelete[slot] : slotInsert[slot];
        slotInserted[slot] = !slotInserted[slot];
        asyncStub.write(request, slotReply.get(slot));
    }

    /**
     * The floor under {@code writeLatency}: one Capabilities RPC (no backend call) on the same channel and server, so
     * that a Write's latency minus this one is what the Write itself adds to the gRPC round trip (run with
     * {@code -p batchSize=1}).
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object roundTripLatency() {
        return stub.capabilities(CAPABILITIES);
    }

    /** One op = a wildcard Read returning 100 000 entries (run with {@code -p batchSize=1}). */
    @Benchmark
    public int read100k() {
        int n = 0;
        final Iterator<ReadResponse> it = stub.read(readAll);
        while (it.hasNext()) {
            n += it.next().getEntitiesCount();
        }
        if (n != READ_ENTRIES) {
            throw new IllegalStateException("read " + n + " entries");
        }
        return n;
    }
}
