package io.asicemu.bench.pipeline;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of the ACL features per packet: the same routed 64-byte RoCEv2 path (ECMP over 4 ports, 256 flows) with
 * no ACL ({@code none}) or with 64 ingress ACL rules of which the last matches and carries an RFC 2698 meter that
 * stays green, plus 32 egress ACL rules of which the last matches (forward) ({@code acl}). One invocation = one
 * 32-frame RX batch; the score is per packet.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class AclPipelineBenchmark {
    private static final int BATCH = 32;
    private static final int FLOWS = 256;
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "400000", "admin_status": "up"},
                  "Ethernet4": {"speed": "400000", "admin_status": "up"},
                  "Ethernet8": {"speed": "400000", "admin_status": "up"},
                  "Ethernet12": {"speed": "400000", "admin_status": "up"},
                  "Ethernet16": {"speed": "400000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}, "Ethernet12": {}, "Ethernet12|10.0.4.1/24": {},
                       "Ethernet16": {}, "Ethernet16|10.0.5.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"},
                   "Ethernet12|10.0.4.2": {"neigh": "02:00:00:00:04:02"},
                   "Ethernet16|10.0.5.2": {"neigh": "02:00:00:00:05:02"}},
         "STATIC_ROUTE": {"172.16.0.0/12": {"nexthop": "10.0.2.2,10.0.3.2,10.0.4.2,10.0.5.2"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_hash_algorithm": "CRC"}}}
        """;

    /** Which ACL features are on. */
    @Param({"none", "acl"})
    public String features;

    private ManualClock clock;
    private Pipeline pipeline;
    private InMemoryPort in;
    private InMemoryPort[] outs;
    private MemorySegment frames;
    private int frameLength;
    private int next;

    /** Builds the switch, the ACLs and the frame ring, outside the measurement. */
    @Setup(Level.Trial)
    public void setUp() {
        clock = new ManualClock(1_000_000_000L);
        pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
        in = new InMemoryPort("Ethernet0", 256, 2048, 9100, 400_000);
        outs = new InMemoryPort[4];
        pipeline.control().attachPort("Ethernet0", in);
        for (int i = 0; i < 4; i++) {
            outs[i] = new InMemoryPort("Ethernet" + (4 + 4 * i), 256, 2048, 9100, 400_000);
            pipeline.control().attachPort("Ethernet" + (4 + 4 * i), outs[i]);
        }
        pipeline.control().applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        if (features.equals("acl")) {
            final List<AclRule> ingress = new ArrayList<>();
            for (int r = 0; r < 63; r++) {
                ingress.add(new AclRule("b|miss" + r, 100 + r).ipProtocol(6).l4DstPort(1000 + r, 1000 + r));
            }
            ingress.add(new AclRule("b|meter", 1).dstIpv4(0xac10_0000, 12)
                .meter(new AclMeterConfig(1_000_000_000_000L, 1_000_000_000L, 2_000_000_000_000L, 2_000_000_000L)));
            final List<AclEgressRule> egress = new ArrayList<>();
            for (int r = 0; r < 31; r++) {
                egress.add(new AclEgressRule("e|miss" + r, 100 + r).dscp(r + 1, 0x3f).drop(true));
            }
            egress.add(new AclEgressRule("e|udp", 1).ipProtocol(17, 0xff));
            pipeline.control().batch().replaceAcl(ingress).replaceEgressAcl(egress).commit();
            pipeline.agent().doWork();
        }
        final FrameBuilder b = new FrameBuilder().reset();
        frames = Arena.ofAuto().allocate(FLOWS * 64L, 64);
        for (int f = 0; f < FLOWS; f++) {
            frameLength = b.macs(0x02aa_bbcc_ddeeL, 0x0200_0000_0102L)
                .ipv4(0x0a00_0102, 0xac10_0000 | (f * 37 & 0xffff)).udpPorts(49152 + f, 4791)
                .bth(4, 0x100 + f, f).buildRoce(frames, f * 64L, 0);
        }
        for (int warm = 0; warm < 64; warm++) {
            if (forwardRoceBatch() != BATCH) {
                throw new IllegalStateException("the benchmarked path does not forward every frame");
            }
        }
    }

    /** Releases native memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pipeline.close();
        in.close();
        for (final InMemoryPort out : outs) {
            out.close();
        }
    }

    /** @return packets forwarded by this invocation's 32-frame batch (consumed by JMH). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long forwardRoceBatch() {
        for (int i = 0; i < BATCH; i++) {
            in.inject(frames, next * 64L, frameLength, clock.nowNs());
            next = (next + 1) & (FLOWS - 1);
        }
        pipeline.agent().doWork();
        clock.advanceNs(1_000);
        pipeline.agent().doWork();
        long sent = 0;
        for (final InMemoryPort out : outs) {
            sent += out.transmittedCount();
            out.clearTransmitted();
        }
        return sent;
    }
}
