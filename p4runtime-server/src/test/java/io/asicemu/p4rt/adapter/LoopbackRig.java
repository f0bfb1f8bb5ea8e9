package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.rpc.Code;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;

/**
 * The scenario tests' switch: the real pipeline with in-memory ports, stepped by the test thread on a manual clock,
 * behind the production backend and a real P4Runtime server on loopback (device 1), with a generated client.
 */
final class LoopbackRig implements AutoCloseable {
    final ManualClock clock = new ManualClock(1_000_000_000L);
    final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
    final Map<String, InMemoryPort> ports = new LinkedHashMap<>();
    final PipelineCpuPortBackend backend;
    final P4RuntimeServer server;
    final ManagedChannel channel;
    final P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    private final AutoCloseable poller;

    /**
     * @param configJson the CONFIG_DB (its PORT table names the in-memory ports).
     * @param packetInPoller whether to run the backend's packet-in poller (PacketIn, digests, idle timeouts).
     */
    LoopbackRig(final String configJson, final boolean packetInPoller) throws IOException {
        final ConfigDb db = ConfigDb.parse(configJson);
        for (final String name : db.table("PORT").keySet()) {
            final InMemoryPort port = new InMemoryPort(name);
            ports.put(name, port);
            pipeline.control().attachPort(name, port);
        }
        SwitchConfig.of(pipeline.control()).applyConfig(db);
        pipeline.agent().doWork();
        backend = new PipelineCpuPortBackend(
                new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model()), pipeline.control());
        poller = packetInPoller ? backend.startPacketInPoller() : () -> {};
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(1, backend));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(
                        InetAddress.getLoopbackAddress().getHostAddress(), server.port())
                .usePlaintext()
                .build();
        stub = P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    /** @return the pipeline's index of a port (P4Runtime port numbers). */
    int port(final String name) {
        return pipeline.control().portIndex(name);
    }

    /** ARP request who-has 10.0.1.1 tell 10.0.1.2, from the host (60 bytes). */
    static byte[] arpRequest() {
        final int[] f = {
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0x01, 0x02, 0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 6, 4,
            0x00, 0x01, 0x02, 0, 0, 0, 0x01, 0x02, 10, 0, 1, 2, 0, 0, 0, 0, 0, 0, 10, 0, 1, 1
        };
        final byte[] frame = new byte[60];
        for (int i = 0; i < f.length; i++) {
            frame[i] = (byte) f[i];
        }
        return frame;
    }

    /** @return the shortest (canonical) byte string of a value. */
    static ByteString v(final long value) {
        final byte[] raw = BigInteger.valueOf(value).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    static FieldMatch exact(final int id, final long value) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setExact(FieldMatch.Exact.newBuilder().setValue(v(value)))
                .build();
    }

    /** @return a controller's StreamChannel, arbitrated for device 1 with this election id (asserted primary). */
    Controller controller(final long electionId) throws InterruptedException {
        final Controller c = new Controller();
        assertThat(c.arbitrate(electionId)).as("primary").isEqualTo(Code.OK.getNumber());
        return c;
    }

    /** @return a controller's StreamChannel, not yet arbitrated. */
    Controller stream() {
        return new Controller();
    }

    /** One controller's stream: what the server sent, in order. */
    final class Controller implements AutoCloseable {
        final LinkedBlockingQueue<StreamMessageResponse> received = new LinkedBlockingQueue<>();
        final StreamObserver<StreamMessageRequest> out = P4RuntimeGrpc.newStub(channel)
                .streamChannel(new StreamObserver<>() {
                    @Override
                    public void onNext(final StreamMessageResponse value) {
                        received.add(value);
                    }

                    @Override
                    public void onError(final Throwable t) {}

                    @Override
                    public void onCompleted() {}
                });

        private Controller() {}

        /** @return the status code of the arbitration answer for device 1 with this election id. */
        int arbitrate(final long electionId) throws InterruptedException {
            out.onNext(StreamMessageRequest.newBuilder()
                    .setArbitration(MasterArbitrationUpdate.newBuilder()
                            .setDeviceId(1)
                            .setElectionId(Uint128.newBuilder().setLow(electionId)))
                    .build());
            return next().getArbitration().getStatus().getCode();
        }

        /** @return the next stream message (waits up to 10 s). */
        StreamMessageResponse next() throws InterruptedException {
            final StreamMessageResponse r = received.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("a stream message within 10 s").isNotNull();
            return r;
        }

        @Override
        public void close() {
            out.onCompleted();
        }
    }

    @Override
    public void close() throws Exception {
        poller.close();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        pipeline.close();
        ports.values().forEach(InMemoryPort::close);
    }

    /** @return the ports' names in order (as the PORT table lists them). */
    List<String> portNames() {
        return List.copyOf(ports.keySet());
    }
}
