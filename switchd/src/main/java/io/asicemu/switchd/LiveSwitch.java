package io.asicemu.switchd;

import io.asicemu.operator.ListenerCounters;
import io.asicemu.operator.ListenerRegistry;
import io.asicemu.operator.ListenerStats;
import io.asicemu.operator.ManagementHttpServer;
import io.asicemu.operator.OperatorRedisServer;
import io.asicemu.operator.PrometheusMetrics;
import io.asicemu.operator.SnapshotCache;
import io.asicemu.operator.SonicDatabases;
import io.asicemu.operator.gnmi.GnmiServer;
import io.asicemu.operator.gnmi.GnmiService;
import io.asicemu.p4rt.adapter.PipelineCpuPortBackend;
import io.asicemu.p4rt.adapter.PipelineTableBackend;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.service.Device;
import io.asicemu.p4rt.service.P4RuntimeServer;
import io.asicemu.p4rt.service.P4RuntimeService;
import io.asicemu.p4rt.service.ServerOptions;
import io.asicemu.pipeline.config.AdminDownPorts;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.switchd.hostif.HostInterfaces;
import io.asicemu.switchd.registers.RegisterMap;
import io.asicemu.switchd.routing.Routing;
import io.asicemu.tm.TmOptions;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live switch of {@code asic-emu run}: the pipeline on Linux ports (veth-harness's {@link LinuxSwitch}: an
 * epoll {@code LiveLoop} data-plane thread and hot-plug port discovery) and, unless disabled, a P4Runtime server whose
 * device programs that pipeline ({@link PipelineTableBackend} waiting for the data plane, packet I/O through the CPU
 * port). Idle costs nothing: the data plane blocks in epoll, gRPC in Netty's selector.
 * <p>
 * Threading: P4Runtime writes and resets, CONFIG_DB and register writes run on the switch's control agent, in turn
 * with port attach/detach ({@link SerializedBackend}); {@link #close()} from any one thread.
 */
public final class LiveSwitch implements AutoCloseable {
    /** How long a P4Runtime Write waits for the data plane before answering DEADLINE_EXCEEDED. */
    public static final Duration APPLY_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(LiveSwitch.class);

    private final LinuxSwitch sw;
    private final PipelineControl control;
    private final AutoCloseable packetInPoller;
    /** The ports' Linux netdevs for the switch's kernel (null with {@code --host-interfaces} off). */
    private final HostInterfaces hostInterfaces;

    /** FRR and the FPM listener (null without routing); set once by {@link #start}. */
    private Routing routing;

    private final P4RuntimeServer server;
    private final SwitchStatus status;
    private final CountersEndpoint counters;
    /** The management listeners whose counters STATE_DB and Prometheus show. */
    private final ListenerRegistry listeners = new ListenerRegistry();

    private OperatorRedisServer redis;
    /** CONFIG_DB writes and keyspace notifications of the Redis front (null without one). */
    private volatile RunningConfigAccess configAccess;

    private PrometheusMetrics metrics;
    private GnmiServer gnmi;
    /** Collects the heap only while the data plane is idle (null until the switch is live). */
    private IdleHeapCollector heapCollector;

    private LiveSwitch(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final InetSocketAddress p4runtime,
            final long deviceId,
            final double dilation,
            final PipelineSizing sizing,
            final long busyPollNs,
            final Readiness readiness,
            final ServerOptions p4runtimeOptions,
            final boolean takeAddressedPorts,
            final AfPacketConfig portConfig,
            final boolean withHostInterfaces)
            throws IOException {
        this.sw = LinuxSwitch.start(config, sonicToLinux, portConfig, dilation, sizing, busyPollNs, takeAddressedPorts);
        StartupTimeline.dataPlaneUp();
        // the model itself, for the parts that read it from any thread (the P4Runtime backend's Read and packet I/O,
        // the running config); every change to it runs on the control agent
        this.control = sw.control().call(c -> c);
        try {
            this.hostInterfaces = withHostInterfaces ? startHostInterfaces(config) : null;
        } catch (final IllegalStateException e) {
            sw.close();
            // a user's error (no /dev/net/tun in a container, a port's name taken): one line, exit 2
            throw new IOException(
                    "--host-interfaces: " + e.getMessage()
                            + (e.getMessage().contains("/dev/net/tun")
                                    ? " (a container needs --device /dev/net/tun)"
                                    : ""),
                    e);
        } catch (final RuntimeException e) {
            sw.close();
            throw e;
        }
        if (p4runtime == null) {
            this.packetInPoller = null;
            this.server = null;
            try {
                if (hostInterfaces != null) {
                    hostInterfaces.startPuntDrain();
                }
                this.counters = readiness.counters() == null
                        ? null
                        : CountersEndpoint.start(readiness.counters(), sw, readiness.countersOptions());
                if (counters != null) {
                    listeners.add(counters.stats());
                }
                this.status = publishStatus(sonicToLinux, readiness, "off", AdminDownPorts.of(config));
            } catch (final IOException | RuntimeException e) {
                closeQuietly(hostInterfaces);
                sw.close();
                throw e;
            }
            return;
        }
        AutoCloseable poller = null;
        P4RuntimeServer started = null;
        try {
            final PipelineCpuPortBackend backend = new PipelineCpuPortBackend(
                    new PipelineTableBackend(control, FixedPipelineInfo.model(), APPLY_TIMEOUT), control);
            if (hostInterfaces != null) {
                backend.hostInterfaces(hostInterfaces); // the poller stays the CPU port's one consumer and dispatches
            }
            poller = backend.startPacketInPoller();
            final P4RuntimeService service = new P4RuntimeService();
            service.addDevice(new Device(deviceId, new SerializedBackend(backend, sw.control())));
            started = new P4RuntimeServer(p4runtime, service, p4runtimeOptions).start();
            StartupTimeline.mark("P4Runtime");
        } catch (final IOException | RuntimeException e) {
            closeQuietly(poller);
            closeQuietly(hostInterfaces);
            sw.close();
            throw e;
        }
        this.packetInPoller = poller;
        this.server = started;
        listeners.add(p4runtimeCounters(started));
        CountersEndpoint endpoint = null;
        try {
            endpoint = readiness.counters() == null
                    ? null
                    : CountersEndpoint.start(readiness.counters(), sw, readiness.countersOptions());
            this.status = publishStatus(
                    sonicToLinux,
                    readiness,
                    p4runtime.getHostString() + ":" + started.port(),
                    AdminDownPorts.of(config));
        } catch (final IOException | RuntimeException e) {
            closeQuietly(endpoint);
            started.close();
            closeQuietly(poller);
            closeQuietly(hostInterfaces);
            sw.close();
            throw e;
        }
        this.counters = endpoint;
        if (endpoint != null) {
            listeners.add(endpoint.stats());
        }
    }

    /** Creates the host interfaces and makes their carriers follow the ports' links. */
    private HostInterfaces startHostInterfaces(final ConfigDb config) {
        final int portCount = sw.control().call(c -> c.portNames().size());
        final HostInterfaces h = HostInterfaces.start(config, control.cpuPort(), portCount, sw::portIndex);
        sw.onLinkChanged(h::linkChanged);
        sw.portStates().forEach((port, state) -> h.linkChanged(port, state.startsWith("up")));
        StartupTimeline.mark("host interfaces");
        return h;
    }

    /** P4Runtime's connection counters as the other listeners' (p4runtime-server does not know operator-api). */
    private static ListenerCounters p4runtimeCounters(final P4RuntimeServer server) {
        return new ListenerCounters() {
            @Override
            public String name() {
                return "p4runtime";
            }

            @Override
            public int open() {
                return server.openConnections();
            }

            @Override
            public long refused() {
                return server.refusedConnections();
            }

            @Override
            public long timedOut() {
                // closed before the preface and not evicted: the handshake deadline (or a client that gave up)
                return Math.max(0, server.closedBeforePreface() - server.evictedConnections());
            }

            @Override
            public long evicted() {
                return server.evictedConnections();
            }
        };
    }

    /**
     * Readiness as lab tooling sees it: how many data links make the switch ready, where to publish it, and where to
     * serve {@code GET /counters} (null: nowhere).
     */
    public record Readiness(
            int expectedLinks,
            java.nio.file.Path statusFile,
            InetSocketAddress counters,
            ManagementHttpServer.Options countersOptions) {
        /** Every configured port expected, nothing published but the log lines. */
        public static final Readiness ALL_PORTS = new Readiness(0, null, null);

        /** With the HTTP listener's default bounds. */
        public Readiness(
                final int expectedLinks, final java.nio.file.Path statusFile, final InetSocketAddress counters) {
            this(expectedLinks, statusFile, counters, ManagementHttpServer.Options.defaults());
        }
    }

    /**
     * The management listeners' bounds (SECURITY.md): the Redis front's, the HTTP endpoints' (/metrics; /counters
     * takes {@link Readiness#countersOptions()}), gNMI's. P4Runtime's are its {@code ServerOptions}.
     *
     * @param redis the Redis front's limits.
     * @param http /metrics' bounds.
     * @param gnmi gNMI's connection bounds.
     */
    public record ListenerOptions(
            OperatorRedisServer.Limits redis, ManagementHttpServer.Options http, GnmiServer.Options gnmi) {
        /** The defaults. */
        public static final ListenerOptions DEFAULTS = new ListenerOptions(
                OperatorRedisServer.Limits.defaults(),
                ManagementHttpServer.Options.defaults(),
                GnmiServer.Options.defaults());
    }

    /**
     * The operator's read side (module operator-api): COUNTERS_DB / STATE_DB / CONFIG_DB over the Redis protocol and
     * Prometheus metrics, both on the management address.
     *
     * @param redis where the Redis front listens, or null for nowhere.
     * @param redisPassword its AUTH password, or null for none.
     * @param metrics where Prometheus' {@code /metrics} is served, or null for nowhere.
     * @param maxSnapshotAge how old the counters a reader sees may be (bounds how often the data plane is asked;
     *     also gNMI's shortest sample interval).
     * @param gnmi where gNMI telemetry listens, or null for nowhere.
     * @param gnmiTls its TLS (P4Runtime's certificate), or null for plaintext.
     * @param listeners the listeners' connection bounds.
     */
    public record OperatorViews(
            InetSocketAddress redis,
            String redisPassword,
            InetSocketAddress metrics,
            Duration maxSnapshotAge,
            InetSocketAddress gnmi,
            GnmiServer.Tls gnmiTls,
            ListenerOptions listeners) {
        /** None. */
        public static final OperatorViews OFF = new OperatorViews(null, null, null, Duration.ofMillis(100));

        /** Redis and Prometheus only. */
        public OperatorViews(
                final InetSocketAddress redis,
                final String redisPassword,
                final InetSocketAddress metrics,
                final Duration maxSnapshotAge) {
            this(redis, redisPassword, metrics, maxSnapshotAge, null, null, ListenerOptions.DEFAULTS);
        }
    }

    private void startOperatorViews(final OperatorViews views) throws IOException {
        if (views.redis() == null && views.metrics() == null && views.gnmi() == null) {
            return;
        }
        final SwitchConfig config = SwitchConfig.of(control);
        // one Redis view of the running config for the snapshots and the writes: converted once per change
        final SwitchSnapshots.RedisForms redisForms = new SwitchSnapshots.RedisForms();
        final SnapshotCache cache = new SnapshotCache(
                SwitchSnapshots.source(sw, config::runningConfig, redisForms), views.maxSnapshotAge());
        cache.listeners(listeners);
        final Routing routes = routing;
        if (routes != null) {
            cache.publish(SonicDatabases.APPL_DB, () -> routes.applDb().view());
        }
        if (views.redis() != null) {
            configAccess = new RunningConfigAccess(sw.control(), config::runningConfig, redisForms, APPLY_TIMEOUT);
            // every change path of the live switch (a P4Runtime Write, a register write, a CONFIG_DB write) runs on
            // the control agent: after each, the Redis front compares the running config before and after
            final RunningConfigAccess access = configAccess;
            sw.control().afterEachRequest(access::changed);
            try {
                redis = OperatorRedisServer.start(
                        views.redis(),
                        cache,
                        views.redisPassword(),
                        views.listeners().redis(),
                        new RegisterMap(sw.control(), TmOptions.defaults(), APPLY_TIMEOUT),
                        configAccess,
                        new ListenerStats("redis"));
                listeners.add(redis.stats());
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while binding the Redis port", e);
            }
            if (!views.redis().getAddress().isLoopbackAddress() && views.redisPassword() == null) {
                LOG.warn(
                        "the Redis front on {} has no password: anyone who reaches it reads the switch's counters "
                                + "and configuration and can WRITE CONFIG_DB, i.e. reconfigure the running switch "
                                + "(give --redis-password-file)",
                        views.redis().getHostString());
            }
        }
        if (views.metrics() != null) {
            final ListenerStats metricsStats = new ListenerStats("metrics");
            listeners.add(metricsStats);
            metrics = PrometheusMetrics.start(
                    views.metrics(), cache, views.listeners().http(), metricsStats, listeners);
        }
        if (views.gnmi() != null) {
            gnmi = GnmiServer.start(
                    views.gnmi(),
                    cache,
                    GnmiService.Limits.defaults(views.maxSnapshotAge()),
                    views.gnmiTls(),
                    views.listeners().gnmi(),
                    new ListenerStats("gnmi"));
            listeners.add(gnmi.stats());
            if (!views.gnmi().getAddress().isLoopbackAddress() && views.gnmiTls() == null) {
                LOG.warn(
                        "gNMI on {} is plaintext: anyone who reaches it reads the switch's counters and configuration "
                                + "(give --p4runtime-tls-cert/-key; gNMI uses the same certificate)",
                        views.gnmi().getHostString());
            }
        }
    }

    /** @return the gNMI port, or -1 when off. */
    public int gnmiPort() {
        return gnmi == null ? -1 : gnmi.port();
    }

    /** @return the Redis front's port, or -1 when off. */
    public int redisPort() {
        return redis == null ? -1 : redis.port();
    }

    /** @return the Prometheus port, or -1 when off. */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
    }

    private SwitchStatus publishStatus(
            final Map<String, String> sonicToLinux,
            final Readiness readiness,
            final String p4runtime,
            final List<String> adminDown) {
        final SwitchStatus s =
                new SwitchStatus(readiness.statusFile(), sonicToLinux, readiness.expectedLinks(), p4runtime, adminDown);
        s.update(sw.ports().keySet()); // the first publication fails the start if the file cannot be written
        sw.onPortsChanged(() -> {
            try {
                s.update(sw.ports().keySet());
            } catch (final java.io.UncheckedIOException e) {
                LOG.warn("{}", e.getMessage());
            }
        });
        s.update(sw.ports().keySet()); // ports attached between the first publication and the listener
        return s;
    }

    /**
     * Starts the switch: its data plane on the Linux ports, then P4Runtime, then the operator's read side.
     *
     * @param config the CONFIG_DB.
     * @param sonicToLinux every configured SONiC port → its Linux interface.
     * @param p4runtime where P4Runtime listens, or null for none.
     * @param deviceId the P4Runtime device id (≥ 1).
     * @param dilation real ns per emulated ns (1.0: real time).
     * @param sizing table capacities.
     * @param busyPollNs low-latency polling after the last frame (0: off).
     * @param readiness how many data links make it ready, and where to publish that.
     * @param p4runtimeOptions TLS and connection limits of the P4Runtime listener.
     * @param takeAddressedPorts whether to take a port's interface that carries IP addresses.
     * @param views the Redis front and Prometheus metrics.
     * @param portConfig ring settings of the ports (the RX budget is divided among the configured ports).
     * @param hostInterfaces whether to make the ports' host interfaces (Linux netdevs for the switch's kernel).
     * @param routing where FRR and the FPM listener run, or null: no routing (with routing, host interfaces are on).
     * @return the running switch.
     * @throws IOException if a port cannot be bound (nothing is left running).
     */
    public static LiveSwitch start(
            final ConfigDb config,
            final Map<String, String> sonicToLinux,
            final InetSocketAddress p4runtime,
            final long deviceId,
            final double dilation,
            final PipelineSizing sizing,
            final long busyPollNs,
            final Readiness readiness,
            final ServerOptions p4runtimeOptions,
            final boolean takeAddressedPorts,
            final OperatorViews views,
            final AfPacketConfig portConfig,
            final boolean hostInterfaces,
            final Routing.Settings routing)
            throws IOException {
        if (deviceId < 1) {
            throw new IllegalArgumentException("the P4Runtime device id must be >= 1, not " + deviceId);
        }
        final LiveSwitch s = new LiveSwitch(
                config,
                sonicToLinux,
                p4runtime,
                deviceId,
                dilation,
                sizing,
                busyPollNs,
                readiness,
                p4runtimeOptions,
                takeAddressedPorts,
                portConfig,
                hostInterfaces || routing != null);
        try {
            if (routing != null) {
                // FRR peers through the host interfaces; its routes come back over FPM as the protocol writer's
                s.routing = Routing.start(config, s.sw.control(), routing);
                StartupTimeline.mark("routing");
            }
            s.startOperatorViews(views);
        } catch (final IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        if (s.server != null && !p4runtime.getAddress().isLoopbackAddress() && p4runtimeOptions.tls() == null) {
            LOG.warn(
                    "P4Runtime on {} is plaintext and unauthenticated: anyone who reaches it can become primary and "
                            + "inject frames with PacketOut (give --p4runtime-tls-cert/-key and --p4runtime-tls-client-ca; "
                            + "SECURITY.md)",
                    p4runtime.getHostString());
        }
        LOG.info(
                "asic-emu live: {} ports {}, P4Runtime {}{}{}",
                sonicToLinux.size(),
                sonicToLinux,
                s.server == null
                        ? "off"
                        : "device " + deviceId + " on " + p4runtime.getHostString() + ":" + s.server.port(),
                (s.counters == null
                                ? ""
                                : ", counters on http://" + readiness.counters().getHostString() + ":"
                                        + s.counters.port() + "/counters")
                        + (s.redis == null
                                ? ""
                                : ", Redis (COUNTERS_DB 2, CONFIG_DB 4, STATE_DB 6) on "
                                        + views.redis().getHostString() + ":" + s.redis.port())
                        + (s.metrics == null
                                ? ""
                                : ", Prometheus on http://" + views.metrics().getHostString() + ":" + s.metrics.port()
                                        + "/metrics")
                        + (s.gnmi == null
                                ? ""
                                : ", gNMI (targets COUNTERS_DB, CONFIG_DB, STATE_DB) on "
                                        + views.gnmi().getHostString() + ":" + s.gnmi.port()
                                        + (views.gnmiTls() == null ? " (plaintext)" : " (TLS)")),
                busyPollNs > 0 ? ", low-latency mode (busy-poll " + busyPollNs / 1000 + " us)" : "");
        LOG.info(
                "tables: {} routes, {} next hops, {} groups, {} neighbors, {} FDB entries, {} ACL rules",
                sizing.maxRoutes(),
                sizing.maxNextHops(),
                sizing.maxGroups(),
                sizing.neighbors(),
                sizing.fdbEntries(),
                sizing.aclRules());
        if (busyPollNs > 0) {
            // after the views' servers started their threads: they are lowered too
            LOG.info("low-latency mode: {}", LowLatencyMode.apply(s.sw.loop()));
        }
        final String adminDown = AdminDownPorts.warning(config);
        if (adminDown != null) {
            LOG.warn("asic-emu live: {}", adminDown);
        }
        s.heapCollector = IdleHeapCollector.start(s.sw::framesReceived);
        StartupTimeline.mark("live");
        final String timeline = StartupTimeline.end();
        if (timeline != null) {
            LOG.info("{}", timeline);
        }
        s.sw.portStates().forEach((port, state) -> {
            if (state.startsWith("DOWN")) {
                LOG.warn("asic-emu live: port {} {}", port, state);
            } else {
                LOG.info("asic-emu live: port {} {}", port, state);
            }
        });
        return s;
    }

    /** @return the bound P4Runtime port, or -1 when P4Runtime is off. */
    public int p4runtimePort() {
        return server == null ? -1 : server.port();
    }

    /** @return the switch (ports, counters, loop). */
    public LinuxSwitch dataPlane() {
        return sw;
    }

    /** @return the host interfaces, or null when off. */
    HostInterfaces hostInterfaces() {
        return hostInterfaces;
    }

    /** @return the pipeline's control API (serialize with {@link LinuxSwitch#control}). */
    PipelineControl control() {
        return control;
    }

    private static void closeQuietly(final AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (final Exception e) {
            LOG.warn("while closing {}", c, e);
        }
    }

    /** Stops P4Runtime (ending its streams), the PacketIn poller, then the data plane and its ports. */
    @Override
    public void close() {
        status.remove();
        sw.onPortsChanged(() -> {});
        closeQuietly(routing); // FRR stops; the routes it wrote stay until the switch stops
        closeQuietly(heapCollector);
        closeQuietly(counters);
        closeQuietly(redis);
        closeQuietly(metrics);
        closeQuietly(gnmi);
        try {
            if (server != null) {
                server.close();
            }
            closeQuietly(packetInPoller);
            closeQuietly(hostInterfaces); // after the poller that writes to them, before the CPU port goes
        } finally {
            sw.onLinkChanged((port, up) -> {});
            sw.close();
        }
        LOG.info("asic-emu live: stopped");
    }
}
