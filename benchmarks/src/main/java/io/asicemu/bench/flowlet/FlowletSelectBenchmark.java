package io.asicemu.bench.flowlet;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.ars.QualitySettings;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import io.asicemu.flowlet.hash.SplitMix64;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Hash + member selection per packet, for each load-balance mode: what the pipeline's forward stage pays per packet
 * in ars-flowlet. A batch of 256 packets of mixed shapes (IPv4 TCP, IPv4 RoCEv2 with many QPs, IPv6 UDP, IPv6
 * RoCEv2) is refilled into one reused {@link HashKey} from parallel primitive arrays, as the pipeline copies fields
 * from its parsed-header metadata; time advances 200 ns per packet so flowlets start and end. 16 ECMP members
 * (weights 1 and 2), flowlet table 512, CRC with the Spine seed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FlowletSelectBenchmark {
    private static final int BATCH = 256;
    private static final int SHAPES = 4096;
    private static final int MEMBERS = 16;

    @Param({"STATIC_HASH", "ENHANCED_ECMP", "FLOWLET_QUALITY", "FLOWLET_RANDOM", "PER_PACKET_SPRAY"})
    public LoadBalanceMode mode;

    @Param({"CRC"})
    public HashAlgorithm algorithm;

    private final HashKey key = new HashKey();
    private final boolean[] ipv6 = new boolean[SHAPES];
    private final boolean[] roce = new boolean[SHAPES];
    private final long[] srcHi = new long[SHAPES];
    private final long[] srcLo = new long[SHAPES];
    private final long[] dstHi = new long[SHAPES];
    private final long[] dstLo = new long[SHAPES];
    private final int[] protocol = new int[SHAPES];
    private final int[] srcPort = new int[SHAPES];
    private final int[] dstPort = new int[SHAPES];
    private final int[] destQp = new int[SHAPES];
    private PortQuality quality;
    private LoadBalanceGroup group;
    private int cursor;
    private long nowNs;

    /**
     * Build the frames' fields and the group.
     */
    @Setup
    public void setup() {
        final SplitMix64 random = new SplitMix64(2026);
        for (int i = 0; i < SHAPES; i++) {
            final int shape = i & 3;
            ipv6[i] = shape >= 2;
            roce[i] = shape == 1 || shape == 3;
            srcHi[i] = ipv6[i] ? 0x2001_0db8_0000_0000L | random.nextInt(16) : 0;
            dstHi[i] = ipv6[i] ? 0x2001_0db8_0001_0000L | random.nextInt(16) : 0;
            srcLo[i] = ipv6[i] ? random.nextLong() : 0x0A00_0000L | random.nextInt(64);
            dstLo[i] = ipv6[i] ? random.nextLong() : 0x0A01_0000L | random.nextInt(64);
            protocol[i] = shape == 0 ? 6 : 17;
            srcPort[i] = roce[i] ? 49_152 + random.nextInt(4) : random.nextInt(65_536);
            dstPort[i] = roce[i] ? HashKey.ROCE_V2_UDP_PORT : random.nextInt(65_536);
            destQp[i] = roce[i] ? random.nextInt(1 << 24) : 0;
        }
        final HashEngine engine = new HashEngine(
                algorithm,
                HashField.fiveTupleMask(),
                HashField.fiveTupleMask() | HashField.RDMA_BTH_DEST_QP.mask(),
                25,
                0,
                1);
        quality = new PortQuality(MEMBERS, QualitySettings.defaults());
        final int[] ports = new int[MEMBERS];
        final int[] weights = new int[MEMBERS];
        for (int m = 0; m < MEMBERS; m++) {
            ports[m] = m;
            weights[m] = 1 + (m & 1);
        }
        group = new LoadBalanceGroup(GroupSettings.of(mode).withRandomSeed(7), ports, weights, engine, quality);
    }

    /**
     * Fill the key and select a member for each packet of a batch; feed the transmitted bytes back as load.
     *
     * @param blackhole sink.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void hashAndSelect(final Blackhole blackhole) {
        int c = cursor;
        long t = nowNs;
        for (int i = 0; i < BATCH; i++) {
            t += 200;
            key.clear()
                    .ipProtocol(protocol[c])
                    .l4SrcPort(srcPort[c])
                    .l4DstPort(dstPort[c])
                    .roce(roce[c])
                    .bthDestQp(destQp[c]);
            if (ipv6[c]) {
                key.srcIpv6(srcHi[c], srcLo[c]).dstIpv6(dstHi[c], dstLo[c]);
            } else {
                key.srcIpv4((int) srcLo[c]).dstIpv4((int) dstLo[c]);
            }
            final int member = group.select(key, 1024, t);
            quality.onTransmit(member, 1024);
            blackhole.consume(member);
            c = (c + 1) & (SHAPES - 1);
        }
        cursor = c;
        nowNs = t;
    }
}
