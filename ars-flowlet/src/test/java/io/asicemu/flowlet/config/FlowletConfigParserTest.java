package io.asicemu.flowlet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.ars.QualitySettings;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FlowletConfigParserTest {
    @Test
    void shouldParseSwitchHashWithRdmaExtensionAndLeafDefaultsWhenValid() {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put("DEVICE_METADATA", Map.of("localhost", Map.of("type", "LeafRouter")));
        db.put(
                "SWITCH_HASH",
                Map.of(
                        "GLOBAL",
                        Map.of(
                                "ecmp_hash@", "SRC_IP,DST_IP,L4_SRC_PORT,L4_DST_PORT,IP_PROTOCOL",
                                "ecmp_hash_algorithm", "CRC_CCITT",
                                "lag_hash", "SRC_MAC,DST_MAC",
                                "ecmp_hash_rdma",
                                        "SRC_IP,DST_IP,L4_SRC_PORT,L4_DST_PORT,IP_PROTOCOL,RDMA_BTH_DEST_QP,RDMA_BTH_OPCODE",
                                "ecmp_lb_mode", "enhanced_ecmp")));

        final FlowletConfig config = FlowletConfigParser.parse(db);

        final SwitchHashConfig hash = config.switchHash();
        assertThat(config.deviceRole()).isEqualTo(DeviceRole.LEAF);
        assertThat(hash.ecmpHash())
                .containsExactly(
                        HashField.SRC_IP,
                        HashField.DST_IP,
                        HashField.L4_SRC_PORT,
                        HashField.L4_DST_PORT,
                        HashField.IP_PROTOCOL);
        assertThat(hash.ecmpHashAlgorithm()).isEqualTo(HashAlgorithm.CRC_CCITT);
        assertThat(hash.lagHash()).containsExactly(HashField.SRC_MAC, HashField.DST_MAC);
        assertThat(hash.lagHashAlgorithm()).isEqualTo(HashAlgorithm.CRC);
        assertThat(hash.ecmpHashRdma()).contains(HashField.RDMA_BTH_DEST_QP, HashField.RDMA_BTH_OPCODE);
        assertThat(hash.lagHashRdma())
                .containsExactly(HashField.SRC_MAC, HashField.DST_MAC, HashField.RDMA_BTH_DEST_QP);
        assertThat(hash.ecmpHashSeed()).isEqualTo(10);
        assertThat(hash.ecmpHashOffset()).isEqualTo(10);
        assertThat(hash.lagHashSeed()).isEqualTo(10);
        assertThat(hash.ecmpLbMode()).isEqualTo(LoadBalanceMode.ENHANCED_ECMP);
        final HashEngine engine = hash.newEcmpHashEngine();
        assertThat(engine.seed()).isEqualTo(10);
        assertThat(engine.offset()).isEqualTo(10);
        assertThat(engine.rdmaFieldMask() & HashField.RDMA_BTH_DEST_QP.mask()).isNotZero();
        assertThatThrownBy(() -> hash.ecmpHash().add(HashField.IN_PORT))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @ParameterizedTest
    @CsvSource({
        "ToRRouter,0,0",
        "LeafRouter,10,10",
        "SpineRouter,25,0",
        "FabricSpineRouter,40,0",
        "UpperSpineRouter,50,0",
        "LowerRegionalHub,60,0",
        "FabricRegionalHub,70,0",
        "UpperRegionalHub,80,0",
        "BackEndToRRouter,0,0"
    })
    void shouldDefaultSeedAndOffsetByDeviceTypeWhenNotSet(final String type, final int seed, final int offset) {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put("DEVICE_METADATA", Map.of("localhost", Map.of("type", type)));

        final SwitchHashConfig hash = FlowletConfigParser.parse(db).switchHash();

        assertThat(hash.ecmpHashSeed()).isEqualTo(seed);
        assertThat(hash.ecmpHashOffset()).isEqualTo(offset);
        assertThat(hash.lagHashSeed()).isEqualTo(seed);
        assertThat(hash.lagHashOffset()).isEqualTo(offset);
    }

    @Test
    void shouldUseFiveTupleCrcAndStaticHashWhenTablesAreAbsent() {
        final FlowletConfig config = FlowletConfigParser.parse(db());

        assertThat(config.switchHash().ecmpHash()).isEqualTo(SwitchHashConfig.FIVE_TUPLE);
        assertThat(config.switchHash().ecmpHashAlgorithm()).isEqualTo(HashAlgorithm.CRC);
        assertThat(config.switchHash().ecmpLbMode()).isEqualTo(LoadBalanceMode.STATIC_HASH);
        assertThat(config.groupSettings("nhg1").mode()).isEqualTo(LoadBalanceMode.STATIC_HASH);
        assertThat(config.qualitySettings()).isEqualTo(QualitySettings.defaults());
    }

    @Test
    void shouldResolveGroupSettingsFromArsTablesWhenBound() {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put(
                "ARS_PROFILE",
                Map.of(
                        "default",
                        Map.of(
                                "sampling_interval",
                                "10",
                                "past_load_min_value",
                                "0",
                                "past_load_max_value",
                                "100",
                                "past_load_weight",
                                "1",
                                "future_load_min_value",
                                "0",
                                "future_load_max_value",
                                "1000",
                                "future_load_weight",
                                "5",
                                "default_ars_object",
                                "obj_fq")));
        db.put(
                "ARS_OBJECT",
                Map.of(
                        "obj_fq",
                                Map.of(
                                        "assign_mode",
                                        "per_flowlet_quality",
                                        "flowlet_idle_time",
                                        "512",
                                        "max_flows",
                                        "1024"),
                        "obj_lf", Map.of("assign_mode", "per_flowlet_random")));
        db.put("ARS_INTERFACES", Map.of("Ethernet0", Map.of("scaling_factor", "10")));
        db.put(
                "ARS_NEXTHOP_GROUP",
                Map.of(
                        "nhg_letflow", Map.of("ars_obj_name", "obj_lf"),
                        "nhg_spray",
                                Map.of(
                                        "lb_mode",
                                        "per_packet_spray",
                                        "resilient",
                                        "true",
                                        "resilient_buckets",
                                        "128")));

        final FlowletConfig config = FlowletConfigParser.parse(db);

        final GroupSettings unbound = config.groupSettings("nhg_other");
        assertThat(unbound.mode()).isEqualTo(LoadBalanceMode.FLOWLET_QUALITY);
        assertThat(unbound.idleTimeNs()).isEqualTo(512_000);
        assertThat(unbound.flowletTableSize()).isEqualTo(1024);
        final GroupSettings letFlow = config.groupSettings("nhg_letflow");
        assertThat(letFlow.mode()).isEqualTo(LoadBalanceMode.FLOWLET_RANDOM);
        assertThat(letFlow.idleTimeNs()).isEqualTo(GroupSettings.DEFAULT_IDLE_TIME_NS);
        assertThat(letFlow.flowletTableSize()).isEqualTo(GroupSettings.DEFAULT_FLOWLET_TABLE_SIZE);
        final GroupSettings spray = config.groupSettings("nhg_spray");
        assertThat(spray.mode()).isEqualTo(LoadBalanceMode.PER_PACKET_SPRAY);
        assertThat(spray.resilient()).isTrue();
        assertThat(spray.resilientBuckets()).isEqualTo(128);
        assertThat(config.arsInterfaces().get("Ethernet0").scalingFactor()).isEqualTo(10);
        final QualitySettings quality = config.qualitySettings();
        assertThat(quality.samplingIntervalNs()).isEqualTo(10_000);
        assertThat(quality.pastLoadWeight()).isEqualTo(1);
        assertThat(quality.futureLoadWeight()).isEqualTo(5);
        assertThat(quality.pastLoadMaxMbps()).isEqualTo(100);
        assertThat(quality.futureLoadMaxBytes()).isEqualTo(1000 * 1024);
    }

    @Test
    void shouldBuildAWorkingFlowletGroupWhenWiredFromConfig() {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put("DEVICE_METADATA", Map.of("localhost", Map.of("type", "SpineRouter")));
        db.put("SWITCH_HASH", Map.of("GLOBAL", Map.of("ecmp_lb_mode", "enhanced_ecmp")));
        db.put("ARS_OBJECT", Map.of("fq", Map.of("flowlet_idle_time", "100", "max_flows", "64")));
        db.put("ARS_NEXTHOP_GROUP", Map.of("nhg_ai", Map.of("ars_obj_name", "fq")));
        final FlowletConfig config = FlowletConfigParser.parse(db);
        final io.asicemu.flowlet.ars.PortQuality quality =
                new io.asicemu.flowlet.ars.PortQuality(4, config.qualitySettings());
        final io.asicemu.flowlet.LoadBalanceGroup group = new io.asicemu.flowlet.LoadBalanceGroup(
                config.groupSettings("nhg_ai"),
                new int[] {0, 1, 2, 3},
                new int[] {1, 1, 1, 1},
                config.switchHash().newEcmpHashEngine(),
                quality);
        final io.asicemu.flowlet.hash.HashKey key = new io.asicemu.flowlet.hash.HashKey()
                .ipv4FiveTuple(1, 2, 17, 3, 4791)
                .roce(true)
                .bthDestQp(9);

        final int first = group.select(key, 1000, 0);

        assertThat(group.settings().mode()).isEqualTo(LoadBalanceMode.FLOWLET_QUALITY);
        assertThat(config.groupSettings("nhg_plain").mode()).isEqualTo(LoadBalanceMode.ENHANCED_ECMP);
        assertThat(group.flowletTableCapacity()).isEqualTo(64);
        assertThat(group.select(key, 1000, 100_000)).isEqualTo(first);
        assertThat(group.newFlowlets()).isEqualTo(1);
        group.select(key, 1000, 200_001);
        assertThat(group.newFlowlets()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}|{1}|{2} = {3}")
    @CsvSource(
            delimiter = ';',
            value = {
                "SWITCH_HASH;GLOBAL;ecmp_hash_algorithm;CRC16",
                "SWITCH_HASH;GLOBAL;lag_hash_algorithm;crc",
                "SWITCH_HASH;GLOBAL;ecmp_hash;SRC_IP,DST_PORT",
                "SWITCH_HASH;GLOBAL;ecmp_hash;SRC_IP,SRC_IP",
                "SWITCH_HASH;GLOBAL;ecmp_hash;''",
                "SWITCH_HASH;GLOBAL;ecmp_hash;SRC_IP,RDMA_BTH_DEST_QP",
                "SWITCH_HASH;GLOBAL;lag_hash_rdma;RDMA_BTH_PSN",
                "SWITCH_HASH;GLOBAL;ecmp_hash_offset;256",
                "SWITCH_HASH;GLOBAL;ecmp_hash_seed;-1",
                "SWITCH_HASH;GLOBAL;lag_hash_seed;4294967296",
                "SWITCH_HASH;GLOBAL;ecmp_hash_seed;ten",
                "SWITCH_HASH;GLOBAL;ecmp_lb_mode;dlb",
                "SWITCH_HASH;GLOBAL;ecmp_hash_sead;1",
                "SWITCH_HASH;LOCAL;ecmp_hash;SRC_IP",
                "ARS_OBJECT;obj;flowlet_idle_time;15",
                "ARS_OBJECT;obj;flowlet_idle_time;32001",
                "ARS_OBJECT;obj;assign_mode;per_packet_quality",
                "ARS_OBJECT;obj;max_flows;0",
                "ARS_PROFILE;default;algorithm;ewma2",
                "ARS_PROFILE;default;sampling_interval;0",
                "ARS_PROFILE;default;past_load_weight;0",
                "ARS_PROFILE;default;ipv4_enable;yes",
                "ARS_PROFILE;default;default_ars_object;missing",
                "ARS_PROFILE;default;ars_nhg_path_selector_mode;route",
                "ARS_INTERFACES;Ethernet0;scaling_factor;0",
                "ARS_INTERFACES;Ethernet0;ars_obj_name;nope",
                "ARS_NEXTHOP_GROUP;nhg1;lb_mode;ecmp",
                "ARS_NEXTHOP_GROUP;nhg1;resilient;1",
                "ARS_NEXTHOP_GROUP;nhg1;resilient_buckets;0",
                "ARS_NEXTHOP_GROUP;nhg1;weight;3"
            })
    void shouldRejectNamingTableKeyAndFieldWhenValueIsInvalid(
            final String table, final String key, final String field, final String value) {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put(table, Map.of(key, Map.of(field, value)));

        assertThatThrownBy(() -> FlowletConfigParser.parse(db))
                .isInstanceOfSatisfying(FlowletConfigException.class, ex -> {
                    assertThat(ex.table()).isEqualTo(table);
                    assertThat(ex.key()).isEqualTo(key);
                    assertThat(ex.field()).isEqualTo("LOCAL".equals(key) ? "" : field);
                    assertThat(ex.getMessage()).startsWith(table + "|" + key + "|");
                });
    }

    @Test
    void shouldRejectPastLoadRangeWhenMaxIsNotAboveMin() {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put("ARS_PROFILE", Map.of("default", Map.of("past_load_min_value", "50", "past_load_max_value", "50")));

        assertThatThrownBy(() -> FlowletConfigParser.parse(db))
                .isInstanceOf(FlowletConfigException.class)
                .hasMessageStartingWith("ARS_PROFILE|default|past_load_max_value: 50 must exceed");
    }

    @Test
    void shouldRejectASecondArsProfileWhenTwoAreConfigured() {
        final Map<String, Map<String, Map<String, String>>> db = db();
        db.put("ARS_PROFILE", new java.util.TreeMap<>(Map.of("a", Map.of(), "b", Map.of())));

        assertThatThrownBy(() -> FlowletConfigParser.parse(db))
                .isInstanceOf(FlowletConfigException.class)
                .hasMessageContaining("one ARS profile");
    }

    private static Map<String, Map<String, Map<String, String>>> db() {
        return new HashMap<>(Map.of("PORT", Map.of("Ethernet0", Map.of("speed", "100000"))));
    }

    @Test
    void shouldKeepConfigImmutableWhenInputMapsChangeLater() {
        final Map<String, Map<String, Map<String, String>>> db = db();
        final Map<String, Map<String, String>> objects = new HashMap<>();
        objects.put("o", Map.of());
        db.put("ARS_OBJECT", objects);

        final FlowletConfig config = FlowletConfigParser.parse(db);
        objects.put("p", Map.of());

        assertThat(config.arsObjects()).containsOnlyKeys("o");
        assertThat(List.copyOf(config.arsObjects().values()).getFirst().maxFlows())
                .isEqualTo(512);
    }
}
