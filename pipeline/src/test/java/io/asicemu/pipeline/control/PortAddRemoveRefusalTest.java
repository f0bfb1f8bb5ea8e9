package io.asicemu.pipeline.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * A running config without one of its ports (Redis {@code DEL PORT|Ethernet0}) or with a new one is refused as a change
 * that needs a reload, naming the port: not for the removed port's references (its INTERFACE keys), which the compile
 * would have refused first (issue 43).
 */
@Timeout(60)
class PortAddRemoveRefusalTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "lanes": "0,1,2,3"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up", "lanes": "4,5,6,7"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}}}""";

    @Test
    void shouldRefuseRemovingOrAddingAPortAsNeedingAReload() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            final PipelineControl control = sw.pipeline.control();
            final ConfigDb before = SwitchConfig.of(control).runningConfig();

            final Map<String, Map<String, Map<String, String>>> without = RunningConfig.mutableCopy(before);
            without.get("PORT").remove("Ethernet0");
            assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(new ConfigDb(without)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("PORT|Ethernet0|: needs config reload: removing a port: the port map");

            final Map<String, Map<String, Map<String, String>>> with = RunningConfig.mutableCopy(before);
            with.get("PORT").put("Ethernet8", new LinkedHashMap<>(Map.of("speed", "10000", "lanes", "8,9,10,11")));
            assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(new ConfigDb(with)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("PORT|Ethernet8|: needs config reload: adding a port");

            assertThat(SwitchConfig.of(control).runningConfig())
                    .as("nothing changed")
                    .isEqualTo(before);
        }
    }
}
