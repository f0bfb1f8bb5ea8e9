package io.asicemu.pipeline.config;

import io.asicemu.config.ConfigBound;
import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.config.FlowletConfig;
import io.asicemu.flowlet.config.FlowletConfigParser;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.pipeline.control.ConfigGroup;
import io.asicemu.pipeline.control.SwitchSetup;
import io.asicemu.pipeline.table.AclAction;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.AclTable;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.MacAddress;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteSlots;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.tm.config.SonicDefaults;
import io.asicemu.tm.config.TmConfig;
import io.asicemu.tm.config.TmConfigParser;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Validates a whole CONFIG_DB and compiles it into {@link ForwardingTables} (allocation is fine here: control side).
 * Tables handled: DEVICE_METADATA, PORT, INTERFACE, VLAN, VLAN_MEMBER, VLAN_INTERFACE, NEIGH, STATIC_ROUTE,
 * ACL_TABLE/ACL_RULE, DSCP_TO_TC_MAP, DOT1P_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP, PORT_QOS_MAP;
 * the traffic manager's and the flowlet engine's tables are parsed by their own modules from the same store. The
 * first problem found throws a {@link ConfigException} naming table, key and field; nothing is returned, so nothing
 * is applied.
 * <p>
 * Stateless; any thread.
 */
public final class ConfigCompiler {
    static final Set<String> ACL_MATCH_FIELDS = Set.of(
            "PRIORITY",
            "PACKET_ACTION",
            "SRC_IP",
            "DST_IP",
            "SRC_IPV6",
            "DST_IPV6",
            "IP_PROTOCOL",
            "NEXT_HEADER",
            "L4_SRC_PORT",
            "L4_DST_PORT",
            "L4_SRC_PORT_RANGE",
            "L4_DST_PORT_RANGE",
            "ETHER_TYPE",
            "DSCP",
            "ECN",
            "TCP_FLAGS",
            "VLAN_ID",
            "SRC_MAC",
            "DST_MAC",
            "IN_PORTS",
            "BTH_OPCODE",
            "SET_TC",
            "SET_DSCP",
            "IP_TYPE");

    private final ConfigDb db;
    private final PipelineSizing sizing;
    private final Map<String, String> linuxOverrides;
    private final Map<String, Integer> portIndex = new LinkedHashMap<>();
    private final List<String> portNames = new ArrayList<>();
    private final Map<String, Integer> rifByName = new LinkedHashMap<>();
    private final Map<IpPrefix, Integer> routes = new LinkedHashMap<>();
    private final Map<String, Integer> nextHopIds = new HashMap<>();
    /** Groups by member set: routes over the same next hops and weights share one group, as SONiC's routeorch. */
    private final Map<String, Integer> groupByMembers = new HashMap<>();
    /** The switch's own addresses (router interface addresses), never a next hop or a neighbor. */
    private final Set<IpPrefix> ownAddresses = new HashSet<>();
    /** Connected subnets → router interface, searched for a next hop's interface (not the whole route map). */
    private final Map<IpPrefix, Integer> connected = new LinkedHashMap<>();

    private final List<String> aclNames = new ArrayList<>();
    private ForwardingTables tables;
    private FlowletConfig flowlet;
    private int groupCount;
    private final List<ConfigGroup> groups = new ArrayList<>();

    private ConfigCompiler(final ConfigDb db, final PipelineSizing sizing, final Map<String, String> linuxOverrides) {
        this.db = db;
        this.sizing = sizing;
        this.linuxOverrides = linuxOverrides;
    }

    /**
     * Port names become file names (pcap captures per port) and Linux names: letters, digits and {@code _ . : -},
     * starting with a letter, at most 64 characters; never a path ({@code ../x}, {@code /x}).
     */
    private static final Pattern SAFE_PORT_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.:-]{0,63}");

    /**
     * Validates strictly (unknown tables and fields refused) and compiles.
     *
     * @param db the store.
     * @param sizing table sizes.
     * @param linuxOverrides SONiC port name → Linux name overrides of the sonic-vs default (may be empty).
     * @return the compiled form.
     * @throws ConfigException on the first problem.
     */
    public static CompiledConfig compile(
            final ConfigDb db, final PipelineSizing sizing, final Map<String, String> linuxOverrides) {
        return compile(db, sizing, linuxOverrides, false, warning -> {});
    }

    /**
     * Validates and compiles.
     *
     * @param db the store.
     * @param sizing table sizes.
     * @param linuxOverrides SONiC port name → Linux name overrides of the sonic-vs default (may be empty).
     * @param lenient unknown tables and fields are dropped with a warning instead of refused ({@link ConfigSchema}).
     * @param warnings receives one line per dropped table or field.
     * @return the compiled form.
     * @throws ConfigException on the first problem.
     */
    public static CompiledConfig compile(
            final ConfigDb db,
            final PipelineSizing sizing,
            final Map<String, String> linuxOverrides,
            final boolean lenient,
            final Consumer<String> warnings) {
        try {
            return new ConfigCompiler(ConfigSchema.check(db, lenient, warnings), sizing, linuxOverrides).compile();
        } catch (final io.asicemu.config.ConfigException e) {
            throw asPipelineError(e);
        }
    }

    /**
     * The configured ports in index order, each with its Linux interface name (the sonic-vs default or an override),
     * checked as {@link #compile} checks the PORT table and nothing else: what a launcher needs to know which links to
     * attach, without compiling the whole configuration a second time (the pipeline compiles it, and refuses what
     * else is wrong, when it applies it).
     *
     * @param db the store.
     * @param sizing table sizes (the port limit).
     * @param linuxOverrides SONiC port name → Linux name overrides of the sonic-vs default (may be empty).
     * @return SONiC port name → Linux name, in port index order.
     * @throws ConfigException on a problem in the PORT table.
     */
    public static Map<String, String> portsToLinux(
            final ConfigDb db, final PipelineSizing sizing, final Map<String, String> linuxOverrides) {
        try {
            final ConfigCompiler compiler = new ConfigCompiler(db, sizing, linuxOverrides);
            compiler.ports();
            final PortNaming naming = PortNaming.of(compiler.portNames, linuxOverrides);
            final Map<String, String> map = new java.util.LinkedHashMap<>();
            for (final String port : compiler.portNames) {
                map.put(port, naming.linuxName(port));
            }
            return map;
        } catch (final io.asicemu.config.ConfigException e) {
            throw asPipelineError(e);
        }
    }

    /**
     * The engines' parsers and the shared bounds refuse with the one error type; callers of the pipeline have always
     * caught the pipeline's subclass, so the place and reason are carried over unchanged (a subclass instance as is).
     */
    private static ConfigException asPipelineError(final io.asicemu.config.ConfigException e) {
        return e instanceof ConfigException own ? own : new ConfigException(e.table(), e.key(), e.field(), e.reason());
    }

    /**
     * Compiles a store that differs from an already compiled one only in tables the engines' parsers alone read
     * ({@link ConfigSchema#ENGINE_ONLY_TABLES}) and in ports' {@link #PORT_SETTINGS}: those tables are checked and
     * parsed as {@link #compile} does (the same schema check, the same parsers, the same errors), and everything the
     * pipeline's compiler made of the others is the previous configuration's, shared (the port settings are staged
     * from {@code next}'s PORT table, {@link #portAdminUp}, {@link #portMtu}). The cost is the changed tables', not
     * the route table's.
     *
     * @param previous a compiled configuration.
     * @param next a store whose tables outside {@code changed} are those of {@code previous.db()}.
     * @param changed the tables in which {@code next} differs: engine-only ones, and PORT when only its ports'
     *     settings differ.
     * @return the compiled form of {@code next}.
     * @throws ConfigException on the first problem.
     */
    static CompiledConfig recompileSettings(
            final CompiledConfig previous, final ConfigDb next, final Set<String> changed) {
        final Set<String> engines = new HashSet<>(changed);
        engines.remove("PORT");
        if (!ConfigSchema.ENGINE_ONLY_TABLES.containsAll(engines)) {
            throw new IllegalArgumentException(changed + " are not all engine-only tables (and PORT)");
        }
        try {
            ConfigSchema.checkTables(next, changed);
            final SwitchSetup before = previous.setup();
            if (changed.contains("PORT")) {
                // Only port settings differ (the caller checked): the port map is the one compiled before, and each
                // port's fields are checked as a whole compile checks them.
                final ConfigCompiler ports =
                        new ConfigCompiler(next, previous.setup().tables().sizing(), Map.of());
                ports.ports();
                if (!ports.portNames.equals(before.portNames())) {
                    throw new IllegalArgumentException("the port map changed: not a port-settings change");
                }
                next.table("PORT").forEach((name, fields) -> {
                    portMtu(name, fields);
                    portAdminUp(name, fields);
                });
            }
            final FlowletConfig flowlet = changed.contains(FlowletConfigParser.SWITCH_HASH)
                    ? FlowletConfigParser.parse(next.tables())
                    : before.flowletConfig();
            return new CompiledConfig(
                    next,
                    previous.naming(),
                    new SwitchSetup(
                            before.portNames(),
                            before.portIndex(),
                            before.tables(),
                            tmConfig(next, before.portIndex()),
                            flowlet,
                            before.aclNames(),
                            before.routes(),
                            before.routerInterfaces(),
                            before.nextHopCount(),
                            before.groupCount(),
                            before.groups(),
                            before.routeSlots(),
                            configuredBuffers(next)));
        } catch (final io.asicemu.config.ConfigException e) {
            throw asPipelineError(e);
        }
    }

    private static TmConfig tmConfig(final ConfigDb db, final Map<String, Integer> portIndex) {
        try {
            // No BUFFER_* table: SONiC's generic lossy/lossless default buffer (dynamic thresholds), not an unlimited
            // one.
            return TmConfigParser.parse(SonicDefaults.withDefaultBuffers(db.tables()), portIndex);
        } catch (final IllegalArgumentException e) {
            throw new ConfigException("PORT", "", "", e.getMessage());
        }
    }

    private static boolean configuredBuffers(final ConfigDb db) {
        return SonicDefaults.BUFFER_TABLES.stream().anyMatch(t -> !db.table(t).isEmpty());
    }

    private CompiledConfig compile() {
        ports();
        flowlet = FlowletConfigParser.parse(db.tables());
        final TmConfig tmConfig = tmConfig(db, portIndex);
        tables = new ForwardingTables(sizing, flowlet.switchHash().newEcmpHashEngine());
        deviceMetadata();
        portSettings();
        vlans();
        interfaces("INTERFACE", false);
        interfaces("VLAN_INTERFACE", true);
        loopbacks();
        BgpConfig.parse(db); // the routing tables are checked with the rest, whether or not routing runs
        neighbors();
        staticRoutes();
        if (routes.size() > sizing.maxRoutes()) {
            throw new ConfigException(
                    "STATIC_ROUTE",
                    "",
                    "",
                    routes.size() + " routes (connected, local and static)" + " exceed the route table's "
                            + sizing.maxRoutes());
        }
        final RouteSlots routeSlots = new RouteSlots(sizing.maxRoutes());
        for (final Map.Entry<IpPrefix, Integer> r : routes.entrySet()) {
            tables.route(
                    r.getKey().v6(),
                    r.getKey().high(),
                    r.getKey().low(),
                    r.getKey().length(),
                    routeSlots.assign(r.getKey()),
                    r.getValue());
        }
        qos();
        acl();
        return new CompiledConfig(
                db,
                PortNaming.of(portNames, linuxOverrides),
                new SwitchSetup(
                        List.copyOf(portNames),
                        Map.copyOf(portIndex),
                        tables,
                        tmConfig,
                        flowlet,
                        aclNames.toArray(new String[0]),
                        routes,
                        Map.copyOf(rifByName),
                        nextHopIds.size(),
                        groupCount,
                        List.copyOf(groups),
                        routeSlots,
                        configuredBuffers(db)));
    }

    // ---- helpers ----

    private static long number(
            final String table,
            final String key,
            final String field,
            final String value,
            final long min,
            final long max) {
        final long n;
        try {
            n = Long.decode(value.trim());
        } catch (final NumberFormatException e) {
            throw new ConfigException(table, key, field, "not a number: " + value);
        }
        if (n < min || n > max) {
            throw new ConfigException(table, key, field, value + " is out of range " + min + ".." + max);
        }
        return n;
    }

    private static IpPrefix prefix(final String table, final String key, final String field, final String text) {
        try {
            return IpPrefix.parse(text);
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(table, key, field, e.getMessage());
        }
    }

    private static long mac(final String table, final String key, final String field, final String text) {
        try {
            return MacAddress.parse(text);
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(table, key, field, e.getMessage());
        }
    }

    private int port(final String table, final String key, final String field, final String name) {
        final Integer index = portIndex.get(name.trim());
        if (index == null) {
            throw new ConfigException(table, key, field, "no PORT named " + name);
        }
        return index;
    }

    // ---- tables ----

    private void ports() {
        final Map<String, Map<String, String>> port = db.table("PORT");
        if (port.size() > sizing.maxPorts()) {
            throw new ConfigException(
                    "PORT",
                    "",
                    "",
                    port.size() + " ports exceed the " + sizing.maxPorts() + " this pipeline was built for");
        }
        final List<String> names = new ArrayList<>(port.keySet());
        final Map<Long, String> byIndex = new HashMap<>();
        for (final String name : names) {
            final Map<String, String> f = port.get(name);
            if (!SAFE_PORT_NAME.matcher(name).matches()) {
                throw new ConfigException(
                        "PORT",
                        name,
                        "",
                        "a port name must be a letter then letters, digits or"
                                + " _ . : - (at most 64): it names files and interfaces");
            }
            if (!f.containsKey("speed")) {
                throw new ConfigException("PORT", name, "speed", "is required");
            }
            ConfigBound.PORT_SPEED_MBPS.parse("PORT", name, "speed", f.get("speed"));
            if (f.containsKey("index")) {
                final long index = ConfigBound.PORT_INDEX.parse("PORT", name, "index", f.get("index"));
                final String other = byIndex.putIfAbsent(index, name);
                if (other != null) {
                    throw new ConfigException("PORT", name, "index", "index " + index + " is also " + other + "'s");
                }
            }
        }
        names.sort(Comparator.comparingLong((String n) -> sortIndex(n, port.get(n)))
                .thenComparing(n -> n));
        for (final String name : names) {
            portIndex.put(name, portNames.size());
            portNames.add(name);
        }
    }

    private static long sortIndex(final String name, final Map<String, String> fields) {
        if (fields.containsKey("index")) {
            return Long.parseLong(fields.get("index").trim()) << 20; // bounded by PORT_INDEX above
        }
        final String digits = name.replaceAll("^\\D*", "");
        // at most 9 digits: a name like Ethernet099999999999999999999 is legal but does not fit a long
        return digits.matches("\\d{1,9}") ? Long.parseLong(digits) : Integer.MAX_VALUE;
    }

    private void deviceMetadata() {
        final Map<String, String> f = db.table("DEVICE_METADATA").getOrDefault("localhost", Map.of());
        final long routerMac =
                f.containsKey("mac") ? mac("DEVICE_METADATA", "localhost", "mac", f.get("mac")) : 0x02_00_00_00_00_01L;
        if ((routerMac & 0x01_00_00_00_00_00L) != 0 || routerMac == 0) {
            throw new ConfigException(
                    "DEVICE_METADATA",
                    "localhost",
                    "mac",
                    "the switch MAC must be a unicast, non-zero address: " + f.get("mac"));
        }
        tables.routerMac(routerMac);
        final String standalone = f.getOrDefault("standalone", "true");
        if (!standalone.equals("true") && !standalone.equals("false")) {
            throw new ConfigException("DEVICE_METADATA", "localhost", "standalone", "must be true or false");
        }
        tables.standalone(standalone.equals("true"));
        final Map<String, String> sw = db.table("SWITCH").getOrDefault("switch", Map.of());
        if (sw.containsKey("fdb_aging_time")) {
            tables.fdbAgeTimeNs(
                    ConfigBound.FDB_AGING_S.parse("SWITCH", "switch", "fdb_aging_time", sw.get("fdb_aging_time"))
                            * 1_000_000_000L);
        }
    }

    private void portSettings() {
        for (final String name : portNames) {
            final Map<String, String> f = db.table("PORT").get(name);
            final int mtu = portMtu(name, f);
            final boolean up = portAdminUp(name, f);
            final long speed = ConfigBound.PORT_SPEED_MBPS.parse("PORT", name, "speed", f.get("speed"));
            tables.port(portIndex.get(name), up, mtu, speed);
        }
    }

    /** PORT fields a running switch changes in place, port by port (SONiC's {@code config interface shutdown|mtu}). */
    static final Set<String> PORT_SETTINGS = Set.of("admin_status", "mtu");

    /** @return a port's MTU ({@code mtu}, default 9100), checked. */
    static int portMtu(final String name, final Map<String, String> fields) {
        return (int) ConfigBound.PORT_MTU.parse("PORT", name, "mtu", fields.getOrDefault("mtu", "9100"));
    }

    /** @return whether a port is admin up ({@code admin_status}, SONiC's default down), checked. */
    static boolean portAdminUp(final String name, final Map<String, String> fields) {
        final String admin = fields.getOrDefault("admin_status", "down");
        if (!admin.equals("up") && !admin.equals("down")) {
            throw new ConfigException("PORT", name, "admin_status", "must be up or down: " + admin);
        }
        return admin.equals("up");
    }

    private void vlans() {
        for (final Map.Entry<String, Map<String, String>> e : db.table("VLAN").entrySet()) {
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            if (!key.matches("Vlan\\d+")) {
                throw new ConfigException("VLAN", key, "", "VLAN keys are Vlan<id>");
            }
            final int id =
                    (int) ConfigBound.VLAN_ID.parse("VLAN", key, "vlanid", f.getOrDefault("vlanid", key.substring(4)));
            if (id != Integer.parseInt(key.substring(4))) {
                throw new ConfigException("VLAN", key, "vlanid", "must match the key's number");
            }
            tables.addVlan(id);
        }
        for (final Map.Entry<String, Map<String, String>> e :
                db.table("VLAN_MEMBER").entrySet()) {
            final String key = e.getKey();
            final String[] parts = key.split("\\|");
            if (parts.length != 2) {
                throw new ConfigException("VLAN_MEMBER", key, "", "keys are Vlan<id>|<port>");
            }
            if (!db.table("VLAN").containsKey(parts[0])) {
                throw new ConfigException("VLAN_MEMBER", key, "", "no VLAN named " + parts[0]);
            }
            final int port = port("VLAN_MEMBER", key, "", parts[1]);
            final String mode = e.getValue().get("tagging_mode");
            if (mode == null || !(mode.equals("tagged") || mode.equals("untagged"))) {
                throw new ConfigException("VLAN_MEMBER", key, "tagging_mode", "must be tagged or untagged");
            }
            final int vlan = Integer.parseInt(parts[0].substring(4));
            if (mode.equals("untagged") && tables.portPvid(port) != ForwardingTables.NONE) {
                throw new ConfigException(
                        "VLAN_MEMBER",
                        key,
                        "tagging_mode",
                        "the port is already an untagged member of Vlan" + tables.portPvid(port));
            }
            tables.addVlanMember(vlan, port, mode.equals("tagged"));
        }
    }

    private int rif(final String table, final String key, final String name, final boolean vlan) {
        final Integer existing = rifByName.get(name);
        if (existing != null) {
            return existing;
        }
        if (rifByName.size() >= sizing.maxRouterInterfaces()) {
            throw new ConfigException(table, key, "", "too many router interfaces");
        }
        final int rif;
        if (vlan) {
            if (!db.table("VLAN").containsKey(name)) {
                throw new ConfigException(table, key, "", "no VLAN named " + name);
            }
            rif = tables.addRouterInterface(
                    ForwardingTables.NONE, Integer.parseInt(name.substring(4)), tables.routerMac(), 9100);
        } else {
            final int port = port(table, key, "", name);
            if (tables.portPvid(port) != ForwardingTables.NONE) {
                throw new ConfigException(table, key, "", name + " is a VLAN member and cannot be a routed port");
            }
            rif = tables.addRouterInterface(port, ForwardingTables.NONE, tables.routerMac(), tables.portMtu(port));
        }
        rifByName.put(name, rif);
        return rif;
    }

    private void interfaces(final String table, final boolean vlan) {
        for (final String key : db.table(table).keySet()) {
            final String[] parts = key.split("\\|");
            if (parts.length > 2) {
                throw new ConfigException(table, key, "", "keys are <interface> or <interface>|<ip>/<len>");
            }
            final int rif = rif(table, key, parts[0], vlan);
            if (parts.length == 2) {
                if (parts[1].indexOf('/') < 0) {
                    throw new ConfigException(table, key, "", "the address needs a prefix length");
                }
                final IpPrefix subnet = prefix(table, key, "", parts[1]);
                final IpPrefix host = subnet.hostOf(parts[1]);
                tables.routerInterfaceAddress(rif, host.high(), host.low(), host.v6());
                ownAddresses.add(host);
                routes.put(subnet, RouteTarget.encode(RouteTarget.CONNECTED, rif));
                connected.put(subnet, rif);
                routes.put(host, RouteTarget.encode(RouteTarget.LOCAL, 0));
            }
        }
    }

    /**
     * LOOPBACK_INTERFACE ({@code Loopback<n>} and {@code Loopback<n>|<ip>/<len>}): the address is the switch's own
     * (a local host route: IP2ME), reachable through any port; no router interface, no connected subnet.
     */
    private void loopbacks() {
        for (final String key : db.table("LOOPBACK_INTERFACE").keySet()) {
            final String[] parts = key.split("\\|");
            if (parts.length > 2 || !parts[0].matches("Loopback\\d{1,4}")) {
                throw new ConfigException(
                        "LOOPBACK_INTERFACE", key, "", "keys are Loopback<n> or Loopback<n>|<ip>/<len>");
            }
            if (parts.length == 2) {
                if (parts[1].indexOf('/') < 0) {
                    throw new ConfigException("LOOPBACK_INTERFACE", key, "", "the address needs a prefix length");
                }
                final IpPrefix host =
                        prefix("LOOPBACK_INTERFACE", key, "", parts[1]).hostOf(parts[1]);
                if (!ownAddresses.add(host)) {
                    throw new ConfigException("LOOPBACK_INTERFACE", key, "", host + " is already the switch's");
                }
                routes.put(host, RouteTarget.encode(RouteTarget.LOCAL, 0));
            }
        }
    }

    private int rifOf(final String table, final String key, final String field, final String name) {
        final Integer rif = rifByName.get(name.trim());
        if (rif == null) {
            throw new ConfigException(table, key, field, "no router interface on " + name);
        }
        return rif;
    }

    private void neighbors() {
        for (final Map.Entry<String, Map<String, String>> e : db.table("NEIGH").entrySet()) {
            final String key = e.getKey();
            final String[] parts = key.split("\\|");
            if (parts.length != 2) {
                throw new ConfigException("NEIGH", key, "", "keys are <interface>|<ip>");
            }
            final int rif = rifOf("NEIGH", key, "", parts[0]);
            final IpPrefix ip = prefix("NEIGH", key, "", parts[1]);
            if (ip.length() != (ip.v6() ? 128 : 32)) {
                throw new ConfigException("NEIGH", key, "", "an address, not a prefix, is expected");
            }
            if (ownAddresses.contains(ip)) {
                throw new ConfigException("NEIGH", key, "", ip + " is the switch's own address");
            }
            final String neigh = e.getValue().get("neigh");
            if (neigh == null) {
                throw new ConfigException("NEIGH", key, "neigh", "is required");
            }
            final String family = e.getValue().get("family");
            if (family != null && !family.equals(ip.v6() ? "IPv6" : "IPv4")) {
                throw new ConfigException("NEIGH", key, "family", "does not match the address: " + family);
            }
            if (!tables.neighbors().put(ip.high(), ip.low(), ip.v6(), mac("NEIGH", key, "neigh", neigh), rif, true)) {
                throw new ConfigException("NEIGH", key, "", "neighbor table full");
            }
        }
    }

    private void staticRoutes() {
        for (final Map.Entry<String, Map<String, String>> e :
                db.table("STATIC_ROUTE").entrySet()) {
            final String key = e.getKey();
            final String[] parts = key.split("\\|");
            if (parts.length > 2 || (parts.length == 2 && !parts[0].equals("default"))) {
                throw new ConfigException("STATIC_ROUTE", key, "", "only the default VRF is supported");
            }
            final IpPrefix prefix = prefix("STATIC_ROUTE", key, "", parts[parts.length - 1]);
            final Map<String, String> f = e.getValue();
            if ("true".equals(f.get("blackhole"))) {
                routes.put(prefix, RouteTarget.encode(RouteTarget.DROP, 0));
                continue;
            }
            final String nexthop = f.get("nexthop");
            if (nexthop == null || nexthop.isBlank()) {
                throw new ConfigException("STATIC_ROUTE", key, "nexthop", "is required unless blackhole is true");
            }
            final String[] hops = nexthop.split(",");
            final String[] ifnames = f.containsKey("ifname") ? f.get("ifname").split(",") : new String[0];
            if (ifnames.length != 0 && ifnames.length != hops.length) {
                throw new ConfigException("STATIC_ROUTE", key, "ifname", "needs one interface per next hop");
            }
            final String[] weightText =
                    f.containsKey("weight") ? f.get("weight").split(",") : new String[0];
            if (weightText.length != 0 && weightText.length != hops.length) {
                throw new ConfigException("STATIC_ROUTE", key, "weight", "needs one weight per next hop");
            }
            final int[] ids = new int[hops.length];
            final int[] weights = new int[hops.length];
            final int[] memberPorts = new int[hops.length];
            for (int i = 0; i < hops.length; i++) {
                final IpPrefix hop = prefix("STATIC_ROUTE", key, "nexthop", hops[i]);
                if (hop.v6() != prefix.v6() || hop.length() != (hop.v6() ? 128 : 32)) {
                    throw new ConfigException("STATIC_ROUTE", key, "nexthop", "bad next hop " + hops[i]);
                }
                if (ownAddresses.contains(hop)) {
                    throw new ConfigException(
                            "STATIC_ROUTE",
                            key,
                            "nexthop",
                            hops[i].trim() + " is the switch's own address, not a next hop");
                }
                final int rif =
                        ifnames.length > 0 ? rifOf("STATIC_ROUTE", key, "ifname", ifnames[i]) : connectedRif(key, hop);
                ids[i] = nextHop(key, hop, rif);
                weights[i] = weightText.length == 0
                        ? 1
                        : (int) ConfigBound.WCMP_WEIGHT.parse("STATIC_ROUTE", key, "weight", weightText[i]);
                final int port = tables.routerInterfacePort(rif);
                memberPorts[i] = port == ForwardingTables.NONE ? 0 : port;
            }
            if (hops.length == 1) {
                routes.put(prefix, RouteTarget.encode(RouteTarget.NEXT_HOP, ids[0]));
            } else {
                routes.put(prefix, RouteTarget.encode(RouteTarget.GROUP, group(key, ids, weights, memberPorts)));
            }
        }
    }

    /**
     * The group of these members: an existing one if another route has the same next hops with the same weights
     * (in any order) and no ARS_NEXTHOP_GROUP entry of its own, else a new one. The group limit is the ASIC's
     * ECMP group table ({@link PipelineSizing#maxGroups()}), not the route count.
     */
    private int group(final String key, final int[] ids, final int[] weights, final int[] memberPorts) {
        final Integer[] order = new Integer[ids.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(
                order, Comparator.comparingInt((Integer i) -> ids[i]).thenComparingInt(i -> weights[i]));
        final StringBuilder members = new StringBuilder(flowlet.arsGroups().containsKey(key) ? key : "");
        final int[] sortedIds = new int[ids.length];
        final int[] sortedWeights = new int[ids.length];
        final int[] sortedPorts = new int[ids.length];
        for (int i = 0; i < order.length; i++) {
            sortedIds[i] = ids[order[i]];
            sortedWeights[i] = weights[order[i]];
            sortedPorts[i] = memberPorts[order[i]];
            members.append(',').append(sortedIds[i]).append('x').append(sortedWeights[i]);
        }
        final Integer existing = groupByMembers.get(members.toString());
        if (existing != null) {
            return existing;
        }
        if (groupCount >= sizing.maxGroups()) {
            throw new ConfigException(
                    "STATIC_ROUTE",
                    key,
                    "nexthop",
                    "too many distinct next-hop groups: the ECMP" + " group table holds " + sizing.maxGroups());
        }
        final int group = groupCount++;
        tables.group(group, sortedIds, newGroup(key, sortedPorts, sortedWeights));
        groups.add(new ConfigGroup(key, flowlet.arsGroups().containsKey(key), sortedIds, sortedWeights));
        groupByMembers.put(members.toString(), group);
        return group;
    }

    private LoadBalanceGroup newGroup(final String key, final int[] ports, final int[] weights) {
        final GroupSettings settings;
        try {
            settings = flowlet.groupSettings(key);
        } catch (final RuntimeException e) {
            throw new ConfigException("STATIC_ROUTE", key, "", e.getMessage());
        }
        final PortQuality quality = settings.mode() == LoadBalanceMode.FLOWLET_QUALITY ? sharedQuality() : null;
        return new LoadBalanceGroup(settings, ports, weights, tables.hashEngine(), quality);
    }

    /** One PortQuality per switch, load scaled by ARS_INTERFACES scaling_factor or else the port speed (10G units). */
    private PortQuality sharedQuality() {
        if (tables.portQuality() == null) {
            final PortQuality quality = new PortQuality(sizing.maxPorts(), flowlet.qualitySettings());
            for (final String name : portNames) {
                final int port = portIndex.get(name);
                final io.asicemu.flowlet.config.ArsInterfaceConfig ars =
                        flowlet.arsInterfaces().get(name);
                if (ars != null) {
                    quality.scalingFactor(port, ars.scalingFactor());
                } else {
                    quality.portSpeedMbps(port, tables.portSpeedMbps(port));
                }
            }
            tables.portQuality(quality);
        }
        return tables.portQuality();
    }

    private int connectedRif(final String key, final IpPrefix hop) {
        IpPrefix best = null;
        int rif = -1;
        for (final Map.Entry<IpPrefix, Integer> r : connected.entrySet()) {
            final IpPrefix p = r.getKey();
            if (p.v6() == hop.v6()
                    && hop.truncate(p.length()).equals(p)
                    && (best == null || p.length() > best.length())) {
                best = p;
                rif = r.getValue();
            }
        }
        if (rif < 0) {
            throw new ConfigException("STATIC_ROUTE", key, "nexthop", hop + " is on no connected subnet; give ifname");
        }
        return rif;
    }

    private int nextHop(final String key, final IpPrefix hop, final int rif) {
        final String id = hop + "@" + rif;
        final Integer existing = nextHopIds.get(id);
        if (existing != null) {
            return existing;
        }
        if (nextHopIds.size() >= sizing.maxNextHops()) {
            throw new ConfigException("STATIC_ROUTE", key, "nexthop", "too many next hops");
        }
        final int n = nextHopIds.size();
        nextHopIds.put(id, n);
        tables.nextHop(n, hop.high(), hop.low(), hop.v6(), rif);
        return n;
    }

    private int[] map(final String table, final String name, final int keys, final int maxValue) {
        final Map<String, String> fields = db.table(table).get(name);
        if (fields == null) {
            return null;
        }
        final int[] map = new int[keys];
        for (final Map.Entry<String, String> f : fields.entrySet()) {
            final int k = (int) number(table, name, f.getKey(), f.getKey(), 0, keys - 1);
            map[k] = (int) number(table, name, f.getKey(), f.getValue(), 0, maxValue);
        }
        return map;
    }

    private void qos() {
        for (final String table :
                List.of("DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP")) {
            for (final String name : db.table(table).keySet()) {
                final int keys = table.startsWith("DSCP") ? 64 : table.startsWith("DOT1P") ? 8 : 16;
                final int max = table.startsWith("TC_TO_QUEUE") ? 9 : table.startsWith("TC_TO_PRIORITY") ? 7 : 15;
                map(table, name, keys, max);
            }
        }
        final Map<String, Map<String, String>> portQos = db.table("PORT_QOS_MAP");
        final Map<String, String> global = portQos.getOrDefault("global", Map.of());
        final int[] globalDscp = ref("PORT_QOS_MAP", "global", global, "dscp_to_tc_map", "DSCP_TO_TC_MAP", 64, 15);
        for (final String name : portNames) {
            if (globalDscp != null) {
                tables.qos().dscpToTc(portIndex.get(name), globalDscp);
            }
        }
        for (final Map.Entry<String, Map<String, String>> e : portQos.entrySet()) {
            if (e.getKey().equals("global")) {
                continue;
            }
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            final int[] dscp = ref("PORT_QOS_MAP", key, f, "dscp_to_tc_map", "DSCP_TO_TC_MAP", 64, 15);
            final int[] dot1p = ref("PORT_QOS_MAP", key, f, "dot1p_to_tc_map", "DOT1P_TO_TC_MAP", 8, 15);
            final int[] queue = ref("PORT_QOS_MAP", key, f, "tc_to_queue_map", "TC_TO_QUEUE_MAP", 16, 9);
            final int[] pg = ref("PORT_QOS_MAP", key, f, "tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP", 16, 7);
            for (final String portName : key.split(",")) {
                final int port = port("PORT_QOS_MAP", key, "", portName);
                if (dscp != null) {
                    tables.qos().dscpToTc(port, dscp);
                }
                if (dot1p != null) {
                    tables.qos().dot1pToTc(port, dot1p);
                }
                if (queue != null) {
                    for (final int q : queue) {
                        if (q > 7) {
                            throw new ConfigException(
                                    "PORT_QOS_MAP",
                                    key,
                                    "tc_to_queue_map",
                                    "queue " + q + " exceeds the 8 queues per port");
                        }
                    }
                    tables.qos().tcToQueue(port, queue);
                }
                if (pg != null) {
                    tables.qos().tcToPg(port, pg);
                }
            }
        }
    }

    private int[] ref(
            final String table,
            final String key,
            final Map<String, String> fields,
            final String field,
            final String mapTable,
            final int keys,
            final int max) {
        final String name = fields.get(field);
        if (name == null) {
            return null;
        }
        final String bare = name.startsWith("[") ? name.replaceAll("^\\[[A-Z_]+\\|(.*)]$", "$1") : name;
        final int[] map = map(mapTable, bare, keys, max);
        if (map == null) {
            throw new ConfigException(table, key, field, "no " + mapTable + " named " + bare);
        }
        return map;
    }

    private void acl() {
        final List<AclRule> rules = new ArrayList<>();
        final Map<String, int[]> tablePorts = new HashMap<>();
        for (final Map.Entry<String, Map<String, String>> e :
                db.table("ACL_TABLE").entrySet()) {
            final String key = e.getKey();
            final Map<String, String> f = e.getValue();
            final String stage = f.getOrDefault("stage", "ingress").toLowerCase();
            if (!stage.equals("ingress")) {
                throw new ConfigException("ACL_TABLE", key, "stage", "only ingress ACLs are supported");
            }
            final String portList = f.getOrDefault("ports", "");
            final List<Integer> ports = new ArrayList<>();
            for (final String p : portList.split(",")) {
                if (!p.isBlank()) {
                    ports.add(port("ACL_TABLE", key, "ports", p));
                }
            }
            tablePorts.put(key, ports.stream().mapToInt(Integer::intValue).toArray());
        }
        for (final Map.Entry<String, Map<String, String>> e :
                db.table("ACL_RULE").entrySet()) {
            final String key = e.getKey();
            final String[] parts = key.split("\\|");
            if (parts.length != 2 || !tablePorts.containsKey(parts[0])) {
                throw new ConfigException("ACL_RULE", key, "", "keys are <ACL_TABLE>|<rule> of an existing table");
            }
            rules.add(rule(key, e.getValue(), tablePorts.get(parts[0])));
        }
        if (rules.size() > sizing.aclRules()) {
            throw new ConfigException("ACL_RULE", "", "", rules.size() + " rules exceed " + sizing.aclRules());
        }
        final AclTable table = new AclTable(rules);
        for (int i = 0; i < table.size(); i++) {
            aclNames.add(table.name(i));
        }
        tables.acl(table);
    }

    private AclRule rule(final String key, final Map<String, String> f, final int[] ports) {
        for (final String field : f.keySet()) {
            if (!ACL_MATCH_FIELDS.contains(field)) {
                throw new ConfigException("ACL_RULE", key, field, "unknown ACL field");
            }
        }
        final AclRule r = new AclRule(key, (int)
                ConfigBound.ACL_PRIORITY.parse("ACL_RULE", key, "PRIORITY", f.getOrDefault("PRIORITY", "0")));
        r.inPorts(ports);
        final String action = f.getOrDefault("PACKET_ACTION", "FORWARD").toUpperCase();
        r.action(
                switch (action) {
                    case "FORWARD", "ACCEPT" -> AclAction.FORWARD;
                    case "DROP" -> AclAction.DROP;
                    case "TRAP", "REDIRECT:CPU" -> AclAction.TRAP;
                    case "COPY" -> AclAction.COPY;
                    default ->
                        throw new ConfigException(
                                "ACL_RULE", key, "PACKET_ACTION", "must be FORWARD, DROP, TRAP or COPY: " + action);
                });
        for (final Map.Entry<String, String> e : f.entrySet()) {
            final String field = e.getKey();
            final String v = e.getValue();
            switch (field) {
                case "SRC_IP", "SRC_IPV6" -> {
                    final IpPrefix p = prefix("ACL_RULE", key, field, v);
                    if (p.v6()) {
                        r.srcIpv6(p.high(), p.low(), p.length());
                    } else {
                        r.srcIpv4(p.ipv4(), p.length());
                    }
                }
                case "DST_IP", "DST_IPV6" -> {
                    final IpPrefix p = prefix("ACL_RULE", key, field, v);
                    if (p.v6()) {
                        r.dstIpv6(p.high(), p.low(), p.length());
                    } else {
                        r.dstIpv4(p.ipv4(), p.length());
                    }
                }
                case "IP_PROTOCOL", "NEXT_HEADER" -> r.ipProtocol((int) number("ACL_RULE", key, field, v, 0, 255));
                case "L4_SRC_PORT" -> {
                    final int port = (int) number("ACL_RULE", key, field, v, 0, 65535);
                    r.l4SrcPort(port, port);
                }
                case "L4_DST_PORT" -> {
                    final int port = (int) number("ACL_RULE", key, field, v, 0, 65535);
                    r.l4DstPort(port, port);
                }
                case "L4_SRC_PORT_RANGE", "L4_DST_PORT_RANGE" -> {
                    final String[] range = v.split("-");
                    if (range.length != 2) {
                        throw new ConfigException("ACL_RULE", key, field, "ranges are <min>-<max>");
                    }
                    final int min = (int) number("ACL_RULE", key, field, range[0], 0, 65535);
                    final int max = (int) number("ACL_RULE", key, field, range[1], min, 65535);
                    if (field.startsWith("L4_SRC")) {
                        r.l4SrcPort(min, max);
                    } else {
                        r.l4DstPort(min, max);
                    }
                }
                case "ETHER_TYPE" -> r.etherType((int) number("ACL_RULE", key, field, v, 0, 0xffff), 0xffff);
                case "DSCP" -> r.dscp((int) number("ACL_RULE", key, field, v, 0, 63));
                case "ECN" -> r.ecn((int) number("ACL_RULE", key, field, v, 0, 3));
                case "VLAN_ID" -> r.vlanId((int) number("ACL_RULE", key, field, v, 1, 4094));
                case "BTH_OPCODE" -> r.bthOpcode((int) number("ACL_RULE", key, field, v, 0, 255));
                case "SET_TC" -> r.setTc((int) number("ACL_RULE", key, field, v, 0, 15));
                case "SET_DSCP" -> r.setDscp((int) number("ACL_RULE", key, field, v, 0, 63));
                case "SRC_MAC" -> r.srcMac(mac("ACL_RULE", key, field, v), 0xffff_ffff_ffffL);
                case "DST_MAC" -> r.dstMac(mac("ACL_RULE", key, field, v), 0xffff_ffff_ffffL);
                case "IN_PORTS" -> {
                    final String[] names = v.split(",");
                    final int[] in = new int[names.length];
                    for (int i = 0; i < names.length; i++) {
                        in[i] = port("ACL_RULE", key, field, names[i]);
                    }
                    r.inPorts(in);
                }
                case "TCP_FLAGS" -> {
                    final String[] vm = v.split("/");
                    final int value = (int) number("ACL_RULE", key, field, vm[0], 0, 0xff);
                    final int mask = vm.length > 1 ? (int) number("ACL_RULE", key, field, vm[1], 0, 0xff) : 0xff;
                    r.tcpFlags(value, mask);
                }
                case "IP_TYPE" ->
                    r.ipVersion(
                            switch (v.toUpperCase()) {
                                case "IPV4", "IPV4ANY" -> 4;
                                case "IPV6", "IPV6ANY" -> 6;
                                case "IP", "ANY" -> 0;
                                default ->
                                    throw new ConfigException("ACL_RULE", key, field, "unsupported IP_TYPE " + v);
                            });
                default -> {
                    // PRIORITY and PACKET_ACTION were read above.
                }
            }
        }
        return r;
    }
}
