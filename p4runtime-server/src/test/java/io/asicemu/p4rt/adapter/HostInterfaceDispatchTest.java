package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;

/**
 * Host interfaces beside P4Runtime on one CPU port: the kernel's punts (LLDP, ARP, IP to me) reach the host
 * interfaces whether or not a controller is connected; an ACL trap reaches the controller while one is connected,
 * and the host interface otherwise.
 */
@Timeout(60)
class HostInterfaceDispatchTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "ACL_TABLE": {"DATAACL": {"type": "L3", "stage": "ingress", "ports": ["Ethernet0"]}},
         "ACL_RULE": {"DATAACL|TRAP_22": {"PRIORITY": "30", "PACKET_ACTION": "TRAP", "IP_PROTOCOL": "17",
                                          "L4_DST_PORT": "22"}}}
        """;
    private static final long ROUTER = 0x02aa_bbcc_ddeeL;

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private final List<Integer> toHost = new ArrayList<>();
    private Pipeline pipeline;
    private InMemoryPort eth0;
    private InMemoryPort eth4;
    private PipelineCpuPortBackend backend;
    private P4RuntimeServer server;
    private ManagedChannel channel;

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
        backend.hostInterfaces((segment, offset, length, port, reason, ts) -> toHost.add(reason));
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

    private static byte[] udpTo(final int dstPort) {
        final byte[] buf = new byte[256];
        final int n = new FrameBuilder()
                .reset()
                .macs(ROUTER, 0x0200_0000_0102L)
                .ipv4(0x0a00_0102, 0x0a00_0202)
                .udpPorts(1000, dstPort)
                .buildUdp(MemorySegment.ofArray(buf), 0, 40);
        return Arrays.copyOf(buf, n);
    }

    private static byte[] lldp() {
        final byte[] f = new byte[60];
        final int[] head = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0, 0, 0, 0, 0x09, 0x88, 0xcc};
        for (int i = 0; i < head.length; i++) {
            f[i] = (byte) head[i];
        }
        return f;
    }

    private void punt(final byte[] frame) {
        assertThat(eth0.inject(frame, clock.nowNs())).isTrue();
        pipeline.agent().doWork();
        assertThat(backend.pollPacketIns(16)).isEqualTo(1);
    }

    private LinkedBlockingQueue<StreamMessageResponse> connectPrimary() throws InterruptedException {
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
        return received;
    }

    @Test
    void shouldSendEveryPuntToTheHostInterfacesWhenNoControllerIsConnected() {
        punt(lldp());
        punt(udpTo(22));
        assertThat(toHost).containsExactly(PuntReason.LLDP.index(), PuntReason.ACL_TRAP.index());
    }

    @Test
    void shouldSendAclTrapsToTheControllerAndTheRestToTheHostWhenAControllerIsConnected() throws Exception {
        final LinkedBlockingQueue<StreamMessageResponse> received = connectPrimary();
        punt(lldp());
        punt(udpTo(22));
        assertThat(toHost).as("the kernel's").containsExactly(PuntReason.LLDP.index());
        final StreamMessageResponse in = received.poll(10, TimeUnit.SECONDS);
        assertThat(in.hasPacket()).isTrue();
        assertThat(in.getPacket().getMetadata(2).getValue().byteAt(0))
                .as("the controller's: its ACL trap")
                .isEqualTo((byte) PuntReason.ACL_TRAP.index());
        assertThat(received.poll(200, TimeUnit.MILLISECONDS))
                .as("the LLDP frame is not a PacketIn")
                .isNull();
        assertThat(backend.packetInsNotRead()).isZero();
    }
}
