package io.asicemu.switchd.registers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.asicemu.operator.OperatorRedisServer;
import io.asicemu.operator.RegisterAccess;
import io.asicemu.operator.RegisterAccess.RegisterException;
import io.asicemu.operator.SnapshotCache;
import io.asicemu.operator.SwitchSnapshot;
import io.asicemu.p4rt.adapter.PipelineCpuPortBackend;
import io.asicemu.p4rt.adapter.PipelineTableBackend;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.TmOptions;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.RegisterEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * The register map on the real pipeline behind the production P4Runtime backend and a real gRPC server on loopback
 * (in-memory ports, the test steps the data plane on a manual clock). Reads equal the model's values and the P4Runtime
 * register reads; a write of ECN_KMIN/ECN_KMAX on Ethernet8 queue 3 is seen by a P4Runtime read and moves CE marking
 * to the depth the WRED formula gives (reference wred-ecn: p = Pmax·(q − Kmin)/(Kmax − Kmin), 100 % at and above Kmax
 * on the instantaneous queue at dequeue; a burst of N frames at one instant leaves the k-th frame behind N − k frames
 * of C charged bytes); refused writes change nothing.
 */
@Timeout(60)
class RegisterMapTest {
    private static final int PAYLOAD = 1000;
    private static final int N = 20;
    private static final int LENGTH = 14 + 20 + 8 + PAYLOAD;
    private static final int CELL = TmOptions.defaults().cellBytes();
    private static final long C = (LENGTH + CELL - 1) / CELL * (long) CELL;
    private static final String CONFIG = String.format("""
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "25000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet8": {}, "Ethernet8|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet8|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "WRED_PROFILE": {"W": {"wred_green_enable": "true", "green_min_threshold": "%d",
             "green_max_threshold": "%d", "green_drop_probability": "100", "ecn": "ecn_all"}},
         "QUEUE": {"Ethernet8|3": {"wred_profile": "W"}},
         "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "10000000"},
                         "egress_pool": {"type": "egress", "mode": "static", "size": "12000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "%d",
                                         "xoff": "%d", "xon": "%d"}},
         "BUFFER_PG": {"Ethernet0|3": {"profile": "lossless"}},
         "DSCP_TO_TC_MAP": {"AZ": {"3": "3"}},
         "TC_TO_PRIORITY_GROUP_MAP": {"AZ": {"3": "3"}},
         "TC_TO_QUEUE_MAP": {"AZ": {"3": "3"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZ", "tc_to_pg_map": "AZ", "tc_to_queue_map": "AZ",
                                        "pfc_enable": "3"}},
         "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"},
                    "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "400"}}}
        """, 19 * C, 19 * C, 30 * C, 5 * C, 2 * C);
    private static final int P4_ECN_MIN = 0x16000001;
    private static final int P4_ECN_MAX = 0x16000002;
    private static final int P4_HASH_SEED = 0x16000009;

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
    private final Map<String, InMemoryPort> ports = new LinkedHashMap<>();
    private final Arena arena = Arena.ofConfined();
    private P4RuntimeServer server;
    private ManagedChannel channel;
    private P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    private ControlAgent control;
    private RegisterMap registers;
    private int eth8;

    @BeforeEach
    void start() throws Exception {
        final ConfigDb db = ConfigDb.parse(CONFIG);
        for (final String name : db.table("PORT").keySet()) {
            final InMemoryPort port = new InMemoryPort(name);
            ports.put(name, port);
            pipeline.control().attachPort(name, port);
        }
        SwitchConfig.of(pipeline.control()).applyConfig(db);
        pipeline.agent().doWork();
        final PipelineCpuPortBackend backend = new PipelineCpuPortBackend(
                new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model()), pipeline.control());
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(1, backend));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(
                        InetAddress.getLoopbackAddress().getHostAddress(), server.port())
                .usePlaintext()
                .build();
        stub = P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        control = ControlAgent.start(pipeline.control(), "test-control");
        registers = new RegisterMap(control, TmOptions.defaults(), null);
        eth8 = pipeline.control().portIndex("Ethernet8");
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        control.close();
        arena.close();
    }

    private long value(final String name, final String instance) {
        final List<RegisterAccess.Row> rows = registers.read(name, instance);
        assertThat(rows).hasSize(1);
        return rows.get(0).value();
    }

    private long p4Read(final int id, final long index) {
        final List<Long> values = new ArrayList<>();
        stub.read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setRegisterEntry(RegisterEntry.newBuilder()
                                        .setRegisterId(id)
                                        .setIndex(Index.newBuilder().setIndex(index))))
                        .build())
                .forEachRemaining(r -> r.getEntitiesList()
                        .forEach(e -> values.add(new BigInteger(
                                        1,
                                        e.getRegisterEntry()
                                                .getData()
                                                .getBitstring()
                                                .toByteArray())
                                .longValue())));
        assertThat(values).hasSize(1);
        return values.get(0);
    }

    private void p4Write(final int id, final long index, final long value) {
        final byte[] raw = BigInteger.valueOf(value).toByteArray();
        final ByteString bits =
                raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
        final var channelStub = P4RuntimeGrpc.newStub(channel);
        final var arbitration = new java.util.concurrent.LinkedBlockingQueue<Object>();
        final var out = channelStub.streamChannel(new io.grpc.stub.StreamObserver<>() {
            @Override
            public void onNext(final p4.v1.P4RuntimeOuterClass.StreamMessageResponse v) {
                arbitration.add(v);
            }

            @Override
            public void onError(final Throwable t) {
                arbitration.add(t);
            }

            @Override
            public void onCompleted() {}
        });
        out.onNext(p4.v1.P4RuntimeOuterClass.StreamMessageRequest.newBuilder()
                .setArbitration(p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        try {
            assertThat(arbitration.poll(10, TimeUnit.SECONDS)).isNotNull();
            stub.write(WriteRequest.newBuilder()
                    .setDeviceId(1)
                    .setElectionId(Uint128.newBuilder().setLow(1))
                    .addUpdates(Update.newBuilder()
                            .setType(Update.Type.MODIFY)
                            .setEntity(Entity.newBuilder()
                                    .setRegisterEntry(RegisterEntry.newBuilder()
                                            .setRegisterId(id)
                                            .setIndex(Index.newBuilder().setIndex(index))
                                            .setData(P4Data.newBuilder().setBitstring(bits)))))
                    .build());
        } catch (final InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            out.onCompleted();
        }
    }

    private byte[] frame(final int dscp) {
        final MemorySegment s = arena.allocate(2048);
        final int length = new FrameBuilder()
                .reset()
                .macs(0x02aabbccddeeL, 0x020000000102L)
                .ipv4(0x0A000102, 0xC0A80101)
                .dscp(dscp)
                .ecn(2)
                .udpPorts(1000, 2000)
                .buildUdp(s, 0, PAYLOAD);
        assertThat(length).isEqualTo(LENGTH);
        return s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** N frames at one instant into Ethernet0, run to idle; returns what Ethernet8 sent. */
    private List<byte[]> burst(final int dscp) {
        final InMemoryPort in = ports.get("Ethernet0");
        final InMemoryPort out = ports.get("Ethernet8");
        for (int i = 0; i < N; i++) {
            assertThat(in.inject(frame(dscp), clock.nowNs())).isTrue();
        }
        for (int i = 0; i < 100_000; i++) {
            pipeline.agent().doWork();
            if (in.pendingRx() == 0 && !pipeline.agent().hasQueuedPackets()) {
                final List<byte[]> sent = new ArrayList<>();
                for (int f = 0; f < out.transmittedCount(); f++) {
                    sent.add(out.transmitted(f));
                }
                out.clearTransmitted();
                return sent;
            }
            final long next = pipeline.agent().nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
        }
        throw new IllegalStateException("the switch did not go idle");
    }

    private static long ce(final List<byte[]> frames) {
        return frames.stream().filter(f -> (f[15] & 3) == 3).count();
    }

    private TmCountersSnapshot tm() throws Exception {
        final var future = pipeline.control().trafficManagerCounters();
        pipeline.agent().doWork();
        return future.get();
    }

    @Test
    void shouldReadTheValuesInForce() {
        assertThat(value("ECN_KMIN", "Ethernet8|3")).isEqualTo(19 * C).isEqualTo(p4Read(P4_ECN_MIN, eth8 * 8L + 3));
        assertThat(value("ECN_KMAX", "Ethernet8|3")).isEqualTo(19 * C).isEqualTo(p4Read(P4_ECN_MAX, eth8 * 8L + 3));
        assertThat(value("ECN_PMAX", "Ethernet8|3")).isEqualTo(100);
        assertThat(value("ECN_KMIN", "Ethernet8|2"))
                .as("queue without WRED profile")
                .isZero();
        assertThat(value("PFC_XOFF", "Ethernet0|3")).isEqualTo(5 * C);
        assertThat(value("PFC_XON", "Ethernet0|3")).isEqualTo(2 * C);
        assertThat(value("PFCWD_DETECT", "Ethernet0")).isEqualTo(200);
        assertThat(value("PFCWD_RESTORE", "Ethernet0")).isEqualTo(400);
        assertThat(registers.read("PFCWD_ACTION", "Ethernet0").get(0).decoded()).isEqualTo("DROP");
        assertThat(value("PFCWD_ACTION", "Ethernet4")).as("no PFC_WD entry").isZero();
        assertThat(value("PFCWD_POLL", "")).isEqualTo(100);
        assertThat(value("PFC_ENABLE", "Ethernet0")).isEqualTo(1 << 3);
        assertThat(value("PORT_SPEED", "Ethernet4")).isEqualTo(25_000);
        assertThat(value("PORT_SPEED", "Ethernet8")).isEqualTo(10_000);
        assertThat(value("BUFFER_POOL_SIZE", "egress_pool")).isEqualTo(12_000_000);
        assertThat(value("BUFFER_POOL_SIZE", "ingress_lossless_pool")).isEqualTo(10_000_000);
        assertThat(value("FLOWLET_AGE_TIME", ""))
                .as("SAI ARS default idle time")
                .isEqualTo(256_000);
        assertThat(value("HASH_SEED", "")).isEqualTo(p4Read(P4_HASH_SEED, 0)).isZero();
        assertThat(value("PFC_QUANTA", "")).isEqualTo(TmOptions.defaults().pfcQuanta());
        assertThat(registers.read("HASH_ALGORITHM", "").get(0).decoded()).isEqualTo("CRC");
        assertThat(registers.read("HASH_FIELD_MASK", "").get(0).decoded())
                .as("the 5-tuple by default")
                .isEqualTo("IP_PROTOCOL,DST_IP,SRC_IP,L4_DST_PORT,L4_SRC_PORT");
        // Every writable row equals the control model's knob, address = base + 4 * index.
        final var knobs = pipeline.control().runtimeKnobs();
        for (final RegisterAccess.Row row : registers.read(null, null)) {
            final ChipRegister r = ChipRegister.valueOf(row.name());
            final int index = (int) ((row.address() - r.base()) / 4);
            if (r.writable()) {
                assertThat(row.value())
                        .as(row.name() + " " + row.instance())
                        .isEqualTo(r.fromKnob(knobs.value(r.knob(), index)));
                assertThat(row.access()).isEqualTo("RW");
            } else {
                assertThat(row.access()).isEqualTo("RO");
            }
        }
        assertThat(registers.read("PFC_XOFF", null))
                .as("only PGs with a BUFFER_PG profile")
                .extracting(RegisterAccess.Row::instance)
                .containsExactly("Ethernet0|3");
    }

    @Test
    void shouldMoveCeMarkingWhenEcnKminIsWrittenAndShowItInAP4RuntimeRead() throws Exception {
        // Kmin = Kmax = 19C: frames leaving a queue of 20C and 19C are marked.
        assertThat(ce(burst(3))).isEqualTo(2);
        assertThat(tm().queue(eth8, 3, QueueStat.PACKETS))
                .as("DSCP 3 -> queue 3")
                .isEqualTo(N);
        registers.write("ECN_KMIN", "Ethernet8|3", Long.toString(10 * C));
        registers.write("ecn_kmax", "Ethernet8|3", "0x" + Long.toHexString(10 * C));
        assertThat(p4Read(P4_ECN_MIN, eth8 * 8L + 3)).isEqualTo(10 * C);
        assertThat(p4Read(P4_ECN_MAX, eth8 * 8L + 3)).isEqualTo(10 * C);
        pipeline.agent().doWork();
        final List<byte[]> out = burst(3);
        assertThat(out).hasSize(N);
        for (int k = 0; k < N; k++) {
            assertThat(out.get(k)[15] & 3)
                    .as("frame %d leaves a queue of %d C", k, N - k)
                    .isEqualTo((N - k) * C >= 10 * C ? 3 : 2);
        }
        assertThat(ce(out)).isEqualTo(11);
        assertThat(tm().queue(eth8, 3, QueueStat.WRED_ECN_MARKED_PACKETS)).isEqualTo(13);
    }

    @Test
    void shouldMoveATrafficClassToAnotherQueueWithAQosMapRegisterAndRestoreItWithNoEntry() throws Exception {
        assertThat(value("QOS_TC_TO_QUEUE", "3")).as("no runtime entry").isEqualTo(ChipRegister.QOS_NONE);
        registers.write("QOS_TC_TO_QUEUE", "3", "5");
        assertThat(value("QOS_TC_TO_QUEUE", "3")).isEqualTo(5);
        burst(3);
        assertThat(tm().queue(eth8, 5, QueueStat.PACKETS)).isEqualTo(N);
        registers.write("QOS_TC_TO_QUEUE", "3", "15");
        burst(3);
        assertThat(tm().queue(eth8, 3, QueueStat.PACKETS))
                .as("the configured map again")
                .isEqualTo(N);
        assertThatThrownBy(() -> registers.write("QOS_TC_TO_QUEUE", "3", "9"))
                .hasMessage("QOS_TC_TO_QUEUE 3: value 9 is neither 0..7 nor 15 (no entry)");
        assertThatThrownBy(() -> registers.write("QOS_DSCP_TO_TC", "64", "1"))
                .hasMessage("QOS_DSCP_TO_TC 64: DSCP must be 0..63");
        assertThat(registers.read("QOS_DSCP_TO_TC", null)).hasSize(64);
    }

    @Test
    void shouldSeeAP4RuntimeRegisterWrite() {
        p4Write(P4_HASH_SEED, 0, 0xC0FFEE);
        assertThat(value("HASH_SEED", "")).isEqualTo(0xC0FFEE);
        registers.write("HASH_SEED", "", "12345");
        assertThat(p4Read(P4_HASH_SEED, 0)).isEqualTo(12345);
    }

    @Test
    void shouldRefuseInvalidWritesNamingRegisterAndInstanceAndChangeNothing() {
        final List<RegisterAccess.Row> before = registers.read(null, null);
        assertThatThrownBy(() -> registers.write("ECN_KMIN", "Ethernet8|3", Long.toString(20 * C)))
                .isInstanceOf(RegisterException.class)
                .hasMessageStartingWith("ECN_KMIN Ethernet8|3: ")
                .hasMessageContaining("above max threshold");
        assertThatThrownBy(() -> registers.write("ECN_PMAX", "Ethernet8|3", "101"))
                .hasMessageStartingWith("ECN_PMAX Ethernet8|3: ")
                .hasMessageContaining("outside 0..100");
        assertThatThrownBy(() -> registers.write("ECN_PMAX", "Ethernet8|3", "500"))
                .hasMessageContaining("does not fit the register (0..127)");
        assertThatThrownBy(() -> registers.write("ECN_KMIN", "Ethernet99|3", "1000"))
                .hasMessage("ECN_KMIN Ethernet99|3: no port Ethernet99 in the configuration");
        assertThatThrownBy(() -> registers.write("ECN_KMIN", "Ethernet8|8", "1000"))
                .hasMessage("ECN_KMIN Ethernet8|8: queue must be 0..7");
        assertThatThrownBy(() -> registers.write("ECN_KMIN", "Ethernet8", "1000"))
                .hasMessageContaining("give port and queue");
        assertThatThrownBy(() -> registers.write("PORT_SPEED", "Ethernet8", "1000"))
                .hasMessageStartingWith("PORT_SPEED Ethernet8: PORT_SPEED is read-only");
        assertThatThrownBy(() -> registers.write("PFC_XOFF", "Ethernet8|3", "1000"))
                .hasMessage("PFC_XOFF Ethernet8|3: FAILED_PRECONDITION: PG " + (eth8 * 8 + 3)
                        + " has no BUFFER_PG profile");
        assertThatThrownBy(() -> registers.write("PFCWD_DETECT", "Ethernet0", "50"))
                .hasMessageContaining("outside 100..5000");
        assertThatThrownBy(() -> registers.write("HASH_SEED", "", "-1")).hasMessageContaining("does not fit");
        assertThatThrownBy(() -> registers.write("HASH_SEED", "", "seven")).hasMessageContaining("is not a number");
        assertThatThrownBy(() -> registers.write("NO_SUCH", "", "1")).hasMessageContaining("no register named NO_SUCH");
        assertThatThrownBy(() -> registers.write("ARS_GROUP_MODE", "7", "1"))
                .hasMessage("ARS_GROUP_MODE 7: no next-hop group 7");
        assertThat(registers.read(null, null)).as("nothing changed").isEqualTo(before);
        assertThat(p4Read(P4_ECN_MIN, eth8 * 8L + 3)).isEqualTo(19 * C);
        assertThat(pipeline.control().runtimeKnobs().value(RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT, eth8 * 8 + 3))
                .isEqualTo(100);
        assertThat(ce(burst(3))).as("marking as configured").isEqualTo(2);
    }

    @Test
    void shouldWriteAndReadThroughTheRedisFrontWithRedisCliPythonAndTheCli() throws Exception {
        final SnapshotCache cache = new SnapshotCache(
                () -> new SwitchSnapshot(0, List.of(), Map.of(), Map.of(), Map.of(), Map.of(), List.of()),
                java.time.Duration.ofMillis(100));
        try (OperatorRedisServer redis = OperatorRedisServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                cache,
                null,
                OperatorRedisServer.Limits.defaults(),
                registers)) {
            final String port = Integer.toString(redis.port());
            // Debian's redis-cli: a write, then a read of the same instance.
            final String set = run(
                    List.of("redis-cli", "-p", port, "ASICEMU.REGISTER", "SET", "ECN_KMIN", "Ethernet8|3", "15000"));
            assertThat(set)
                    .contains("ECN_KMIN")
                    .contains("Ethernet8|3")
                    .contains("15000")
                    .contains("RW");
            assertThat(p4Read(P4_ECN_MIN, eth8 * 8L + 3)).isEqualTo(15_000);
            assertThat(run(List.of("redis-cli", "-p", port, "ASICEMU.REGISTER", "GET", "PORT_SPEED", "Ethernet8")))
                    .contains("10000")
                    .contains("RO");
            // Python's redis client: a refused write is an error naming register and instance, and changes nothing.
            final String py = run(List.of(
                    "/usr/bin/python3",
                    "-c",
                    "import redis\n"
                            + "r = redis.Redis(port=" + port + ")\n"
                            + "try:\n"
                            + "    r.execute_command('ASICEMU.REGISTER', 'SET', 'ECN_KMIN', 'Ethernet8|3', '99999999')\n"
                            + "    print('accepted')\n"
                            + "except redis.ResponseError as e:\n"
                            + "    print('refused:', e)\n"));
            assertThat(py).startsWith("refused: ECN_KMIN Ethernet8|3: ").contains("above max threshold");
            assertThat(value("ECN_KMIN", "Ethernet8|3")).isEqualTo(15_000);
            // The CLI: config register, then show registers of that port's queue.
            final java.io.StringWriter out = new java.io.StringWriter();
            final java.io.StringWriter err = new java.io.StringWriter();
            final picocli.CommandLine cli = io.asicemu.switchd.Main.commandLine();
            cli.setOut(new java.io.PrintWriter(out, true));
            cli.setErr(new java.io.PrintWriter(err, true));
            assertThat(cli.execute(
                            "config", "register", "ECN_KMIN", "0x2710", "-i", "Ethernet8", "--queue", "3", "-p", port))
                    .as(err.toString())
                    .isZero();
            assertThat(p4Read(P4_ECN_MIN, eth8 * 8L + 3)).isEqualTo(10_000);
            assertThat(cli.execute("config", "register", "PORT_SPEED", "1", "-i", "Ethernet8", "-p", port))
                    .isEqualTo(2);
            assertThat(err.toString()).contains("PORT_SPEED Ethernet8: PORT_SPEED is read-only");
            out.getBuffer().setLength(0);
            assertThat(cli.execute("show", "registers", "ECN_KMIN", "Ethernet8", "3", "-p", port))
                    .isZero();
            assertThat(out.toString().lines().toList())
                    .hasSize(3)
                    .last()
                    .asString()
                    .contains("ECN_KMIN")
                    .contains("Ethernet8|3")
                    .contains(String.format("0x%08X", ChipRegister.ECN_KMIN.address(eth8 * 8 + 3)))
                    .contains("10000");
            out.getBuffer().setLength(0);
            assertThat(cli.execute("show", "registers", "-i", "Ethernet0", "-p", port))
                    .isZero();
            assertThat(out.toString())
                    .contains("PFCWD_DETECT")
                    .contains("Ethernet0|3")
                    .doesNotContain("Ethernet8");
        }
    }

    private static String run(final List<String> command) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
