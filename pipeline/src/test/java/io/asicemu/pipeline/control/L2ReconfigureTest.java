package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.HOST_B;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.u16;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.config.RunningConfig;
import io.asicemu.pipeline.config.SwitchConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * VLAN and VLAN_MEMBER changes on a running switch ({@link io.asicemu.pipeline.config.SwitchConfig#reconfigure}): the VLAN and membership
 * writes a P4Runtime Write makes, seen by frames; a controller's VLAN or membership is never taken by the config.
 */
@Timeout(60)
class L2ReconfigureTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}},
         "VLAN": {"Vlan100": {"vlanid": "100"}},
         "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"},
                         "Vlan100|Ethernet4": {"tagging_mode": "untagged"}}}""";

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

    /** Floods an unknown-unicast frame from Ethernet0; returns the VLAN tag each port sent it with (0 untagged, -1 none). */
    private static String flood(final SwitchFixture sw) {
        sw.send("Ethernet0", Frames.udp4(HOST_B, HOST_A, ip(10, 0, 0, 1), ip(10, 0, 0, 2), 64, 100));
        sw.run();
        final StringBuilder out = new StringBuilder();
        for (final String port : new String[] {"Ethernet4", "Ethernet8"}) {
            final var frames = sw.take(port);
            out.append(port).append('=');
            if (frames.isEmpty()) {
                out.append("none ");
            } else {
                final byte[] f = frames.get(0);
                out.append(u16(f, 12) == 0x8100 ? Integer.toString(u16(f, 14) & 0xfff) : "untagged")
                        .append(' ');
            }
        }
        return out.toString().trim();
    }

    @Test
    void shouldAddAndRemoveMembersAndVlansAtRunTime() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            assertThat(flood(sw)).isEqualTo("Ethernet4=untagged Ethernet8=none");
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "VLAN_MEMBER",
                            "Vlan100|Ethernet8",
                            Map.of("tagging_mode", "tagged")));
            sw.run();
            assertThat(flood(sw)).isEqualTo("Ethernet4=untagged Ethernet8=100");
            SwitchConfig.of(control)
                    .reconfigure(with(
                            SwitchConfig.of(control).runningConfig(),
                            "VLAN_MEMBER",
                            "Vlan100|Ethernet4",
                            Map.of("tagging_mode", "tagged")));
            sw.run();
            assertThat(flood(sw)).as("a tagging change").isEqualTo("Ethernet4=100 Ethernet8=100");
            // A new VLAN takes Ethernet0 (untagged) and Ethernet8 away from VLAN 100, in one change.
            ConfigDb next = without(SwitchConfig.of(control).runningConfig(), "VLAN_MEMBER", "Vlan100|Ethernet0");
            next = without(next, "VLAN_MEMBER", "Vlan100|Ethernet8");
            next = with(next, "VLAN", "Vlan200", Map.of("vlanid", "200"));
            next = with(next, "VLAN_MEMBER", "Vlan200|Ethernet0", Map.of("tagging_mode", "untagged"));
            next = with(next, "VLAN_MEMBER", "Vlan200|Ethernet8", Map.of("tagging_mode", "untagged"));
            SwitchConfig.of(control).reconfigure(next);
            sw.run();
            assertThat(flood(sw)).isEqualTo("Ethernet4=none Ethernet8=untagged");
            // VLAN 200 goes again with its members.
            next = without(SwitchConfig.of(control).runningConfig(), "VLAN_MEMBER", "Vlan200|Ethernet0");
            next = without(next, "VLAN_MEMBER", "Vlan200|Ethernet8");
            next = without(next, "VLAN", "Vlan200");
            SwitchConfig.of(control).reconfigure(next);
            sw.run();
            assertThat(flood(sw)).isEqualTo("Ethernet4=none Ethernet8=none");
            assertThat(sw.pipeline.agent().tables().vlanExists(200)).isFalse();
        }
    }

    @Test
    void shouldRefuseTakingAControllersVlanOrMembershipNamingTheKey() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            control.batch()
                    .writeVlan(300, 0, true)
                    .writeVlanMember(300, "Ethernet8", true, true)
                    .writeVlanMember(100, "Ethernet8", true, true)
                    .commit();
            sw.run();
            final ConfigDb before = SwitchConfig.of(control).runningConfig();
            assertThatThrownBy(() -> SwitchConfig.of(control)
                            .reconfigure(with(before, "VLAN", "Vlan300", Map.of("vlanid", "300"))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("VLAN|Vlan300|: refused by the control model: FAILED_PRECONDITION: VLAN 300 was written"
                            + " by a controller (P4Runtime); delete it there first");
            assertThatThrownBy(() -> SwitchConfig.of(control)
                            .reconfigure(with(
                                    before, "VLAN_MEMBER", "Vlan100|Ethernet8", Map.of("tagging_mode", "untagged"))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("VLAN_MEMBER|Vlan100|Ethernet8|tagging_mode: refused by the control model:"
                            + " FAILED_PRECONDITION: Ethernet8 in VLAN 100 was written by a controller (P4Runtime);"
                            + " delete it there first");
            // Dropping VLAN 100 from the config while a controller's member is in it.
            ConfigDb next = without(before, "VLAN_MEMBER", "Vlan100|Ethernet0");
            next = without(next, "VLAN_MEMBER", "Vlan100|Ethernet4");
            final ConfigDb dropped = without(next, "VLAN", "Vlan100");
            assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(dropped))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("VLAN|Vlan100|: refused by the control model: FAILED_PRECONDITION: VLAN 100"
                            + " still has members or static FDB entries a controller wrote");
            sw.run();
            assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(before);
            assertThat(flood(sw)).as("nothing changed").isEqualTo("Ethernet4=untagged Ethernet8=100");
        }
    }
}
