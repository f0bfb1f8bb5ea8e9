package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AclAndQosTablesTest {
    private static AclKey roce(final int port, final int opcode) {
        final AclKey k = new AclKey();
        k.inPort = port;
        k.etherType = 0x0800;
        k.ipVersion = 4;
        k.dstLow = 0xc0a8_0109L;
        k.ipProtocol = 17;
        k.l4SrcPort = 50000;
        k.l4DstPort = 4791;
        k.dscp = 26;
        k.ecn = 2;
        k.roce = true;
        k.bthOpcode = opcode;
        return k;
    }

    @Test
    void shouldReturnHighestPriorityRuleWhenSeveralTernaryRulesMatch() {
        final AclTable acl = new AclTable(List.of(
                new AclRule("T|any", 1).action(AclAction.FORWARD),
                new AclRule("T|cnp", 50).bthOpcode(0x81).action(AclAction.TRAP),
                new AclRule("T|rdma", 40)
                        .ipProtocol(17)
                        .l4DstPort(4791, 4791)
                        .dscp(26)
                        .action(AclAction.COPY)
                        .setTc(3),
                new AclRule("T|port9", 90).inPorts(9).action(AclAction.DROP),
                new AclRule("T|range", 30).l4SrcPort(49152, 65535).ecn(3).action(AclAction.DROP)));
        assertThat(acl.name(0)).isEqualTo("T|port9");
        assertThat(acl.name(acl.match(roce(1, 0x04)))).isEqualTo("T|rdma");
        assertThat(acl.setTc(acl.match(roce(1, 0x04)))).isEqualTo(3);
        assertThat(acl.name(acl.match(roce(1, 0x81)))).isEqualTo("T|cnp");
        assertThat(acl.name(acl.match(roce(9, 0x04)))).isEqualTo("T|port9");
        final AclKey plain = roce(2, 0);
        plain.roce = false;
        plain.l4DstPort = 80;
        assertThat(acl.name(acl.match(plain))).isEqualTo("T|any");
        plain.ecn = 3;
        assertThat(acl.name(acl.match(plain))).as("source port range and ECN").isEqualTo("T|range");
    }

    @Test
    void shouldMatchIpv6PrefixesAndNotIpv4WhenRuleIsIpv6() {
        final AclTable acl = new AclTable(List.of(
                new AclRule("T|v6", 10).dstIpv6(0x2001_0db8_0000_0000L, 0, 32).action(AclAction.DROP),
                new AclRule("T|v4", 5).dstIpv4(0xc0a8_0000, 16).action(AclAction.DROP)));
        final AclKey k = new AclKey();
        k.ipVersion = 6;
        k.dstHigh = 0x2001_0db8_0001_0000L;
        k.dstLow = 5;
        assertThat(acl.name(acl.match(k))).isEqualTo("T|v6");
        k.dstHigh = 0x2001_0db9_0000_0000L;
        assertThat(acl.match(k)).isEqualTo(AclTable.NO_MATCH);
        final AclKey v4 = roce(0, 4);
        assertThat(acl.name(acl.match(v4))).isEqualTo("T|v4");
    }

    @Test
    void shouldPreferDot1pMapForTaggedFramesAndDscpMapOtherwise() {
        final QosMaps qos = new QosMaps(4);
        final int[] dscp = new int[64];
        dscp[26] = 3;
        final int[] dot1p = {0, 1, 2, 3, 4, 5, 6, 7};
        qos.dscpToTc(1, dscp);
        qos.dot1pToTc(1, dot1p);
        assertThat(qos.trafficClass(1, true, 5, true, 26)).isEqualTo(5);
        assertThat(qos.trafficClass(1, false, 0, true, 26)).isEqualTo(3);
        assertThat(qos.trafficClass(2, false, 0, true, 26)).as("no map: TC 0").isZero();
        assertThat(qos.queue(2, 12)).as("default queue: TC capped at 7").isEqualTo(7);
        final int[] pg = new int[16];
        pg[3] = 3;
        qos.tcToPg(1, pg);
        assertThat(qos.priorityGroup(1, 3)).isEqualTo(3);
        assertThat(qos.priorityGroup(1, 4)).isZero();
    }
}
