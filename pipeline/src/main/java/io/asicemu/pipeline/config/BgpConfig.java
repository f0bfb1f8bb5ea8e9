package io.asicemu.pipeline.config;

import io.asicemu.pipeline.table.IpPrefix;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The routing configuration as SONiC keeps it in CONFIG_DB: the switch's ASN ({@code DEVICE_METADATA|localhost
 * bgp_asn}, optional {@code bgp_router_id}), its loopback addresses ({@code LOOPBACK_INTERFACE}) and its BGP sessions
 * ({@code BGP_NEIGHBOR}, keyed by the neighbor's address, optionally {@code default|<address>}). Parsed and checked
 * with the rest of the config (start-up refuses it with exit 2, a CONFIG_DB write is refused, naming
 * {@code TABLE|key|field}); the routing stack's configuration is rendered from it. Immutable.
 *
 * @param asn the switch's ASN, or 0 when the config gives none (no BGP).
 * @param routerId the BGP router id ({@code bgp_router_id}, else Loopback0's IPv4 address), or null.
 * @param loopbacks the loopback interfaces' addresses (host prefixes), by interface.
 * @param neighbors the BGP sessions, in key order.
 */
public record BgpConfig(long asn, IpPrefix routerId, Map<String, List<IpPrefix>> loopbacks, List<Neighbor> neighbors) {
    /** Fields of BGP_NEIGHBOR this switch reads (SONiC's; bgpcfgd renders them into FRR's neighbor statements). */
    public static final Set<String> NEIGHBOR_FIELDS = Set.of(
            "asn",
            "name",
            "local_addr",
            "holdtime",
            "keepalive",
            "admin_status",
            "nhopself",
            "rrclient",
            "bfd",
            "bfd_detect_multiplier",
            "bfd_min_rx",
            "bfd_min_tx");

    /** SONiC's defaults (bgpd/templates/general/instance.conf.j2 renders timers only when they differ). */
    public static final int DEFAULT_KEEPALIVE_S = 60;

    public static final int DEFAULT_HOLDTIME_S = 180;

    /**
     * One BGP session.
     *
     * @param address the neighbor's address (a host prefix).
     * @param asn its ASN.
     * @param name its description, or "".
     * @param localAddress the switch's address on the session (SONiC's {@code local_addr}), or null.
     * @param keepaliveS the keepalive interval.
     * @param holdtimeS the hold time (0: no hold timer).
     * @param adminUp false: configured but shut down.
     * @param nextHopSelf {@code nhopself}.
     * @param routeReflectorClient {@code rrclient}.
     * @param bfd BFD on the session; with {@code bfdTimers} (multiplier, min rx ms, min tx ms) or null for FRR's.
     */
    public record Neighbor(
            IpPrefix address,
            long asn,
            String name,
            IpPrefix localAddress,
            int keepaliveS,
            int holdtimeS,
            boolean adminUp,
            boolean nextHopSelf,
            boolean routeReflectorClient,
            boolean bfd,
            int[] bfdTimers) {}

    /** @return whether the config asks for BGP (an ASN and at least one session, or an ASN alone to announce). */
    public boolean enabled() {
        return asn != 0;
    }

    /**
     * Parses and checks the routing tables of a config.
     *
     * @throws ConfigException naming the table, key and field of the first bad value.
     */
    public static BgpConfig parse(final ConfigDb db) {
        final Map<String, String> device = db.table("DEVICE_METADATA").getOrDefault("localhost", Map.of());
        final String asnText = device.get("bgp_asn");
        final long asn = asnText == null || asnText.equalsIgnoreCase("none") || asnText.equalsIgnoreCase("null")
                ? 0
                : asn("DEVICE_METADATA", "localhost", "bgp_asn", asnText);
        final Map<String, List<IpPrefix>> loopbacks = new LinkedHashMap<>();
        for (final String key : db.table("LOOPBACK_INTERFACE").keySet()) {
            final String[] parts = key.split("\\|");
            if (parts.length > 2 || !parts[0].matches("Loopback\\d{1,4}")) {
                throw new ConfigException(
                        "LOOPBACK_INTERFACE", key, "", "keys are Loopback<n> or Loopback<n>|<ip>/<len>");
            }
            final List<IpPrefix> addresses = loopbacks.computeIfAbsent(parts[0], n -> new ArrayList<>());
            if (parts.length == 2) {
                if (parts[1].indexOf('/') < 0) {
                    throw new ConfigException("LOOPBACK_INTERFACE", key, "", "the address needs a prefix length");
                }
                addresses.add(prefix("LOOPBACK_INTERFACE", key, "", parts[1]));
            }
        }
        IpPrefix routerId = null;
        if (device.containsKey("bgp_router_id")) {
            routerId = address("DEVICE_METADATA", "localhost", "bgp_router_id", device.get("bgp_router_id"));
            if (routerId.v6()) {
                throw new ConfigException("DEVICE_METADATA", "localhost", "bgp_router_id", "must be an IPv4 address");
            }
        } else {
            for (final IpPrefix a : loopbacks.getOrDefault("Loopback0", List.of())) {
                if (!a.v6()) {
                    routerId = new IpPrefix(false, 0, a.low(), 32);
                    break;
                }
            }
        }
        final List<Neighbor> neighbors = new ArrayList<>();
        for (final Map.Entry<String, Map<String, String>> e :
                db.table("BGP_NEIGHBOR").entrySet()) {
            neighbors.add(neighbor(e.getKey(), e.getValue()));
        }
        if (!neighbors.isEmpty() && asn == 0) {
            throw new ConfigException(
                    "DEVICE_METADATA", "localhost", "bgp_asn", "BGP_NEIGHBOR needs the switch's own ASN here");
        }
        return new BgpConfig(asn, routerId, loopbacks, List.copyOf(neighbors));
    }

    private static Neighbor neighbor(final String key, final Map<String, String> f) {
        final String[] parts = key.split("\\|");
        if (parts.length > 2 || (parts.length == 2 && !parts[0].equals("default"))) {
            throw new ConfigException("BGP_NEIGHBOR", key, "", "keys are <ip> or default|<ip> (VRFs are not modelled)");
        }
        final IpPrefix address = address("BGP_NEIGHBOR", key, "", parts[parts.length - 1]);
        if (!f.containsKey("asn")) {
            throw new ConfigException("BGP_NEIGHBOR", key, "asn", "required");
        }
        final long asn = asn("BGP_NEIGHBOR", key, "asn", f.get("asn"));
        final IpPrefix local =
                f.containsKey("local_addr") ? address("BGP_NEIGHBOR", key, "local_addr", f.get("local_addr")) : null;
        if (local != null && local.v6() != address.v6()) {
            throw new ConfigException("BGP_NEIGHBOR", key, "local_addr", "must be of the neighbor's address family");
        }
        final int keepalive = seconds(key, "keepalive", f.get("keepalive"), DEFAULT_KEEPALIVE_S, 0);
        final int holdtime = seconds(key, "holdtime", f.get("holdtime"), DEFAULT_HOLDTIME_S, 0);
        if (holdtime != 0 && holdtime < 3) {
            throw new ConfigException("BGP_NEIGHBOR", key, "holdtime", "must be 0 or 3..65535 s (RFC 4271)");
        }
        if (holdtime != 0 && keepalive > holdtime) {
            throw new ConfigException("BGP_NEIGHBOR", key, "keepalive", "must not exceed the holdtime " + holdtime);
        }
        final String admin = f.getOrDefault("admin_status", "up");
        if (!admin.equals("up") && !admin.equals("down")) {
            throw new ConfigException("BGP_NEIGHBOR", key, "admin_status", "must be up or down");
        }
        final boolean bfd = flag(key, "bfd", f.get("bfd"));
        int[] timers = null;
        if (f.containsKey("bfd_detect_multiplier") || f.containsKey("bfd_min_rx") || f.containsKey("bfd_min_tx")) {
            timers = new int[] {
                bounded(key, "bfd_detect_multiplier", f.get("bfd_detect_multiplier"), 2, 255),
                bounded(key, "bfd_min_rx", f.get("bfd_min_rx"), 10, 60_000),
                bounded(key, "bfd_min_tx", f.get("bfd_min_tx"), 10, 60_000)
            };
        }
        return new Neighbor(
                address,
                asn,
                f.getOrDefault("name", ""),
                local,
                keepalive,
                holdtime,
                admin.equals("up"),
                number(key, "nhopself", f.get("nhopself")),
                number(key, "rrclient", f.get("rrclient")),
                bfd,
                timers);
    }

    private static long asn(final String table, final String key, final String field, final String text) {
        try {
            final long v = Long.parseLong(text.trim());
            if (v >= 1 && v <= 4_294_967_295L) {
                return v;
            }
        } catch (final NumberFormatException e) {
            // refused below
        }
        throw new ConfigException(table, key, field, "an ASN is 1..4294967295, not " + text);
    }

    private static int seconds(final String key, final String field, final String text, final int dflt, final int min) {
        return text == null ? dflt : bounded(key, field, text, min, 65_535);
    }

    private static int bounded(final String key, final String field, final String text, final int min, final int max) {
        if (text == null) {
            throw new ConfigException(
                    "BGP_NEIGHBOR", key, field, "bfd_detect_multiplier, bfd_min_rx and bfd_min_tx go together");
        }
        try {
            final int v = Integer.parseInt(text.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (final NumberFormatException e) {
            // refused below
        }
        throw new ConfigException("BGP_NEIGHBOR", key, field, "must be " + min + ".." + max + ", not " + text);
    }

    private static boolean flag(final String key, final String field, final String text) {
        if (text == null || text.equals("false")) {
            return false;
        }
        if (text.equals("true")) {
            return true;
        }
        throw new ConfigException("BGP_NEIGHBOR", key, field, "must be true or false");
    }

    /** SONiC's 0/1 fields (nhopself, rrclient: "| int != 0"). */
    private static boolean number(final String key, final String field, final String text) {
        if (text == null) {
            return false;
        }
        try {
            return Integer.parseInt(text.trim()) != 0;
        } catch (final NumberFormatException e) {
            throw new ConfigException("BGP_NEIGHBOR", key, field, "must be 0 or 1");
        }
    }

    private static IpPrefix address(final String table, final String key, final String field, final String text) {
        try {
            return IpPrefix.address(text.trim());
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(table, key, field, e.getMessage());
        }
    }

    private static IpPrefix prefix(final String table, final String key, final String field, final String text) {
        try {
            return IpPrefix.parse(text).hostOf(text);
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(table, key, field, e.getMessage());
        }
    }
}
