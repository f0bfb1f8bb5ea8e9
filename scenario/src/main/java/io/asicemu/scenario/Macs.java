package io.asicemu.scenario;

/** MAC and IPv4 text as scenario files, config_db.json and command lines write them. */
public final class Macs {
    private Macs() {}

    /** @throws ScenarioException naming {@code field} when {@code text} is not a MAC address */
    public static long parse(String text, String field) {
        String[] parts = text == null ? new String[0] : text.trim().split(":");
        if (parts.length != 6) {
            throw new ScenarioException(field + ": \"" + text + "\" is not a MAC address");
        }
        long mac = 0;
        for (String p : parts) {
            try {
                int b = Integer.parseInt(p, 16);
                if (p.length() != 2 || b < 0 || b > 255) {
                    throw new NumberFormatException();
                }
                mac = (mac << 8) | b;
            } catch (NumberFormatException e) {
                throw new ScenarioException(field + ": \"" + text + "\" is not a MAC address");
            }
        }
        return mac;
    }

    static String format(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 5; i >= 0; i--) {
            sb.append(String.format(java.util.Locale.ROOT, "%02x", (mac >>> (8 * i)) & 0xFF));
            if (i > 0) {
                sb.append(':');
            }
        }
        return sb.toString();
    }

    /** @throws ScenarioException naming {@code field} when {@code text} is not an IPv4 address */
    public static int parseIpv4(String text, String field) {
        String[] parts = text == null ? new String[0] : text.trim().split("\\.");
        if (parts.length != 4) {
            throw new ScenarioException(field + ": \"" + text + "\" is not an IPv4 address");
        }
        int ip = 0;
        for (String p : parts) {
            try {
                int b = Integer.parseInt(p);
                if (b < 0 || b > 255) {
                    throw new NumberFormatException();
                }
                ip = (ip << 8) | b;
            } catch (NumberFormatException e) {
                throw new ScenarioException(field + ": \"" + text + "\" is not an IPv4 address");
            }
        }
        return ip;
    }

    static String formatIpv4(int ip) {
        return ((ip >>> 24) & 0xFF) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }
}
