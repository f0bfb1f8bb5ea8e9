package io.asicemu.bench.p4rt;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Iterator;
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

import com.google.protobuf.ByteString;

import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.p4rt.store.InProcessTableStore;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import p4.v1.P4RuntimeGrpc;
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

/**
 * P4Runtime Write and Read through a real gRPC client and server over loopback (Netty), backed by the in-process
 * table store. {@code writeBatch}: one INSERT batch of {@code batchSize} IPv4 routes then one DELETE batch of the
 * same routes, so one op = 2 × batchSize entries. {@code read100k}: a wildcard Read of 100 000 installed routes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class P4RuntimeWriteReadBenchmark
{
    private static final int IPV4 = 0x02000003;
    private static final int SET_NEXTHOP = 0x01000005;
    private static final long DEVICE = 1;
    private static final int READ_ENTRIES = 100_000;

    @Param({"1", "100", "1000"})
    int batchSize;

    private P4RuntimeServer server;
    private ManagedChannel channel;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    private StreamObserver<StreamMessageRequest> stream;
    private WriteRequest insert;
    private WriteRequest delete;
    private final ReadRequest readAll = ReadRequest.newBuilder().setDeviceId(DEVICE).addEntities(Entity.newBuilder()
        .setTableEntry(TableEntry.newBuilder().setTableId(IPV4))).build();

    private static ByteString canonical(final long v)
    {
        final byte[] raw = BigInteger.valueOf(v).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    private static Update route(final Update.Type type, final int index)
    {
        final long prefix = 0x0A000000L + ((long)index << 8);
        return Update.newBuilder().setType(type).setEntity(Entity.newBuilder().setTableEntry(TableEntry.newBuilder()
            .setTableId(IPV4)
            .addMatch(FieldMatch.newBuilder().setFieldId(1).setExact(FieldMatch.Exact.newBuilder()
                .setValue(canonical(0))))
            .addMatch(FieldMatch.newBuilder().setFieldId(2).setLpm(FieldMatch.LPM.newBuilder()
                .setValue(canonical(prefix)).setPrefixLen(24)))
            .setAction(TableAction.newBuilder().setAction(p4.v1.P4RuntimeOuterClass.Action.newBuilder()
                .setActionId(SET_NEXTHOP).addParams(p4.v1.P4RuntimeOuterClass.Action.Param.newBuilder()
                    .setParamId(1).setValue(canonical(index & 0xFFFF))))))).build();
    }

    private WriteRequest batch(final Update.Type type, final int from, final int count)
    {
        final WriteRequest.Builder b = WriteRequest.newBuilder().setDeviceId(DEVICE)
            .setElectionId(Uint128.newBuilder().setLow(1));
        for (int i = from; i < from + count; i++)
        {
            b.addUpdates(route(type, i));
        }
        return b.build();
    }

    @Setup(Level.Trial)
    public void start() throws Exception
    {
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(DEVICE, new InProcessTableStore(FixedPipelineInfo.model(), 64, (p, q, r) -> { })));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(InetAddress.getLoopbackAddress().getHostAddress(), server.port())
            .usePlaintext().maxInboundMessageSize(P4RuntimeServer.MAX_INBOUND_BYTES).build();
        stub = P4RuntimeGrpc.newBlockingStub(channel);
        final LinkedBlockingQueue<StreamMessageResponse> arbitration = new LinkedBlockingQueue<>();
        stream = P4RuntimeGrpc.newStub(channel).streamChannel(new StreamObserver<>()
        {
            @Override
            public void onNext(final StreamMessageResponse value)
            {
                arbitration.add(value);
            }

            @Override
            public void onError(final Throwable t)
            {
            }

            @Override
            public void onCompleted()
            {
            }
        });
        stream.onNext(StreamMessageRequest.newBuilder().setArbitration(MasterArbitrationUpdate.newBuilder()
            .setDeviceId(DEVICE).setElectionId(Uint128.newBuilder().setLow(1))).build());
        if (arbitration.poll(10, TimeUnit.SECONDS) == null)
        {
            throw new IllegalStateException("no arbitration answer");
        }
        for (int i = 0; i < READ_ENTRIES; i += 1000)
        {
            stub.write(batch(Update.Type.INSERT, i, 1000));
        }
        insert = batch(Update.Type.INSERT, READ_ENTRIES, batchSize);
        delete = batch(Update.Type.DELETE, READ_ENTRIES, batchSize);
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception
    {
        stream.onCompleted();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }

    /** One op = {@code 2 × batchSize} entries written (insert then delete). */
    @Benchmark
    public Object writeBatch()
    {
        stub.write(insert);
        return stub.write(delete);
    }

    /** One op = a wildcard Read returning 100 000 entries (run with {@code -p batchSize=1}). */
    @Benchmark
    public int read100k()
    {
        int n = 0;
        final Iterator<ReadResponse> it = stub.read(readAll);
        while (it.hasNext())
        {
            n += it.next().getEntitiesCount();
        }
        if (n != READ_ENTRIES)
        {
            throw new IllegalStateException("read " + n + " entries");
        }
        return n;
    }

}
