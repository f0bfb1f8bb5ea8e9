package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The routing tables of CONFIG_DB as SONiC has them (DEVICE_METADATA bgp_asn / bgp_router_id, LOOPBACK_INTERFACE,
 * BGP_NEIGHBOR): parsed with the rest of the config, every bad value refused naming {@code TABLE|key|field}, and the
 * loopback addresses made the switch's own.
 */
class BgpConfigTest {
    private static final String BASE = """
        "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"}, "Ethernet4": {"speed": "10000", "admin_status": "up"}},
        "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}, "Ethernet4": {}, "Ethernet4|192.168.1.1/24": {}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}, "Loopback0|fc00:1::1/128": {}}""";

    private static ConfigDb db(final String device, final String neighbors) {
        return ConfigDb.parse("{" + BASE + ", \"DEVICE_METADATA\": {\"localhost\": {" + device + "}},"
                + " \"BGP_NEIGHBOR\": {" + neighbors + "}}");
    }

    @Test
    void shouldReadTheAsnTheLoopbacksAndTheSessionsWithSonicsDefaults() {
        final BgpConfig c = BgpConfig.parse(db(
                "\"bgp_asn\": \"65101\"",
                "\"10.0.0.0\": {\"asn\": \"65000\", \"name\": \"spine1\", \"local_addr\": \"10.0.0.1\"},"
                        + " \"default|10.0.0.2\": {\"asn\": \"65000\", \"holdtime\": \"9\", \"keepalive\": \"3\","
                        + " \"admin_status\": \"down\", \"bfd\": \"true\"}"));
        assertThat(c.enabled()).isTrue();
        assertThat(c.asn()).isEqualTo(65101);
        assertThat(c.routerId()).as("Loopback0's IPv4 address").isEqualTo(IpPrefix.address("10.1.0.1"));
        assertThat(c.loopbacks().get("Loopback0"))
                .containsExactly(IpPrefix.address("10.1.0.1"), IpPrefix.address("fc00:1::1"));
        assertThat(c.neighbors()).hasSize(2);
        final BgpConfig.Neighbor spine = c.neighbors().get(0);
        assertThat(spine.address()).isEqualTo(IpPrefix.address("10.0.0.0"));
        assertThat(spine.name()).isEqualTo("spine1");
        assertThat(spine.keepaliveS()).isEqualTo(60);
        assertThat(spine.holdtimeS()).isEqualTo(180);
        assertThat(spine.adminUp()).isTrue();
        final BgpConfig.Neighbor fast = c.neighbors().get(1);
        assertThat(fast.address()).isEqualTo(IpPrefix.address("10.0.0.2"));
        assertThat(fast.holdtimeS()).isEqualTo(9);
        assertThat(fast.adminUp()).isFalse();
        assertThat(fast.bfd()).isTrue();
        assertThat(BgpConfig.parse(db("\"mac\": \"02:00:00:00:00:01\"", "")).enabled())
                .as("no ASN, no BGP")
                .isFalse();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "'\"bgp_asn\": \"0\"'; ''; DEVICE_METADATA; localhost; bgp_asn",
                "'\"bgp_asn\": \"65101\", \"bgp_router_id\": \"fc00::1\"'; ''; DEVICE_METADATA; localhost; bgp_router_id",
                "'\"mac\": \"02:00:00:00:00:01\"'; '\"10.0.0.0\": {\"asn\": \"65000\"}'; DEVICE_METADATA; localhost;"
                        + " bgp_asn",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"name\": \"x\"}'; BGP_NEIGHBOR; 10.0.0.0; asn",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"asn\": \"4294967296\"}'; BGP_NEIGHBOR; 10.0.0.0; asn",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0/31\": {\"asn\": \"65000\"}'; BGP_NEIGHBOR; 10.0.0.0/31; ''",
                "'\"bgp_asn\": \"65101\"'; '\"Vrf1|10.0.0.0\": {\"asn\": \"65000\"}'; BGP_NEIGHBOR; Vrf1|10.0.0.0; ''",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"asn\": \"65000\", \"holdtime\": \"2\"}'; BGP_NEIGHBOR;"
                        + " 10.0.0.0; holdtime",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"asn\": \"65000\", \"holdtime\": \"9\", \"keepalive\":"
                        + " \"10\"}'; BGP_NEIGHBOR; 10.0.0.0; keepalive",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"asn\": \"65000\", \"admin_status\": \"off\"}';"
                        + " BGP_NEIGHBOR; 10.0.0.0; admin_status",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"asn\": \"65000\", \"local_addr\": \"fc00::1\"}';"
                        + " BGP_NEIGHBOR; 10.0.0.0; local_addr",
                "'\"bgp_asn\": \"65101\"'; '\"10.0.0.0\": {\"asn\": \"65000\", \"bfd_min_rx\": \"300\"}';"
                        + " BGP_NEIGHBOR; 10.0.0.0; bfd_detect_multiplier",
            })
    void shouldRefuseABadValueNamingItsTableKeyAndField(
            final String device, final String neighbors, final String table, final String key, final String field) {
        final ConfigDb bad = db(device, neighbors);
        assertThatThrownBy(() -> ConfigCompiler.compile(bad, PipelineSizing.defaults(), Map.of()))
                .as("start-up and CONFIG_DB writes compile the same way")
                .isInstanceOfSatisfying(io.asicemu.config.ConfigException.class, e -> {
                    assertThat(e.table()).isEqualTo(table);
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e.field()).isEqualTo(field);
                });
    }

    @Test
    void shouldRefuseAnUnknownNeighborFieldAsTheSchemaDoes() {
        assertThatThrownBy(() -> ConfigSchema.check(
                        db("\"bgp_asn\": \"65101\"", "\"10.0.0.0\": {\"asn\": \"65000\", \"remote_as\": \"1\"}"),
                        false,
                        w -> {}))
                .isInstanceOfSatisfying(io.asicemu.config.ConfigException.class, e -> {
                    assertThat(e.table()).isEqualTo("BGP_NEIGHBOR");
                    assertThat(e.field()).isEqualTo("remote_as");
                });
    }

    @Test
    void shouldMakeTheLoopbackAddressesTheSwitchsOwn() {
        final CompiledConfig c =
                ConfigCompiler.compile(db("\"bgp_asn\": \"65101\"", ""), PipelineSizing.defaults(), Map.of());
        assertThat(c.setup().routes().get(IpPrefix.address("10.1.0.1")))
                .isEqualTo(RouteTarget.encode(RouteTarget.LOCAL, 0));
        assertThat(c.setup().routes().get(IpPrefix.address("fc00:1::1")))
                .isEqualTo(RouteTarget.encode(RouteTarget.LOCAL, 0));
    }
}
