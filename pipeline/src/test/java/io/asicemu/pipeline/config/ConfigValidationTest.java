package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14's accepted-but-wrong configs: each is refused whole, naming {@code TABLE|key|field}.
 */
class ConfigValidationTest {
    private static final String PORTS = """
        "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up", "index": "0"},
                 "Ethernet4": {"speed": "10000", "admin_status": "up", "index": "1"}},
        "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}}""";

    private static CompiledConfig compile(final String json) {
        return ConfigCompiler.compile(ConfigDb.parse(json), PipelineSizing.defaults(), Map.of());
    }

    private static void assertRefused(
            final String json, final String table, final String key, final String field, final String reasonPart) {
        assertThatThrownBy(() -> compile(json)).isInstanceOfSatisfying(io.asicemu.config.ConfigException.class, e -> {
            assertThat(e.table()).isEqualTo(table);
            assertThat(e.key()).isEqualTo(key);
            assertThat(e.field()).isEqualTo(field);
            // A problem with the document as a whole (not JSON) is the reason alone.
            assertThat(e.getMessage())
                    .startsWith(table.isEmpty() ? "not valid JSON" : table + "|" + key + "|" + field + ": ")
                    .contains(reasonPart);
            assertThat(e.getMessage()).doesNotContain("\n");
        });
    }

    @Test
    void shouldLoadTheBaseConfig() {
        assertThat(compile("{" + PORTS + "}").setup().portNames()).containsExactly("Ethernet0", "Ethernet4");
    }

    @Test
    void shouldRefuseATypoInAQueueFieldNamingItInsteadOfTurningEcnOff() {
        assertRefused("{" + PORTS + """
            , "WRED_PROFILE": {"W": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "1000",
                                     "green_max_threshold": "2000"}},
              "QUEUE": {"Ethernet0|3": {"wred_profle": "W"}}}""", "QUEUE", "Ethernet0|3", "wred_profle", "unknown field");
    }

    @Test
    void shouldRefuseAnUnknownTableUnlessLenientWhichDropsItWithAWarning() {
        // (BGP_NEIGHBOR was the example until the switch learned to route: issue 37)
        final String json = "{" + PORTS + ", \"SNMP_COMMUNITY\": {\"public\": {\"TYPE\": \"RO\"}}}";
        assertRefused(json, "SNMP_COMMUNITY", "", "", "unknown table");
        final List<String> warnings = new ArrayList<>();
        final CompiledConfig lenient =
                ConfigCompiler.compile(ConfigDb.parse(json), PipelineSizing.defaults(), Map.of(), true, warnings::add);
        assertThat(lenient.setup().portNames()).hasSize(2);
        assertThat(warnings).containsExactly("SNMP_COMMUNITY||: unknown table ignored");
    }

    @Test
    void shouldRefuseTwoPortsWithTheSameIndex() {
        assertRefused("""
            {"PORT": {"Ethernet0": {"speed": "10000", "index": "1"}, "Ethernet4": {"speed": "10000", "index": "1"}}}
            """, "PORT", "Ethernet4", "index", "Ethernet0");
    }

    @Test
    void shouldLoadAPortWhoseNameEndsInMoreDigitsThanALongHolds() {
        // found by ConfigMutationFuzzTest: ordering ports by the number in their name overflowed
        assertThat(compile("""
            {"PORT": {"Ethernet099999999999999999999": {"speed": "10000"}, "Ethernet4": {"speed": "10000"}}}
            """).setup().portNames()).containsExactly("Ethernet4", "Ethernet099999999999999999999");
    }

    @ParameterizedTest
    @ValueSource(strings = {"01:00:5e:00:00:01", "ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00"})
    void shouldRefuseASwitchMacThatIsMulticastOrZero(final String mac) {
        assertRefused(
                "{" + PORTS + ", \"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"" + mac + "\"}}}",
                "DEVICE_METADATA",
                "localhost",
                "mac",
                "unicast");
    }

    @Test
    void shouldRefuseEcmpHashGivenAsAStringNotAList() {
        assertRefused(
                "{" + PORTS + ", \"SWITCH_HASH\": {\"GLOBAL\": {\"ecmp_hash\": \"SRC_IP\"}}}",
                "SWITCH_HASH",
                "GLOBAL",
                "ecmp_hash",
                "must be a list");
        assertThat(compile("{" + PORTS + ", \"SWITCH_HASH\": {\"GLOBAL\": {\"ecmp_hash\": [\"SRC_IP\"]}}}")
                        .setup()
                        .flowletConfig()
                        .switchHash())
                .isNotNull();
    }

    @Test
    void shouldRefuseAListWhereAStringIsExpected() {
        assertRefused(
                "{" + PORTS + ", \"STATIC_ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": [\"10.0.2.2\"]}}}",
                "STATIC_ROUTE",
                "10.9.0.0/16",
                "nexthop",
                "must be a string");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10000", "1e4", "true"})
    void shouldRefuseASpeedWrittenAsAJsonNumberOrBoolean(final String value) {
        assertRefused(
                "{\"PORT\": {\"Ethernet0\": {\"speed\": " + value + "}}}",
                "PORT",
                "Ethernet0",
                "speed",
                "values must be strings");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\": \"b\"}", "null", "[\"10000\", 1]"})
    void shouldRefuseAnObjectANullOrAListOfNonStringsAsAValue(final String value) {
        assertRefused(
                "{\"PORT\": {\"Ethernet0\": {\"speed\": " + value + "}}}",
                "PORT",
                "Ethernet0",
                "speed",
                value.startsWith("{")
                        ? "not an object"
                        : value.startsWith("[") ? "list items must be strings: 1" : "not null");
    }

    @ParameterizedTest
    @ValueSource(strings = {" {\"VLAN\": {}}", " \"x\"", "}"})
    void shouldRefuseMoreAfterTheObjectOfTables(final String more) {
        assertRefused("{" + PORTS + "}" + more, "", "", "", more.equals("}") ? "" : "more after the object of tables");
    }

    @Test
    void shouldRefuseADuplicateKeyAtEveryLevel() {
        assertRefused("{" + PORTS + ", \"VLAN\": {}, \"VLAN\": {}}", "", "", "", "Duplicate field 'VLAN'");
        assertRefused("{\"PORT\": {\"Ethernet0\": {}, \"Ethernet0\": {}}}", "", "", "", "Duplicate field 'Ethernet0'");
        assertRefused(
                "{\"PORT\": {\"Ethernet0\": {\"speed\": \"1\", \"speed\": \"2\"}}}",
                "",
                "",
                "",
                "Duplicate field 'speed'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.2.1", "10.0.1.1"})
    void shouldRefuseANextHopThatIsTheSwitchsOwnAddress(final String hop) {
        assertRefused(
                "{" + PORTS + ", \"STATIC_ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.2," + hop + "\"}}}",
                "STATIC_ROUTE",
                "10.9.0.0/16",
                "nexthop",
                "own address");
    }

    @Test
    void shouldRefuseANeighborOnTheSwitchsOwnAddress() {
        assertRefused(
                "{" + PORTS + ", \"NEIGH\": {\"Ethernet4|10.0.2.1\": {\"neigh\": \"02:00:00:00:00:09\"}}}",
                "NEIGH",
                "Ethernet4|10.0.2.1",
                "",
                "own address");
    }

    @Test
    void shouldRefuseADuplicateTopLevelKeyRatherThanKeepTheLastOne() {
        assertRefused(
                "{" + PORTS + ", \"PORT\": {\"Ethernet8\": {\"speed\": \"10000\"}}}",
                "",
                "",
                "",
                "Duplicate field 'PORT'");
    }

    @Test
    void shouldRefuseADuplicateKeyInsideATable() {
        assertRefused(
                "{\"PORT\": {\"Ethernet0\": {\"speed\": \"10000\"}, \"Ethernet0\": {\"speed\": \"25000\"}}}",
                "",
                "",
                "",
                "Duplicate field 'Ethernet0'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"4611686018427387904", "9223372036854775807", "68719476737"})
    void shouldRefuseABufferPoolLargerThanAnyAsicCouldHold(final String size) {
        assertRefused(
                "{" + PORTS + ", \"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\","
                        + " \"mode\": \"dynamic\", \"size\": \"" + size + "\"}}}",
                "BUFFER_POOL",
                "ingress_lossless_pool",
                "size",
                "outside 0..68719476736");
    }

    @Test
    void shouldAcceptTheLargestBufferTheBoundsAllow() {
        assertThat(compile("{" + PORTS + ", \"BUFFER_POOL\": {\"p\": {\"type\": \"ingress\", \"mode\": \"dynamic\","
                                + " \"size\": \"" + io.asicemu.config.ConfigBound.BUFFER_BYTES.max() + "\"}}}")
                        .setup()
                        .tmConfig())
                .isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"../../../../elsewhere/x", "/elsewhere/x", "..", "a/b", "Ethernet0 ", "-x", ""})
    void shouldRefusePortNamesThatAreNotSafeFileNames(final String name) {
        assertRefused("{\"PORT\": {\"" + name + "\": {\"speed\": \"10000\"}}}", "PORT", name, "", "port name");
    }

    @Test
    void shouldShareOneGroupAmongRoutesOverTheSameNextHopsInAnyOrder() {
        final CompiledConfig c = compile("{" + PORTS + """
            , "STATIC_ROUTE": {"10.9.0.0/16": {"nexthop": "10.0.1.2,10.0.2.2"},
                               "10.8.0.0/16": {"nexthop": "10.0.2.2,10.0.1.2"},
                               "10.7.0.0/16": {"nexthop": "10.0.2.2,10.0.1.2", "weight": "1,3"}}}""");
        assertThat(c.setup().groupCount()).isEqualTo(2);
        assertThat(c.setup().routes().get(io.asicemu.pipeline.table.IpPrefix.parse("10.9.0.0/16")))
                .isEqualTo(c.setup().routes().get(io.asicemu.pipeline.table.IpPrefix.parse("10.8.0.0/16")));
        assertThat(c.setup().routes().get(io.asicemu.pipeline.table.IpPrefix.parse("10.7.0.0/16")))
                .isNotEqualTo(c.setup().routes().get(io.asicemu.pipeline.table.IpPrefix.parse("10.8.0.0/16")));
    }

    @Test
    void shouldLoad400kHostRoutesOverTheSameFourNextHopsInOneGroup() {
        final Map<String, Map<String, Map<String, String>>> db = new LinkedHashMap<>();
        db.put("PORT", Map.of("Ethernet0", Map.of("speed", "10000", "admin_status", "up")));
        db.put("INTERFACE", Map.of("Ethernet0", Map.of(), "Ethernet0|10.0.1.1/24", Map.of()));
        final Map<String, Map<String, String>> routes = new LinkedHashMap<>();
        final Map<String, String> hops = Map.of("nexthop", "10.0.1.2,10.0.1.3,10.0.1.4,10.0.1.5");
        final int count = 400_000;
        for (int i = 0; i < count; i++) {
            routes.put("20." + (i >> 16) + "." + ((i >> 8) & 0xff) + "." + (i & 0xff) + "/32", hops);
        }
        db.put("STATIC_ROUTE", routes);
        final PipelineSizing sizing =
                PipelineSizing.defaults().withTables(count + 1_024, 16_384, 4_096, 16_384, 32_768, 1_024);
        final CompiledConfig c = ConfigCompiler.compile(new ConfigDb(db), sizing, Map.of());
        assertThat(c.setup().groupCount()).isEqualTo(1);
        assertThat(c.setup().nextHopCount()).isEqualTo(4);
        final Set<Integer> targets = new HashSet<>();
        c.setup().routes().forEach((prefix, target) -> {
            if (prefix.length() == 32 && RouteTarget.kind(target) == RouteTarget.GROUP) {
                targets.add(target);
            }
        });
        assertThat(targets).hasSize(1);
    }
}
