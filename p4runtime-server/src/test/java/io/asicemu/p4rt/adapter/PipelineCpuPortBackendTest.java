package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;

/** PacketIn and PacketOut through the real pipeline's CPU port, with a gRPC client on loopback. */
@Timeout(60)
class PipelineCpuPortBackendTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}}}
        """;
    /** An LLDP frame (01:80:c2:00:00:0e, ethertype 0x88cc, chassis/port/TTL/end TLVs), padded to 60 bytes. */
    private static final byte[] LLDP = lldp();

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private Pipeline pipeline;
    private InMemoryPort eth0;
    private InMemoryPort eth4;
    private PipelineCpuPortBackend backend;
    private P4RuntimeServer server;
    private ManagedChannel channel;

    private static byte[] lldp() {
        final byte[] f = new byte[60];
        final int[] head = {
            0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0, 0, 0, 0, 0x09, 0x88, 0xcc, 0x02, 0x07, 0x04, 0x02, 0, 0, 0, 0,
            0x09, 0x04, 0x03, 0x05, 'e', '0', 0x06, 0x02, 0x00, 0x78, 0, 0
        };
        for (int i = 0; i < head.length; i++) {
            f[i] = (byte) head[i];
        }
        return f;
    }

    @BeforeEach
    void start() throws Exception {
        pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
        eth0 = new InMemoryPort("Ethernet0");
        eth4 = new InMemoryPort("Ethernet4");
        pipeline.control().attachPort("Ethernet0", eth0);
        pipeline.control().attachPort("Ethernet4", eth4);
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        backend = new PipelineCpuPortBackend(
                new StandaloneP4Backend(FixedPipelineInfo.model(), 2, (p, q, r) -> {}), pipeline.control());
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(1, backend));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(
                        InetAddress.getLoopbackAddress().getHostAddress(), server.port())
                .usePlaintext()
                .build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        pipeline.close();
        eth0.close();
        eth4.close();
    }

    @Test
    void shouldDeliverPuntedLldpAsPacketInAndSendPacketOutOfPortWhenPrimary() throws Exception {
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
        out.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        assertThat(received.poll(10, TimeUnit.SECONDS)
                        .getArbitration()
                        .getStatus()
                        .getCode())
                .isZero();

        assertThat(eth0.inject(LLDP, clock.nowNs())).isTrue();
        pipeline.agent().doWork();
        assertThat(backend.pollPacketIns(16)).isEqualTo(1);
        final StreamMessageResponse in = received.poll(10, TimeUnit.SECONDS);
        assertThat(in.getPacket().getPayload().toByteArray()).isEqualTo(LLDP);
        assertThat(in.getPacket().getMetadata(0).getValue()).isEqualTo(ByteString.copyFrom(new byte[] {0}));
        assertThat(in.getPacket().getMetadata(2).getValue())
                .isEqualTo(ByteString.copyFrom(new byte[] {(byte) PuntReason.LLDP.index()}));

        out.onNext(StreamMessageRequest.newBuilder()
                .setPacket(PacketOut.newBuilder()
                        .setPayload(ByteString.copyFrom(LLDP))
                        .addMetadata(
                                PacketMetadata.newBuilder().setMetadataId(1).setValue(ByteString.copyFrom(new byte[] {1
                                })))
                        .addMetadata(
                                PacketMetadata.newBuilder().setMetadataId(2).setValue(ByteString.copyFrom(new byte[] {0
                                }))))
                .build());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (eth4.transmittedCount() == 0 && System.nanoTime() < deadline) {
            pipeline.agent().doWork();
            Thread.onSpinWait();
        }
        assertThat(eth4.transmittedCount()).isEqualTo(1);
        assertThat(eth4.transmitted(0)).isEqualTo(LLDP);
        assertThat(eth0.transmittedCount()).isZero();
        out.onCompleted();
    }

    @Test
    void shouldLeavePuntsQueuedAndCountCpuQueueFullWhenTheControllerDoesNotRead() throws Exception {
        final LinkedBlockingQueue<StreamMessageResponse> received = new LinkedBlockingQueue<>();
        final StreamObserver<StreamMessageRequest> out = P4RuntimeGrpc.newStub(channel)
                .streamChannel(new ClientResponseObserver<StreamMessageRequest, StreamMessageResponse>() {
                    @Override
                    public void beforeStart(final ClientCallStreamObserver<StreamMessageRequest> stream) {
                        stream.disableAutoRequestWithInitial(1); // reads the arbitration answer, then nothing
                    }

                    @Override
                    public void onNext(final StreamMessageResponse value) {
                        received.add(value);
                    }

                    @Override
                    public void onError(final Throwable t) {}

                    @Override
                    public void onCompleted() {}
                });
        out.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        assertThat(received.poll(10, TimeUnit.SECONDS)
                        .getArbitration()
                        .getStatus()
                        .getCode())
                .isZero();

        final int frames = 30_000;
        long handed = 0;
        for (int sent = 0; sent < frames; sent += 16) {
            for (int i = 0; i < 16; i++) {
                assertThat(eth0.inject(LLDP, clock.nowNs())).isTrue();
            }
            pipeline.agent().doWork();
            handed += backend.pollPacketIns(64);
            if (sent % 1024 == 0) {
                Thread.sleep(5); // let gRPC's transport push and its flow control take effect
            }
        }
        final long punted = pipeline.agent().counters().punts(PuntReason.LLDP);
        final long queueFull = pipeline.agent().counters().drops(DropReason.CPU_QUEUE_FULL);
        assertThat(punted + queueFull).as("every LLDP frame punted or counted").isEqualTo(frames);
        assertThat(queueFull)
                .as("the CPU queue filled while the controller did not read")
                .isPositive();
        assertThat(handed)
                .as("PacketIns handed to a stream that does not read stay bounded")
                .isLessThan(frames / 2);
        out.onCompleted();
    }

    @Test
    void shouldRefuseWithResourceExhaustedAndCountPacketOutsBeyondTheInjectionQueue() throws Exception {
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
        out.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        assertThat(received.poll(10, TimeUnit.SECONDS)
                        .getArbitration()
                        .getStatus()
                        .getCode())
                .isZero();

        // the data path does not run meanwhile (doWork is not called), as when ports drain slower than the controller
        final int extra = 100;
        final int sent = CpuPort.INJECTION_FRAMES + extra;
        for (int i = 0; i < sent; i++) {
            out.onNext(StreamMessageRequest.newBuilder()
                    .setPacket(PacketOut.newBuilder()
                            .setPayload(ByteString.copyFrom(LLDP))
                            .addMetadata(PacketMetadata.newBuilder()
                                    .setMetadataId(1)
                                    .setValue(ByteString.copyFrom(new byte[] {1})))
                            .addMetadata(PacketMetadata.newBuilder()
                                    .setMetadataId(2)
                                    .setValue(ByteString.copyFrom(new byte[] {0}))))
                    .build());
        }
        for (int i = 0; i < extra; i++) {
            final StreamMessageResponse error = received.poll(10, TimeUnit.SECONDS);
            assertThat(error).as("StreamError " + i).isNotNull();
            assertThat(error.getError().getCanonicalCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED.value());
            assertThat(error.getError().getMessage()).contains("ASICEMU_OUT_DROP_REASON_PACKET_OUT_QUEUE_FULL");
        }
        assertThat(received.poll(200, TimeUnit.MILLISECONDS))
                .as("no more errors than refusals")
                .isNull();

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long transmitted = 0;
        while (transmitted < CpuPort.INJECTION_FRAMES && System.nanoTime() < deadline) {
            pipeline.agent().doWork();
            transmitted += eth4.transmittedCount(); // the in-memory port holds 256: empty it as a link would
            eth4.clearTransmitted();
        }
        assertThat(transmitted).as("the queued ones all leave").isEqualTo(CpuPort.INJECTION_FRAMES);
        assertThat(pipeline.agent().counters().drops(1, DropReason.PACKET_OUT_QUEUE_FULL))
                .as("the refused ones counted")
                .isEqualTo(extra);
        assertThat(transmitted + pipeline.agent().counters().drops(1, DropReason.PACKET_OUT_QUEUE_FULL))
                .as("every PacketOut sent or counted")
                .isEqualTo(sent);
        out.onCompleted();
    }

    @Test
    void shouldAnswerAStreamErrorAndCountAPacketOutLargerThanTheEgressMtu() throws Exception {
        eth4.mtu(200); // the link's MTU shrank under the switch
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
        out.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        assertThat(received.poll(10, TimeUnit.SECONDS)
                        .getArbitration()
                        .getStatus()
                        .getCode())
                .isZero();

        final byte[] big = new byte[300]; // 300 > 200 + 14: too large for Ethernet4 (port 1)
        System.arraycopy(LLDP, 0, big, 0, 14);
        out.onNext(StreamMessageRequest.newBuilder()
                .setPacket(PacketOut.newBuilder()
                        .setPayload(ByteString.copyFrom(big))
                        .addMetadata(
                                PacketMetadata.newBuilder().setMetadataId(1).setValue(ByteString.copyFrom(new byte[] {1
                                })))
                        .addMetadata(
                                PacketMetadata.newBuilder().setMetadataId(2).setValue(ByteString.copyFrom(new byte[] {0
                                }))))
                .build());
        final StreamMessageResponse error = received.poll(10, TimeUnit.SECONDS);
        assertThat(error.hasError()).isTrue();
        assertThat(error.getError().getCanonicalCode()).isEqualTo(io.grpc.Status.Code.OUT_OF_RANGE.value());
        assertThat(error.getError().getMessage()).contains("MTU 200");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pipeline.agent().counters().drops(DropReason.PACKET_OUT_REFUSED) == 0 && System.nanoTime() < deadline) {
            pipeline.agent().doWork();
            Thread.onSpinWait();
        }
        assertThat(pipeline.agent().counters().drops(1, DropReason.PACKET_OUT_REFUSED))
                .isEqualTo(1);
        assertThat(eth4.transmittedCount()).isZero();
        out.onCompleted();
    }
}
