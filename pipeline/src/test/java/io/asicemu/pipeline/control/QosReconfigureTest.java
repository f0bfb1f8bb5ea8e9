package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.config.RunningConfig;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * QoS map changes on a running switch ({@link io.asicemu.pipeline.config.SwitchConfig#reconfigure}): DSCP_TO_TC_MAP, DOT1P_TO_TC_MAP,
 * TC_TO_QUEUE_MAP and the PORT_QOS_MAP fields naming them replace the configuration's maps in one command, under the
 * entries a controller wrote; TC → PG (the traffic manager's PGs) still needs a reload.
 */
@Timeout(60)
class QosReconfigureTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "DSCP_TO_TC_MAP": {"M": {"46": "5"}},
         "TC_TO_PRIORITY_GROUP_MAP": {"P": {"5": "0"}},
         "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "M", "tc_to_pg_map": "P"}}}""";

    private static ConfigDb with(
            final ConfigDb db, final String table, final String key, final Map<String, String> fields) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.computeIfAbsent(table, x -> new LinkedHashMap<>()).put(key, new LinkedHashMap<>(fields));
        return new ConfigDb(t);
    }

    /** Sends one frame with this DSCP from Ethernet0; returns the Ethernet4 queue it was counted in, or -1. */
    private static int queueOf(final SwitchFixture sw, final int dscp) throws Exception {
        final TmCountersSnapshot before = tm(sw);
        sw.send(
                "Ethernet0",
                Frames.udp4(
                        Frames.builder()
                                .macs(ROUTER, HOST_A)
                                .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                                .dscp(dscp),
                        100));
        sw.run();
        sw.take("Ethernet4");
        final TmCountersSnapshot after = tm(sw);
        final int port = sw.pipeline.control().portIndex("Ethernet4");
        for (int q = 0; q < 8; q++) {
            if (after.queue(port, q, QueueStat.PACKETS) != before.queue(port, q, QueueStat.PACKETS)) {
                return q;
            }
        }
        return -1;
    }

    private static TmCountersSnapshot tm(final SwitchFixture sw) throws Exception {
        final var future = sw.pipeline.control().trafficManagerCounters();
        sw.pipeline.agent().doWork();
        return future.get();
    }

    @Test
    void shouldChangeTheMapsAtRunTimeUnderTheEntriesAControllerWrote() throws Exception {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(queueOf(sw, 46)).as("DSCP 46 → TC 5 → queue 5").isEqualTo(5);
            control.batch().setKnob(RuntimeKnob.DSCP_TO_TC, 10, 2).commit();
            assertThat(queueOf(sw, 10)).as("a controller's entry").isEqualTo(2);

            ConfigDb next =
                    with(SwitchConfig.of(control).runningConfig(), "DSCP_TO_TC_MAP", "M", Map.of("46", "3", "10", "6"));
            next = with(next, "TC_TO_QUEUE_MAP", "Q", Map.of("3", "1", "2", "2", "6", "6"));
            // TC → queue is the egress port's map
            next = with(next, "PORT_QOS_MAP", "Ethernet4", Map.of("tc_to_queue_map", "Q"));
            SwitchConfig.of(control).reconfigure(next);
            sw.run();
            assertThat(queueOf(sw, 46)).as("DSCP 46 → TC 3 → queue 1").isEqualTo(1);
            assertThat(queueOf(sw, 10))
                    .as("the controller's entry stays on top")
                    .isEqualTo(2);
            control.batch().setKnob(RuntimeKnob.DSCP_TO_TC, 10, -1).commit();
            assertThat(queueOf(sw, 10))
                    .as("entry deleted: the new configured map")
                    .isEqualTo(6);
        }
    }

    @Test
    void shouldRefuseATcToPgChangeAsNeedingAReload() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            final ConfigDb before = SwitchConfig.of(control).runningConfig();
            assertThatThrownBy(() -> SwitchConfig.of(control)
                            .reconfigure(with(before, "TC_TO_PRIORITY_GROUP_MAP", "P", Map.of("5", "3"))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("TC_TO_PRIORITY_GROUP_MAP|P|5: needs config reload");
            assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(before);
        }
    }
}
