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
import io.asicemu.pipeline.table.AclAction;
import io.asicemu.pipeline.table.AclRule;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ACL_TABLE/ACL_RULE changes on a running switch ({@link io.asicemu.pipeline.config.SwitchConfig#reconfigure}): the configuration's ingress
 * ACL is replaced whole, as a P4Runtime Write replaces it, in the same command as the other changes; once a controller
 * replaced the configuration's ACL, a config change of it is refused naming the key rather than wiping the
 * controller's rules.
 */
@Timeout(60)
class AclReconfigureTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"10.9.0.0/16": {"nexthop": "10.0.2.2"}},
         "ACL_TABLE": {"T": {"ports": "Ethernet0", "stage": "ingress"}},
         "ACL_RULE": {"T|DROP_ONE": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "DST_IP": "10.9.0.1/32"}}}""";

    private static ConfigDb with(
            final ConfigDb db, final String table, final String key, final Map<String, String> fields) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.computeIfAbsent(table, x -> new LinkedHashMap<>()).put(key, new LinkedHashMap<>(fields));
        return new ConfigDb(t);
    }

    private static ConfigDb without(final ConfigDb db, final String table, final String key) {
        final Map<String, Map<String, Map<String, String>>> t = RunningConfig.mutableCopy(db);
        t.get(table).remove(key);
        return new ConfigDb(t);
    }

    private static boolean forwards(final SwitchFixture sw, final int destination) {
        sw.send("Ethernet0", Frames.udp4(Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), destination), 64));
        sw.run();
        return !sw.take("Ethernet4").isEmpty();
    }

    @Test
    void shouldAddChangeAndRemoveConfigRulesAtRunTime() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(forwards(sw, ip(10, 9, 0, 1))).isFalse();
            assertThat(forwards(sw, ip(10, 9, 0, 2))).isTrue();

            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "ACL_RULE",
                            "T|DROP_TWO",
                            Map.of("PRIORITY", "20", "PACKET_ACTION", "DROP", "DST_IP", "10.9.0.2/32")));
            sw.run();
            assertThat(forwards(sw, ip(10, 9, 0, 2))).as("a rule added").isFalse();
            assertThat(control.counters().aclRules()).containsKey("T|DROP_TWO");

            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "ACL_RULE",
                            "T|DROP_ONE",
                            Map.of("PRIORITY", "10", "PACKET_ACTION", "FORWARD", "DST_IP", "10.9.0.1/32")));
            sw.run();
            assertThat(forwards(sw, ip(10, 9, 0, 1))).as("a rule changed").isTrue();

            SwitchConfig.of(control)
                    .reconfigure(without(SwitchConfig.of(control).runningConfig(), "ACL_RULE", "T|DROP_TWO"));
            sw.run();
            assertThat(forwards(sw, ip(10, 9, 0, 2))).as("a rule removed").isTrue();
            assertThat(SwitchConfig.of(control).runningConfig().table("ACL_RULE"))
                    .containsOnlyKeys("T|DROP_ONE");
        }
    }

    @Test
    void shouldRefuseAConfigAclChangeOnceAControllerReplacedTheAclAndChangeNothing() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            final AclRule rule = new AclRule("controller_1", 5);
            rule.dstIpv4(ip(10, 9, 0, 3), 32);
            rule.action(AclAction.DROP);
            control.batch().replaceAcl(List.of(rule)).commit();
            sw.run();
            assertThat(forwards(sw, ip(10, 9, 0, 3))).isFalse();
            final ConfigDb before = SwitchConfig.of(control).runningConfig();
            final ConfigDb next = with(
                    with(before, "STATIC_ROUTE", "10.8.0.0/16", Map.of("nexthop", "10.0.2.2")),
                    "ACL_RULE",
                    "T|DROP_TWO",
                    Map.of("PRIORITY", "20", "PACKET_ACTION", "DROP", "DST_IP", "10.9.0.2/32"));
            assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(next))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("ACL_RULE|T|DROP_TWO|: refused by the control model: FAILED_PRECONDITION: a controller"
                            + " (P4Runtime) replaced the configuration's ingress ACL: its rules are the controller's"
                            + " now (change them there, or reload the config)");
            sw.run();
            assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(before);
            assertThat(forwards(sw, ip(10, 9, 0, 3)))
                    .as("the controller's rule stays")
                    .isFalse();
            assertThat(forwards(sw, ip(10, 8, 0, 1)))
                    .as("nor did the route in the same change")
                    .isFalse();
            // Changes elsewhere still go through while the ACL part is the same.
            SwitchConfig.of(control)
                    .reconfigure(with(before, "STATIC_ROUTE", "10.8.0.0/16", Map.of("nexthop", "10.0.2.2")));
            sw.run();
            assertThat(forwards(sw, ip(10, 8, 0, 1))).isTrue();
        }
    }
}
