package io.asicemu.rdma.dcqcn;

/**
 * The DCQCN reaction point of one queue pair: the sender's rate, cut by CNPs and recovered by a timer and a byte
 * counter (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1, with the NIC
 * knobs of {@link DcqcnParameters}).
 *
 * <p>Time is an input: every call carries {@code nowNs}, non-decreasing, and {@link #advanceTo} fires the alpha and
 * rate-increase timers due by then, in time order (at equal times: a coalesced cut, then alpha, then the increase).
 * A QP at its highest rate runs no timers, so {@link #nextEventNs()} is {@link Long#MAX_VALUE} and it costs nothing
 * until the next CNP. Floating-point arithmetic only (IEEE 754 in Java, {@link StrictMath} for powers), so the same
 * inputs give bit-identical rates. Single-threaded.
 */
public final class ReactionPoint {
    /** Rate-limiter resolution: within this of the highest rate the QP counts as recovered and its timers stop. */
    static final double RECOVERED_WITHIN_BPS = 1e6;

    private static final long NS_PER_US = 1_000L;
    private static final double BPS_PER_MBPS = 1e6;

    private final DcqcnParameters params;
    private final double maxRateBps;
    private final double minRateBps;
    private final double aiBps;
    private final double haiBps;
    private final double gain;
    private final double cutScale;
    private final long increasePeriodNs;
    private final long alphaPeriodNs;
    private final long cutSpacingNs;

    private double currentRateBps;
    private double targetRateBps;
    private double alpha;
    private boolean congestedBefore;
    private boolean rateLimited;
    private int timeStage;
    private int byteStage;
    private long bytesSinceStage;

    private long nextIncreaseNs = Long.MAX_VALUE;
    private long nextAlphaNs = Long.MAX_VALUE;
    /** When the alpha timer last ticked (or was reset); lets a QP that stopped its timers decay alpha on return. */
    private long alphaClockNs;

    private long lastCutNs = Long.MIN_VALUE;
    private long pendingCutNs = Long.MAX_VALUE;
    private long nowNs = Long.MIN_VALUE;

    private long cnpsReceived;
    private long rateCuts;
    private long fastRecoveryEvents;
    private long additiveIncreaseEvents;
    private long hyperIncreaseEvents;
    private long timerIncreaseEvents;
    private long byteCounterIncreaseEvents;

    /**
     * @param lineRateBps the port's line rate; the QP starts there, unthrottled
     */
    public ReactionPoint(DcqcnParameters params, long lineRateBps) {
        if (lineRateBps <= 0) {
            throw new IllegalArgumentException("line rate must be positive: " + lineRateBps);
        }
        this.params = params;
        this.maxRateBps = params.rpgMaxRateMbps() == 0
                ? lineRateBps
                : Math.min(lineRateBps, params.rpgMaxRateMbps() * BPS_PER_MBPS);
        this.minRateBps = Math.min(maxRateBps, params.rpgMinRateMbps() * BPS_PER_MBPS);
        this.aiBps = params.rpgAiRateMbps() * BPS_PER_MBPS;
        this.haiBps = params.rpgHaiRateMbps() * BPS_PER_MBPS;
        this.gain = params.alphaGain();
        this.cutScale = 1024.0 / (1L << params.rpgGd());
        this.increasePeriodNs = params.rpgTimeResetUs() * NS_PER_US;
        this.alphaPeriodNs = params.dceTcpRttUs() * NS_PER_US;
        this.cutSpacingNs = params.rateReduceMonitorPeriodUs() * NS_PER_US;
        this.currentRateBps = maxRateBps;
        this.targetRateBps = maxRateBps;
    }

    /** A CNP for this QP arrived. */
    public void onCnp(long nowNs) {
        advanceTo(nowNs);
        cnpsReceived++;
        if (!congestedBefore) {
            congestedBefore = true;
            alpha = params.initialAlphaValue() / 1024.0;
            alphaClockNs = nowNs;
            if (params.rateToSetOnFirstCnpMbps() > 0) {
                double rate = Math.min(maxRateBps, params.rateToSetOnFirstCnpMbps() * BPS_PER_MBPS);
                currentRateBps = rate;
                targetRateBps = rate;
                startRecovery(nowNs);
                lastCutNs = nowNs;
                return;
            }
        } else if (!rateLimited) {
            decayAlphaWhileIdle(nowNs);
        }
        if (lastCutNs == Long.MIN_VALUE || nowNs - lastCutNs >= cutSpacingNs) {
            cut(nowNs);
        } else if (pendingCutNs == Long.MAX_VALUE) {
            pendingCutNs = lastCutNs + cutSpacingNs;
        }
    }

    /** The QP put {@code bytes} on the wire: feeds the byte counter while the QP is recovering. */
    public void onBytesSent(long bytes, long nowNs) {
        advanceTo(nowNs);
        if (!rateLimited || params.rpgByteResetBytes() == 0) {
            return;
        }
        bytesSinceStage += bytes;
        while (rateLimited && bytesSinceStage >= params.rpgByteResetBytes()) {
            bytesSinceStage -= params.rpgByteResetBytes();
            byteStage++;
            byteCounterIncreaseEvents++;
            increase();
        }
    }

    /** Fires every timer due at or before {@code nowNs}. */
    public void advanceTo(long nowNs) {
        if (nowNs < this.nowNs) {
            throw new IllegalArgumentException("time went back: " + nowNs + " < " + this.nowNs);
        }
        this.nowNs = nowNs;
        while (true) {
            long next = nextEventNs();
            if (next > nowNs) {
                return;
            }
            if (next == pendingCutNs) {
                pendingCutNs = Long.MAX_VALUE;
                cut(next);
            } else if (next == nextAlphaNs) {
                alpha *= 1 - gain;
                alphaClockNs = next;
                nextAlphaNs = next + alphaPeriodNs;
            } else {
                timeStage++;
                timerIncreaseEvents++;
                nextIncreaseNs = next + increasePeriodNs;
                increase();
            }
        }
    }

    /** The earliest timer still to fire, or {@link Long#MAX_VALUE} when the QP runs at its highest rate. */
    public long nextEventNs() {
        return Math.min(pendingCutNs, Math.min(nextAlphaNs, nextIncreaseNs));
    }

    private void cut(long atNs) {
        // "After a timer increase": the timer fired at least once since the last cut, whatever the byte counter
        // did after it (ns-3's model of the Mellanox NIC: clamp unless the timer stage is still 0).
        if (params.clampTgtRate() || (params.clampTgtRateAfterTimeInc() && timeStage > 0)) {
            targetRateBps = currentRateBps;
        }
        double cutRate = currentRateBps * (1 - alpha * cutScale);
        double floorOfThisCut = currentRateBps * (params.rpgMinDecFacPercent() / 100.0);
        currentRateBps = Math.max(cutRate, Math.max(floorOfThisCut, Math.min(minRateBps, currentRateBps)));
        alpha = alpha * (1 - gain) + gain;
        alphaClockNs = atNs;
        nextAlphaNs = atNs + alphaPeriodNs;
        lastCutNs = atNs;
        rateCuts++;
        startRecovery(atNs);
    }

    private void startRecovery(long atNs) {
        rateLimited = true;
        timeStage = 0;
        byteStage = 0;
        bytesSinceStage = 0;
        nextIncreaseNs = atNs + increasePeriodNs;
        if (nextAlphaNs == Long.MAX_VALUE) {
            nextAlphaNs = atNs + alphaPeriodNs;
        }
    }

    /** One increase event: the stage comes from how often each counter fired since the last cut (paper Fig. 7). */
    private void increase() {
        int threshold = params.rpgThreshold();
        // With the byte counter off the timer alone decides the stage.
        int bytes = params.rpgByteResetBytes() == 0 ? timeStage : byteStage;
        int low = Math.min(timeStage, bytes);
        int high = Math.max(timeStage, bytes);
        if (high < threshold) {
            fastRecoveryEvents++;
        } else if (low > threshold) {
            targetRateBps = Math.min(maxRateBps, targetRateBps + (low - threshold) * haiBps);
            hyperIncreaseEvents++;
        } else {
            targetRateBps = Math.min(maxRateBps, targetRateBps + aiBps);
            additiveIncreaseEvents++;
        }
        currentRateBps = Math.min(maxRateBps, (targetRateBps + currentRateBps) / 2);
        if (targetRateBps >= maxRateBps && maxRateBps - currentRateBps < RECOVERED_WITHIN_BPS) {
            recovered();
        }
    }

    private void recovered() {
        currentRateBps = maxRateBps;
        targetRateBps = maxRateBps;
        rateLimited = false;
        nextIncreaseNs = Long.MAX_VALUE;
        nextAlphaNs = Long.MAX_VALUE;
        pendingCutNs = Long.MAX_VALUE;
    }

    private void decayAlphaWhileIdle(long atNs) {
        long periods = (atNs - alphaClockNs) / alphaPeriodNs;
        if (periods > 0) {
            alpha *= StrictMath.pow(1 - gain, periods);
            alphaClockNs += periods * alphaPeriodNs;
        }
        nextAlphaNs = alphaClockNs + alphaPeriodNs;
    }

    public double currentRateBps() {
        return currentRateBps;
    }

    public double targetRateBps() {
        return targetRateBps;
    }

    public double alpha() {
        return alpha;
    }

    /** True from a cut until the rate is back at its highest. */
    public boolean rateLimited() {
        return rateLimited;
    }

    public int timeStage() {
        return timeStage;
    }

    public int byteStage() {
        return byteStage;
    }

    public long cnpsReceived() {
        return cnpsReceived;
    }

    public long rateCuts() {
        return rateCuts;
    }

    public long fastRecoveryEvents() {
        return fastRecoveryEvents;
    }

    public long additiveIncreaseEvents() {
        return additiveIncreaseEvents;
    }

    public long hyperIncreaseEvents() {
        return hyperIncreaseEvents;
    }

    /** Increase events the timer triggered (every {@code rpg_time_reset} while recovering). */
    public long timerIncreaseEvents() {
        return timerIncreaseEvents;
    }

    /** Increase events the byte counter triggered (every {@code rpg_byte_reset} bytes sent while recovering). */
    public long byteCounterIncreaseEvents() {
        return byteCounterIncreaseEvents;
    }

    public double maxRateBps() {
        return maxRateBps;
    }
}
