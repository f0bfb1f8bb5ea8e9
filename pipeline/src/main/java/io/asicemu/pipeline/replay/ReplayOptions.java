package io.asicemu.pipeline.replay;

/**
 * Options of a {@link Replay}.
 *
 * @param linkPartner how input captures react to what the switch sends back ({@code --link-partner none|pfc}).
 * @param cableDelayNs one-way propagation delay of every port's cable in ns, >= 0 ({@code --cable-delay-ns N}); with
 *                     {@link LinkPartnerMode#PFC} a PFC frame reaches the partner this long after the switch sent it,
 *                     and the partner's frames take this long to reach the switch.
 */
public record ReplayOptions(LinkPartnerMode linkPartner, long cableDelayNs) {
    /** Validates. */
    public ReplayOptions {
        if (linkPartner == null) {
            throw new IllegalArgumentException("linkPartner must not be null");
        }
        if (cableDelayNs < 0) {
            throw new IllegalArgumentException("cable delay must be >= 0 ns: " + cableDelayNs);
        }
    }

    /** @return no link partners (inputs arrive at their recorded times), no cable delay. */
    public static ReplayOptions defaults() {
        return new ReplayOptions(LinkPartnerMode.NONE, 0);
    }

    /**
     * @param cableDelayNs one-way cable delay in ns.
     * @return PFC-honouring link partners on every input port.
     */
    public static ReplayOptions pfcLinkPartners(final long cableDelayNs) {
        return new ReplayOptions(LinkPartnerMode.PFC, cableDelayNs);
    }
}
