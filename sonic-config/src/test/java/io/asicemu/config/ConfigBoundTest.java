package io.asicemu.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConfigBoundTest {
    @Test
    void shouldAcceptBothEndsAndRefuseJustOutsideNamingThePlace() {
        assertThat(ConfigBound.PORT_MTU.parse("PORT", "Ethernet0", "mtu", "68")).isEqualTo(68);
        assertThat(ConfigBound.PORT_MTU.parse("PORT", "Ethernet0", "mtu", " 9216 "))
                .isEqualTo(9216);
        assertThatThrownBy(() -> ConfigBound.PORT_MTU.parse("PORT", "Ethernet0", "mtu", "9217"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("PORT|Ethernet0|mtu: 9217 outside 68..9216 (PORT_MTU)");
    }

    @Test
    void shouldRefuseTextThatIsNotADecimalInteger() {
        assertThatThrownBy(() -> ConfigBound.BUFFER_BYTES.parse("BUFFER_POOL", "p", "size", "1e9"))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.table()).isEqualTo("BUFFER_POOL");
                    assertThat(e.field()).isEqualTo("size");
                    assertThat(e.reason()).isEqualTo("not an integer: '1e9'");
                });
    }

    @Test
    void shouldKeepEveryByteBoundFarFromOverflowWhenMultipliedByACellCount() {
        // Threshold arithmetic multiplies byte counts by alphas up to 2^7 and by cell counts; 2^36 * 2^20 < 2^63.
        assertThat(Math.multiplyHigh(ConfigBound.BUFFER_BYTES.max(), 1L << 20)).isZero();
        for (final ConfigBound b : ConfigBound.values()) {
            assertThat(b.min()).as(b.name()).isLessThanOrEqualTo(b.max());
        }
    }
}
