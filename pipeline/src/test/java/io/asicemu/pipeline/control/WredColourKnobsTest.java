package io.asicemu.pipeline.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.SwitchFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The WRED/ECN knobs keep every colour: after a write of one colour's knob the control model equals the model of a
 * switch loaded with the configuration that carries that value, and the other colours keep what WRED_PROFILE gave them
 * (before, the model kept green only and a write set all three colours to green's values). The traffic manager's
 * side of the same promise is {@code RuntimeSettersTest.shouldChangeOnlyThatColourWhenOneColoursWredIsSetAtRuntime}.
 */
@Timeout(60)
class WredColourKnobsTest {
    private static String config(final int greenProbability, final int redMin) {
        return """
            {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
             "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                      "Ethernet4": {"speed": "10000", "admin_status": "up"}},
             "WRED_PROFILE": {"W": {"wred_green_enable": "true", "wred_yellow_enable": "true",
                                    "wred_red_enable": "true", "ecn": "ecn_all",
                                    "green_min_threshold": "40000", "green_max_threshold": "80000",
                                    "green_drop_probability": "%d",
                                    "yellow_min_threshold": "20000", "yellow_max_threshold": "60000",
                                    "yellow_drop_probability": "50",
                                    "red_min_threshold": "%d", "red_max_threshold": "30000",
                                    "red_drop_probability": "90"}},
             "QUEUE": {"Ethernet4|3": {"wred_profile": "W"}}}""".formatted(greenProbability, redMin);
    }

    private static List<Long> wredKnobs(final PipelineControl control, final int queueIndex) {
        final List<Long> values = new ArrayList<>();
        for (int colour = 0; colour < 3; colour++) {
            for (int field = 0; field < 3; field++) {
                values.add(control.runtimeKnobs().value(RuntimeKnob.wred(colour, field), queueIndex));
            }
        }
        return values;
    }

    @Test
    void shouldAgreeWithTheLoadedConfigWhenOneColoursKnobIsWritten() {
        try (SwitchFixture written = new SwitchFixture(config(10, 10_000));
                SwitchFixture loaded = new SwitchFixture(config(70, 5_000))) {
            final PipelineControl control = written.pipeline.control();
            final int q = control.portIndex("Ethernet4") * 8 + 3;
            assertThat(wredKnobs(control, q))
                    .as("every colour as WRED_PROFILE gives it")
                    .containsExactly(40_000L, 80_000L, 10L, 20_000L, 60_000L, 50L, 10_000L, 30_000L, 90L);

            control.batch()
                    .setKnob(RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT, q, 70)
                    .setKnob(RuntimeKnob.ECN_RED_MIN_THRESHOLD_BYTES, q, 5_000)
                    .commit();
            written.run();

            final PipelineControl reference = loaded.pipeline.control();
            assertThat(wredKnobs(control, q))
                    .as("the knobs after the writes = the config with those values")
                    .isEqualTo(wredKnobs(reference, reference.portIndex("Ethernet4") * 8 + 3))
                    .containsExactly(40_000L, 80_000L, 70L, 20_000L, 60_000L, 50L, 5_000L, 30_000L, 90L);
        }
    }

    @Test
    void shouldCheckEachColoursThresholdsAgainstThatColourWhenWritten() {
        try (SwitchFixture sw = new SwitchFixture(config(10, 10_000))) {
            final PipelineControl control = sw.pipeline.control();
            final int q = control.portIndex("Ethernet4") * 8 + 3;
            // Red's Kmax is 30000: a red Kmin of 35000 is refused, while green's Kmax (80000) would allow it.
            assertThatThrownBy(() -> control.batch().setKnob(RuntimeKnob.ECN_RED_MIN_THRESHOLD_BYTES, q, 35_000))
                    .isInstanceOfSatisfying(
                            TableException.class,
                            e -> assertThat(e.code()).isEqualTo(TableException.Code.INVALID_ARGUMENT))
                    .hasMessageContaining("(red)");
            control.batch()
                    .setKnob(RuntimeKnob.ECN_MIN_THRESHOLD_BYTES, q, 35_000)
                    .commit();
            assertThat(control.runtimeKnobs().value(RuntimeKnob.ECN_RED_MIN_THRESHOLD_BYTES, q))
                    .isEqualTo(10_000);
        }
    }
}
