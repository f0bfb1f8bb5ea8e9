package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.mac;
import static io.asicemu.pipeline.Frames.u16;
import static io.asicemu.pipeline.Frames.u32;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.counter.PuntReason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** L3 stages on in-memory ports: ACL priority and actions, QoS maps, TTL and MTU, ARP resolution by the switch. */
@Timeout(30)
class RoutingStagesTest {
    static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up", "mtu": "1500"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up", "mtu": "1000"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {},
                       "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}, "Ethernet4|2001:db8:2::1/64": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "46": "5"}},
         "TC_TO_QUEUE_MAP": {"AZURE": {"3": "6", "5": "5"}},
         "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE"},
                          "Ethernet4": {"tc_to_queue_map": "AZURE"}},
         "ACL_TABLE": {"DATAACL": {"type": "L3", "stage": "ingress", "ports": ["Ethernet0"]}},
         "ACL_RULE": {
           "DATAACL|DENY_NET": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "DST_IP": "192.168.7.0/24"},
           "DATAACL|ALLOW_HOST": {"PRIORITY": "20", "PACKET_ACTION": "FORWARD", "DST_IP": "192.168.7.9/32",
                                  "SET_DSCP": "46"},
           "DATAACL|TRAP_SSH": {"PRIORITY": "30", "PACKET_ACTION": "TRAP", "IP_PROTOCOL": "17",
                                "L4_DST_PORT": "22"},
           "DATAACL|ROCE_SEND": {"PRIORITY": "5", "PACKET_ACTION": "COPY", "BTH_OPCODE": "4"}}}
        """;
    private static final long NEXT_HOP = 0x0200_0000_0202L;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);

    @AfterEach
    void close() {
        sw.close();
    }

    private static byte[] toHost(final int dst, final int ttl, final int payload) {
        return Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), dst, ttl, payload);
    }

    @Test
    void shouldRouteRewritingMacsAndTtlWithValidChecksumWhenRouteMatches() {
        sw.send("Ethernet0", toHost(ip(192, 168, 1, 1), 64, 100));
        sw.run();
        final List<byte[]> out = sw.take("Ethernet4");
        assertThat(out).hasSize(1);
        final byte[] f = out.get(0);
        assertThat(mac(f, 0)).isEqualTo(NEXT_HOP);
        assertThat(mac(f, 6)).isEqualTo(ROUTER);
        assertThat(f[14 + 8] & 0xff).isEqualTo(63);
        long sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += u16(f, i);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        assertThat(sum).as("IPv4 header checksum verifies").isEqualTo(0xffff);
    }

    @Test
    void shouldDropAndCountWhenIpv4TotalLengthRunsBeyondTheFrame() {
        final byte[] whole = toHost(ip(192, 168, 1, 1), 64, 100);
        final byte[] truncated = java.util.Arrays.copyOf(whole, 40); // header intact, total length says 128
        sw.send("Ethernet0", truncated);
        sw.run();
        assertThat(sw.take("Ethernet4")).isEmpty();
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_IP_HEADER_ERROR"))
                .isEqualTo(1);
    }

    @Test
    void shouldApplyHighestPriorityAclRuleWhenSeveralMatch() {
        sw.send("Ethernet0", toHost(ip(192, 168, 7, 9), 64, 100));
        sw.send("Ethernet0", toHost(ip(192, 168, 7, 10), 64, 100));
        sw.run();
        final List<byte[]> out = sw.take("Ethernet4");
        assertThat(out).hasSize(1);
        assertThat(u32(out.get(0), 30)).isEqualTo(ip(192, 168, 7, 9));
        assertThat((out.get(0)[15] & 0xff) >>> 2)
                .as("SET_DSCP of the FORWARD rule")
                .isEqualTo(46);
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_ACL_ANY")).isEqualTo(1);
        final var acl = sw.pipeline.control().counters().aclRules();
        assertThat(acl.get("DATAACL|ALLOW_HOST").get("Packets")).isEqualTo(1);
        assertThat(acl.get("DATAACL|DENY_NET").get("Packets")).isEqualTo(1);
        assertThat(acl.get("DATAACL|TRAP_SSH").get("Packets")).isZero();
    }

    @Test
    void shouldPuntWithIngressPortAndReasonWhenAclTraps() {
        final byte[] ssh = Frames.udp4(
                Frames.builder()
                        .macs(ROUTER, HOST_A)
                        .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                        .udpPorts(40000, 22),
                20);
        sw.send("Ethernet0", ssh);
        sw.run();
        final List<int[]> punts = new ArrayList<>();
        sw.pipeline.control().cpuPort().poll((s, o, l, port, reason, ts) -> punts.add(new int[] {port, reason, l}), 10);
        assertThat(punts).hasSize(1);
        assertThat(punts.get(0)).containsExactly(0, PuntReason.ACL_TRAP.index(), ssh.length);
        assertThat(sw.take("Ethernet4")).isEmpty();
    }

    @Test
    void shouldCopyRoceSendToCpuAndStillForwardWhenAclCopies() {
        sw.send(
                "Ethernet0",
                Frames.roce4(
                        Frames.builder()
                                .macs(ROUTER, HOST_A)
                                .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                                .bth(4, 0x42, 1),
                        32));
        sw.run();
        assertThat(sw.take("Ethernet4")).hasSize(1);
        assertThat(sw.pipeline.control().cpuPort().pending()).isEqualTo(1);
        final int[] ttl = {0};
        sw.pipeline
                .control()
                .cpuPort()
                .poll(
                        (s, o, l, port, reason, ts) ->
                                ttl[0] = s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, o + 14 + 8) & 0xff,
                        1);
        assertThat(ttl[0]).as("the copy shows the packet as received").isEqualTo(64);
        assertThat(sw.counter("Ethernet0", "ASICEMU_HOSTIF_TRAP_TYPE_ACL_COPY")).isEqualTo(1);
    }

    @Test
    void shouldClassifyDscpToTcToQueueAndPgWhenPortHasQosMaps() {
        final byte[] af31 = Frames.udp4(
                Frames.builder()
                        .macs(ROUTER, HOST_A)
                        .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                        .dscp(26),
                100);
        sw.send("Ethernet0", af31);
        sw.send("Ethernet0", af31);
        sw.pipeline.agent().doWork();
        // The first frame went on the wire at once; the second waits in the queue TC_TO_QUEUE_MAP chose.
        assertThat(sw.pipeline.agent().trafficManager().queuedPackets(1, 6)).isEqualTo(1);
        final var snapshot = sw.pipeline.agent().trafficManager().newSnapshot();
        sw.pipeline.agent().trafficManager().snapshot(sw.clock.nowNs(), snapshot);
        assertThat(snapshot.pg(0, 3, io.asicemu.tm.counter.PgStat.PACKETS))
                .as("PG 3 saw both")
                .isEqualTo(2);
        sw.run();
        assertThat(sw.take("Ethernet4")).hasSize(2);
    }

    @Test
    void shouldDropWithReasonWhenTtlExpiresOrMtuIsExceeded() {
        sw.send("Ethernet0", toHost(ip(192, 168, 1, 1), 1, 100));
        sw.send("Ethernet0", toHost(ip(192, 168, 1, 1), 64, 1200));
        sw.send("Ethernet0", toHost(ip(192, 168, 1, 1), 64, 1600));
        sw.send("Ethernet0", toHost(ip(172, 16, 0, 1), 64, 10));
        sw.run();
        assertThat(sw.take("Ethernet4")).isEmpty();
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_TTL")).isEqualTo(1);
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_EXCEEDS_L3_MTU")).isEqualTo(1);
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_EXCEEDS_L2_MTU")).isEqualTo(1);
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_LPM4_MISS")).isEqualTo(1);
    }

    @Test
    void shouldResolveNextHopByArpThenForwardWhenNeighborIsUnknown() {
        sw.send("Ethernet0", toHost(ip(10, 0, 2, 7), 64, 100));
        sw.run();
        final List<byte[]> requests = sw.take("Ethernet4");
        assertThat(requests).hasSize(1);
        final byte[] request = requests.get(0);
        assertThat(mac(request, 0)).isEqualTo(0xffff_ffff_ffffL);
        assertThat(u16(request, 12)).isEqualTo(0x0806);
        assertThat(u16(request, 20)).as("ARP request").isEqualTo(1);
        assertThat(mac(request, 22)).isEqualTo(ROUTER);
        assertThat(u32(request, 28)).isEqualTo(ip(10, 0, 2, 1));
        assertThat(u32(request, 38)).isEqualTo(ip(10, 0, 2, 7));
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_UNRESOLVED_NEXT_HOP"))
                .isEqualTo(1);

        final long answerer = 0x0200_0000_0207L;
        sw.send("Ethernet4", Frames.arp(ROUTER, answerer, 2, answerer, ip(10, 0, 2, 7), ROUTER, ip(10, 0, 2, 1)));
        sw.run();
        sw.send("Ethernet0", toHost(ip(10, 0, 2, 7), 64, 100));
        sw.run();
        final List<byte[]> out = sw.take("Ethernet4");
        assertThat(out).hasSize(1);
        assertThat(mac(out.get(0), 0)).isEqualTo(answerer);
    }

    @Test
    void shouldAnnounceTheInterfaceAddressWithAGratuitousArpWhenAPortComesUpOnlyWhenAsked() {
        sw.port("Ethernet4").linkUp(false);
        sw.run();
        sw.port("Ethernet4").linkUp(true);
        sw.run();
        assertThat(sw.take("Ethernet4"))
                .as("replay's default: a port coming up sends nothing")
                .isEmpty();

        sw.pipeline.agent().announceOnLinkUp(true);
        sw.port("Ethernet4").linkUp(false);
        sw.run();
        sw.port("Ethernet4").linkUp(true);
        sw.run();
        final List<byte[]> announcements = sw.take("Ethernet4");
        assertThat(announcements).hasSize(1);
        final byte[] garp = announcements.get(0);
        assertThat(mac(garp, 0)).as("broadcast").isEqualTo(0xffff_ffff_ffffL);
        assertThat(mac(garp, 6)).isEqualTo(ROUTER);
        assertThat(u16(garp, 12)).isEqualTo(0x0806);
        assertThat(u16(garp, 20)).as("a request, as Linux's arp_notify sends").isEqualTo(1);
        assertThat(mac(garp, 22)).as("sender MAC").isEqualTo(ROUTER);
        assertThat(u32(garp, 28)).as("sender IP: the interface's").isEqualTo(ip(10, 0, 2, 1));
        assertThat(u32(garp, 38)).as("target IP = sender IP (gratuitous)").isEqualTo(ip(10, 0, 2, 1));
        assertThat(sw.take("Ethernet0"))
                .as("only the port that came up announces")
                .isEmpty();
        assertThat(sw.counter("Ethernet4", "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS"))
                .as("counted as the port's broadcast output")
                .isEqualTo(1);
    }

    @Test
    void shouldAskAgainAtOnceWhenTheNextHopsPortComesUpRatherThanAfterTheRetryGap() {
        sw.port("Ethernet4").linkUp(false);
        sw.run();
        sw.send("Ethernet0", toHost(ip(10, 0, 2, 7), 64, 100));
        sw.run();
        assertThat(sw.take("Ethernet4"))
                .as("the request is lost on the down port")
                .isEmpty();
        sw.send("Ethernet0", toHost(ip(10, 0, 2, 7), 64, 100));
        sw.run();
        assertThat(sw.take("Ethernet4"))
                .as("within the retry gap: no second request")
                .isEmpty();

        sw.port("Ethernet4").linkUp(true);
        sw.run();
        sw.send("Ethernet0", toHost(ip(10, 0, 2, 7), 64, 100));
        sw.run();
        final List<byte[]> requests = sw.take("Ethernet4");
        assertThat(requests)
                .as("asked again as soon as the port is up, same virtual instant")
                .hasSize(1);
        assertThat(u16(requests.get(0), 12)).isEqualTo(0x0806);
        assertThat(u32(requests.get(0), 38)).isEqualTo(ip(10, 0, 2, 7));
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_UNRESOLVED_NEXT_HOP"))
                .isEqualTo(3);
    }

    @Test
    void shouldSendNeighborSolicitationWhenIpv6DestinationIsUnresolved() {
        final byte[] v6 = Frames.udp4(
                Frames.builder().macs(ROUTER, HOST_A).ipv6(0x2001_0db8_0001_0000L, 2, 0x2001_0db8_0002_0000L, 0x77),
                10);
        sw.send("Ethernet0", v6);
        sw.run();
        // Ethernet0 has no IPv6 subnet, but the route to 2001:db8:2::/64 is connected on Ethernet4.
        final List<byte[]> out = sw.take("Ethernet4");
        assertThat(out).hasSize(1);
        final byte[] ns = out.get(0);
        assertThat(mac(ns, 0)).isEqualTo(0x3333_ff00_0077L);
        assertThat(ns[14 + 40] & 0xff).as("ICMPv6 type NS").isEqualTo(135);
        assertThat(ns[14 + 7] & 0xff).as("hop limit").isEqualTo(255);
        assertThat(u32(ns, 14 + 40 + 20)).as("target low word").isEqualTo(0x77);
    }
}
