package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.google.protobuf.ByteString;
import com.google.rpc.Code;

import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.p4rt.store.InProcessTableStore;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.ActionProfileAction;
import p4.v1.P4RuntimeOuterClass.ActionProfileActionSet;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * The controller scenario, as far as the pipeline's control API reaches today: A becomes primary and programs
 * router interface, neighbor, next hop, route and a WCMP group (accepted by the in-process store; the pipeline has no
 * API for these tables yet), an ARP request for the switch is punted by the real pipeline and reaches A as PacketIn,
 * A's PacketOut leaves the right port, B with a lower election id is refused, and B is not promoted when A leaves.
 */
@Timeout(60)
class ControllerScenarioTest
{
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}}}
        """;

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private Pipeline pipeline;
    private InMemoryPort eth0;
    private InMemoryPort eth4;
    private AutoCloseable poller;
    private P4RuntimeServer server;
    private ManagedChannel channel;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;

    /** ARP request who-has 10.0.1.1 (the switch on Ethernet0) tell 10.0.1.2, from 02:00:00:00:01:02. */
    private static byte[] arpRequest()
    {
        final int[] f = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0x01, 0x02, 0x08, 0x06,
            0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, 0x02, 0, 0, 0, 0x01, 0x02, 10, 0, 1, 2,
            0, 0, 0, 0, 0, 0, 10, 0, 1, 1};
        final byte[] frame = new byte[60];
        for (int i = 0; i < f.length; i++)
        {
            frame[i] = (byte)f[i];
        }
        return frame;
    }

    private static ByteString v(final long value)
    {
        final byte[] raw = BigInteger.valueOf(value).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    private static FieldMatch exact(final int id, final long value)
    {
        return FieldMatch.newBuilder().setFieldId(id).setExact(FieldMatch.Exact.newBuilder().setValue(v(value))).build();
    }

    private static Action action(final int id, final long... params)
    {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++)
        {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return b.build();
    }

    private static Update insert(final TableEntry.Builder e)
    {
        return Update.newBuilder().setType(Update.Type.INSERT).setEntity(Entity.newBuilder().setTableEntry(e)).build();
    }

    private static TableAction direct(final Action a)
    {
        return TableAction.newBuilder().setAction(a).build();
    }

    final class Controller implements AutoCloseable
    {
        final LinkedBlockingQueue<StreamMessageResponse> received = new LinkedBlockingQueue<>();
        final StreamObserver<StreamMessageRequest> out = P4RuntimeGrpc.newStub(channel).streamChannel(
            new StreamObserver<>()
            {
                @Override
                public void onNext(final StreamMessageResponse value)
                {
                    received.add(value);
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

        int arbitrate(final long electionId) throws InterruptedException
        {
            out.onNext(StreamMessageRequest.newBuilder().setArbitration(MasterArbitrationUpdate.newBuilder()
                .setDeviceId(1).setElectionId(Uint128.newBuilder().setLow(electionId))).build());
            return next().getArbitration().getStatus().getCode();
        }

        StreamMessageResponse next() throws InterruptedException
        {
            final StreamMessageResponse r = received.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("a stream message within 10 s").isNotNull();
            return r;
        }

        @Override
        public void close()
        {
            out.onCompleted();
        }
    }

    @BeforeEach
    void start() throws Exception
    {
        pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
        eth0 = new InMemoryPort("Ethernet0");
        eth4 = new InMemoryPort("Ethernet4");
        pipeline.control().attachPort("Ethernet0", eth0);
        pipeline.control().attachPort("Ethernet4", eth4);
        pipeline.control().applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        final PipelineCpuPortBackend backend = new PipelineCpuPortBackend(
            new InProcessTableStore(FixedPipelineInfo.model(), 2, (p, q, r) -> { }), pipeline.control());
        poller = backend.startPacketInPoller();
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(1, backend));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(InetAddress.getLoopbackAddress().getHostAddress(), server.port())
            .usePlaintext().build();
        stub = P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception
    {
        poller.close();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        pipeline.close();
        eth0.close();
        eth4.close();
    }

    private static WriteRequest program(final long electionId)
    {
        return WriteRequest.newBuilder().setDeviceId(1).setElectionId(Uint128.newBuilder().setLow(electionId))
            .addUpdates(insert(TableEntry.newBuilder().setTableId(0x02000005).addMatch(exact(1, 1))
                .setAction(direct(action(0x01000007, 1, 0x020000000001L)))))
            .addUpdates(insert(TableEntry.newBuilder().setTableId(0x02000006).addMatch(exact(1, 1))
                .addMatch(exact(2, 0x0A000202L)).setAction(direct(action(0x01000008, 0x020000000202L)))))
            .addUpdates(insert(TableEntry.newBuilder().setTableId(0x02000007).addMatch(exact(1, 7))
                .setAction(direct(action(0x01000009, 1, 0x0A000202L)))))
            .addUpdates(insert(TableEntry.newBuilder().setTableId(0x02000008).addMatch(exact(1, 1))
                .setAction(TableAction.newBuilder().setActionProfileActionSet(ActionProfileActionSet.newBuilder()
                    .addActionProfileActions(ActionProfileAction.newBuilder().setAction(action(0x0100000a, 7))
                        .setWeight(2).setWatchPort(v(1)))))))
            .addUpdates(insert(TableEntry.newBuilder().setTableId(0x02000003).addMatch(exact(1, 0))
                .addMatch(FieldMatch.newBuilder().setFieldId(2).setLpm(FieldMatch.LPM.newBuilder()
                    .setValue(v(0xC0A80000L)).setPrefixLen(16)))
                .setAction(direct(action(0x01000006, 1)))))
            .build();
    }

    @Test
    void shouldPuntToPrimaryRefuseBackupAndNotPromoteItWhenPrimaryLeaves() throws Exception
    {
        final Controller a = new Controller();
        assertThat(a.arbitrate(10)).isEqualTo(Code.OK.getNumber());
        final Controller b = new Controller();
        assertThat(b.arbitrate(5)).isEqualTo(Code.ALREADY_EXISTS.getNumber());

        stub.write(program(10));

        final byte[] arp = arpRequest();
        assertThat(eth0.inject(arp, clock.nowNs())).isTrue();
        pipeline.agent().doWork();
        final StreamMessageResponse in = a.next();
        assertThat(in.getPacket().getPayload().toByteArray()).isEqualTo(arp);
        assertThat(in.getPacket().getMetadata(0).getValue()).isEqualTo(v(0));
        assertThat(in.getPacket().getMetadata(2).getValue()).isEqualTo(v(PuntReason.ARP_REQUEST.index()));
        assertThat(b.received.poll(200, TimeUnit.MILLISECONDS)).as("the backup gets no PacketIn").isNull();

        a.out.onNext(StreamMessageRequest.newBuilder().setPacket(PacketOut.newBuilder()
            .setPayload(ByteString.copyFrom(arp))
            .addMetadata(PacketMetadata.newBuilder().setMetadataId(1).setValue(v(1)))
            .addMetadata(PacketMetadata.newBuilder().setMetadataId(2).setValue(v(0)))).build());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (eth4.transmittedCount() == 0 && System.nanoTime() < deadline)
        {
            pipeline.agent().doWork();
            Thread.onSpinWait();
        }
        assertThat(eth4.transmittedCount()).isEqualTo(1);

        final var refused = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(program(5)));
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);

        a.close();
        assertThat(b.next().getArbitration().getStatus().getCode()).isEqualTo(Code.NOT_FOUND.getNumber());
        final var stillRefused = catchThrowableOfType(StatusRuntimeException.class, () -> stub.write(program(5)));
        assertThat(stillRefused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(b.arbitrate(11)).isEqualTo(Code.OK.getNumber());
        b.close();
    }
}
