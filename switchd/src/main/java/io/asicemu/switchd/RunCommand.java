package io.asicemu.switchd;

import io.asicemu.config.ConfigException;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.ServerOptions;
import io.asicemu.pipeline.config.ConfigCompiler;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.switchd.routing.FrrConfig;
import io.asicemu.switchd.routing.Routing;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code run}: the switch live on Linux interfaces (AF_PACKET), in real time, serving P4Runtime until SIGTERM/SIGINT.
 * Ports are the CONFIG_DB's PORT table, named after sonic-vs ({@code Ethernet0 → eth1}, …) unless
 * {@code --port-map} says otherwise; interfaces may appear and disappear while it runs.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = "Run the switch live on Linux interfaces and serve P4Runtime until SIGTERM.")
final class RunCommand implements Callable<Integer> {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RunCommand.class);

    @Option(names = "--config", required = true, paramLabel = "config_db.json", description = "SONiC CONFIG_DB JSON")
    private Path config;

    @CommandLine.Mixin
    private ConfigOptions configOptions = new ConfigOptions();

    @Option(
            names = "--port-map",
            paramLabel = "PORT=IFNAME",
            description =
                    "Linux interface of a SONiC port, e.g. Ethernet0=veth0 (repeatable; default: the i-th port is "
                            + "eth<i+1>)")
    private Map<String, String> portMap = new LinkedHashMap<>();

    @Option(
            names = "--take-addressed-ports",
            description = "also take a port's interface that carries IPv4 or global IPv6 addresses (by default such an "
                    + "interface is left alone and reported DOWN: it is probably the host's own)")
    private boolean takeAddressedPorts;

    @Option(
            names = "--host-interfaces",
            description = "make a Linux netdev (a TAP) for every port, named as the SONiC port, with the switch's MAC, "
                    + "the port's MTU and INTERFACE addresses and the port's link state: the switch's kernel (and a "
                    + "routing daemon on it) receives the trapped frames (ARP replies, IP to the switch, LLDP) and its "
                    + "frames leave the ports (needs /dev/net/tun; see the README for P4Runtime beside it)")
    private boolean hostInterfaces;

    @Option(
            names = "--frr-conf",
            paramLabel = "FILE",
            description = "run FRR with this frr.conf instead of the one rendered from CONFIG_DB (BGP_NEIGHBOR, "
                    + "LOOPBACK_INTERFACE, DEVICE_METADATA bgp_asn); it needs 'fpm address 127.0.0.1' and "
                    + "'no fpm use-next-hop-groups'. Routing (FRR, the FPM listener, host interfaces) runs when the "
                    + "config has BGP_NEIGHBOR or this is given")
    private Path frrConf;

    @Option(
            names = "--frr-run-dir",
            paramLabel = "DIR",
            defaultValue = "/var/run/frr",
            description =
                    "FRR's run directory: pid files, the daemons' sockets (vtysh --vty_socket); default: ${DEFAULT-VALUE}")
    private Path frrRunDir;

    @Option(
            names = "--p4runtime-port",
            paramLabel = "PORT",
            defaultValue = "" + P4RuntimeServer.DEFAULT_PORT,
            description = "P4Runtime gRPC port, 0 = off (default: ${DEFAULT-VALUE})")
    private int p4runtimePort;

    @Option(
            names = "--p4runtime-address",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description =
                    "address P4Runtime and the counters listen on (default: ${DEFAULT-VALUE}, this host only; the "
                            + "container image listens on its management interface, see --management-interface)")
    private String p4runtimeAddress;

    @Option(
            names = "--p4runtime-tls-cert",
            paramLabel = "PEM",
            description = "serve P4Runtime over TLS with this certificate chain (with --p4runtime-tls-key)")
    private Path tlsCert;

    @Option(names = "--p4runtime-tls-key", paramLabel = "PEM", description = "the TLS private key (PKCS#8 PEM)")
    private Path tlsKey;

    @Option(
            names = "--p4runtime-tls-client-ca",
            paramLabel = "PEM",
            description = "require client certificates issued by these CA certificates (mutual TLS)")
    private Path tlsClientCa;

    @Option(
            names = "--p4runtime-handshake-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "close connections that have not completed the TLS/HTTP/2 handshake by then (default: "
                    + "${DEFAULT-VALUE})")
    private long handshakeTimeoutS;

    @Option(
            names = "--p4runtime-idle-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description = "close connections without a call in flight for this long (a controller's stream is a call; "
                    + "default: ${DEFAULT-VALUE})")
    private long idleTimeoutS;

    @Option(
            names = "--p4runtime-max-connection-age-s",
            paramLabel = "SECONDS",
            defaultValue = "0",
            description =
                    "close connections older than this once their calls end, 0 = never (default: ${DEFAULT-VALUE};"
                            + " closing a controller's stream ends its mastership)")
    private long maxConnectionAgeS;

    @Option(
            names = "--p4runtime-max-calls-per-connection",
            paramLabel = "N",
            defaultValue = "32",
            description = "concurrent calls one connection may have open (default: ${DEFAULT-VALUE})")
    private int maxCallsPerConnection;

    @Option(
            names = "--p4runtime-max-connections",
            paramLabel = "N",
            defaultValue = "64",
            description = "connections held at once; one more is closed when accepted (default: ${DEFAULT-VALUE})")
    private int maxConnections;

    @Option(
            names = "--management-interface",
            paramLabel = "IFNAME",
            description =
                    "listen (P4Runtime, counters) on this interface's address instead of --p4runtime-address: its "
                            + "first IPv4 address, else its first global IPv6 one; 127.0.0.1 if it has none (the container uses eth0)")
    private String managementInterface;

    @Option(
            names = "--device-id",
            paramLabel = "ID",
            defaultValue = "1",
            description = "P4Runtime device id, >= 1 (default: ${DEFAULT-VALUE})")
    private long deviceId;

    @Option(
            names = "--dilation",
            paramLabel = "FACTOR",
            defaultValue = "1.0",
            description = "real ns per emulated ns (default: ${DEFAULT-VALUE}, real time)")
    private double dilation;

    @CommandLine.Mixin
    private SizingOptions sizing = new SizingOptions();

    @Option(
            names = "--busy-poll-us",
            paramLabel = "MICROSECONDS",
            defaultValue = "0",
            description = "low-latency mode: keep polling the ports for this long after the last frame before sleeping "
                    + "(costs a core while traffic flows; aim it above the longest pause between frames: once asleep, the "
                    + "next frame pays the wake-up, 50-150 us on a VM; the veth harness measures 10000 at 5 kpps); "
                    + "the JVM's other threads yield to it (nice 19) and G1's periodic collection is off; "
                    + "0 = off (default: ${DEFAULT-VALUE})")
    private long busyPollUs;

    @Option(
            names = "--rx-ring-budget-mib",
            paramLabel = "MIB",
            defaultValue = "32",
            description = "AF_PACKET RX ring memory of the whole switch, divided among the configured ports at 2 KiB a "
                    + "slot: 8192 slots a port up to 2 ports, 4096 up to 4, 2048 up to 8, 1024 up to 16, 512 up to 32, "
                    + "256 up to 64 and beyond "
                    + "(ring pages are resident from the start; deeper rings absorb longer bursts); 0 = "
                    + "--rx-ring-frames a port whatever the count "
                    + "(default: ${DEFAULT-VALUE})")
    private long rxRingBudgetMib;

    @Option(
            names = "--rx-ring-frames",
            paramLabel = "SLOTS",
            defaultValue = "" + AfPacketConfig.DEFAULT_RX_FRAMES,
            description =
                    "AF_PACKET RX ring slots a port at most, a power of two 64..65536 (the budget may give fewer): "
                            + "a deeper ring rides out a longer stall of the switch's CPU without loss (8192 slots last 28 ms "
                            + "at 290 kpps) for 1,600 B a slot at MTU 1500 (default: ${DEFAULT-VALUE})")
    private int rxRingFrames;

    @Option(
            names = "--expect-links",
            paramLabel = "N",
            defaultValue = "${env:CLAB_INTFS:-0}",
            description = "data links that make the switch ready (default: $CLAB_INTFS as containerlab sets it, else "
                    + "every configured port); it forwards on whatever ports are present either way")
    private int expectLinks;

    @Option(
            names = "--status-file",
            paramLabel = "FILE",
            description = "where to publish readiness (ready/waiting, attached and missing ports, P4Runtime address) "
                    + "for a health check; rewritten on every port change, removed on exit")
    private Path statusFile;

    @Option(
            names = "--counters-port",
            paramLabel = "PORT",
            defaultValue = "-1",
            description = "serve GET /counters (text) on --p4runtime-address at this port; -1 = off (default), 0 = any")
    private int countersPort;

    @Option(
            names = "--redis-port",
            paramLabel = "PORT",
            defaultValue = "-1",
            description =
                    "serve COUNTERS_DB (2), CONFIG_DB (4, writable, with keyspace notifications) and STATE_DB (6) over the Redis "
                            + "protocol at "
                            + "this port on the management address (SONiC's is 6379); -1 = off (default), 0 = any")
    private int redisPort;

    @Option(
            names = "--redis-address",
            paramLabel = "ADDRESS",
            description = "listen for Redis on this address instead of the management address (--p4runtime-address / "
                    + "--management-interface)")
    private String redisAddress;

    @Option(
            names = "--redis-password-file",
            paramLabel = "FILE",
            description = "require AUTH with the password on this file's first line")
    private Path redisPasswordFile;

    @Option(
            names = "--redis-max-connections",
            paramLabel = "N",
            defaultValue = "64",
            description =
                    "Redis clients held at once; when all are held a new one takes the place of the oldest that has "
                            + "not authenticated (or, without a password, sent a command), else it is refused "
                            + "(default: ${DEFAULT-VALUE})")
    private int redisMaxConnections;

    @Option(
            names = "--redis-auth-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "close a Redis connection that has not authenticated (without a password: sent a complete "
                    + "command) this long after it connected (default: ${DEFAULT-VALUE})")
    private long redisAuthTimeoutS;

    @Option(
            names = "--redis-idle-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description = "close a Redis connection idle this long, subscribers excepted (default: ${DEFAULT-VALUE})")
    private long redisIdleTimeoutS;

    @Option(
            names = "--redis-auth-failure-delay-ms",
            paramLabel = "MS",
            defaultValue = "1000",
            description = "answer a failed AUTH after this delay (default: ${DEFAULT-VALUE})")
    private long redisAuthFailureDelayMs;

    @Option(
            names = "--redis-max-auth-failures",
            paramLabel = "N",
            defaultValue = "3",
            description = "close a Redis connection after this many failed AUTHs (default: ${DEFAULT-VALUE})")
    private int redisMaxAuthFailures;

    @Option(
            names = "--http-max-connections",
            paramLabel = "N",
            defaultValue = "64",
            description = "connections each HTTP endpoint (/metrics, /counters) holds at once; when all are held a new "
                    + "one takes the place of the oldest without a complete request (default: ${DEFAULT-VALUE})")
    private int httpMaxConnections;

    @Option(
            names = "--http-request-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "close an HTTP connection whose request head is not complete this long after it connected "
                    + "(default: ${DEFAULT-VALUE})")
    private long httpRequestTimeoutS;

    @Option(
            names = "--http-idle-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "close an HTTP connection that neither reads nor writes this long (a client that does not "
                    + "read its answer) (default: ${DEFAULT-VALUE})")
    private long httpIdleTimeoutS;

    @Option(
            names = "--gnmi-max-connections",
            paramLabel = "N",
            defaultValue = "64",
            description =
                    "gNMI connections held at once; when all are held a new one takes the place of the oldest that "
                            + "has not sent its HTTP/2 preface, else it is closed at accept (default: ${DEFAULT-VALUE})")
    private int gnmiMaxConnections;

    @Option(
            names = "--gnmi-handshake-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "close a gNMI connection that has not finished its TLS/HTTP/2 handshake this long after it "
                    + "connected (default: ${DEFAULT-VALUE})")
    private long gnmiHandshakeTimeoutS;

    @Option(
            names = "--gnmi-idle-timeout-s",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description = "close a gNMI connection with no call (subscription) in flight this long "
                    + "(default: ${DEFAULT-VALUE})")
    private long gnmiIdleTimeoutS;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            defaultValue = "-1",
            description = "serve Prometheus metrics (/metrics) at this port on the management address; -1 = off "
                    + "(default), 0 = any")
    private int metricsPort;

    @Option(
            names = "--gnmi-port",
            paramLabel = "PORT",
            defaultValue = "-1",
            description =
                    "serve gNMI telemetry (Capabilities, Get, Subscribe; targets COUNTERS_DB, CONFIG_DB, STATE_DB "
                            + "with SONiC's paths) at this port on the management address, over TLS when "
                            + "--p4runtime-tls-cert/-key are given (SONiC's is 8080); -1 = off (default), 0 = any")
    private int gnmiPort;

    @Option(
            names = "--operator-max-age-ms",
            paramLabel = "MS",
            defaultValue = "100",
            description = "how old the counters Redis and Prometheus readers see may be; the data plane hands its "
                    + "counters over at most once per this period however many clients read (default ${DEFAULT-VALUE})")
    private long operatorMaxAgeMs;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        StartupTimeline.mark("command line");
        final PrintWriter err = spec.commandLine().getErr();
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(
                () -> {
                    stop.countDown();
                    try {
                        stopped.await(10, TimeUnit.SECONDS);
                    } catch (final InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "asic-emu-shutdown");
        LiveSwitch sw = null;
        try {
            sw = start();
            Runtime.getRuntime().addShutdownHook(hook);
            stop.await();
        } catch (final ConfigException e) {
            err.println("run: " + config + ": configuration refused: " + e.getMessage());
            return 2;
        } catch (final IOException | java.io.UncheckedIOException | IllegalArgumentException | CliError e) {
            err.println("run: " + CliErrors.oneLine(e));
            return 2;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                if (sw != null) {
                    sw.close();
                }
            } catch (final RuntimeException | Error e) {
                LOG.error("run: shutdown failed", e);
            } finally {
                stopped.countDown();
            }
        }
        return 0;
    }

    /**
     * Starts the switch these options describe (the command then waits for SIGTERM; tests close it themselves).
     *
     * @return the running switch.
     * @throws IOException if the P4Runtime port cannot be bound.
     * @throws ConfigException if the configuration is refused.
     */
    LiveSwitch start() throws IOException {
        if (expectLinks < 0) {
            throw new IllegalArgumentException("--expect-links (or CLAB_INTFS) must be >= 0, not " + expectLinks);
        }
        if (busyPollUs < 0 || busyPollUs > 1_000_000) {
            throw new IllegalArgumentException("--busy-poll-us must be 0..1000000, not " + busyPollUs);
        }
        if (rxRingBudgetMib < 0 || rxRingBudgetMib > 65_536) {
            throw new IllegalArgumentException("--rx-ring-budget-mib must be 0..65536, not " + rxRingBudgetMib);
        }
        if (rxRingFrames < 64 || rxRingFrames > 65_536 || Integer.bitCount(rxRingFrames) != 1) {
            throw new IllegalArgumentException(
                    "--rx-ring-frames must be a power of two 64..65536, not " + rxRingFrames);
        }
        final ConfigDb db = configOptions.load(config, spec.commandLine().getErr(), "run");
        if (managementInterface != null) {
            p4runtimeAddress = managementAddress(managementInterface);
        }
        final PipelineSizing tables = sizing.sizing();
        final Map<String, String> sonicToLinux = sonicToLinux(db, portMap, tables);
        StartupTimeline.mark("config");
        final InetSocketAddress p4rt =
                p4runtimePort == 0 ? null : new InetSocketAddress(p4runtimeAddress, p4runtimePort);
        return LiveSwitch.start(
                db,
                sonicToLinux,
                p4rt,
                deviceId,
                dilation,
                tables,
                busyPollUs * 1000,
                new LiveSwitch.Readiness(
                        expectLinks,
                        statusFile,
                        countersPort < 0 ? null : new InetSocketAddress(p4runtimeAddress, countersPort),
                        httpOptions()),
                serverOptions(),
                takeAddressedPorts,
                operatorViews(),
                AfPacketConfig.defaults().withRxFrames(rxRingFrames).withRxRingBudget(rxRingBudgetMib << 20),
                hostInterfaces,
                Routing.wanted(db, frrConf)
                        ? new Routing.Settings(
                                frrRunDir,
                                new InetSocketAddress("127.0.0.1", FrrConfig.FPM_PORT),
                                List.of(),
                                null,
                                frrConf)
                        : null);
    }

    /** The Redis front and Prometheus metrics from the options. */
    LiveSwitch.OperatorViews operatorViews() throws IOException {
        if (operatorMaxAgeMs < 1 || operatorMaxAgeMs > 60_000) {
            throw new IllegalArgumentException("--operator-max-age-ms must be 1..60000, not " + operatorMaxAgeMs);
        }
        for (final int port : new int[] {redisPort, metricsPort, gnmiPort}) {
            if (port < -1 || port > 65_535) {
                throw new IllegalArgumentException(
                        "--redis-port, --metrics-port and --gnmi-port must be -1..65535, not " + port);
            }
        }
        String password = null;
        if (redisPasswordFile != null) {
            if (!java.nio.file.Files.isRegularFile(redisPasswordFile)
                    || java.nio.file.Files.size(redisPasswordFile) > 4096) {
                throw new IllegalArgumentException(
                        "--redis-password-file " + redisPasswordFile + ": not a regular file of at most 4 KiB");
            }
            final java.util.List<String> lines =
                    java.nio.file.Files.readAllLines(redisPasswordFile, java.nio.charset.StandardCharsets.UTF_8);
            if (lines.isEmpty() || lines.get(0).isEmpty()) {
                throw new IllegalArgumentException(
                        "--redis-password-file " + redisPasswordFile + ": the first line (the password) is empty");
            }
            password = lines.get(0);
        }
        final String address = redisAddress != null ? redisAddress : p4runtimeAddress;
        return new LiveSwitch.OperatorViews(
                redisPort < 0 ? null : new InetSocketAddress(address, redisPort),
                password,
                metricsPort < 0 ? null : new InetSocketAddress(p4runtimeAddress, metricsPort),
                Duration.ofMillis(operatorMaxAgeMs),
                gnmiPort < 0 ? null : new InetSocketAddress(p4runtimeAddress, gnmiPort),
                tlsCert == null ? null : new io.asicemu.operator.gnmi.GnmiServer.Tls(tlsCert, tlsKey, tlsClientCa),
                new LiveSwitch.ListenerOptions(
                        io.asicemu.operator.OperatorRedisServer.Limits.defaults()
                                .withConnections(
                                        atLeast("--redis-max-connections", redisMaxConnections, 1),
                                        Duration.ofSeconds(atLeast("--redis-auth-timeout-s", redisAuthTimeoutS, 1)),
                                        Duration.ofSeconds(atLeast("--redis-idle-timeout-s", redisIdleTimeoutS, 1)),
                                        Duration.ofMillis(
                                                atLeast("--redis-auth-failure-delay-ms", redisAuthFailureDelayMs, 0)),
                                        atLeast("--redis-max-auth-failures", redisMaxAuthFailures, 1)),
                        httpOptions(),
                        new io.asicemu.operator.gnmi.GnmiServer.Options(
                                atLeast("--gnmi-max-connections", gnmiMaxConnections, 1),
                                Duration.ofSeconds(atLeast("--gnmi-handshake-timeout-s", gnmiHandshakeTimeoutS, 1)),
                                Duration.ofSeconds(atLeast("--gnmi-idle-timeout-s", gnmiIdleTimeoutS, 1)))));
    }

    /** The HTTP endpoints' bounds from the options. */
    io.asicemu.operator.ManagementHttpServer.Options httpOptions() {
        return new io.asicemu.operator.ManagementHttpServer.Options(
                atLeast("--http-max-connections", httpMaxConnections, 1),
                Duration.ofSeconds(atLeast("--http-request-timeout-s", httpRequestTimeoutS, 1)),
                Duration.ofSeconds(atLeast("--http-idle-timeout-s", httpIdleTimeoutS, 1)));
    }

    private static long atLeast(final String option, final long value, final long min) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", not " + value);
        }
        return value;
    }

    private static int atLeast(final String option, final int value, final int min) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", not " + value);
        }
        return value;
    }

    /** P4Runtime's TLS and connection limits from the options. */
    ServerOptions serverOptions() {
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--p4runtime-tls-cert and --p4runtime-tls-key go together");
        }
        if (tlsClientCa != null && tlsCert == null) {
            throw new IllegalArgumentException("--p4runtime-tls-client-ca needs --p4runtime-tls-cert and -key");
        }
        ServerOptions options = ServerOptions.defaults()
                .withHandshakeTimeout(Duration.ofSeconds(handshakeTimeoutS))
                .withMaxConnectionIdle(Duration.ofSeconds(idleTimeoutS))
                .withMaxConnectionAge(Duration.ofSeconds(maxConnectionAgeS))
                .withMaxConcurrentCallsPerConnection(maxCallsPerConnection)
                .withMaxConnections(maxConnections);
        if (tlsCert != null) {
            options = options.withTls(new ServerOptions.Tls(tlsCert, tlsKey, tlsClientCa));
        }
        return options;
    }

    /**
     * @return the address to listen on for management services on {@code ifName}: its first IPv4 address, else its
     *     first global IPv6 address, else 127.0.0.1 (logged: a data port is never used instead).
     */
    static String managementAddress(final String ifName) {
        try {
            final java.net.NetworkInterface nif = java.net.NetworkInterface.getByName(ifName);
            if (nif != null) {
                final java.util.List<java.net.InetAddress> addresses =
                        nif.inetAddresses().toList();
                for (final java.net.InetAddress a : addresses) {
                    if (a instanceof java.net.Inet4Address) {
                        return a.getHostAddress();
                    }
                }
                for (final java.net.InetAddress a : addresses) {
                    if (!a.isLinkLocalAddress() && !a.isLoopbackAddress()) {
                        final String text = a.getHostAddress();
                        final int scope = text.indexOf('%');
                        return scope < 0 ? text : text.substring(0, scope);
                    }
                }
            }
        } catch (final java.net.SocketException e) {
            LOG.warn("cannot read the addresses of {}: {}", ifName, e.getMessage());
        }
        LOG.warn("no address on the management interface {}: P4Runtime and counters listen on 127.0.0.1 only", ifName);
        return "127.0.0.1";
    }

    /**
     * @return {@code file} if it is a readable regular file.
     * @throws IllegalArgumentException naming what is wrong otherwise (a container user's commonest mistakes: no
     *     bind mount, or one whose host file was missing, which docker turns into a directory).
     */
    static Path readableConfig(final Path file) {
        if (!java.nio.file.Files.exists(file)) {
            throw new IllegalArgumentException("no configuration at " + file + " (give --config, or in the "
                    + "container bind-mount one: -v $PWD/config_db.json:/etc/asic-emu/config_db.json:ro)");
        }
        if (java.nio.file.Files.isDirectory(file)) {
            throw new IllegalArgumentException("the configuration " + file + " is a directory, not a file (docker "
                    + "makes one when the bind-mounted host file does not exist)");
        }
        if (!java.nio.file.Files.isReadable(file)) {
            throw new IllegalArgumentException("the configuration " + file + " is not readable by this user");
        }
        return file;
    }

    /** Every configured port's Linux interface (sonic-vs default names, overridden by the port map). */
    static Map<String, String> sonicToLinux(
            final ConfigDb db, final Map<String, String> portMap, final PipelineSizing tables) {
        // Only the PORT table: the pipeline compiles (and checks) the whole configuration once, when it applies it.
        final Map<String, String> map = ConfigCompiler.portsToLinux(db, tables, portMap);
        for (final String port : portMap.keySet()) {
            if (!map.containsKey(port)) {
                throw new IllegalArgumentException("--port-map names " + port + ", which the configuration lacks");
            }
        }
        return map;
    }
}
