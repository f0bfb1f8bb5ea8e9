package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.table.AclAction;
import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclMirrorSessions;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.testsupport.Rfc2698Oracle;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Egress ACL, ACL meters (RFC 2698), CoPP meters and ACL mirror through the whole pipeline on in-memory ports. */
@Timeout(60)
class AclMeterMirrorEgressTest {
    private static final long ROUTER = 0x02_00_00_00_00_01L;
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"},
                  "Ethernet12": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}}}
        """;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);
    private final PipelineControl control = sw.pipeline.control();
    private final int eth4 = control.portIndex("Ethernet4");
    private final int eth8 = control.portIndex("Ethernet8");
    private final int eth12 = control.portIndex("Ethernet12");

    @BeforeEach
    void program() {
        final int rif4 = control.configRouterInterfaceCount();
        final int rif8 = rif4 + 1;
        control.batch()
                .writeRouterInterface(rif4, "Ethernet4", 0x02_00_00_00_aa_04L, true)
                .writeRouterInterface(rif8, "Ethernet8", 0x02_00_00_00_aa_08L, true)
                .addNeighbor(rif4, IpPrefix.address("10.0.2.2"), 0x0200_0000_0202L)
                .addNeighbor(rif8, IpPrefix.address("10.0.3.2"), 0x0200_0000_0302L)
                .writeNextHop(1, rif4, IpPrefix.address("10.0.2.2"), true)
                .writeNextHop(2, rif8, IpPrefix.address("10.0.3.2"), true)
                .writeRoute(IpPrefix.parse("192.168.4.0/24"), 1, false, true)
                .writeRoute(IpPrefix.parse("192.168.8.0/24"), 2, false, true)
                .commit();
        sw.pipeline.agent().doWork();
    }

    @AfterEach
    void close() {
        sw.close();
    }

    private static byte[] udp(final int dst, final int dscp) {
        return Frames.udp4(
                Frames.builder()
                        .macs(ROUTER, HOST_A)
                        .ipv4(ip(10, 0, 1, 2), dst)
                        .dscp(dscp)
                        .udpPorts(1000, 2000),
                100);
    }

    @Test
    void shouldDropExactlyThePacketsLeavingTheFilteredPortAndCountThemWhenEgressAclDrops() {
        control.batch()
                .replaceEgressAcl(List.of(
                        new AclEgressRule("P4RT|acl_egress_table|keep-ef", 20)
                                .outPorts(eth8)
                                .dscp(46, 0x3f),
                        new AclEgressRule("P4RT|acl_egress_table|drop-udp", 10)
                                .outPorts(eth8)
                                .ipProtocol(17, 0xff)
                                .drop(true)))
                .commit();
        for (int i = 0; i < 7; i++) {
            sw.send("Ethernet0", udp(ip(192, 168, 4, 1), 0));
            sw.send("Ethernet0", udp(ip(192, 168, 8, 1), 0));
        }
        sw.send("Ethernet0", udp(ip(192, 168, 8, 1), 46));
        sw.run();
        assertThat(sw.take("Ethernet4")).as("other port untouched").hasSize(7);
        assertThat(sw.take("Ethernet8"))
                .as("only the higher-priority EF packet")
                .hasSize(1);
        final var acl = control.counters().aclRules();
        assertThat(acl.get("P4RT|acl_egress_table|drop-udp")).containsEntry("Packets", 7L);
        assertThat(acl.get("P4RT|acl_egress_table|keep-ef")).containsEntry("Packets", 1L);
        assertThat(sw.pipeline.agent().counters().drops(eth8, DropReason.EGRESS_ACL_DROP))
                .isEqualTo(7);
        assertThat(sw.pipeline.agent().counters().drops(DropReason.EGRESS_ACL_DROP))
                .isEqualTo(7);
        control.batch().replaceEgressAcl(List.of()).commit();
        sw.send("Ethernet0", udp(ip(192, 168, 8, 1), 0));
        sw.run();
        assertThat(sw.take("Ethernet8"))
                .as("an empty egress ACL lets it through")
                .hasSize(1);
    }

    @Test
    void shouldPassWhatRfc2698PredictsWhenAclRuleHasTrTcmMeter() {
        final long cir = 100_000;
        final long cbs = 1_000;
        final long pir = 200_000;
        final long pbs = 2_000;
        control.batch()
                .replaceAcl(List.of(new AclRule("P4RT|acl_ingress_table|metered", 10)
                        .ipProtocol(17)
                        .dstIpv4(ip(192, 168, 4, 0), 24)
                        .meter(new AclMeterConfig(cir, cbs, pir, pbs))))
                .commit();
        final byte[] frame = udp(ip(192, 168, 4, 1), 0);
        final Rfc2698Oracle oracle = new Rfc2698Oracle(cir, cbs, pir, pbs);
        final int[] expected = new int[3];
        // A burst of 30 frames at one instant, then one frame every 500 µs (above PIR) for 0.2 s.
        final long startNs = sw.clock.nowNs() + 1_000_000;
        sw.clock.nowNs(startNs);
        for (int i = 0; i < 30; i++) {
            sw.send("Ethernet0", frame);
            expected[oracle.color(frame.length, startNs)]++;
        }
        sw.run();
        assertThat(sw.take("Ethernet4").size())
                .as("burst: floor(PBS / B) frames pass")
                .isEqualTo((int) (pbs / frame.length));
        int forwarded = 0;
        for (int i = 1; i <= 400; i++) {
            final long t = startNs + i * 500_000L;
            sw.clock.nowNs(t);
            sw.send("Ethernet0", frame);
            expected[oracle.color(frame.length, t)]++;
            sw.run();
            forwarded += sw.take("Ethernet4").size();
        }
        final int passed = expected[Rfc2698Oracle.GREEN] + expected[Rfc2698Oracle.YELLOW];
        assertThat(forwarded).isEqualTo(passed - (int) (pbs / frame.length));
        // Above PIR, the long-run pass rate is PIR: 0.2 s at 200 kB/s of 142-byte frames is 281 frames (+ bucket).
        assertThat(forwarded).isBetween(281, 282);
        assertThat(sw.pipeline.agent().counters().drops(DropReason.ACL_METER_RED))
                .isEqualTo(expected[Rfc2698Oracle.RED]);
        assertThat(expected[Rfc2698Oracle.YELLOW])
                .as("the test exercises all colours")
                .isPositive();
        assertThat(expected[Rfc2698Oracle.RED]).isPositive();
        assertThat(control.counters().aclRules().get("P4RT|acl_ingress_table|metered"))
                .containsEntry("Packets", 430L);
    }

    @Test
    void shouldCapPuntRateWhenCpuQueueHasCoppMeter() {
        final AclMeterConfig[] copp = new AclMeterConfig[ForwardingTables.CPU_QUEUES];
        copp[3] = new AclMeterConfig(100, 5, 100, 5);
        control.batch()
                .replaceAcl(List.of(new AclRule("P4RT|acl_ingress_table|trap", 10)
                        .ipProtocol(17)
                        .action(AclAction.TRAP)
                        .cpuQueue(3)))
                .coppMeters(copp)
                .commit();
        final Rfc2698Oracle oracle = new Rfc2698Oracle(100, 5, 100, 5);
        int expectedPunts = 0;
        final byte[] frame = udp(ip(192, 168, 4, 1), 0);
        final long startNs = sw.clock.nowNs() + 1_000_000;
        for (int i = 0; i < 300; i++) { // 1000 packets/s offered for 0.3 s
            final long t = startNs + i * 1_000_000L;
            sw.clock.nowNs(t);
            sw.send("Ethernet0", frame);
            if (oracle.color(1, t) != Rfc2698Oracle.RED) {
                expectedPunts++;
            }
            sw.run();
        }
        assertThat(control.cpuPort().pending()).isEqualTo(expectedPunts);
        assertThat(expectedPunts).as("5 of burst + 100/s over 0.299 s").isEqualTo(5 + 29);
        assertThat(sw.pipeline.agent().counters().drops(DropReason.COPP_METER_RED))
                .isEqualTo(300 - expectedPunts);
    }

    @Test
    void shouldDeliverTruncatedCopyOnSessionPortWhileOriginalForwardsWhenAclMirrors() {
        control.batch()
                .replaceMirrorSessions(Map.of(
                        5,
                        new AclMirrorSessions.Session(new int[] {eth12}, 64),
                        6,
                        new AclMirrorSessions.Session(new int[] {eth12}, 0)))
                .replaceAcl(List.of(
                        new AclRule("P4RT|acl_ingress_table|mirror-4", 10)
                                .dstIpv4(ip(192, 168, 4, 0), 24)
                                .mirror(5),
                        new AclRule("P4RT|acl_ingress_table|mirror-8", 10)
                                .dstIpv4(ip(192, 168, 8, 0), 24)
                                .mirror(6)))
                .commit();
        final byte[] frame = udp(ip(192, 168, 4, 1), 0);
        sw.send("Ethernet0", frame);
        sw.run();
        final List<byte[]> routed = sw.take("Ethernet4");
        final List<byte[]> copies = sw.take("Ethernet12");
        assertThat(routed).as("original still forwarded").hasSize(1);
        assertThat(routed.get(0)[22] & 0xff).as("routed: TTL decremented").isEqualTo((frame[22] & 0xff) - 1);
        assertThat(copies).hasSize(1);
        assertThat(copies.get(0)).as("copy as received, cut to 64 bytes").isEqualTo(Arrays.copyOf(frame, 64));
        final byte[] other = udp(ip(192, 168, 8, 1), 0);
        sw.send("Ethernet0", other);
        sw.run();
        assertThat(sw.take("Ethernet8")).hasSize(1);
        assertThat(sw.take("Ethernet12")).containsExactly(other);
    }

    @Test
    void shouldRefuseMeterWhenPeakRateIsBelowCommittedOrBurstIsZero() {
        assertThatThrownBy(() -> new AclMeterConfig(200, 10, 100, 10)).hasMessageContaining("pir");
        assertThatThrownBy(() -> new AclMeterConfig(100, 0, 100, 10)).hasMessageContaining("burst");
        assertThatThrownBy(() -> new AclMeterConfig(-1, 10, 100, 10)).hasMessageContaining("negative");
    }
}
