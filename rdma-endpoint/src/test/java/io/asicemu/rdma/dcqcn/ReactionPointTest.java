package io.asicemu.rdma.dcqcn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The reaction point checked step by step against the paper's equations (Zhu et al., SIGCOMM 2015, §3.1):
 * cut {@code R_T ← R_C, R_C ← R_C(1 − α/2), α ← (1 − g)α + g}; alpha timer {@code α ← (1 − g)α}; increase events
 * fast recovery {@code R_C ← (R_T + R_C)/2}, additive {@code R_T ← R_T + R_AI}, hyper {@code R_T ← R_T + i·R_HAI}.
 * Expected values are computed here from those formulas, independently of the class's code path.
 */
class ReactionPointTest {
    private static final long LINE = 100_000_000_000L;
    private static final long US = 1_000L;
    private final DcqcnParameters paper = DcqcnParameters.paperSettings();
    private final double g = 1.0 / 256;

    @Test
    void paperSettingsSpellTheirParameters() {
        assertThat(paper.alphaGain()).isEqualTo(g);
        assertThat(paper.rpgTimeResetUs()).isEqualTo(55);
        assertThat(paper.dceTcpRttUs()).isEqualTo(55);
        assertThat(paper.minTimeBetweenCnpsUs()).isEqualTo(50);
        assertThat(paper.rpgThreshold()).isEqualTo(5);
    }

    @Test
    void anUncongestedQpRunsAtLineRateWithNoTimers() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.advanceTo(1_000_000 * US);
        assertThat(rp.currentRateBps()).isEqualTo(LINE);
        assertThat(rp.nextEventNs()).isEqualTo(Long.MAX_VALUE);
        assertThat(rp.rateLimited()).isFalse();
    }

    @Test
    void firstCnpCutsWithTheInitialAlphaThenRaisesAlpha() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(10 * US);
        double alpha0 = 1023 / 1024.0;
        assertThat(rp.currentRateBps()).isEqualTo(LINE * (1 - alpha0 / 2));
        assertThat(rp.targetRateBps()).isEqualTo((double) LINE);
        assertThat(rp.alpha()).isEqualTo(alpha0 * (1 - g) + g);
        assertThat(rp.rateLimited()).isTrue();
        assertThat(rp.rateCuts()).isEqualTo(1);
    }

    @Test
    void alphaDecaysOncePerPeriodWithoutCnps() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(0);
        double expected = rp.alpha();
        for (int k = 1; k <= 7; k++) {
            rp.advanceTo(k * 55 * US);
            expected *= 1 - g;
            assertThat(rp.alpha()).as("after %d periods", k).isEqualTo(expected);
        }
        rp.advanceTo(7 * 55 * US + 54 * US);
        assertThat(rp.alpha()).isEqualTo(expected);
    }

    @Test
    void aCnpResetsTheAlphaTimer() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(0);
        rp.onCnp(50 * US);
        double afterSecondCnp = rp.alpha();
        rp.advanceTo(104 * US); // 54 µs after the second CNP: no tick yet (the first CNP's tick at 55 µs was reset)
        assertThat(rp.alpha()).isEqualTo(afterSecondCnp);
        rp.advanceTo(105 * US);
        assertThat(rp.alpha()).isEqualTo(afterSecondCnp * (1 - g));
    }

    @Test
    void secondCnpClampsTheTargetAndCutsByHalfAlpha() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(0);
        double rateBefore = rp.currentRateBps();
        double alphaBefore = rp.alpha();
        rp.onCnp(50 * US);
        assertThat(rp.targetRateBps()).isEqualTo(rateBefore);
        assertThat(rp.currentRateBps()).isEqualTo(rateBefore * (1 - alphaBefore / 2));
        assertThat(rp.alpha()).isEqualTo(alphaBefore * (1 - g) + g);
    }

    @Test
    void timerDrivenRecoveryGoesFastRecoveryThenAdditive() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(0);
        rp.onCnp(50 * US); // target now below line rate, so additive steps show
        double rc = rp.currentRateBps();
        double rt = rp.targetRateBps();
        long cutAt = 50 * US;
        for (int t = 1; t <= 8; t++) {
            rp.advanceTo(cutAt + t * 55 * US);
            // Byte counter (10 MB) never fires here: BC = 0, so max(T, BC) = T, min = 0.
            if (t >= 5) {
                rt = Math.min(LINE, rt + 40e6);
            }
            rc = (rt + rc) / 2;
            assertThat(rp.timeStage()).isEqualTo(t);
            assertThat(rp.targetRateBps()).as("R_T after timer event %d", t).isEqualTo(rt);
            assertThat(rp.currentRateBps()).as("R_C after timer event %d", t).isEqualTo(rc);
        }
        assertThat(rp.fastRecoveryEvents()).isEqualTo(4);
        assertThat(rp.additiveIncreaseEvents()).isEqualTo(4);
    }

    @Test
    void bothCountersPastTheThresholdGiveHyperIncrease() {
        DcqcnParameters smallBytes =
                new DcqcnParameters(55, 1_000, 2, 0, 40, 400, 11, 50, 1, 0, 1020, 55, 0, 1023, true, true, 50, 48, 6);
        ReactionPoint rp = new ReactionPoint(smallBytes, LINE);
        rp.onCnp(0);
        rp.onCnp(1 * US);
        double rc = rp.currentRateBps();
        double rt = rp.targetRateBps();
        // Three byte events at 2 µs: BC = 1, 2, 3 with T = 0 → fast, fast? max(T,BC) = 1 < 2 fast; 2 → additive; 3 →
        // additive.
        rp.onBytesSent(3_000, 2 * US);
        rc = (rt + rc) / 2;
        rt += 40e6;
        rc = (rt + rc) / 2;
        rt += 40e6;
        rc = (rt + rc) / 2;
        assertThat(rp.byteStage()).isEqualTo(3);
        assertThat(rp.currentRateBps()).isEqualTo(rc);
        // Timer events at 56, 111, 166 µs: T = 1, 2 (additive), 3 → min(T, BC) = 3 > 2: hyper with i = 1.
        rp.advanceTo(1 * US + 55 * US);
        rt += 40e6;
        rc = (rt + rc) / 2;
        rp.advanceTo(1 * US + 110 * US);
        rt += 40e6;
        rc = (rt + rc) / 2;
        rp.advanceTo(1 * US + 165 * US);
        rt += 1 * 400e6;
        rc = (rt + rc) / 2;
        assertThat(rp.timeStage()).isEqualTo(3);
        assertThat(rp.targetRateBps()).isEqualTo(rt);
        assertThat(rp.currentRateBps()).isEqualTo(rc);
        assertThat(rp.hyperIncreaseEvents()).isEqualTo(1);
    }

    @Test
    void recoveryEndsAtLineRateAndStopsTheTimers() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(0);
        long t = 0;
        while (rp.rateLimited() && t < 1_000_000 * US) {
            t += 55 * US;
            rp.advanceTo(t);
        }
        assertThat(rp.rateLimited()).isFalse();
        assertThat(rp.currentRateBps()).isEqualTo(LINE);
        assertThat(rp.nextEventNs()).isEqualTo(Long.MAX_VALUE);
        // Target stayed at line rate (first cut leaves it there), so fast recovery alone closes the gap in
        // ceil(log2(gap / 1 Mb/s)) events.
        double gap = LINE * (1023 / 1024.0) / 2;
        long events = (long) Math.ceil(Math.log(gap / ReactionPoint.RECOVERED_WITHIN_BPS) / Math.log(2));
        assertThat(rp.fastRecoveryEvents() + rp.additiveIncreaseEvents()).isEqualTo(events);
    }

    @Test
    void alphaKeepsDecayingWhileTheTimersAreStopped() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.onCnp(0);
        long t = 0;
        while (rp.rateLimited()) {
            t += 55 * US;
            rp.advanceTo(t);
        }
        double alphaAtRecovery = rp.alpha();
        long idlePeriods = 1_000;
        rp.onCnp(t + idlePeriods * 55 * US + 3 * US);
        double decayed = alphaAtRecovery * StrictMath.pow(1 - g, idlePeriods);
        assertThat(rp.alpha()).isEqualTo(decayed * (1 - g) + g);
        assertThat(rp.currentRateBps()).isEqualTo(LINE * (1 - decayed / 2));
    }

    @Test
    void cutsNeverGoBelowTheMinimumRateOrTheMinimumDecreaseFactor() {
        DcqcnParameters harsh =
                new DcqcnParameters(55, 0, 5, 0, 40, 400, 10, 75, 30_000, 0, 0, 55, 0, 1023, true, true, 50, 48, 6);
        ReactionPoint rp = new ReactionPoint(harsh, LINE);
        rp.onCnp(0); // gd 10: cut factor alpha = 1023/1024, bounded by 75 %
        assertThat(rp.currentRateBps()).isEqualTo(LINE * 0.75);
        for (int i = 1; i < 20; i++) {
            rp.onCnp(i * US);
        }
        assertThat(rp.currentRateBps()).isEqualTo(30e9);
    }

    @Test
    void cnpsInsideTheMonitorPeriodCoalesceIntoOneCutAtItsEnd() {
        ReactionPoint rp = new ReactionPoint(DcqcnParameters.nicDefaults(), LINE);
        rp.onCnp(0);
        double afterFirst = rp.currentRateBps();
        rp.onCnp(1 * US);
        rp.onCnp(2 * US);
        rp.onCnp(3 * US);
        assertThat(rp.rateCuts()).isEqualTo(1);
        assertThat(rp.currentRateBps()).isEqualTo(afterFirst);
        assertThat(rp.nextEventNs()).isEqualTo(4 * US); // the coalesced cut, 4 µs after the first
        rp.advanceTo(4 * US);
        assertThat(rp.rateCuts()).isEqualTo(2);
        assertThat(rp.cnpsReceived()).isEqualTo(4);
    }

    @Test
    void nicDefaultsClampTheTargetOnlyAfterATimerIncrease() {
        DcqcnParameters nic = DcqcnParameters.nicDefaults();
        ReactionPoint rp = new ReactionPoint(nic, LINE);
        rp.onCnp(0);
        rp.onBytesSent(32_767, 1 * US); // a byte-counter increase
        rp.onCnp(10 * US);
        assertThat(rp.targetRateBps()).as("no clamp after a byte increase").isEqualTo((double) LINE);
        double beforeTimer = rp.currentRateBps();
        rp.advanceTo(10 * US + 300 * US); // a timer increase
        assertThat(rp.currentRateBps()).isGreaterThan(beforeTimer);
        double rateAtCnp = rp.currentRateBps();
        rp.onCnp(10 * US + 300 * US);
        assertThat(rp.targetRateBps()).isEqualTo(rateAtCnp);
    }

    @Test
    void nicDefaultsClampTheTargetWhenTheTimerFiredSinceTheCutEvenIfTheByteCounterFiredLast() {
        // clamp_tgt_rate_after_time_inc: the increase since the last cut was not only the byte counter's. ns-3's
        // model of the Mellanox NIC (rdma-hw.cc) clamps unless the timer stage is still 0; a byte event after the
        // timer event does not undo that.
        DcqcnParameters nic = DcqcnParameters.nicDefaults();
        ReactionPoint rp = new ReactionPoint(nic, LINE);
        rp.onCnp(0);
        rp.advanceTo(300 * US); // timer event: T = 1
        rp.onBytesSent(32_767, 301 * US); // then a byte event: BC = 1, the last increase is the byte counter's
        assertThat(rp.timeStage()).isEqualTo(1);
        assertThat(rp.byteStage()).isEqualTo(1);
        assertThat(rp.timerIncreaseEvents()).isEqualTo(1);
        assertThat(rp.byteCounterIncreaseEvents()).isEqualTo(1);
        double rateAtCnp = rp.currentRateBps();
        assertThat(rp.targetRateBps()).isGreaterThan(rateAtCnp);
        rp.onCnp(302 * US);
        assertThat(rp.targetRateBps())
                .as("R_T <- R_C: the timer fired since the last cut")
                .isEqualTo(rateAtCnp);
    }

    @Test
    void rateOnFirstCnpSetsBothRates() {
        DcqcnParameters p = new DcqcnParameters(
                300, 32_767, 1, 0, 5, 50, 11, 50, 1, 25_000, 1019, 1, 4, 1023, false, true, 4, 48, 6);
        ReactionPoint rp = new ReactionPoint(p, LINE);
        rp.onCnp(0);
        assertThat(rp.currentRateBps()).isEqualTo(25e9);
        assertThat(rp.targetRateBps()).isEqualTo(25e9);
        assertThat(rp.rateCuts()).isZero();
    }

    @Test
    void timeMustNotGoBack() {
        ReactionPoint rp = new ReactionPoint(paper, LINE);
        rp.advanceTo(10);
        assertThatThrownBy(() -> rp.advanceTo(9)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parametersOutsideTheirRangeAreNamed() {
        assertThatThrownBy(() -> new DcqcnParameters(
                        0, 0, 5, 0, 40, 400, 11, 50, 1, 0, 1020, 55, 0, 1023, true, true, 50, 48, 6))
                .hasMessageContaining("rpg_time_reset");
        assertThatThrownBy(() -> new DcqcnParameters(
                        55, 0, 5, 0, 40, 400, 11, 50, 1, 0, 1020, 55, 0, 1023, true, true, 50, 64, 6))
                .hasMessageContaining("cnp_dscp");
    }
}
