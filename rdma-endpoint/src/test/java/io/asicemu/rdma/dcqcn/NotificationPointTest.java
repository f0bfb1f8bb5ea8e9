package io.asicemu.rdma.dcqcn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NotificationPointTest {
    @Test
    void atMostOneCnpPerIntervalWhateverTheMarkRate() {
        NotificationPoint np = new NotificationPoint(DcqcnParameters.paperSettings()); // N = 50 µs
        int sent = 0;
        for (long t = 0; t < 1_000_000; t += 1_000) { // a CE mark every µs for 1 ms
            if (np.onCeMarked(t)) {
                sent++;
            }
        }
        assertThat(sent).isEqualTo(20);
        assertThat(np.cnpsSent()).isEqualTo(20);
        assertThat(np.ceMarkedPackets()).isEqualTo(1_000);
    }

    @Test
    void theFirstMarkAlwaysAnswersAndTheGapIsMeasuredFromTheLastCnp() {
        NotificationPoint np = new NotificationPoint(DcqcnParameters.nicDefaults()); // 4 µs
        assertThat(np.onCeMarked(5_000_000)).isTrue();
        assertThat(np.onCeMarked(5_003_999)).isFalse();
        assertThat(np.onCeMarked(5_004_000)).isTrue();
        assertThat(np.onCeMarked(5_007_000)).isFalse();
        assertThat(np.onCeMarked(5_008_000)).isTrue();
    }
}
