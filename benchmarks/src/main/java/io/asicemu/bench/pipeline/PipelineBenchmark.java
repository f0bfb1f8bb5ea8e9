package io.asicemu.bench.pipeline;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.control.IpPrefix;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The whole pipeline per packet on one core: 64-byte RoCEv2 frames (60 bytes + FCS; 256 flows by UDP source port,
 * BTH destination QP and destination address) enter an in-memory port, are parsed, pass port/VLAN/ACL/QoS, hit an
 * IPv4 LPM holding 100k routes, pick a member of a 4-way ECMP group through the ars-flowlet hash engine, get
 * admitted to and dequeued from the traffic manager, are rewritten (MACs, TTL, checksum) into the packet buffer and
 * transmitted to an in-memory TX ring. One invocation = one 32-frame RX batch and the duty cycles that forward it;
 * the score is per packet. The in-memory port's inject (a copy into its RX ring, as a NIC would DMA) is included.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class PipelineBenchmark {
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

    private ManualClock clock;
    private Pipeline pipeline;
    private InMemoryPort in;
    private InMemoryPort[] outs;
    private MemorySegment frames;
    private int frameLength;
    private int next;

    /** Builds the switch, 100k routes and the frame ring, outside the measurement. */
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
        final SplittableRandom random = new SplittableRandom(7);
        TableBatch batch = pipeline.control().batch().addNextHop(1000, "Ethernet4", IpPrefix.address("10.0.2.2"));
        for (int i = 0; i < 100_000; i++) {
            final long a = (random.nextLong(1L << 32) & 0xffff_ff00L) | 0x0100_0000L;
            if ((a >>> 20) == 0xac1) {
                continue; // leave 172.16/12 to the ECMP route
            }
            final IpPrefix p = new IpPrefix(false, 0, a, 16 + random.nextInt(13));
            try {
                batch.writeRoute(p, 1000, false, true);
            } catch (final io.asicemu.pipeline.control.TableException duplicate) {
                continue;
            }
            if (batch.size() == 10_000) {
                batch.commit();
                pipeline.agent().doWork();
                batch = pipeline.control().batch();
            }
        }
        batch.commit();
        pipeline.agent().doWork();
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
