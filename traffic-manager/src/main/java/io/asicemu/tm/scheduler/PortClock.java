package io.asicemu.tm.scheduler;

/**
 * When each port may start its next frame: serialization at the port speed (frame + preamble/SFD + IFG + FCS
 * overhead, padded to the 60-byte minimum) with an exact remainder carried between back-to-back frames, plus an
 * optional token-bucket port shaper (PORT_QOS_MAP.scheduler's pir/pbs). All times are emulated ns; time dilation,
 * if any, belongs to the owner of the clock. Not thread safe: data-plane thread only; no allocation.
 */
public final class PortClock {
    private static final long NS_PER_S = 1_000_000_000L;

    private final long[] speedMbps;
    private final int overheadBytes;
    private final long[] busyUntilNs;
    private final long[] remainder;
    private final long[] pirBytesPerSec;
    private final long[] bucketCapScaled;
    private final long[] tokensScaled;
    private final long[] tokensAtNs;
    /**
     * Per port, the serialization time of the last wire size seen, split as bits·1000 = quotient·speed + rest, so
     * that back-to-back frames of one size (the common case) advance the clock with an add and a compare instead of
     * two 64-bit divisions. Exact: (q·speed + rest + remainder) / speed = q + (rest + remainder ≥ speed ? 1 : 0).
     */
    private final int[] cachedWireBytes;

    private final long[] cachedQuotient;
    private final long[] cachedRest;

    /**
     * @param speedMbps     per-port speed.
     * @param overheadBytes wire bytes added to every frame (preamble 8 + IFG 12 + FCS 4 = 24 by default).
     * @param startNs       emulated start time.
     */
    public PortClock(final long[] speedMbps, final int overheadBytes, final long startNs) {
        this.speedMbps = speedMbps.clone();
        this.overheadBytes = overheadBytes;
        final int n = speedMbps.length;
        busyUntilNs = new long[n];
        java.util.Arrays.fill(busyUntilNs, startNs);
        remainder = new long[n];
        pirBytesPerSec = new long[n];
        bucketCapScaled = new long[n];
        tokensScaled = new long[n];
        tokensAtNs = new long[n];
        java.util.Arrays.fill(tokensAtNs, startNs);
        cachedWireBytes = new int[n];
        cachedQuotient = new long[n];
        cachedRest = new long[n];
    }

    /**
     * Configure a port shaper (control path).
     *
     * @param port           port.
     * @param pirBytesPerSec rate, bytes/s.
     * @param pbsBytes       burst, bytes.
     */
    public void shaper(final int port, final long pirBytesPerSec, final long pbsBytes) {
        this.pirBytesPerSec[port] = pirBytesPerSec;
        bucketCapScaled[port] = pbsBytes * NS_PER_S;
        tokensScaled[port] = bucketCapScaled[port];
    }

    /**
     * @param nowNs emulated time.
     * @param port  port.
     * @return the earliest time ≥ nowNs at which the port may start a frame.
     */
    public long readyNs(final long nowNs, final int port) {
        final long t = Math.max(nowNs, busyUntilNs[port]);
        if (pirBytesPerSec[port] == 0) {
            return t;
        }
        final long tokens = tokensAt(port, t);
        if (tokens > 0) {
            return t;
        }
        return t + (-tokens) / pirBytesPerSec[port] + 1;
    }

    private long tokensAt(final int port, final long t) {
        final long elapsed = t - tokensAtNs[port];
        final long pir = pirBytesPerSec[port];
        final long need = bucketCapScaled[port] - tokensScaled[port];
        if (elapsed <= 0) {
            return tokensScaled[port];
        }
        return elapsed >= (need + pir - 1) / pir ? bucketCapScaled[port] : tokensScaled[port] + elapsed * pir;
    }

    /**
     * Start a frame at nowNs (caller checked {@link #readyNs}).
     *
     * @param nowNs      emulated time.
     * @param port       port.
     * @param frameBytes frame bytes.
     * @return the time the last bit leaves.
     */
    public long transmit(final long nowNs, final int port, final int frameBytes) {
        if (nowNs > busyUntilNs[port]) {
            remainder[port] = 0;
        }
        final long start = Math.max(nowNs, busyUntilNs[port]);
        busyUntilNs[port] = start + serialize(port, Math.max(frameBytes, 60) + overheadBytes);
        if (pirBytesPerSec[port] != 0) {
            tokensScaled[port] = tokensAt(port, start) - (long) frameBytes * NS_PER_S;
            tokensAtNs[port] = start;
        }
        return busyUntilNs[port];
    }

    /**
     * Reserve the wire for a MAC control frame (a PFC frame, 60 bytes + FCS) sent ahead of data: it starts when the
     * frame in flight ends and is not charged to the shaper.
     *
     * @param nowNs      emulated time.
     * @param port       port.
     * @param frameBytes frame bytes without FCS.
     * @return the time the control frame's last bit leaves.
     */
    public long transmitControl(final long nowNs, final int port, final int frameBytes) {
        if (nowNs > busyUntilNs[port]) {
            remainder[port] = 0;
        }
        final long start = Math.max(nowNs, busyUntilNs[port]);
        busyUntilNs[port] = start + serialize(port, Math.max(frameBytes, 60) + overheadBytes);
        return busyUntilNs[port];
    }

    /**
     * Whole ns the wire bytes take at the port's speed, carrying the sub-ns rest in {@code remainder[port]}:
     * (wireBytes·8·1000 + remainder) / speedMbps, and the remainder of that division kept for the next frame.
     */
    private long serialize(final int port, final int wireBytes) {
        final long speed = speedMbps[port];
        if (cachedWireBytes[port] != wireBytes) {
            final long bitsTimes1000 = wireBytes * 8000L;
            cachedWireBytes[port] = wireBytes;
            cachedQuotient[port] = bitsTimes1000 / speed;
            cachedRest[port] = bitsTimes1000 % speed;
        }
        final long rest = cachedRest[port] + remainder[port];
        if (rest >= speed) {
            remainder[port] = rest - speed;
            return cachedQuotient[port] + 1;
        }
        remainder[port] = rest;
        return cachedQuotient[port];
    }

    /**
     * @param port port.
     * @return when the frame on the wire ends.
     */
    public long busyUntilNs(final int port) {
        return busyUntilNs[port];
    }

    /**
     * @param port port.
     * @return the port speed in Mb/s.
     */
    public long speedMbps(final int port) {
        return speedMbps[port];
    }
}
