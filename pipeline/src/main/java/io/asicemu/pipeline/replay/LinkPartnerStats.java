package io.asicemu.pipeline.replay;

/**
 * What one link partner did during a replay.
 *
 * @param pfcFramesReceived PFC frames it received from the switch.
 * @param pfcFramesPerPriority PFC frames whose class-enable vector named each priority 0..7.
 * @param delayedFrames frames it sent later than recorded.
 * @param totalDelayNs the sum of those delays in ns.
 */
public record LinkPartnerStats(
        long pfcFramesReceived, long[] pfcFramesPerPriority, long delayedFrames, long totalDelayNs) {
    /**
     * @param port a partner after its replay.
     * @return its statistics.
     */
    static LinkPartnerStats of(final LinkPartnerPort port) {
        final long[] perPriority = new long[8];
        for (int p = 0; p < perPriority.length; p++) {
            perPriority[p] = port.pfcFramesReceived(p);
        }
        return new LinkPartnerStats(port.pfcFramesReceived(), perPriority, port.delayedFrames(), port.totalDelayNs());
    }
}
