package io.asicemu.flowlet.ars;

import java.util.Arrays;

/**
 * Path quality of every egress port in 8 bands, 0 worst to 7 best, from an EWMA of bytes transmitted per sampling
 * interval (past load) and an EWMA of queued bytes (future load), as SAI ARS and Broadcom DLB measure port load and
 * port queue. A port's band is the worse of its two bands; each band quantizes its metric linearly between the
 * configured min (band 7 at or below) and max (band 0 at or above).
 * <p>
 * The traffic manager (or a test) feeds {@link #onTransmit} and {@link #queueBytes}; {@link #advance(long)} takes
 * samples at each interval boundary up to {@code nowNs}. Time is an input; nothing here reads a clock.
 * <p>
 * No allocation after construction. Not thread safe: called on the data-plane thread only.
 */
public final class PortQuality {
    /** Number of quality bands. */
    public static final int BAND_COUNT = 8;
    /** The best band. */
    public static final int BEST_BAND = BAND_COUNT - 1;

    private static final int EWMA_SHIFT = 8;
    private static final int MAX_CATCH_UP_SAMPLES = 64;

    private final QualitySettings settings;
    private final long pastMinBytesPerUnit;
    private final long pastMaxBytesPerUnit;
    private final long[] txBytes;
    private final long[] queueBytes;
    private final long[] pastEwma;
    private final long[] futureEwma;
    private final int[] scalingFactor;
    private final int[] band;
    private boolean started;
    private long nextSampleNs;
    private long sampleCount;

    /**
     * @param portCount number of port indices (0..portCount-1).
     * @param settings  sampling, weights and band ranges.
     */
    public PortQuality(final int portCount, final QualitySettings settings) {
        this.settings = settings;
        // Mb/s over one interval in bytes: Mbps * 1e6 b/s * intervalNs * 1e-9 s / 8 = Mbps * intervalNs / 8000.
        this.pastMinBytesPerUnit = settings.pastLoadMinMbps() * settings.samplingIntervalNs() / 8000;
        this.pastMaxBytesPerUnit =
                Math.max(pastMinBytesPerUnit + 1, settings.pastLoadMaxMbps() * settings.samplingIntervalNs() / 8000);
        this.txBytes = new long[portCount];
        this.queueBytes = new long[portCount];
        this.pastEwma = new long[portCount];
        this.futureEwma = new long[portCount];
        this.scalingFactor = new int[portCount];
        this.band = new int[portCount];
        Arrays.fill(scalingFactor, 1);
        Arrays.fill(band, BEST_BAND);
    }

    /**
     * Set the load scaling factor of a port in 10G units (SAI PORT.ARS_PORT_LOAD_SCALING_FACTOR: 100G is 10).
     *
     * @param port   port index.
     * @param factor 1 or more.
     */
    public void scalingFactor(final int port, final int factor) {
        if (factor < 1) {
            throw new IllegalArgumentException("scaling factor must be >= 1");
        }
        scalingFactor[port] = factor;
    }

    /**
     * Set the scaling factor from a port speed (10G per unit, at least 1).
     *
     * @param port      port index.
     * @param speedMbps port speed.
     */
    public void portSpeedMbps(final int port, final long speedMbps) {
        scalingFactor(port, (int) Math.max(1, speedMbps / 10_000));
    }

    /**
     * Count bytes transmitted on a port (past load input).
     *
     * @param port  port index.
     * @param bytes bytes put on the wire.
     */
    public void onTransmit(final int port, final int bytes) {
        txBytes[port] += bytes;
    }

    /**
     * Report a port's current egress queue occupancy (future load input), sampled at the next interval boundary.
     *
     * @param port  port index.
     * @param bytes bytes queued.
     */
    public void queueBytes(final int port, final long bytes) {
        queueBytes[port] = bytes;
    }

    /**
     * Take the samples due at or before {@code nowNs} (at most 64 are replayed after a long idle; the rest would
     * only decay an EWMA already near zero).
     *
     * @param nowNs current time.
     */
    public void advance(final long nowNs) {
        final long interval = settings.samplingIntervalNs();
        if (!started) {
            started = true;
            nextSampleNs = nowNs + interval;
            return;
        }
        if (nowNs - nextSampleNs < 0) {
            return;
        }
        final long due = (nowNs - nextSampleNs) / interval + 1;
        final long replay = Math.min(due, MAX_CATCH_UP_SAMPLES);
        for (long i = 0; i < replay; i++) {
            sampleAll();
        }
        nextSampleNs += due * interval;
    }

    /**
     * @param port port index.
     * @return quality band 0 (worst) .. 7 (best).
     */
    public int band(final int port) {
        return band[port];
    }

    /**
     * @param port port index.
     * @return EWMA of bytes transmitted per sampling interval.
     */
    public long pastLoadBytes(final int port) {
        return pastEwma[port] >> EWMA_SHIFT;
    }

    /**
     * @param port port index.
     * @return EWMA of bytes queued.
     */
    public long futureLoadBytes(final int port) {
        return futureEwma[port] >> EWMA_SHIFT;
    }

    /**
     * @return samples taken so far.
     */
    public long sampleCount() {
        return sampleCount;
    }

    /**
     * @return number of ports.
     */
    public int portCount() {
        return band.length;
    }

    /**
     * @return the settings.
     */
    public QualitySettings settings() {
        return settings;
    }

    /**
     * Quantize a metric into a band: 7 at or below min, 0 at or above max, linear in between.
     *
     * @param metric value.
     * @param min    band-7 bound.
     * @param max    band-0 bound.
     * @return band 0..7.
     */
    public static int quantize(final long metric, final long min, final long max) {
        if (metric <= min) {
            return BEST_BAND;
        }
        if (metric >= max) {
            return 0;
        }
        final long step = (metric - min) * BAND_COUNT / (max - min);
        return (int) (BEST_BAND - step);
    }

    private void sampleAll() {
        sampleCount++;
        final int pastWeight = settings.pastLoadWeight();
        final int futureWeight = settings.futureLoadWeight();
        for (int p = 0; p < band.length; p++) {
            pastEwma[p] += ((txBytes[p] << EWMA_SHIFT) - pastEwma[p]) / pastWeight;
            futureEwma[p] += ((queueBytes[p] << EWMA_SHIFT) - futureEwma[p]) / futureWeight;
            txBytes[p] = 0;
            final int pastBand =
                    quantize((pastEwma[p] >> EWMA_SHIFT) / scalingFactor[p], pastMinBytesPerUnit, pastMaxBytesPerUnit);
            final int futureBand =
                    quantize(futureEwma[p] >> EWMA_SHIFT, settings.futureLoadMinBytes(), settings.futureLoadMaxBytes());
            band[p] = Math.min(pastBand, futureBand);
        }
    }
}
