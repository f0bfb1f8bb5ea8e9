package io.asicemu.flowlet.ars;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PortQualityTest {
    @Test
    void shouldQuantizeLinearlyIntoEightBandsBetweenMinAndMax() {
        assertThat(PortQuality.quantize(0, 100, 900)).isEqualTo(7);
        assertThat(PortQuality.quantize(100, 100, 900)).isEqualTo(7);
        assertThat(PortQuality.quantize(199, 100, 900)).isEqualTo(7);
        assertThat(PortQuality.quantize(200, 100, 900)).isEqualTo(6);
        assertThat(PortQuality.quantize(899, 100, 900)).isEqualTo(0);
        assertThat(PortQuality.quantize(900, 100, 900)).isEqualTo(0);
    }

    @Test
    void shouldSampleOnlyAtIntervalBoundariesWhenTimeAdvances() {
        final PortQuality quality = new PortQuality(1, QualitySettings.defaults());
        quality.advance(5_000);
        quality.advance(5_000 + 16_000 - 1);
        assertThat(quality.sampleCount()).isZero();

        quality.advance(5_000 + 16_000);
        assertThat(quality.sampleCount()).isEqualTo(1);
        quality.advance(5_000 + 3 * 16_000 + 10);
        assertThat(quality.sampleCount()).isEqualTo(3);
    }

    @Test
    void shouldWeighTheInstantaneousSampleByOneOverWeightWhenAveraging() {
        final PortQuality quality = new PortQuality(1, QualitySettings.defaults());
        quality.advance(0);
        quality.onTransmit(0, 160_000);
        quality.queueBytes(0, 32_000);

        quality.advance(16_000);

        // SAI: weight 16 gives the sample 1/16: EWMA = 0 + (160000 - 0) / 16.
        assertThat(quality.pastLoadBytes(0)).isEqualTo(10_000);
        assertThat(quality.futureLoadBytes(0)).isEqualTo(2_000);
    }

    @Test
    void shouldRateAHalfLoadedHundredGigPortInTheMiddleBandWhenScaled() {
        // 100G port (scaling 10) sending 50 Gb/s: 50e9 / 8 * 16e-6 = 100000 bytes per 16 us interval.
        // Per 10G unit 5000 Mb/s; bands 2000..8000 Mb/s: 7 - floor((5000 - 2000) * 8 / 6000) = 3.
        final PortQuality quality = new PortQuality(2, new QualitySettings(16_000, 1, 1, 2_000, 8_000, 8_192, 262_144));
        quality.portSpeedMbps(0, 100_000);
        quality.advance(0);
        quality.onTransmit(0, 100_000);
        quality.onTransmit(1, 100_000);

        quality.advance(16_000);

        assertThat(quality.band(0)).isEqualTo(3);
        assertThat(quality.band(1)).isZero();
    }
}
