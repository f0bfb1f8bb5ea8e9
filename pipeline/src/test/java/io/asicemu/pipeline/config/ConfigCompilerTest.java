package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.table.PipelineSizing;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigCompilerTest {
    private static final String BASE = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up", "mtu": "%s"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "%s"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "%s"}},
         "ACL_TABLE": {"T": {"ports": ["Ethernet0"]}},
         "ACL_RULE": {"T|R": {"PRIORITY": "1", "%s": "1"}}}
        """;

    private static String config(final String mtu, final String mac, final String nexthop, final String aclField) {
        return BASE.formatted(mtu, mac, nexthop, aclField);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "99999;02:00:00:00:02:02;10.0.2.2;DSCP;PORT;Ethernet4;mtu",
                "9100;02:00:00:00:02;10.0.2.2;DSCP;NEIGH;Ethernet4|10.0.2.2;neigh",
                "9100;02:00:00:00:02:02;10.9.9.9;DSCP;STATIC_ROUTE;192.168.0.0/16;nexthop",
                "9100;02:00:00:00:02:02;10.0.2.2;COLOUR;ACL_RULE;T|R;COLOUR"
            })
    void shouldNameTableKeyAndFieldWhenConfigIsRefused(
            final String mtu,
            final String mac,
            final String nexthop,
            final String aclField,
            final String table,
            final String key,
            final String field) {
        assertThatThrownBy(() -> ConfigCompiler.compile(
                        ConfigDb.parse(config(mtu, mac, nexthop, aclField)), PipelineSizing.defaults(), Map.of()))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.table()).isEqualTo(table);
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).startsWith(table + "|" + key + "|" + field + ": ");
                });
    }

    @Test
    void shouldRejectOtherModulesTablesWithTheirTableKeyAndField() {
        final String json = """
            {"PORT": {"Ethernet0": {"speed": "10000"}},
             "WRED_PROFILE": {"AZURE": {"green_min_threshold": "200", "green_max_threshold": "100"}},
             "SWITCH_HASH": {"GLOBAL": {"ecmp_hash_algorithm": "MD5"}}}""";
        assertThatThrownBy(() -> ConfigCompiler.compile(ConfigDb.parse(json), PipelineSizing.defaults(), Map.of()))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.table()).isIn("WRED_PROFILE", "SWITCH_HASH"));
    }

    @Test
    void shouldKeepForwardingWithOldConfigWhenNewConfigIsRefused() {
        try (SwitchFixture sw = new SwitchFixture(config("9100", "02:00:00:00:02:02", "10.0.2.2", "DSCP"))) {
            final ConfigDb bad = ConfigDb.parse(config("9100", "02:00:00:00:02:02", "10.7.7.7", "DSCP"));
            assertThatThrownBy(() -> SwitchConfig.of(sw.pipeline.control()).applyConfig(bad))
                    .isInstanceOf(ConfigException.class);
            sw.send(
                    "Ethernet0",
                    Frames.udp4(
                            0x02_00_00_00_00_01L,
                            Frames.HOST_A,
                            Frames.ip(10, 0, 1, 2),
                            Frames.ip(192, 168, 1, 1),
                            64,
                            10));
            sw.run();
            assertThat(sw.take("Ethernet4")).hasSize(1);
            assertThat(SwitchConfig.of(sw.pipeline.control())
                            .config()
                            .table("STATIC_ROUTE")
                            .get("192.168.0.0/16")
                            .get("nexthop"))
                    .isEqualTo("10.0.2.2");
        }
    }

    @Test
    void shouldWeightGroupMembersWhenStaticRouteGivesWeights() {
        final String json = """
            {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                      "Ethernet4": {"speed": "10000", "admin_status": "up"},
                      "Ethernet8": {"speed": "10000", "admin_status": "up"}},
             "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                           "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}},
             "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                       "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"}},
             "STATIC_ROUTE": {"172.16.0.0/12": {"nexthop": "10.0.2.2,10.0.3.2", "weight": "3,1"}}}""";
        try (SwitchFixture sw = new SwitchFixture(json)) {
            int heavy = 0;
            int light = 0;
            for (int i = 0; i < 400; i++) {
                sw.send(
                        "Ethernet0",
                        Frames.udp4(
                                Frames.builder()
                                        .macs(0x02_00_00_00_00_01L, Frames.HOST_A)
                                        .ipv4(Frames.ip(10, 0, 1, 2), Frames.ip(172, 16, i >> 8, i & 0xff))
                                        .udpPorts(1000 + i, 2000),
                                10));
                if (i % 100 == 99) {
                    sw.run();
                    heavy += sw.take("Ethernet4").size();
                    light += sw.take("Ethernet8").size();
                }
            }
            assertThat(heavy + light).isEqualTo(400);
            assertThat(heavy)
                    .as("weight 3 vs 1 over 400 flows: %d / %d", heavy, light)
                    .isBetween(240, 360);
        }
    }

    @Test
    void shouldMapPortsToLinuxNamesLikeSonicVsUnlessOverridden() {
        final CompiledConfig c =
                ConfigCompiler.compile(ConfigDb.parse("""
            {"PORT": {"Ethernet8": {"speed": "1000"}, "Ethernet0": {"speed": "1000"}, "Ethernet4": {"speed": "1000"}}}
            """), PipelineSizing.defaults(), Map.of("Ethernet8", "veth9"));
        assertThat(c.setup().portNames()).containsExactly("Ethernet0", "Ethernet4", "Ethernet8");
        assertThat(c.naming().linuxName("Ethernet0")).isEqualTo("eth1");
        assertThat(c.naming().linuxName("Ethernet4")).isEqualTo("eth2");
        assertThat(c.naming().sonicName("veth9")).isEqualTo("Ethernet8");
    }

    @Test
    void shouldKeepRawConfigDbWithListFieldsJoinedWhenParsingJson() {
        final ConfigDb db = ConfigDb.parse("""
            {"ACL_TABLE": {"T": {"ports": ["Ethernet0", "Ethernet4"], "stage": "ingress"}}}""");
        assertThat(db.tables()).containsKey("ACL_TABLE");
        assertThat(db.table("ACL_TABLE").get("T")).containsEntry("ports", "Ethernet0,Ethernet4");
        assertThatThrownBy(() -> ConfigDb.parse("{\"PORT\": []}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("PORT||");
    }
}
