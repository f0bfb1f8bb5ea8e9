package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The ingress ACL's bit-vector classifier against the linear priority scan (the TCAM semantics it replaces): random
 * rules with masks on every field, L4 ranges (empty ones, ones within a high byte, ones across several), port sets,
 * priorities with many ties, and random packets drawn from the same small value pools so that rules overlap and
 * packets hit several rules at once.
 */
class AclClassifierPropertyTest {
    private static final int[] ETHER_TYPES = {0x0800, 0x86dd, 0x8100, 0x0806};
    private static final long[] MACS = {0x0200_0000_0001L, 0x0200_0000_0102L, 0x0a00_0000_0001L, 0x0200_0100_0001L};
    private static final int[] V4 = {0x0a00_0001, 0x0a00_0102, 0x0a01_0001, 0xc0a8_0101};
    private static final long[] V6_HIGH = {0x2001_0db8_0000_0000L, 0x2001_0db8_0001_0000L, 0xfe80_0000_0000_0000L};

    @Provide
    Arbitrary<List<Long>> seeds() {
        return Arbitraries.longs().list().ofMinSize(0).ofMaxSize(120);
    }

    @Property(tries = 300)
    void shouldFindTheLinearScansRuleWhenRulesAndPacketsAreRandom(
            @ForAll("seeds") final List<Long> ruleSeeds, @ForAll final long packetSeed) {
        final List<AclRule> rules = new ArrayList<>();
        for (int i = 0; i < ruleSeeds.size(); i++) {
            rules.add(rule(i, new SplittableRandom(ruleSeeds.get(i))));
        }
        final AclTable table = new AclTable(rules);
        final SplittableRandom random = new SplittableRandom(packetSeed);
        final AclKey key = new AclKey();
        for (int p = 0; p < 400; p++) {
            fill(key, random);
            assertThat(table.match(key)).as("packet %d", p).isEqualTo(table.matchLinear(key));
        }
    }

    @Property(tries = 20)
    void shouldFindTheLinearScansRuleWhenTheTableHoldsAThousandRules(@ForAll final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<AclRule> rules = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            rules.add(rule(i, random));
        }
        final AclTable table = new AclTable(rules);
        final AclKey key = new AclKey();
        int hits = 0;
        for (int p = 0; p < 2000; p++) {
            fill(key, random);
            final int expected = table.matchLinear(key);
            assertThat(table.match(key)).isEqualTo(expected);
            hits += expected == AclTable.NO_MATCH ? 0 : 1;
        }
        assertThat(hits).as("the pools make packets hit rules").isGreaterThan(0);
    }

    private static AclRule rule(final int index, final SplittableRandom r) {
        final AclRule rule = new AclRule("T|r" + index, r.nextInt(6));
        if (r.nextInt(4) == 0) {
            final int[] ports = new int[1 + r.nextInt(3)];
            for (int i = 0; i < ports.length; i++) {
                ports[i] = r.nextInt(4) == 0 ? 64 + r.nextInt(70) : r.nextInt(8);
            }
            rule.inPorts(ports);
        }
        if (r.nextInt(3) == 0) {
            rule.etherType(ETHER_TYPES[r.nextInt(ETHER_TYPES.length)], r.nextBoolean() ? 0xffff : 0xff00);
        }
        if (r.nextInt(5) == 0) {
            rule.srcMac(MACS[r.nextInt(MACS.length)], macMask(r));
        }
        if (r.nextInt(5) == 0) {
            rule.dstMac(MACS[r.nextInt(MACS.length)], macMask(r));
        }
        if (r.nextInt(5) == 0) {
            rule.vlanId(r.nextInt(3));
        }
        ip(rule, r);
        if (r.nextInt(3) == 0) {
            rule.ipProtocol(r.nextBoolean() ? 6 : 17);
        }
        if (r.nextInt(3) == 0) {
            final int low = r.nextInt(20);
            rule.l4SrcPort(low, r.nextInt(4) == 0 ? low : low + r.nextInt(12) - 2);
        }
        if (r.nextInt(3) == 0) {
            final int low = switch (r.nextInt(3)) {
                case 0 -> r.nextInt(20);
                case 1 -> 4791;
                default -> 200 + r.nextInt(400);
            };
            rule.l4DstPort(low, r.nextInt(3) == 0 ? low : low + r.nextInt(r.nextBoolean() ? 40 : 1200));
        }
        if (r.nextInt(5) == 0) {
            rule.dscp(r.nextInt(3));
        }
        if (r.nextInt(6) == 0) {
            rule.ecn(r.nextInt(4));
        }
        if (r.nextInt(6) == 0) {
            rule.tcpFlags(r.nextInt(8), r.nextInt(8));
        }
        if (r.nextInt(6) == 0) {
            rule.bthOpcode(r.nextInt(3));
        }
        return rule.action(AclAction.values()[r.nextInt(AclAction.values().length)]);
    }

    private static long macMask(final SplittableRandom r) {
        return switch (r.nextInt(4)) {
            case 0 -> 0xffff_ffff_ffffL;
            case 1 -> 0xffff_ff00_0000L;
            case 2 -> 0xffff_ffff_fff0L;
            default -> r.nextLong() & 0xffff_ffff_ffffL;
        };
    }

    private static void ip(final AclRule rule, final SplittableRandom r) {
        switch (r.nextInt(5)) {
            case 0 -> rule.srcIpv4(V4[r.nextInt(V4.length)], r.nextInt(33));
            case 1 ->
                rule.dstIpv4(V4[r.nextInt(V4.length)], r.nextInt(33)).srcIpv4(V4[r.nextInt(V4.length)], r.nextInt(33));
            case 2 -> rule.dstIpv6(V6_HIGH[r.nextInt(V6_HIGH.length)], r.nextInt(3), r.nextInt(129));
            case 3 -> rule.srcIpv4(V4[r.nextInt(V4.length)], 24).ipVersion(r.nextBoolean() ? 0 : 6);
            default -> {
                if (r.nextBoolean()) {
                    rule.ipVersion(4);
                }
            }
        }
    }

    private static void fill(final AclKey k, final SplittableRandom r) {
        k.inPort = r.nextInt(5) == 0 ? 64 + r.nextInt(70) : r.nextInt(8);
        k.etherType = ETHER_TYPES[r.nextInt(ETHER_TYPES.length)];
        k.srcMac = MACS[r.nextInt(MACS.length)] ^ (r.nextInt(4) == 0 ? r.nextInt(16) : 0);
        k.dstMac = MACS[r.nextInt(MACS.length)] ^ (r.nextInt(4) == 0 ? r.nextInt(16) : 0);
        k.vlanId = r.nextInt(3);
        k.ipVersion = r.nextInt(4) == 0 ? 6 : r.nextInt(6) == 0 ? 0 : 4;
        if (k.ipVersion == 6) {
            k.srcHigh = V6_HIGH[r.nextInt(V6_HIGH.length)] ^ (r.nextInt(3) == 0 ? r.nextLong() >>> 48 : 0);
            k.dstHigh = V6_HIGH[r.nextInt(V6_HIGH.length)] ^ (r.nextInt(3) == 0 ? r.nextLong() >>> 48 : 0);
            k.srcLow = r.nextInt(3);
            k.dstLow = r.nextInt(3);
        } else {
            k.srcHigh = 0;
            k.dstHigh = 0;
            k.srcLow = (V4[r.nextInt(V4.length)] ^ (r.nextBoolean() ? r.nextInt(256) : 0)) & 0xffff_ffffL;
            k.dstLow = (V4[r.nextInt(V4.length)] ^ (r.nextBoolean() ? r.nextInt(1 << 12) : 0)) & 0xffff_ffffL;
        }
        k.ipProtocol = k.ipVersion == 0 ? -1 : r.nextBoolean() ? 6 : 17;
        k.l4SrcPort = r.nextInt(24);
        k.l4DstPort = switch (r.nextInt(4)) {
            case 0 -> 4791 + r.nextInt(3);
            case 1 -> r.nextInt(2000);
            default -> r.nextInt(60);
        };
        k.dscp = r.nextInt(3);
        k.ecn = r.nextInt(4);
        k.tcpFlags = r.nextInt(8);
        k.roce = r.nextBoolean();
        k.bthOpcode = r.nextInt(3);
    }
}
