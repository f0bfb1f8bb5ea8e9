package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 44: a PORT without {@code admin_status} is down (SONiC's default), and the warning names it. */
class AdminDownPortsTest {
    private static ConfigDb ports(final Map<String, Map<String, String>> port) {
        return new ConfigDb(Map.of("PORT", port));
    }

    @Test
    void shouldNameThePortsWithoutAdminStatusUpInIndexOrderWhenSomeAreDown() {
        final Map<String, Map<String, String>> port = new LinkedHashMap<>();
        port.put("Ethernet8", Map.of("speed", "100000"));
        port.put("Ethernet0", Map.of("speed", "100000", "admin_status", "down"));
        port.put("Ethernet4", Map.of("speed", "100000", "admin_status", "up"));
        final ConfigDb db = ports(port);
        assertThat(AdminDownPorts.of(db)).containsExactly("Ethernet0", "Ethernet8");
        assertThat(AdminDownPorts.warning(db))
                .isEqualTo("2 of 3 ports are admin down (PORT admin_status missing or \"down\": SONiC's default), "
                        + "so they drop every frame (ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN) and send nothing: "
                        + "Ethernet0, Ethernet8; set \"admin_status\": \"up\" in their PORT entries to forward");
    }

    @Test
    void shouldSayEveryPortWhenNoneHasAdminStatus() {
        final ConfigDb db = ports(Map.of("Ethernet0", Map.of("speed", "100000")));
        assertThat(AdminDownPorts.warning(db))
                .startsWith("every port is admin down")
                .contains("so it drops every frame (ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN) and sends nothing: ")
                .endsWith(": Ethernet0; set \"admin_status\": \"up\" in its PORT entry to forward");
    }

    @Test
    void shouldSayNothingWhenEveryPortIsUp() {
        final ConfigDb db = ports(Map.of(
                "Ethernet0", Map.of("speed", "100000", "admin_status", "up"),
                "Ethernet4", Map.of("speed", "100000", "admin_status", "up")));
        assertThat(AdminDownPorts.of(db)).isEmpty();
        assertThat(AdminDownPorts.warning(db)).isNull();
        assertThat(AdminDownPorts.warning(ports(Map.of()))).isNull();
    }

    @Test
    void shouldCountThePortsBeyondTheNamedOnesWhenManyAreDown() {
        final Map<String, Map<String, String>> port = new LinkedHashMap<>();
        for (int i = 0; i < AdminDownPorts.MAX_NAMED + 3; i++) {
            port.put("Ethernet" + 4 * i, Map.of("speed", "100000"));
        }
        assertThat(AdminDownPorts.warning(ports(port)))
                .contains("Ethernet0, Ethernet4, ")
                .contains("Ethernet" + 4 * (AdminDownPorts.MAX_NAMED - 1) + " and 3 more;");
    }
}
