package io.asicemu.bench.pipeline;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * no ACL ({@code none}); with 64 ingress ACL rules of which the last matches and carries an RFC 2698 meter that
 * stays green, plus 32 egress ACL rules of which the last matches (forward) ({@code acl}); or with 1,000 ingress rules
 * of mixed priorities and masks ({@code acl1000}: IPv4 prefixes of 8 to 32 bits, protocols, exact L4 ports and
 * ranges, DSCP, ECN, BTH opcodes, port bindings) where every packet falls through to the lowest-priority rule, the
 * metered one, so priority pruning cannot stop early. One invocation = one 32-frame RX batch; the score is per packet.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class AclPipelineBenchmark {
    /** Which ACL features are on. */
    @Param({"none", "acl", "acl1000"})
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
            ingress.add(new AclRule("b|meter", 1)
                    .dstIpv4(0xac10_0000, 12)
                    .meter(new AclMeterConfig(1_000_000_000_000L, 1_000_000_000L, 2_000_000_000_000L, 2_000_000_000L)));
            final List<AclEgressRule> egress = new ArrayList<>();
            for (int r = 0; r < 31; r++) {
                egress.add(new AclEgressRule("e|miss" + r, 100 + r)
                        .dscp(r + 1, 0x3f)
                        .drop(true));
            }
            egress.add(new AclEgressRule("e|udp", 1).ipProtocol(17, 0xff));
            pipeline.control()
                    .batch()
                    .replaceAcl(ingress)
                    .replaceEgressAcl(egress)
                    .commit();
            pipeline.agent().doWork();
        } else if (features.equals("acl1000")) {
            pipeline.control().batch().replaceAcl(thousandRules()).commit();
            pipeline.agent().doWork();
        }
        rig.warmUp();
        if (!features.equals("none")) {
            final long metered =
                    pipeline.control().counters().aclRules().get("b|meter").get("Packets");
            if (metered != 64L * RoceForwardingRig.BATCH) {
                throw new IllegalStateException("a higher rule than the metered one caught packets: " + metered);
            }
        }
    }

    /**
     * 999 rules that each miss the benchmark's frames (10.0.1.2 to 172.16/12, UDP 49152+ to 4791, DSCP 0, opcode 4,
     * port Ethernet0) on one field but may match on others, at random priorities, then the metered catch-all for
     * 172.16/12 at the lowest priority. Seeded, so every fork and run builds the same table.
     */
    private static List<AclRule> thousandRules() {
        final Random random = new Random(12);
        final int[] lengths = {8, 16, 20, 24, 28, 32};
        final List<AclRule> rules = new ArrayList<>();
        for (int r = 0; r < 999; r++) {
            final AclRule rule = new AclRule("b|r" + r, 1 + random.nextInt(10_000));
            switch (r % 5) {
                case 0 -> rule.srcIpv4(0xc0a8_0000 | random.nextInt(1 << 16), lengths[1 + random.nextInt(5)]);
                case 1 -> {
                    final int port = 1 + random.nextInt(1023);
                    rule.ipProtocol(6).l4DstPort(port, port);
                }
                case 2 -> {
                    final int low = 5000 + random.nextInt(50_000);
                    rule.ipProtocol(17).l4DstPort(low, low + random.nextInt(500));
                }
                case 3 -> rule.dscp(1 + random.nextInt(63));
                default -> rule.bthOpcode(0x81).dstIpv4(0xac10_0000 | random.nextInt(1 << 16), 16 + random.nextInt(17));
            }
            if (random.nextBoolean()) {
                rule.dstIpv4(0xac10_0000 | random.nextInt(1 << 20), Math.max(12, lengths[random.nextInt(6)]));
            }
            if (random.nextInt(4) == 0) {
                rule.l4SrcPort(49152, 49152 + random.nextInt(16_384));
            }
            if (random.nextInt(8) == 0) {
                rule.ecn(random.nextInt(4));
            }
            if (random.nextInt(4) == 0) {
                rule.inPorts(0);
            }
            rules.add(rule);
        }
        rules.add(new AclRule("b|meter", 0)
                .dstIpv4(0xac10_0000, 12)
                .meter(new AclMeterConfig(1_000_000_000_000L, 1_000_000_000L, 2_000_000_000_000L, 2_000_000_000L)));
        return rules;
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
