package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code asic-emu host --dcqcn-knob}: a knob the model does not know, a value out of the knob's range or not a number
 * is refused with exit 2 and one line naming it, before any interface is touched.
 */
class HostCommandKnobTest {
    private static HostileInputCliTest.Run host(final String knob) {
        return HostileInputCliTest.execute(
                "host",
                "--interface",
                "does-not-exist0",
                "--ip",
                "10.0.0.1",
                "--peer",
                "10.0.0.2",
                "--gateway-mac",
                "02:00:00:00:00:01",
                "--dcqcn-knob",
                knob);
    }

    @Test
    void refusesAnUnknownKnobNamingIt() {
        final HostileInputCliTest.Run run = host("rpg_time_rest=20000");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.errLines())
                .singleElement()
                .asString()
                .startsWith("host: ")
                .contains("unknown knob \"rpg_time_rest\"")
                .contains("rpg_time_reset");
    }

    @Test
    void refusesAValueOutOfTheKnobsRange() {
        final HostileInputCliTest.Run run = host("rpg_gd=3");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.errLines()).singleElement().asString().contains("rpg_gd");
    }

    @Test
    void refusesAValueThatIsNotANumber() {
        final HostileInputCliTest.Run run = host("rpg_ai_rate=fast");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.errLines())
                .singleElement()
                .asString()
                .isEqualTo("host: --dcqcn-knob rpg_ai_rate=fast: the value is not a whole number, true or false");
    }

    @Test
    void acceptsKnownKnobsAndGoesOnToTheInterface() {
        final HostileInputCliTest.Run run = host("rpg_time_reset=20000");
        // the knobs were accepted: what stops it is the interface that does not exist
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.errLines()).singleElement().asString().startsWith("host: does-not-exist0: ");
    }
}
