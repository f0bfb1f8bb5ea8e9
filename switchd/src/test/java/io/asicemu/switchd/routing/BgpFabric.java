package io.asicemu.switchd.routing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.routing.FpmServer;
import io.asicemu.testsupport.netns.Background;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.FrrTestDaemons;
import io.asicemu.testsupport.netns.IpLinkNames;
import io.asicemu.testsupport.netns.NamespacedThread;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.Offloads;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A leaf and its spines in network namespaces, the leaf programmed as asic-emu programs it: namespace {@code leaf}
 * with ports {@code Ethernet0}, {@code Ethernet4}, … (veth pairs to namespaces {@code spine1}, {@code spine2}, …, whose
 * end is {@code eth0}; the links are the /31s of CONFIG_DB's INTERFACE table, the spine on the even address), the
 * leaf's loopback addresses on {@code lo}, its other ports veth pairs to namespaces {@code h<n>} of their own; the
 * leaf's FRR (zebra with {@code dplane_fpm_nl}, bgpd) configured with {@link FrrConfig#render} through {@code vtysh
 * -b}; the FPM listener on 127.0.0.1 of the leaf namespace, its sink a {@link ProtocolRouteWriter} over a {@link
 * ControlAgent} over an in-memory {@link Pipeline} with the same CONFIG_DB, so the data path's route table shows what
 * BGP chose. The spines run plain FRR (zebra, bgpd)
 * with their own daemon config files, as another vendor's nodes. Each FRR instance keeps its config, pid files and
 * sockets in its own directory that frr owns. Closing kills every daemon, stops the listener and the pipeline, and
 * deletes the namespaces and directories. Needs root. Not thread safe: the caller's thread drives the data plane.
 */
final class BgpFabric implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A SONiC leaf's CONFIG_DB: two spine links (/31, the spine on the even address) and a hosts' subnet. */
    static final String LEAF = """
        {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "bgp_asn": "65101", "mac": "02:00:00:00:01:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}, "Ethernet4": {}, "Ethernet4|10.0.0.3/31": {},
                       "Ethernet8": {}, "Ethernet8|192.168.1.1/24": {}},
         "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
         "BGP_NEIGHBOR": {"10.0.0.0": {"asn": "65000", "name": "spine1"},
                          "10.0.0.2": {"asn": "65000", "name": "spine2"}}}""";

    /**
     * A spine's bgpd.conf, as another vendor's router would be configured by hand: the shared prefix, one of its own
     * and its loopback announced (no import check: they need not be in its routing table), connects retried every
     * second, updates sent at once.
     */
    static String spineBgpd(final int number, final String... extraNetworks) {
        final StringBuilder conf = new StringBuilder()
                .append("hostname spine")
                .append(number)
                .append("\n!\nrouter bgp 65000\n bgp router-id 10.2.0.")
                .append(number)
                .append("\n no bgp ebgp-requires-policy\n no bgp network import-check\n neighbor 10.0.0.")
                .append(2 * number - 1)
                .append(" remote-as 65101\n neighbor 10.0.0.")
                .append(2 * number - 1)
                .append(" timers connect 1\n neighbor 10.0.0.")
                .append(2 * number - 1)
                .append(" advertisement-interval 0\n !\n address-family ipv4 unicast\n  network 10.2.0.")
                .append(number)
                .append("/32\n  network 10.200.0.0/24\n  network 10.20")
                .append(number)
                .append(".0.0/24\n");
        for (final String network : extraNetworks) {
            conf.append("  network ").append(network).append('\n');
        }
        return conf.append(" exit-address-family\n!\n").toString();
    }

    /** One FRR instance: its namespace and its directory. */
    record Frr(Netns netns, Path dir) {}

    private final NetnsLab lab;
    private final ConfigDb leafConfig;
    private final Frr leaf;
    private final List<Frr> spines = new ArrayList<>();
    private final Path root;
    private final Pipeline pipeline;
    private final ControlAgent control;
    private final ProtocolRouteWriter writer;
    private final TimedRouteSink arrivals;
    private FpmServer server;

    /**
     * @param leafConfig the leaf's CONFIG_DB: Ethernet{4k} of INTERFACE with a /31 whose even address is spine k+1;
     *     the other ports get a veth to a namespace of their own, LOOPBACK_INTERFACE's addresses go on {@code lo}.
     * @param spineCount how many spines (each on Ethernet{4k}).
     */
    BgpFabric(final String leafConfig, final int spineCount) throws Exception {
        FrrTestDaemons.requireInstalled(FrrTestDaemons.ZEBRA);
        FrrTestDaemons.requireInstalled(FrrTestDaemons.BGPD);
        this.leafConfig = ConfigDb.parse(leafConfig);
        lab = NetnsLab.create();
        Pipeline created = null;
        ControlAgent agent = null;
        try {
            root = FrrTestDaemons.directory(null, "asicemu-bgp-frr-");
            final Netns leafNs = lab.namespace("leaf");
            leaf = new Frr(leafNs, frrDir("leaf"));
            for (int k = 0; k < spineCount; k++) {
                final Netns spine = lab.namespace("spine" + (k + 1));
                lab.link(leafNs, "Ethernet" + 4 * k, spine, "eth0", Offloads.KERNEL_DEFAULT, 1500);
                spines.add(new Frr(spine, frrDir("spine" + (k + 1))));
            }
            addressLeaf();
            created = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
            SwitchConfig.of(created.control()).applyConfig(this.leafConfig);
            agent = ControlAgent.start(created.control(), "bgp-fabric-control");
        } catch (final Exception | Error e) {
            if (agent != null) {
                agent.close();
            }
            if (created != null) {
                created.close();
            }
            close();
            throw e;
        }
        pipeline = created;
        control = agent;
        writer = new ProtocolRouteWriter(control);
        arrivals = new TimedRouteSink(writer);
    }

    private Path frrDir(final String name) throws Exception {
        return FrrTestDaemons.directory(root, name);
    }

    /** The leaf's kernel interfaces as CONFIG_DB has them: the spine links' /31s, loopbacks on lo, host ports. */
    private void addressLeaf() {
        final Netns ns = leaf.netns();
        ns.execOk("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
        ns.execOk("sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
        for (final String table : List.of("LOOPBACK_INTERFACE", "INTERFACE")) {
            for (final String key : leafConfig.table(table).keySet()) {
                final String[] parts = key.split("\\|");
                if (parts.length != 2) {
                    continue;
                }
                final String port = parts[0];
                final int spine = port.startsWith("Ethernet") ? Integer.parseInt(port.substring(8)) / 4 : -1;
                if (spine >= 0 && spine < spines.size()) {
                    ns.addAddress(port, parts[1]);
                    final IpPrefix link = IpPrefix.parse(parts[1]);
                    final Netns peer = spines.get(spine).netns();
                    peer.execOk("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
                    peer.addAddress("eth0", ipv4(link.low() & ~1L) + "/31");
                } else if (table.equals("LOOPBACK_INTERFACE")) {
                    // on lo: the kernel here may have no dummy interfaces, and zebra only needs the address up
                    ns.addAddress("lo", parts[1]);
                } else {
                    if (ns.exec(Commands.DEFAULT_TIMEOUT, "ip", "link", "show", port)
                                    .exitCode()
                            != 0) {
                        // a hosts' port: a veth to a namespace of its own, so its subnet is connected and up
                        lab.link(
                                ns,
                                port,
                                lab.namespace("h" + port.substring(8)),
                                "eth0",
                                Offloads.KERNEL_DEFAULT,
                                1500);
                    }
                    ns.addAddress(port, parts[1]);
                }
            }
        }
    }

    /** @return spine {@code number} (from 1). */
    Frr spine(final int number) {
        return spines.get(number - 1);
    }

    /** @return the FPM listener's sink into the control model. */
    ProtocolRouteWriter writer() {
        return writer;
    }

    /** @return the routes as they leave the FPM listener, timed. */
    TimedRouteSink arrivals() {
        return arrivals;
    }

    /**
     * Starts a spine's zebra and bgpd, each reading its own config file (bgpd's: {@code bgpdConf}), at most
     * {@code lifetime}.
     */
    void startSpine(final int number, final String bgpdConf, final Duration lifetime) throws Exception {
        final Frr spine = spine(number);
        final Path zebraConf = Files.writeString(spine.dir().resolve("zebra.conf"), "hostname spine" + number + "\n");
        final Path bgpd = Files.writeString(spine.dir().resolve("bgpd.conf"), bgpdConf);
        startDaemon(spine, FrrTestDaemons.ZEBRA, zebraConf, lifetime);
        awaitFile(spine.dir().resolve("zserv.api"), Duration.ofSeconds(10));
        startDaemon(spine, FrrTestDaemons.BGPD, bgpd, lifetime);
        // bgpd reads its whole config before it opens its vty socket (100k networks: seconds)
        awaitFile(spine.dir().resolve("bgpd.vty"), Duration.ofMinutes(2));
    }

    /**
     * Starts the leaf's FPM listener (127.0.0.1:{@link FrrConfig#FPM_PORT} of the leaf namespace), then zebra with
     * {@code dplane_fpm_nl} and bgpd with no config, then configures both with the frr.conf {@link FrrConfig#render}
     * makes of the leaf's CONFIG_DB, through {@code vtysh -b} (integrated config, as SONiC's bgpcfgd does).
     *
     * @return the listener (closed with the fabric).
     */
    FpmServer startLeaf(final Duration lifetime) throws Exception {
        final String namespace = leaf.netns().name();
        server = NamespacedThread.callIn(
                namespace,
                () -> FpmServer.start(
                        FpmServer.Settings.defaults()
                                .withAddress(new InetSocketAddress("127.0.0.1", FrrConfig.FPM_PORT))
                                .withInterfaceNames(new IpLinkNames(namespace)::nameOf),
                        arrivals));
        Files.writeString(leaf.dir().resolve("frr.conf"), FrrConfig.render(leafConfig));
        Files.writeString(leaf.dir().resolve("vtysh.conf"), "service integrated-vtysh-config\n");
        startDaemon(leaf, FrrTestDaemons.ZEBRA, Path.of("/dev/null"), lifetime, "-M", "dplane_fpm_nl");
        awaitFile(leaf.dir().resolve("zserv.api"), Duration.ofSeconds(10));
        startDaemon(leaf, FrrTestDaemons.BGPD, Path.of("/dev/null"), lifetime);
        awaitFile(leaf.dir().resolve("bgpd.vty"), Duration.ofSeconds(10));
        leaf.netns()
                .exec(
                        Duration.ofSeconds(60),
                        "vtysh",
                        "--vty_socket",
                        leaf.dir().toString(),
                        "--config_dir",
                        leaf.dir().toString(),
                        "-b")
                .requireSuccess();
        return server;
    }

    private void startDaemon(
            final Frr frr, final Path binary, final Path conf, final Duration lifetime, final String... extra) {
        final List<String> options =
                new ArrayList<>(List.of("--log", "file:" + frr.dir().resolve(binary.getFileName() + ".log")));
        options.addAll(List.of(extra));
        final Background daemon = frr.netns()
                .start(lifetime, FrrTestDaemons.command(binary, frr.dir(), conf, options.toArray(String[]::new)));
        if (!daemon.alive()) {
            throw new IllegalStateException(binary + " in " + frr.netns() + " did not start");
        }
    }

    private static void awaitFile(final Path file, final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(file + " did not appear within " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /** Runs vtysh commands against an FRR instance's daemons, failing unless it exits 0; returns its output. */
    static String vtysh(final Frr frr, final String... commands) {
        return FrrTestDaemons.vtysh(frr.dir(), commands);
    }

    /** @return the leaf's BGP sessions that are Established ({@code show bgp summary json}). */
    int leafSessionsEstablished() throws Exception {
        return establishedIn(vtysh(leaf, "show bgp summary json"));
    }

    private static int establishedIn(final String summaryJson) throws Exception {
        final JsonNode peers = JSON.readTree(summaryJson).path("ipv4Unicast").path("peers");
        int established = 0;
        for (final JsonNode peer : peers) {
            if ("Established".equals(peer.path("state").asText())) {
                established++;
            }
        }
        return established;
    }

    /** @return the leaf's log lines of its FRR daemons, for a failure's message. */
    private String leafLogs() {
        final StringBuilder out = new StringBuilder();
        for (final String name : List.of("zebra.log", "bgpd.log")) {
            try {
                final List<String> lines = Files.readAllLines(leaf.dir().resolve(name));
                out.append("--- ").append(name).append('\n');
                lines.subList(Math.max(0, lines.size() - 30), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (final Exception e) {
                out.append("--- no ").append(name).append('\n');
            }
        }
        return out.toString();
    }

    /** Applies every command the control agent queued for the data plane (this thread runs the data plane). */
    ForwardingTables dataPath() {
        // a duty cycle applies a bounded number of commands: cycle until one finds nothing to do
        while (pipeline.agent().doWork() > 0) {
            // applying
        }
        return pipeline.agent().tables();
    }

    /**
     * @return the next hops the data path forwards {@code address} to, as addresses in ascending order ("drop",
     *     "connected", "local" for those targets; empty when no route matches).
     */
    List<String> nextHopsFor(final String address) {
        final ForwardingTables t = dataPath();
        final IpPrefix a = IpPrefix.address(address);
        final int target = t.routeTargetFor(a.v6(), a.high(), a.low());
        final List<String> hops = new ArrayList<>();
        switch (RouteTarget.kind(target)) {
            case RouteTarget.NEXT_HOP -> hops.add(ipv4(t.nextHopLow(RouteTarget.id(target))));
            case RouteTarget.GROUP -> {
                for (final int hop : t.groupNextHops(RouteTarget.id(target))) {
                    hops.add(ipv4(t.nextHopLow(hop)));
                }
            }
            case RouteTarget.DROP -> hops.add("drop");
            case RouteTarget.CONNECTED -> hops.add("connected");
            case RouteTarget.LOCAL -> hops.add("local");
            default -> {
                // no route
            }
        }
        hops.sort(null);
        return hops;
    }

    /**
     * Runs the data plane until {@code condition} holds, checking every 5 ms.
     *
     * @return how long it took.
     * @throws AssertionError when it did not hold within {@code timeout}.
     */
    Duration awaitDataPath(final String what, final BooleanSupplier condition, final Duration timeout)
            throws InterruptedException {
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " not in the data path within " + timeout + "\n" + leafLogs());
            }
            Thread.sleep(5);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** Waits (bounded) until {@code condition} holds, checking every 200 ms; fails with {@code what}. */
    Duration await(final String what, final Check condition, final Duration timeout) throws Exception {
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " not within " + timeout + "\n" + leafLogs());
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** A condition that may run commands. */
    @FunctionalInterface
    interface Check {
        boolean holds() throws Exception;
    }

    static String ipv4(final long low) {
        return ((low >>> 24) & 0xff) + "." + ((low >>> 16) & 0xff) + "." + ((low >>> 8) & 0xff) + "." + (low & 0xff);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        if (control != null) {
            control.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
        lab.close(); // kills the daemons (its processes), deletes the namespaces
        if (root != null) {
            Commands.runQuietly("rm", "-rf", root.toString());
        }
    }
}
