package io.asicemu.pipeline.replay;

import java.util.Locale;

/** How a replay's input captures behave toward the switch (the {@code replay --link-partner} option). */
public enum LinkPartnerMode {
    /** Frames arrive at their recorded times whatever the switch sends back (a wire tap). */
    NONE,
    /**
     * Each input capture is a NIC that honours the 802.1Qbb PFC frames the switch transmits on that port, after the
     * cable delay: see {@link LinkPartnerPort}.
     */
    PFC;

    /**
     * @param text {@code none} or {@code pfc} (any case).
     * @return the mode.
     * @throws IllegalArgumentException naming the accepted values otherwise.
     */
    public static LinkPartnerMode parse(final String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "none" -> NONE;
            case "pfc" -> PFC;
            default -> throw new IllegalArgumentException("link partner must be none or pfc: " + text);
        };
    }
}
