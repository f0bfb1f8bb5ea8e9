package io.asicemu.tm.config;

/**
 * SONiC's "well-known formula" for lossless PG headroom (reference §6.3, {@code buffer_headroom_mellanox.lua} form):
 * <pre>
 * worst_case_factor = cell &gt; 2*64 ? ceil(cell/64) : ceil(2*cell/(1+cell))
 * cell_occupancy    = (100 - small_pkt% + small_pkt% * worst_case_factor) / 100
 * bytes_on_cable    = 2 * len_m * speed_Mbps * 1e6 / 198e6 / 8           (round trip)
 * peer_response     = pause_quanta(speed) * 512 / 8
 * propagation_delay = port_mtu + bytes_on_cable + 2*bytes_on_gearbox + mac_phy_delay + peer_response
 * xoff = ceil_1KiB(lossless_mtu + propagation_delay * cell_occupancy)
 * xon  = ceil_1KiB(pipeline_latency)
 * size = shared headroom pool ? xon : xoff + xon
 * </pre>
 * Control-path helper; allocates.
 */
public final class HeadroomCalculator {
    private HeadroomCalculator() {}

    /**
     * The computed headroom.
     *
     * @param xoffBytes headroom (BUFFER_PROFILE.xoff).
     * @param xonBytes  BUFFER_PROFILE.xon.
     * @param sizeBytes BUFFER_PROFILE.size.
     */
    public record Headroom(long xoffBytes, long xonBytes, long sizeBytes) {}

    /**
     * IEEE 802.3 31B.3.7 peer response time in pause quanta for a port speed.
     *
     * @param speedMbps port speed.
     * @return quanta (10G 67, 25G 80, 40G 118, 50G 147, 100G 394, 200G 453, 400G/800G 905).
     */
    public static int peerResponseQuanta(final long speedMbps) {
        return switch ((int) speedMbps) {
            case 10_000 -> 67;
            case 25_000 -> 80;
            case 40_000 -> 118;
            case 50_000 -> 147;
            case 100_000 -> 394;
            case 200_000 -> 453;
            case 400_000, 800_000 -> 905;
            default -> throw new IllegalArgumentException("no IEEE pause-response entry for speed " + speedMbps);
        };
    }

    /**
     * Compute the headroom.
     *
     * @param speedMbps             port speed.
     * @param cableLengthM          cable length in metres.
     * @param portMtu               port MTU in bytes.
     * @param losslessMtu           LOSSLESS_TRAFFIC_PATTERN.mtu.
     * @param smallPacketPercent    LOSSLESS_TRAFFIC_PATTERN.small_packet_percentage.
     * @param cellBytes             ASIC cell size.
     * @param gearboxBytes          bytes on gearbox (one way), 0 without a gearbox.
     * @param macPhyDelayBytes      MAC/PHY delay in bytes.
     * @param pipelineLatencyBytes  pipeline latency in bytes.
     * @param sharedHeadroomPool    true when the shared headroom pool is in use.
     * @return xoff, xon and size.
     */
    public static Headroom compute(
            final long speedMbps,
            final long cableLengthM,
            final long portMtu,
            final long losslessMtu,
            final int smallPacketPercent,
            final int cellBytes,
            final long gearboxBytes,
            final long macPhyDelayBytes,
            final long pipelineLatencyBytes,
            final boolean sharedHeadroomPool) {
        final long worstCaseFactor =
                cellBytes > 2 * 64 ? ceilDiv(cellBytes, 64) : ceilDiv(2L * cellBytes, 1L + cellBytes);
        final double cellOccupancy = (100 - smallPacketPercent + smallPacketPercent * (double) worstCaseFactor) / 100.0;
        final double bytesOnCable = 2.0 * cableLengthM * speedMbps * 1e6 / 198e6 / 8.0;
        final double peerResponse = peerResponseQuanta(speedMbps) * 512.0 / 8.0;
        final double propagationDelay = portMtu + bytesOnCable + 2.0 * gearboxBytes + macPhyDelayBytes + peerResponse;
        final long xoff = roundUpKib((long) Math.ceil(losslessMtu + propagationDelay * cellOccupancy));
        final long xon = roundUpKib(pipelineLatencyBytes);
        return new Headroom(xoff, xon, sharedHeadroomPool ? xon : xoff + xon);
    }

    private static long roundUpKib(final long bytes) {
        return ceilDiv(bytes, 1024) * 1024;
    }

    private static long ceilDiv(final long a, final long b) {
        return (a + b - 1) / b;
    }
}
