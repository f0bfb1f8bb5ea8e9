package io.asicemu.pipeline.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The PORTs a configuration leaves administratively down, and the one warning that says so. SONiC's default
 * {@code admin_status} is {@code down}, and asic-emu follows it: a port without {@code "admin_status": "up"} drops
 * every frame it receives (counted as {@code ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN}) and sends nothing, which a
 * minimal config_db.json gets silently. The commands that start a switch ({@code run}, {@code replay},
 * {@code scenario}) print this once at start; {@code asic-emu health} repeats it. Stateless.
 */
public final class AdminDownPorts {
    /** At most this many ports are named in the warning (the rest are counted). */
    static final int MAX_NAMED = 32;

    private AdminDownPorts() {}

    /**
     * @param db a configuration (validated or not: a malformed {@code admin_status} counts as not up).
     * @return the PORTs whose {@code admin_status} is not {@code up}, in port index order (the {@code index}
     *     field, else the number in the name, then the name).
     */
    public static List<String> of(final ConfigDb db) {
        final List<String> down = new ArrayList<>();
        for (final Map.Entry<String, Map<String, String>> port :
                db.table("PORT").entrySet()) {
            if (!"up"
                    .equals(port.getValue().getOrDefault("admin_status", "down").trim())) {
                down.add(port.getKey());
            }
        }
        final Map<String, Map<String, String>> ports = db.table("PORT");
        down.sort(Comparator.comparingLong((String n) -> order(n, ports.get(n))).thenComparing(n -> n));
        return down;
    }

    /**
     * @param db a configuration.
     * @return one line naming the ports that are admin down and what to do about it, or {@code null} when every port
     *     is up.
     */
    public static String warning(final ConfigDb db) {
        final List<String> down = of(db);
        if (down.isEmpty()) {
            return null;
        }
        final int total = db.table("PORT").size();
        final String names = down.size() <= MAX_NAMED
                ? String.join(", ", down)
                : String.join(", ", down.subList(0, MAX_NAMED)) + " and " + (down.size() - MAX_NAMED) + " more";
        return (down.size() == total ? "every port is" : down.size() + " of " + total + " ports are")
                + " admin down (PORT admin_status missing or \"down\": SONiC's default), so "
                + (down.size() == 1 ? "it drops every frame" : "they drop every frame")
                + " (ASICEMU_IN_DROP_REASON_PORT_ADMIN_DOWN) and "
                + (down.size() == 1 ? "sends" : "send") + " nothing: " + names
                + "; set \"admin_status\": \"up\" in "
                + (down.size() == 1 ? "its PORT entry" : "their PORT entries") + " to forward";
    }

    private static long order(final String name, final Map<String, String> fields) {
        final String index = fields.get("index");
        if (index != null) {
            try {
                return Long.parseLong(index.trim());
            } catch (final NumberFormatException e) {
                // refused by the compiler; ordered by name here
            }
        }
        int start = name.length();
        while (start > 0 && Character.isDigit(name.charAt(start - 1))) {
            start--;
        }
        if (start == name.length() || name.length() - start > 18) {
            return Long.MAX_VALUE;
        }
        return Long.parseLong(name.substring(start));
    }
}
