package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The exporter's output parses with the official Python client's text parser ({@code prometheus_client.parser}) and
 * agrees with COUNTERS_DB.
 */
class PrometheusMetricsTest {
    @Test
    void outputParsesWithTheOfficialParserAndAgreesWithCountersDb() throws Exception {
        final SnapshotCache cache = new SnapshotCache(() -> SampleSnapshots.sample(3, 0), Duration.ofSeconds(10));
        final SonicDatabases dbs = cache.databases();
        try (PrometheusMetrics metrics =
                PrometheusMetrics.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cache)) {
            final String script = String.join(
                    "\n",
                    "import urllib.request",
                    "from prometheus_client.parser import text_string_to_metric_families",
                    "text = urllib.request.urlopen('http://127.0.0.1:" + metrics.port() + "/metrics').read().decode()",
                    "want = {",
                    "  ('asicemu_port_if_in_ucast_pkts_total', (('port','Ethernet4'),)),",
                    "  ('asicemu_port_pfc_rx_pkts_total', (('port','Ethernet0'),('priority','3'))),",
                    "  ('asicemu_queue_wred_ecn_marked_packets_total', (('port','Ethernet4'),('queue','3'))),",
                    "  ('asicemu_queue_shared_watermark_bytes', (('port','Ethernet0'),('queue','4'))),",
                    "  ('asicemu_pfcwd_deadlock_detected_total', (('port','Ethernet4'),('queue','3'))),",
                    "  ('asicemu_pfcwd_stormed', (('port','Ethernet4'),('queue','3'))),",
                    "  ('asicemu_pg_xoff_room_watermark_bytes', (('pg','3'),('port','Ethernet0'))),",
                    "  ('asicemu_port_drops_total', (('port','Ethernet0'),('reason','SAI_IN_DROP_REASON_TTL'))),",
                    "  ('asicemu_port_oper_up', (('port','Ethernet4'),)),",
                    "  ('asicemu_acl_rule_packets_total', (('rule','RULE_1'),('table','DATAACL'))),",
                    "  ('asicemu_ars_flowlet_reassignments_total', (('group','0'),)),",
                    "  ('asicemu_ars_member_bytes_total', (('group','0'),('member','1'),('port','Ethernet4'))),",
                    "}",
                    "families = 0",
                    "jvm = False",
                    "for family in text_string_to_metric_families(text):",
                    "    families += 1",
                    "    jvm = jvm or family.name.startswith('jvm_')",
                    "    for s in family.samples:",
                    "        key = (s.name, tuple(sorted(s.labels.items())))",
                    "        if key in want:",
                    "            print(s.name, ','.join(v for k, v in sorted(s.labels.items())), int(s.value))",
                    "print('families', families, 'jvm', jvm)");
            final String out = OperatorRedisServerTest.run(List.of("/usr/bin/python3", "-c", script));
            final Map<String, Map<String, String>> counters = dbs.db(SonicDatabases.COUNTERS_DB);
            final String port4 = SonicDatabases.portOid(1);
            final String port0 = SonicDatabases.portOid(0);
            final String q43 = SonicDatabases.queueOid(1, 3);
            assertThat(out.lines().toList())
                    .contains(
                            "asicemu_port_if_in_ucast_pkts_total Ethernet4 "
                                    + counters.get("COUNTERS:" + port4).get("SAI_PORT_STAT_IF_IN_UCAST_PKTS"),
                            "asicemu_port_pfc_rx_pkts_total Ethernet0,3 "
                                    + counters.get("COUNTERS:" + port0).get("SAI_PORT_STAT_PFC_3_RX_PKTS"),
                            "asicemu_queue_wred_ecn_marked_packets_total Ethernet4,3 "
                                    + counters.get("COUNTERS:" + q43).get("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"),
                            "asicemu_queue_shared_watermark_bytes Ethernet0,4 "
                                    + counters.get("USER_WATERMARKS:" + SonicDatabases.queueOid(0, 4))
                                            .get("SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"),
                            "asicemu_pfcwd_deadlock_detected_total Ethernet4,3 "
                                    + counters.get("COUNTERS:" + q43).get("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"),
                            "asicemu_pfcwd_stormed Ethernet4,3 1",
                            "asicemu_pg_xoff_room_watermark_bytes 3,Ethernet0 "
                                    + counters.get("COUNTERS:" + SonicDatabases.pgOid(0, 3))
                                            .get("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"),
                            "asicemu_port_drops_total Ethernet0,SAI_IN_DROP_REASON_TTL "
                                    + counters.get("COUNTERS:" + port0).get("SAI_IN_DROP_REASON_TTL"),
                            "asicemu_port_oper_up Ethernet4 0",
                            "asicemu_acl_rule_packets_total RULE_1,DATAACL "
                                    + counters.get("COUNTERS:DATAACL:RULE_1").get("Packets"),
                            "asicemu_ars_flowlet_reassignments_total 0 9",
                            "asicemu_ars_member_bytes_total 0,1,Ethernet4 1800");
            assertThat(out).contains("jvm True");
        }
    }
}
