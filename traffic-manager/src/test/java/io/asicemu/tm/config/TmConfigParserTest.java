package io.asicemu.tm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.tm.Db;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TmConfigParserTest {
    private static final Map<String, Integer> TWO_PORTS = Map.of("Ethernet0", 0, "Ethernet4", 1);

    @Test
    void shouldParseSonicGenericLosslessDefaultsWhenBuiltInProfileLoaded() {
        final TmConfig c = TmConfigParser.parse(
                SonicDefaults.genericLossless(List.of("Ethernet0", "Ethernet4"), 100_000, 40), TWO_PORTS);

        final PortConfig p = c.ports().get(1);
        assertThat(p.name()).isEqualTo("Ethernet4");
        assertThat(p.speedMbps()).isEqualTo(100_000);
        assertThat(p.pfcEnableMask()).isEqualTo(0b0001_1000);
        assertThat(p.pfcwdSwEnableMask()).isEqualTo(0b0001_1000);
        assertThat(p.tcToPg()).containsExactly(0, 0, 0, 3, 4, 0, 0, 7);
        assertThat(p.pgProfile()[3]).isEqualTo("pg_lossless_100000_40m_profile");
        assertThat(p.queueScheduler()[3]).isEqualTo("scheduler.1");
        assertThat(p.queueScheduler()[0]).isEqualTo("scheduler.0");
        assertThat(p.queueWredProfile()[4]).isEqualTo("AZURE_LOSSLESS");
        assertThat(p.cableLengthM()).isEqualTo(40);
        assertThat(p.pfcWd()).isEqualTo(new PfcWdPortConfig(PfcWdAction.DROP, 200, 200));
        assertThat(c.pollIntervalMs()).isEqualTo(200);
        assertThat(c.schedulers().get("scheduler.0").weight()).isEqualTo(14);
        assertThat(c.schedulers().get("scheduler.1").type()).isEqualTo(SchedulerType.DWRR);
        final BufferProfileConfig lossless = c.profiles().get("pg_lossless_100000_40m_profile");
        assertThat(lossless)
                .isEqualTo(new BufferProfileConfig(
                        "pg_lossless_100000_40m_profile", "ingress_lossless_pool", 1248, -1, 0, 2288, 177632, 2288));
        assertThat(c.pools().get("ingress_lossless_pool"))
                .isEqualTo(new BufferPoolConfig("ingress_lossless_pool", PoolType.INGRESS, true, 10875072, 4194112));
        final WredProfileConfig w = c.wredProfiles().get("AZURE_LOSSLESS");
        assertThat(w.minThresholdBytes()).containsExactly(250000, 1048576, 1048576);
        assertThat(w.maxThresholdBytes()).containsExactly(2097152, 2097152, 2097152);
        assertThat(w.dropProbabilityPercent()).containsExactly(5, 5, 5);
        assertThat(w.ecnMarkColourMask()).isEqualTo(7);
    }

    @Test
    void shouldNameTableKeyAndFieldWhenWredMinAboveMax() {
        final Db db = Db.ports(1)
                .put("WRED_PROFILE", "W", "green_min_threshold", "3000000", "green_max_threshold", "2097152");
        assertThatThrownBy(db::parse).isInstanceOfSatisfying(TmConfigException.class, e -> {
            assertThat(e.table()).isEqualTo("WRED_PROFILE");
            assertThat(e.key()).isEqualTo("W");
            assertThat(e.field()).isEqualTo("green_min_threshold");
            assertThat(e.getMessage()).startsWith("WRED_PROFILE|W|green_min_threshold: min 3000000 > max 2097152");
        });
    }

    @Test
    void shouldRejectOutOfRangeValuesWhenOutsideYangRanges() {
        expectField(
                Db.ports(1)
                        .put("BUFFER_POOL", "p", "type", "ingress", "mode", "dynamic", "size", "1000")
                        .put("BUFFER_PROFILE", "x", "pool", "p", "size", "0", "dynamic_th", "8"),
                "BUFFER_PROFILE",
                "dynamic_th");
        expectField(
                Db.ports(1).put("WRED_PROFILE", "W", "red_drop_probability", "101"),
                "WRED_PROFILE",
                "red_drop_probability");
        expectField(Db.ports(1).put("SCHEDULER", "s", "type", "DWRR", "weight", "0"), "SCHEDULER", "weight");
        expectField(Db.ports(1).put("SCHEDULER", "s", "type", "FIFO"), "SCHEDULER", "type");
        expectField(Db.ports(1).put("PFC_WD", "GLOBAL", "POLL_INTERVAL", "50"), "PFC_WD", "POLL_INTERVAL");
        expectField(
                Db.ports(1)
                        .put("PFC_WD", "GLOBAL", "POLL_INTERVAL", "200")
                        .put("PFC_WD", "Ethernet0", "detection_time", "150"),
                "PFC_WD",
                "detection_time");
        expectField(
                Db.ports(1).put("PFC_WD", "Ethernet0", "detection_time", "200", "restoration_time", "70000"),
                "PFC_WD",
                "restoration_time");
        expectField(Db.ports(1).put("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,8"), "PORT_QOS_MAP", "pfc_enable");
        expectField(Db.ports(1).put("PORT", "Ethernet0", "speed", "fast"), "PORT", "speed");
        expectField(Db.ports(1).put("WRED_PROFILE", "W", "ecn", "ecn_blue"), "WRED_PROFILE", "ecn");
        expectField(Db.ports(1).put("QUEUE", "Ethernet0|3", "scheduler", "nope"), "QUEUE", "scheduler");
    }

    @Test
    void shouldRejectUnknownPortWhenKeyNamesIt() {
        final Db db = Db.ports(1)
                .put("BUFFER_POOL", "p", "type", "ingress", "mode", "static", "size", "1000")
                .put("BUFFER_PROFILE", "x", "pool", "p", "size", "0", "static_th", "100")
                .put("BUFFER_PG", "Ethernet0,Ethernet99|3-4", "profile", "x");
        assertThatThrownBy(db::parse)
                .isInstanceOf(TmConfigException.class)
                .hasMessageContaining("BUFFER_PG|Ethernet0,Ethernet99|3-4")
                .hasMessageContaining("Ethernet99");
    }

    @Test
    void shouldRejectQueueProfileFromIngressPoolWhenAssigned() {
        final Db db = Db.ports(1)
                .put("BUFFER_POOL", "p", "type", "ingress", "mode", "static", "size", "1000")
                .put("BUFFER_PROFILE", "x", "pool", "p", "size", "0", "static_th", "100")
                .put("BUFFER_QUEUE", "Ethernet0|3", "profile", "x");
        assertThatThrownBy(db::parse)
                .isInstanceOf(TmConfigException.class)
                .hasMessage("BUFFER_QUEUE|Ethernet0|3|profile: profile x uses ingress pool p");
    }

    @Test
    void shouldExpandCommaPortsAndRangesWhenAssigningProfiles() {
        final TmConfig c = Db.ports(2)
                .put("BUFFER_POOL", "p", "type", "egress", "mode", "static", "size", "1000")
                .put("BUFFER_PROFILE", "x", "pool", "p", "size", "0", "static_th", "100")
                .put("BUFFER_QUEUE", "Ethernet0,Ethernet4|0-2", "profile", "x")
                .parse();
        for (int port = 0; port < 2; port++) {
            assertThat(c.ports().get(port).queueProfile()).containsExactly("x", "x", "x", null, null, null, null, null);
        }
    }

    @Test
    void shouldReportEcnBeforePfcViolationWhenKminAboveXoffDepth() {
        final TmConfig c = Db.ports(1)
                .put("BUFFER_POOL", "p", "type", "ingress", "mode", "static", "size", "10000000")
                .put("BUFFER_PROFILE", "lossless", "pool", "p", "size", "1248", "static_th", "100000", "xoff", "177632")
                .put("BUFFER_PG", "Ethernet0|3", "profile", "lossless")
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "green_min_threshold",
                        "250000",
                        "green_max_threshold",
                        "2097152",
                        "ecn",
                        "ecn_all")
                .put("QUEUE", "Ethernet0|3", "wred_profile", "W")
                .put("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3")
                .parse();
        assertThat(c.warnings())
                .singleElement()
                .asString()
                .contains("Ethernet0 priority 3")
                .contains("250000 > PG XOFF depth 101248");
    }

    @Test
    void shouldEstimateDynamicXoffDepthAsAlphaShareOfPoolWhenCheckingEcnBeforePfc() {
        // Tomahawk defaults: PG 1248 + 1/2 * 10875072 = 5438784 B, far above Kmin 250000: no finding.
        final TmConfig ok = TmConfigParser.parse(
                SonicDefaults.genericLossless(List.of("Ethernet0", "Ethernet4"), 100_000, 40), TWO_PORTS);
        assertThat(ok.warnings()).isEmpty();
        // dynamic_th -7 on a 1 MB pool: alpha/(1+alpha) = 1/129; 1248 + floor(1000000/129) = 1248 + 7751 = 8999 B.
        final TmConfig bad = Db.ports(1)
                .put("BUFFER_POOL", "p", "type", "ingress", "mode", "dynamic", "size", "1000000")
                .put("BUFFER_PROFILE", "lossless", "pool", "p", "size", "1248", "dynamic_th", "-7", "xoff", "177632")
                .put("BUFFER_PG", "Ethernet0|3", "profile", "lossless")
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "green_min_threshold",
                        "250000",
                        "green_max_threshold",
                        "2097152",
                        "ecn",
                        "ecn_all")
                .put("QUEUE", "Ethernet0|3", "wred_profile", "W")
                .put("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3")
                .parse();
        assertThat(bad.warnings()).singleElement().asString().contains("250000 > PG XOFF depth 8999");
    }

    @Test
    void shouldTreatMissingRestorationTimeAsNeverWhenAbsent() {
        final TmConfig c = Db.ports(1)
                .put("PFC_WD", "Ethernet0", "action", "forward", "detection_time", "400")
                .parse();
        assertThat(c.ports().get(0).pfcWd()).isEqualTo(new PfcWdPortConfig(PfcWdAction.FORWARD, 400, -1));
        assertThat(c.pollIntervalMs()).isEqualTo(100);
    }

    @Test
    void shouldComputeSonicHeadroomWhenFormulaApplied() {
        // Reference §6.3 worked by hand for 100G, 40 m, port MTU 9100, lossless MTU 1024, 50 % small packets,
        // 256-byte cells, no gearbox, MAC/PHY 0, pipeline latency 2288:
        //   worst_case_factor = 256/64 = 4; cell_occupancy = (100 - 50 + 50*4)/100 = 2.5
        //   bytes_on_cable = 2*40*100000*1e6/198e6/8 = 5050.505...; peer_response = 394*512/8 = 25216
        //   propagation = 9100 + 5050.505 + 25216 = 39366.505; xoff = 1024 + 2.5*39366.505 = 99440.26 → 100352
        //   xon = 2288 → 3072; size without SHP = 103424
        final HeadroomCalculator.Headroom h =
                HeadroomCalculator.compute(100_000, 40, 9100, 1024, 50, 256, 0, 0, 2288, false);
        assertThat(h).isEqualTo(new HeadroomCalculator.Headroom(100352, 3072, 103424));
        // Small cells: worst_case_factor = ceil(2*96/97) = 2; 25G peer response 80 quanta = 5120 bytes;
        // cable 2*5*25000*1e6/198e6/8 = 157.83; propagation = 1500 + 157.83 + 5120 = 6777.83;
        // occupancy (100-100+100*2)/100 = 2; xoff = 1500 + 13555.66 = 15055.66 → 15056 → 15360.
        assertThat(HeadroomCalculator.compute(25_000, 5, 1500, 1500, 100, 96, 0, 0, 0, true))
                .isEqualTo(new HeadroomCalculator.Headroom(15360, 0, 0));
    }

    private static void expectField(final Db db, final String table, final String field) {
        assertThatThrownBy(db::parse).isInstanceOfSatisfying(TmConfigException.class, e -> {
            assertThat(e.table()).isEqualTo(table);
            assertThat(e.field()).isEqualTo(field);
        });
    }
}
