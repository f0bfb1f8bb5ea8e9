package io.asicemu.bench.pipeline;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.table.IpPrefix;
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
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class PipelineBenchmark {
    private RoceForwardingRig rig;

    /** Builds the switch, 100k routes and the frame ring, outside the measurement. */
    @Setup(Level.Trial)
    public void setUp() {
        rig = new RoceForwardingRig();
        final Pipeline pipeline = rig.pipeline;
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
        rig.warmUp();
    }

    /** @return the rig (for {@link PipelineCpuTime}'s step timing). */
    RoceForwardingRig rig() {
        return rig;
    }

    /** Releases native memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    /** @return packets forwarded by this invocation's 32-frame batch (consumed by JMH). */
    @Benchmark
    @OperationsPerInvocation(RoceForwardingRig.BATCH)
    public long forwardRoceBatch() {
        return rig.forwardRoceBatch();
    }
}
