package io.asicemu.scenario;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.rdma.dcqcn.DcqcnParameters;
import io.asicemu.rdma.host.RoceHost;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scenario's fabric in virtual time: real switch pipelines (each with its own config_db.json and clock), RoCEv2
 * hosts ({@link RoceHost}) and cables with a delay, stepped by one event loop. Every component is driven at the
 * earliest time anything can happen (a frame arriving, a switch's queue or timer, a host's pacing, timeout or
 * scheduled post, a sample), all components share that time, and they run in a fixed order, so the same scenario
 * gives the same results to the bit. Single-threaded.
 */
final class Fabric implements AutoCloseable {
    /** A switch of the fabric. */
    static final class SwitchNode {
        final String name;
        final ManualClock clock;
        final Pipeline pipeline;
        final Map<String, LinkPort> ports = new LinkedHashMap<>();
        /** Made once the config installed a traffic manager. */
        TmCountersSnapshot snapshot;
        /** Earliest deadline or cable arrival, as {@link #nextEventNs()} last found it (see {@code scanned}). */
        long nextNs;

        final long routerMac;

        SwitchNode(String name, ManualClock clock, long routerMac) {
            this.name = name;
            this.clock = clock;
            this.pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
            this.routerMac = routerMac;
        }
    }

    /** A host and the cable to its switch port. */
    static final class HostNode {
        final RoceHost host;
        final FrameFifo inbox;
        final LinkPort switchPort;
        final long cableNs;
        final RoceHost.Wire wire;
        /** Earliest event of the host or its inbox, as {@link #nextEventNs()} last found it. */
        long nextNs;
        /**
         * The host's own next event ({@link RoceHost#nextEventNs()}, a function of its state alone), kept until the
         * fabric runs the host again: only {@link #stepTo} changes a host's state once the run has started.
         */
        long hostNextNs;

        boolean hostChanged = true;
        /** Optional captures of what the host's port received and sent. */
        io.asicemu.parser.pcap.PcapWriter rxCapture;

        io.asicemu.parser.pcap.PcapWriter txCapture;

        HostNode(RoceHost host, FrameFifo inbox, LinkPort switchPort, long cableNs) {
            this.host = host;
            this.inbox = inbox;
            this.switchPort = switchPort;
            this.cableNs = cableNs;
            this.wire = (frame, offset, length, departNs) -> {
                if (txCapture != null) {
                    txCapture.write(frame, offset, length, departNs);
                }
                switchPort.arrive(frame, offset, length, departNs + cableNs);
            };
        }
    }

    private static final long MAX_STEPS_AT_ONE_TIME = 1_000_000;

    private final Arena arena = Arena.ofShared();
    final Map<String, SwitchNode> switches = new LinkedHashMap<>();
    final Map<String, HostNode> hosts = new LinkedHashMap<>();
    private long nowNs;

    SwitchNode addSwitch(String name, ConfigDb db) {
        if (switches.containsKey(name)) {
            throw new ScenarioException("switches: \"" + name + "\" twice");
        }
        SwitchNode node = new SwitchNode(name, new ManualClock(0), routerMac(name, db));
        switches.put(name, node);
        for (Map.Entry<String, Map<String, String>> port : db.table("PORT").entrySet()) {
            Map<String, String> fields = port.getValue();
            long speed = Long.parseLong(fields.getOrDefault("speed", "100000").trim());
            int mtu = Integer.parseInt(fields.getOrDefault("mtu", "9100").trim());
            LinkPort link = new LinkPort(arena, port.getKey(), mtu, speed);
            node.ports.put(port.getKey(), link);
        }
        return node;
    }

    private static long routerMac(String name, ConfigDb db) {
        Map<String, String> meta = db.table("DEVICE_METADATA").get("localhost");
        if (meta == null || meta.get("mac") == null) {
            throw new ScenarioException(
                    "switch " + name + ": DEVICE_METADATA|localhost|mac is needed (the hosts' " + "gateway MAC)");
        }
        return Macs.parse(meta.get("mac"), "switch " + name + " DEVICE_METADATA|localhost|mac");
    }

    LinkPort port(String switchAndPort, String field) {
        int colon = switchAndPort.indexOf(':');
        SwitchNode node = colon < 0 ? null : switches.get(switchAndPort.substring(0, colon));
        LinkPort port = node == null ? null : node.ports.get(switchAndPort.substring(colon + 1));
        if (port == null) {
            throw new ScenarioException(field + ": \"" + switchAndPort + "\" is not a switch:port of the scenario");
        }
        return port;
    }

    /** Joins two switch ports with a cable of {@code cableNs}. */
    void cable(LinkPort a, LinkPort b, long cableNs, String field) {
        a.connect(b::arrive, cableNs, field);
        b.connect(a::arrive, cableNs, field);
    }

    HostNode addHost(
            String name,
            long mac,
            int ip,
            LinkPort switchPort,
            long cableNs,
            DcqcnParameters dcqcn,
            ScenarioSpec.HostSettings settings,
            RoceHost.CompletionListener listener) {
        SwitchNode owner = ownerOf(switchPort);
        LinkPort end = switchPort;
        RoceHost host = new RoceHost(
                name,
                mac,
                ip,
                owner.routerMac,
                end.speedMbps() * 1_000_000L,
                dcqcn,
                settings.mtuPayload(),
                settings.windowPackets(),
                settings.ackTimeoutUs() * 1_000L,
                settings.dataDscp(),
                settings.dataPriority(),
                listener);
        FrameFifo inbox = new FrameFifo(arena, 1 << 20, 4096);
        end.connect(inbox::add, cableNs, "host " + name);
        HostNode node = new HostNode(host, inbox, end, cableNs);
        hosts.put(name, node);
        return node;
    }

    private SwitchNode ownerOf(LinkPort port) {
        for (SwitchNode node : switches.values()) {
            if (node.ports.containsValue(port)) {
                return node;
            }
        }
        throw new IllegalStateException("port not in the fabric: " + port.name());
    }

    /** Attaches the ports and applies each switch's config at time 0. */
    void start(Map<String, ConfigDb> configs) {
        for (SwitchNode node : switches.values()) {
            for (Map.Entry<String, LinkPort> e : node.ports.entrySet()) {
                node.pipeline.control().attachPort(e.getKey(), e.getValue());
            }
            SwitchConfig.of(node.pipeline.control()).applyConfig(configs.get(node.name));
            node.pipeline.agent().doWork();
            node.snapshot = node.pipeline.agent().trafficManager().newSnapshot();
        }
    }

    /**
     * Whether each node's {@code nextNs} is what {@link #nextEventNs()} found with nothing run since: then
     * {@link #stepTo} uses it to skip idle nodes instead of scanning every host's QPs and every switch's ports again.
     */
    private boolean scanned;

    /** The earliest time anything can happen, or {@link Long#MAX_VALUE}. */
    long nextEventNs() {
        long next = Long.MAX_VALUE;
        for (SwitchNode node : switches.values()) {
            long own = node.pipeline.agent().nextDeadlineNs();
            for (LinkPort port : node.ports.values()) {
                own = Math.min(own, port.nextArrivalNs());
            }
            node.nextNs = own;
            next = Math.min(next, own);
        }
        for (HostNode h : hosts.values()) {
            if (h.hostChanged) {
                h.hostNextNs = h.host.nextEventNs();
                h.hostChanged = false;
            }
            h.nextNs = Math.min(h.hostNextNs, h.inbox.headArrivalNs());
            next = Math.min(next, h.nextNs);
        }
        scanned = true;
        return next;
    }

    private long stepsAtThisTime;

    /** Runs every component at {@code atNs} (not before the current time). */
    void stepTo(long atNs) {
        if (atNs < nowNs) {
            atNs = nowNs;
        }
        if (atNs == nowNs) {
            if (++stepsAtThisTime > MAX_STEPS_AT_ONE_TIME) {
                throw new IllegalStateException("the fabric made no progress at " + nowNs + " ns");
            }
        } else {
            stepsAtThisTime = 0;
        }
        nowNs = atNs;
        // A scan just before this step is still exact for the hosts (nothing ran since). A host's step only sends
        // towards switches, and a switch's step only delivers later (a cable takes at least 1 ns), so it stays
        // exact for the switches too: their scanned deadlines and arrivals are not earlier than the frames hosts
        // add now, which are checked directly.
        boolean useScan = scanned;
        scanned = false;
        for (HostNode h : hosts.values()) {
            FrameFifo in = h.inbox;
            if (useScan ? h.nextNs > nowNs : in.headArrivalNs() > nowNs && h.host.nextEventNs() > nowNs) {
                continue;
            }
            int n = 0;
            while (n < in.size() && in.arrival(n) <= nowNs) {
                if (h.rxCapture != null) {
                    h.rxCapture.write(in.ring(), in.offset(n), in.length(n), in.arrival(n));
                }
                h.host.onFrame(in.ring(), in.offset(n), in.length(n), nowNs);
                n++;
            }
            in.removeHead(n);
            h.host.advanceTo(nowNs, h.wire);
            h.hostChanged = true;
        }
        for (SwitchNode node : switches.values()) {
            if (useScan ? node.nextNs > nowNs : node.pipeline.agent().nextDeadlineNs() > nowNs && !arrivalDue(node)) {
                continue;
            }
            node.clock.nowNs(nowNs);
            node.pipeline.agent().doWork();
        }
    }

    private boolean arrivalDue(SwitchNode node) {
        for (LinkPort port : node.ports.values()) {
            if (port.nextArrivalNs() <= nowNs) {
                return true;
            }
        }
        return false;
    }

    long nowNs() {
        return nowNs;
    }

    List<String> switchNames() {
        return new ArrayList<>(switches.keySet());
    }

    @Override
    public void close() {
        for (HostNode h : hosts.values()) {
            try {
                if (h.rxCapture != null) {
                    h.rxCapture.close();
                }
                if (h.txCapture != null) {
                    h.txCapture.close();
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        for (SwitchNode node : switches.values()) {
            node.pipeline.close();
        }
        arena.close();
    }

    static Path resolve(Path scenarioDir, String file) {
        return scenarioDir.resolve(file).normalize();
    }
}
