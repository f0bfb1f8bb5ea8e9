package io.asicemu.pipeline.table;

/** MAC address text ↔ the low 48 bits of a long. Static helpers. */
public final class MacAddress {
    private MacAddress() {}

    /**
     * @param text {@code aa:bb:cc:dd:ee:ff} (or with dashes).
     * @return the MAC.
     * @throws IllegalArgumentException if malformed.
     */
    public static long parse(final String text) {
        final String[] parts = text.trim().split("[:-]");
        if (parts.length != 6) {
            throw new IllegalArgumentException("not a MAC address: " + text);
        }
        long mac = 0;
        for (final String part : parts) {
            if (part.length() != 2) {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
            try {
                mac = (mac << 8) | Integer.parseInt(part, 16);
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
        }
        return mac;
    }

    /**
     * @param mac a MAC.
     * @return {@code aa:bb:cc:dd:ee:ff}.
     */
    public static String format(final long mac) {
        final StringBuilder s = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            if (s.length() > 0) {
                s.append(':');
            }
            s.append(String.format("%02x", (mac >>> shift) & 0xff));
        }
        return s.toString();
    }
}
