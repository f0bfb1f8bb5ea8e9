package io.asicemu.bench.pipeline;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclRule;
import java.util.ArrayList;
import java.util.List;
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
    /** Which ACL features are on. */
    @Param({"none", "acl"})
    public String features;

    private RoceForwardingRig rig;

    /** Builds the switch, the ACLs and the frame ring, outside the measurement. */
    @Setup(Level.Trial)
    public void setUp() {
        rig = new RoceForwardingRig();
        final Pipeline pipeline = rig.pipeline;
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
        rig.warmUp();
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
