package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.config.RunningConfig;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.TrafficManager;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A running-config change ({@link io.asicemu.pipeline.config.SwitchConfig#reconfigure}) leaves the switch as a fresh switch loaded with that
 * config would be, and keeps what controllers wrote and what the traffic manager counted. A random sequence of
 * CONFIG_DB edits (WRED_PROFILE thresholds, QUEUE profile assignment, BUFFER_PROFILE xoff/xon, PFC_WD times, the
 * ECMP hash seed) interleaved with runtime register writes (WRED of one queue, PFC xoff of one PG, hash seed, watchdog
 * detection) is applied to one switch, each edit on its {@link io.asicemu.pipeline.config.SwitchConfig#runningConfig()}; after every step the
 * switch's data-path state (the traffic manager's WRED settings of every queue and colour, the hash engine's seed,
 * every knob) equals that of a fresh switch loaded with its running config, and reconfiguring to the running config
 * changes nothing. Invalid edits (Kmin above Kmax, a probability over 100) and edits that need a reload (a port's
 * speed, WRED turned on for a queue, the ECN mode of a profile in use, a pool's size) are refused naming the field and
 * change neither the state nor the running config. A controller's route forwards before and after; the queue counters
 * are not reset.
 * <p>
 * The same for STATIC_ROUTE, NEIGH and ACL_RULE: random routes (one next hop, ECMP/WCMP groups, blackholes),
 * neighbors and ACL rules (drop or forward, overlapping) added, changed and removed, beside a controller's next hop,
 * neighbor and route; after each change every route, every sample address's LPM result, every static neighbor and the
 * count of next hops and groups in the data path, the ACL rules in force, and where sample frames leave (routes,
 * neighbor MACs and ACL verdicts together), equal a fresh switch loaded with the running config (plus the
 * controller's writes). Edits that are
 * invalid, that would replace the controller's entries, or that need a reload (an interface address) are refused,
 * naming the key, and change nothing, even with valid edits in the same change. Interfaces too: a VLAN interface
 * (with its VLAN) and a second address on a port interface come and go; an interface address on the controller's
 * routed subnet is refused.
 */
class ReconfigurePropertyTest {
    private static final String BASE = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "WRED_PROFILE": {
           "W1": {"wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true",
                  "ecn": "ecn_all", "green_min_threshold": "40000", "green_max_threshold": "80000",
                  "green_drop_probability": "10", "yellow_min_threshold": "20000", "yellow_max_threshold": "60000",
                  "yellow_drop_probability": "50", "red_min_threshold": "10000", "red_max_threshold": "30000",
                  "red_drop_probability": "90"},
           "W2": {"wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true",
                  "ecn": "ecn_all", "green_min_threshold": "100000", "green_max_threshold": "200000",
                  "green_drop_probability": "5", "yellow_min_threshold": "50000", "yellow_max_threshold": "150000",
                  "yellow_drop_probability": "20", "red_min_threshold": "20000", "red_max_threshold": "90000",
                  "red_drop_probability": "40"}},
         "QUEUE": {"Ethernet0,Ethernet4|3-4": {"wred_profile": "W1"}},
         "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "2000000"}},
         "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "100000",
                                         "xoff": "50000", "xon": "20000"}},
         "BUFFER_PG": {"Ethernet0,Ethernet4|3": {"profile": "lossless"}},
         "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}},
         "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"},
                    "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "400"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_hash_seed": "7"}}}""";

    private static final String[] COLOURS = RunningConfig.COLOURS;
    /** Small tables: every step loads a fresh switch to compare with. */
    private static final PipelineSizing SMALL = new PipelineSizing(8, 16, 256, 64, 256, 256, 64, 9_728, 64, 64, 1_024);

    private static final String[] PORTS = {"Ethernet0", "Ethernet4"};

    /** A switch on the test thread: the agent is stepped here, so its state is read here between steps. */
    private static final class Sw {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final Pipeline pipeline = Pipeline.create(clock, SMALL, Map.of());
        final Map<String, InMemoryPort> ports = new LinkedHashMap<>();

        Sw(final ConfigDb db) {
            for (final String name : db.table("PORT").keySet()) {
                final InMemoryPort port = new InMemoryPort(name);
                ports.put(name, port);
                control().attachPort(name, port);
            }
            SwitchConfig.of(control()).applyConfig(db);
            step();
        }

        PipelineControl control() {
            return pipeline.control();
        }

        void step() {
            for (int i = 0; i < 100; i++) {
                pipeline.agent().doWork();
            }
        }

        /** The data path's state that the edits reach, as text (equal text = equal state). */
        List<String> state() {
            final DataPlaneAgent agent = pipeline.agent();
            final TrafficManager tm = agent.trafficManager();
            final List<String> out = new ArrayList<>();
            final long[] wred = new long[5];
            for (int port = 0; port < PORTS.length; port++) {
                for (int q = 0; q < 8; q++) {
                    for (int colour = 0; colour < 3; colour++) {
                        tm.wredSettings(port, q, colour, wred);
                        out.add("wred " + port + "/" + q + "/" + colour + " " + wred[0] + " " + wred[1] + " "
                                + wred[2]);
                    }
                }
            }
            out.add("seed " + agent.tables().hashEngine().seed());
            final RuntimeKnobs knobs = control().runtimeKnobs();
            for (final RuntimeKnob k : RuntimeKnob.values()) {
                for (int i = 0; i < knobs.size(k); i++) {
                    if (knobs.applicable(k, i)) {
                        out.add(k + " " + i + " " + knobs.value(k, i));
                    }
                }
            }
            return out;
        }
    }

    @Property(tries = 15)
    void reconfigureEqualsAFreshLoadAndKeepsControllerStateAndCounters(@ForAll final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final Sw sw = new Sw(ConfigDb.parse(BASE));
        final PipelineControl control = sw.control();
        // A controller's route and traffic counted by the traffic manager before any edit.
        control.batch()
                .addNextHop(100, "Ethernet4", IpPrefix.address("10.0.2.2"))
                .writeRoute(IpPrefix.parse("172.16.0.0/16"), 100, false, true)
                .commit();
        sw.step();
        final long queuedBefore = sendAndCount(sw, ip(172, 16, 1, 1));
        assertThat(queuedBefore).as("the controller's route forwards").isEqualTo(1);

        int applied = 0;
        int refused = 0;
        for (int step = 0; step < 10; step++) {
            final int kind = random.nextInt(10);
            final Map<String, Map<String, Map<String, String>>> next =
                    RunningConfig.mutableCopy(SwitchConfig.of(control).runningConfig());
            final String expectRefusal = edit(kind, next, control, random);
            if (expectRefusal == null && kind >= 7) {
                sw.step();
            } else if (expectRefusal == null) {
                SwitchConfig.of(control).reconfigure(new ConfigDb(next));
                sw.step();
                applied++;
            } else {
                final List<String> stateBefore = sw.state();
                final ConfigDb runningBefore = SwitchConfig.of(control).runningConfig();
                assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(new ConfigDb(next)))
                        .isInstanceOf(ConfigException.class)
                        .hasMessageContaining(expectRefusal);
                sw.step();
                assertThat(sw.state()).as("a refused edit changes nothing").isEqualTo(stateBefore);
                assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(runningBefore);
                refused++;
            }
            final Sw fresh = new Sw(SwitchConfig.of(control).runningConfig());
            assertThat(sw.state())
                    .as("step %d (kind %d): reconfigured = a fresh switch with the running config", step, kind)
                    .isEqualTo(fresh.state());
            final long appliedBefore = sw.pipeline.agent().appliedCommands();
            final ConfigDb running = SwitchConfig.of(control).runningConfig();
            assertThat(SwitchConfig.of(control).reconfigure(running))
                    .as("the running config fed back: no command")
                    .isLessThanOrEqualTo(appliedBefore);
            assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(running);
        }
        assertThat(applied + refused).isPositive();
        assertThat(control.routes()).containsKey(IpPrefix.parse("172.16.0.0/16"));
        assertThat(queuePackets(sw)).as("queue counters survive").isGreaterThanOrEqualTo(queuedBefore);
        assertThat(sendAndCount(sw, ip(172, 16, 1, 1)))
                .as("the controller's route still forwards")
                .isEqualTo(1);
    }

    /** Edits {@code next} (or writes a knob: kinds 7..9); returns what the refusal must name, or null. */
    private static String edit(
            final int kind,
            final Map<String, Map<String, Map<String, String>>> next,
            final PipelineControl control,
            final SplittableRandom random) {
        final String profile = random.nextBoolean() ? "W1" : "W2";
        final String colour = COLOURS[random.nextInt(3)];
        final Map<String, String> wred = next.get("WRED_PROFILE").get(profile);
        final long min = Long.parseLong(wred.get(colour + "_min_threshold"));
        final long max = Long.parseLong(wred.get(colour + "_max_threshold"));
        final int port = random.nextInt(2);
        final int queue = 3 + random.nextInt(2);
        switch (kind) {
            case 0 -> {
                switch (random.nextInt(3)) {
                    case 0 -> wred.put(colour + "_min_threshold", Long.toString(random.nextLong(0, max + 1)));
                    case 1 ->
                        wred.put(colour + "_max_threshold", Long.toString(random.nextLong(Math.max(min, 1), 400_000)));
                    default -> wred.put(colour + "_drop_probability", Integer.toString(random.nextInt(101)));
                }
                return null;
            }
            case 1 -> {
                if (random.nextBoolean()) {
                    wred.put(colour + "_min_threshold", Long.toString(max + 1));
                    return "WRED_PROFILE|" + profile + "|" + colour + "_min_threshold";
                }
                wred.put(colour + "_drop_probability", "101");
                return "WRED_PROFILE|" + profile + "|" + colour + "_drop_probability";
            }
            case 2 -> {
                next.get("QUEUE").put(PORTS[port] + "|" + queue, new LinkedHashMap<>(Map.of("wred_profile", profile)));
                return null;
            }
            case 3 -> {
                return switch (random.nextInt(4)) {
                    case 0 -> {
                        next.get("PORT").get("Ethernet4").put("speed", "25000");
                        yield "PORT|Ethernet4|speed: needs config reload";
                    }
                    case 1 -> {
                        next.get("QUEUE").put("Ethernet0|5", new LinkedHashMap<>(Map.of("wred_profile", "W1")));
                        yield "QUEUE|Ethernet0|5|wred_profile: needs config reload";
                    }
                    case 2 -> {
                        next.get("BUFFER_POOL").get("ingress_lossless_pool").put("size", "3000000");
                        yield "BUFFER_POOL|ingress_lossless_pool|size: needs config reload";
                    }
                    default -> {
                        next.get("PFC_WD")
                                .put(
                                        "Ethernet4",
                                        new LinkedHashMap<>(Map.of("action", "drop", "detection_time", "200")));
                        yield "PFC_WD|Ethernet4|";
                    }
                };
            }
            case 4 -> {
                final Map<String, String> lossless = next.get("BUFFER_PROFILE").get("lossless");
                final long xon = random.nextLong(0, 60_000);
                lossless.put("xon", Long.toString(xon));
                lossless.put("xoff", Long.toString(random.nextLong(xon, 200_000)));
                return null;
            }
            case 5 -> {
                final Map<String, String> wd = next.get("PFC_WD").get("Ethernet0");
                wd.put("detection_time", Integer.toString(random.nextInt(100, 5001)));
                wd.put("restoration_time", Integer.toString(random.nextInt(100, 60_001)));
                return null;
            }
            case 6 -> {
                next.get("SWITCH_HASH")
                        .get("GLOBAL")
                        .put("ecmp_hash_seed", Long.toString(random.nextLong(0, 1L << 32)));
                return null;
            }
            case 7 -> {
                final int qi = control.portIndex(PORTS[port]) * 8 + queue;
                final int c = random.nextInt(3);
                final long qMax = control.runtimeKnobs().value(RuntimeKnob.wred(c, 1), qi);
                control.batch()
                        .setKnob(RuntimeKnob.wred(c, 2), qi, random.nextInt(101))
                        .setKnob(RuntimeKnob.wred(c, 0), qi, random.nextLong(0, qMax + 1))
                        .commit();
                return null;
            }
            case 8 -> {
                final int pg = control.portIndex(PORTS[port]) * 8 + 3;
                final long xon = control.runtimeKnobs().value(RuntimeKnob.PFC_XON_BYTES, pg);
                control.batch()
                        .setKnob(RuntimeKnob.PFC_XOFF_BYTES, pg, random.nextLong(xon, 200_000))
                        .commit();
                return null;
            }
            default -> {
                final TableBatch batch =
                        control.batch().setKnob(RuntimeKnob.HASH_SEED, 0, random.nextLong(0, 1L << 32));
                if (random.nextBoolean()) {
                    batch.setKnob(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, 0, random.nextInt(100, 5001));
                }
                batch.commit();
                return null;
            }
        }
    }

    private static long sendAndCount(final Sw sw, final int destination) {
        final InMemoryPort out = sw.ports.get("Ethernet4");
        out.clearTransmitted();
        // A millisecond later: the egress port finished what it sent before.
        sw.clock.nowNs(sw.clock.nowNs() + 1_000_000);
        sw.ports
                .get("Ethernet0")
                .inject(
                        Frames.udp4(Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), destination), 100),
                        sw.clock.nowNs());
        sw.step();
        sw.clock.nowNs(sw.clock.nowNs() + 1_000_000);
        sw.step();
        return out.transmittedCount();
    }

    private static long queuePackets(final Sw sw) {
        final java.util.concurrent.CompletableFuture<TmCountersSnapshot> f =
                sw.control().trafficManagerCounters();
        sw.step();
        final TmCountersSnapshot s = f.join();
        long sum = 0;
        for (int q = 0; q < 8; q++) {
            sum += s.queue(sw.control().portIndex("Ethernet4"), q, QueueStat.PACKETS);
        }
        return sum;
    }

    // ---- L3: STATIC_ROUTE and NEIGH at run time ----

    private static final String L3_BASE = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"},
                  "Ethernet12": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}, "Ethernet12": {}, "Ethernet12|10.0.4.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "ACL_TABLE": {"T": {"ports": "Ethernet0", "stage": "ingress"}},
         "ACL_RULE": {"T|R0": {"PRIORITY": "10", "PACKET_ACTION": "DROP", "DST_IP": "192.168.2.9/32"}}}""";

    private static final String[] L3_PORTS = {"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"};
    private static final String[] PREFIXES = {
        "192.168.0.0/16", "192.168.1.0/24", "192.168.2.0/24", "172.16.0.0/16", "172.16.5.0/24", "0.0.0.0/0"
    };
    /** Next hops and neighbors: on Ethernet4, 8 and 12's subnets (frames come in on Ethernet0). */
    private static final String[] HOPS = {"10.0.2.2", "10.0.2.3", "10.0.3.2", "10.0.3.3", "10.0.4.2"};

    private static final String[] SAMPLES = {
        "192.168.1.9",
        "192.168.2.9",
        "192.168.3.9",
        "172.16.5.9",
        "172.16.6.9",
        "8.8.8.8",
        "10.0.2.2",
        "10.0.2.3",
        "10.0.3.2",
        "10.0.4.2",
        "10.0.4.9",
        "198.51.100.9",
        "10.0.2.1",
        "10.0.8.9",
        "10.0.200.9"
    };
    private static final String[] ACL_SAMPLES = java.util.Arrays.stream(SAMPLES)
            .filter(a -> !a.startsWith("198.51.100."))
            .toArray(String[]::new);

    /** The controller's route and neighbor: config edits at these keys must be refused, never applied over them. */
    private static final String CONTROLLER_PREFIX = "198.51.100.0/24";

    private static final String CONTROLLER_NEIGHBOR = "10.0.4.9";

    /** A controller's next hop, neighbor and route, its next-hop id chosen as the P4Runtime adapter does. */
    private static void controllerWrites(final PipelineControl control) {
        final int rif =
                SwitchConfig.of(control).compiled().setup().routerInterfaces().get("Ethernet12");
        final int nextHop = SwitchConfig.of(control).compiled().setup().nextHopCount();
        control.batch()
                .writeNextHop(nextHop, rif, IpPrefix.address(CONTROLLER_NEIGHBOR), true)
                .addNeighbor(rif, IpPrefix.address(CONTROLLER_NEIGHBOR), 0x0200_0000_0409L)
                .writeRoute(IpPrefix.parse(CONTROLLER_PREFIX), nextHop, false, true)
                .commit();
    }

    private static Sw l3Switch(final ConfigDb db) {
        final Sw sw = new Sw(db);
        controllerWrites(sw.control());
        sw.step();
        return sw;
    }

    @Property(tries = 15)
    void l3EditsReconfigureAsAFreshLoadWouldAndNeverReplaceAControllersEntries(@ForAll final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final Sw sw = l3Switch(ConfigDb.parse(L3_BASE));
        final PipelineControl control = sw.control();
        int applied = 0;
        int refused = 0;
        for (int step = 0; step < 12; step++) {
            final Map<String, Map<String, Map<String, String>>> next =
                    RunningConfig.mutableCopy(SwitchConfig.of(control).runningConfig());
            next.computeIfAbsent("STATIC_ROUTE", k -> new LinkedHashMap<>());
            next.computeIfAbsent("NEIGH", k -> new LinkedHashMap<>());
            next.computeIfAbsent("ACL_RULE", k -> new LinkedHashMap<>());
            final int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits; e++) {
                l3Edit(random.nextInt(8), next, random);
            }
            final String[] expectRefusal = random.nextInt(4) == 0 ? l3BadEdit(random.nextInt(3), next, random) : null;
            final List<String> before = l3State(sw);
            final ConfigDb runningBefore = SwitchConfig.of(control).runningConfig();
            if (expectRefusal == null) {
                SwitchConfig.of(control).reconfigure(new ConfigDb(next));
                sw.step();
                applied++;
            } else {
                assertThatThrownBy(() -> SwitchConfig.of(control).reconfigure(new ConfigDb(next)))
                        .isInstanceOf(ConfigException.class)
                        .hasMessageContainingAll(expectRefusal);
                sw.step();
                assertThat(l3State(sw)).as("a refused edit changes nothing").isEqualTo(before);
                assertThat(SwitchConfig.of(control).runningConfig()).isEqualTo(runningBefore);
                refused++;
            }
            final Sw fresh = l3Switch(SwitchConfig.of(control).runningConfig());
            final List<String> state = l3State(sw);
            assertThat(state)
                    .as(
                            "step %d: reconfigured = a fresh switch with the running config (+ the controller's entries)",
                            step)
                    .isEqualTo(l3State(fresh));
            assertThat(SwitchConfig.of(control).runningConfig())
                    .isEqualTo(SwitchConfig.of(fresh.control()).runningConfig());
            for (final String sample : SAMPLES) {
                final java.util.Set<String> members = groupMemberOutputs(fresh, sample);
                if (members == null) {
                    assertThat(forward(sw, sample))
                            .as("a frame to %s leaves as on the fresh switch", sample)
                            .isEqualTo(forward(fresh, sample));
                } else {
                    // Which member a flow hashes to follows the members' order, which follows ids: compare the set.
                    // A frame the fresh switch drops although every member resolves was dropped before the route (an
                    // ACL rule of the config, e.g. DROP 192.168.1.0/24 over a group route: seed -2304456584132842013):
                    // it must leave neither switch. A member without a neighbor is "none" in the set.
                    final String onFresh = forward(fresh, sample);
                    if (onFresh.equals("none") && !members.contains("none")) {
                        assertThat(forward(sw, sample))
                                .as("a frame to %s the fresh switch drops", sample)
                                .isEqualTo("none");
                    } else {
                        assertThat(members).contains(forward(sw, sample)).contains(onFresh);
                    }
                }
            }
            assertThat(forward(sw, "198.51.100.9")).as("the controller's route").isEqualTo("Ethernet12 020000000409");
            final long appliedBefore = sw.pipeline.agent().appliedCommands();
            final ConfigDb running = SwitchConfig.of(control).runningConfig();
            assertThat(SwitchConfig.of(control).reconfigure(running))
                    .as("the running config fed back: no command")
                    .isLessThanOrEqualTo(appliedBefore);
            assertThat(l3State(sw)).isEqualTo(state);
        }
        assertThat(applied).isPositive();
        assertThat(applied + refused).isEqualTo(12);
    }

    /** A valid STATIC_ROUTE, NEIGH or ACL_RULE edit. */
    private static void l3Edit(
            final int kind, final Map<String, Map<String, Map<String, String>>> next, final SplittableRandom random) {
        final Map<String, Map<String, String>> routes = next.get("STATIC_ROUTE");
        final Map<String, Map<String, String>> neighbors = next.get("NEIGH");
        switch (kind) {
            case 0 -> routes.put(PREFIXES[random.nextInt(PREFIXES.length)], randomRoute(random));
            case 1 -> {
                if (!routes.isEmpty()) {
                    routes.remove(List.copyOf(routes.keySet()).get(random.nextInt(routes.size())));
                }
            }
            case 2 -> {
                final String hop = HOPS[random.nextInt(HOPS.length)];
                final Map<String, String> fields = new LinkedHashMap<>();
                fields.put("neigh", String.format("02:00:00:00:%02x:%02x", random.nextInt(256), random.nextInt(256)));
                neighbors.put(interfaceOf(hop) + "|" + hop, fields);
            }
            case 3 -> {
                if (!neighbors.isEmpty()) {
                    neighbors.remove(List.copyOf(neighbors.keySet()).get(random.nextInt(neighbors.size())));
                }
            }
            case 4 -> {
                // An ACL rule on a sample address: DROP or FORWARD (rules may overlap; priorities never tie, since a
                // tie's order is the keys' order, which a CONFIG_DB does not promise).
                final int index = random.nextInt(4);
                final Map<String, String> rule = new LinkedHashMap<>();
                rule.put("PRIORITY", Integer.toString(index * 100 + 1 + random.nextInt(99)));
                rule.put("PACKET_ACTION", random.nextBoolean() ? "DROP" : "FORWARD");
                // (not the controller's address: the check that its route still forwards stays meaningful)
                final String sample = ACL_SAMPLES[random.nextInt(ACL_SAMPLES.length)];
                rule.put("DST_IP", random.nextBoolean() ? sample + "/32" : sample.replaceAll("\\.\\d+$", ".0/24"));
                next.get("ACL_RULE").put("T|R" + index, rule);
            }
            case 5 -> {
                final Map<String, Map<String, String>> rules = next.get("ACL_RULE");
                if (!rules.isEmpty()) {
                    rules.remove(List.copyOf(rules.keySet()).get(random.nextInt(rules.size())));
                }
            }
            case 6 -> {
                // A VLAN interface (and its VLAN) comes or goes.
                final Map<String, Map<String, String>> vlanInterfaces =
                        next.computeIfAbsent("VLAN_INTERFACE", k -> new LinkedHashMap<>());
                final Map<String, Map<String, String>> vlans = next.computeIfAbsent("VLAN", k -> new LinkedHashMap<>());
                if (vlans.containsKey("Vlan200")) {
                    vlanInterfaces.remove("Vlan200");
                    vlanInterfaces.remove("Vlan200|10.0.200.1/24");
                    vlans.remove("Vlan200");
                } else {
                    vlans.put("Vlan200", new LinkedHashMap<>(Map.of("vlanid", "200")));
                    vlanInterfaces.put("Vlan200", new LinkedHashMap<>());
                    vlanInterfaces.put("Vlan200|10.0.200.1/24", new LinkedHashMap<>());
                }
                if (vlanInterfaces.isEmpty()) {
                    next.remove("VLAN_INTERFACE");
                }
                if (vlans.isEmpty()) {
                    next.remove("VLAN");
                }
            }
            default -> {
                // A second address on an interface comes or goes (its subnet's connected and local routes with it).
                final Map<String, Map<String, String>> interfaces = next.get("INTERFACE");
                if (interfaces.remove("Ethernet8|10.0.8.1/24") == null) {
                    interfaces.put("Ethernet8|10.0.8.1/24", new LinkedHashMap<>());
                }
            }
        }
    }

    private static Map<String, String> randomRoute(final SplittableRandom random) {
        final Map<String, String> fields = new LinkedHashMap<>();
        if (random.nextInt(10) == 0) {
            fields.put("blackhole", "true");
            return fields;
        }
        final List<String> hops = new ArrayList<>(List.of(HOPS));
        java.util.Collections.shuffle(hops, new java.util.Random(random.nextLong()));
        final List<String> chosen = hops.subList(0, 1 + random.nextInt(3));
        fields.put("nexthop", String.join(",", chosen));
        if (chosen.size() > 1 && random.nextBoolean()) {
            final List<String> weights = new ArrayList<>();
            for (int i = 0; i < chosen.size(); i++) {
                weights.add(Integer.toString(1 + random.nextInt(3)));
            }
            fields.put("weight", String.join(",", weights));
        }
        return fields;
    }

    private static String interfaceOf(final String address) {
        return L3_PORTS[Integer.parseInt(address.split("\\.")[2]) - 1];
    }

    /**
     * An edit the switch must refuse (invalid, a controller's key, or one that needs a reload); returns what the
     * refusal says (the place first).
     */
    private static String[] l3BadEdit(
            final int kind, final Map<String, Map<String, Map<String, String>>> next, final SplittableRandom random) {
        switch (kind) {
            case 0 -> {
                final String prefix = PREFIXES[random.nextInt(PREFIXES.length)];
                if (random.nextBoolean()) {
                    next.get("STATIC_ROUTE").put(prefix, new LinkedHashMap<>(Map.of("nexthop", "10.9.9.9")));
                    return new String[] {"STATIC_ROUTE|" + prefix + "|nexthop: 10.9.9.9/32 is on no connected subnet"};
                }
                next.get("NEIGH").put("Ethernet8|10.0.3.1", new LinkedHashMap<>(Map.of("neigh", "02:00:00:00:03:01")));
                return new String[] {"NEIGH|Ethernet8|10.0.3.1|: ", "own address"};
            }
            case 1 -> {
                if (random.nextBoolean()) {
                    next.get("STATIC_ROUTE").put(CONTROLLER_PREFIX, randomRoute(random));
                    return new String[] {
                        "STATIC_ROUTE|" + CONTROLLER_PREFIX + "|: ",
                        "route " + CONTROLLER_PREFIX + " was written by a controller"
                    };
                }
                next.get("NEIGH")
                        .put(
                                "Ethernet12|" + CONTROLLER_NEIGHBOR,
                                new LinkedHashMap<>(Map.of("neigh", "02:00:00:00:04:99")));
                return new String[] {
                    "NEIGH|Ethernet12|" + CONTROLLER_NEIGHBOR + "|neigh: ",
                    "neighbor " + CONTROLLER_NEIGHBOR + "/32 was written by a controller"
                };
            }
            default -> {
                // An interface address on the controller's routed subnet (interfaces change at run time now; the
                // collision rule refuses this one, naming it).
                next.get("INTERFACE").put("Ethernet8|198.51.100.1/24", new LinkedHashMap<>());
                return new String[] {
                    "INTERFACE|Ethernet8|198.51.100.1/24|: ",
                    "route " + CONTROLLER_PREFIX + " was written by a controller"
                };
            }
        }
    }

    /**
     * The L3 state as the data path has it, without ids (they differ between a reconfigured and a fresh switch):
     * every route of the control model and every sample address's LPM result in the data-plane tables, each as the
     * port, next-hop address and neighbor MAC it leads to; the static neighbors; how many next hops and groups the
     * data path defines (none left behind).
     */
    private static List<String> l3State(final Sw sw) {
        final ForwardingTables t = sw.pipeline.agent().tables();
        final PipelineControl control = sw.control();
        final List<String> out = new ArrayList<>();
        final java.util.TreeMap<String, String> routes = new java.util.TreeMap<>();
        control.routes().forEach((prefix, value) -> routes.put(prefix.toString(), describe(t, control, value)));
        routes.forEach((prefix, target) -> out.add("route " + prefix + " " + target));
        for (final String sample : SAMPLES) {
            final IpPrefix address = IpPrefix.address(sample);
            out.add("lookup " + sample + " "
                    + describe(t, control, t.routeTargetFor(false, address.high(), address.low())));
        }
        final List<String> neighbors = new ArrayList<>();
        t.neighbors().forEach((high, low, v6, mac, rif, isStatic) -> {
            if (isStatic) {
                neighbors.add("neighbor " + new IpPrefix(v6, high, low, 32) + " " + Long.toHexString(mac) + " "
                        + portOfRif(t, control, rif));
            }
        });
        java.util.Collections.sort(neighbors);
        out.addAll(neighbors);
        int hops = 0;
        for (int id = 0; id < SMALL.maxNextHops(); id++) {
            hops += t.nextHopDefined(id) ? 1 : 0;
        }
        int groups = 0;
        for (int id = 0; id < SMALL.maxGroups(); id++) {
            groups += t.groupDefined(id) ? 1 : 0;
        }
        out.add("next hops " + hops + " (model " + control.l3().nextHops.size() + "), groups " + groups);
        out.add("acl " + List.of(t.acl().names()));
        return out;
    }

    private static int ipOf(final String address) {
        return IpPrefix.address(address).ipv4();
    }

    private static String portOfRif(final ForwardingTables t, final PipelineControl control, final int rif) {
        final int port = t.routerInterfacePort(rif);
        // (a VLAN interface by its VLAN: its id differs between a reconfigured and a fresh switch)
        return port < 0
                ? "vlan" + t.routerInterfaceVlan(rif)
                : control.portNames().get(port);
    }

    private static String describe(final ForwardingTables t, final PipelineControl control, final int value) {
        final int id = RouteTarget.id(value);
        return switch (RouteTarget.kind(value)) {
            case 0 -> "miss";
            case RouteTarget.NEXT_HOP -> "via " + hop(t, control, id);
            case RouteTarget.GROUP -> {
                final L3State l3 = control.l3();
                final L3State.GroupSpec spec =
                        l3.configGroups.containsKey(id) ? l3.configGroups.get(id) : l3.groupSpecs.get(id);
                final int[] members = t.groupNextHops(id);
                assertThat(members).as("group %d: data path = model", id).containsExactlyInAnyOrder(spec.nextHops());
                final List<String> described = new ArrayList<>();
                for (int m = 0; m < spec.nextHops().length; m++) {
                    described.add(hop(t, control, spec.nextHops()[m]) + " x" + spec.weights()[m]);
                }
                java.util.Collections.sort(described);
                yield "group " + described;
            }
            case RouteTarget.CONNECTED -> "connected " + portOfRif(t, control, id);
            case RouteTarget.LOCAL -> "local";
            case RouteTarget.DROP -> "drop";
            default -> "kind " + RouteTarget.kind(value);
        };
    }

    private static String hop(final ForwardingTables t, final PipelineControl control, final int id) {
        assertThat(t.nextHopDefined(id)).as("next hop %d in the data path", id).isTrue();
        final int slot = t.neighbors().find(t.nextHopHigh(id), t.nextHopLow(id), t.nextHopV6(id));
        return new IpPrefix(t.nextHopV6(id), t.nextHopHigh(id), t.nextHopLow(id), 32) + "@"
                + portOfRif(t, control, t.nextHopRif(id))
                + (slot < 0
                        ? " unresolved"
                        : " " + Long.toHexString(t.neighbors().mac(slot)));
    }

    /**
     * Where a frame to an address may leave when its route is a group: each member's port and neighbor MAC ("none"
     * for a member without a neighbor); null when the route is not a group.
     */
    private static java.util.Set<String> groupMemberOutputs(final Sw sw, final String address) {
        final ForwardingTables t = sw.pipeline.agent().tables();
        final IpPrefix a = IpPrefix.address(address);
        final int value = t.routeTargetFor(false, a.high(), a.low());
        if (RouteTarget.kind(value) != RouteTarget.GROUP) {
            return null;
        }
        final java.util.Set<String> out = new java.util.HashSet<>();
        for (final int hop : t.groupNextHops(RouteTarget.id(value))) {
            final int slot = t.neighbors().find(t.nextHopHigh(hop), t.nextHopLow(hop), t.nextHopV6(hop));
            out.add(
                    slot < 0
                            ? "none"
                            : portOfRif(t, sw.control(), t.nextHopRif(hop)) + " "
                                    + String.format("%012x", t.neighbors().mac(slot)));
        }
        return out;
    }

    /** Sends a frame from Ethernet0 to an address: which port it left and its destination MAC, or "none". */
    private static String forward(final Sw sw, final String address) {
        for (final InMemoryPort port : sw.ports.values()) {
            port.clearTransmitted();
        }
        sw.clock.nowNs(sw.clock.nowNs() + 1_000_000);
        sw.ports
                .get("Ethernet0")
                .inject(
                        Frames.udp4(Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), ipOf(address)), 100),
                        sw.clock.nowNs());
        sw.step();
        sw.clock.nowNs(sw.clock.nowNs() + 1_000_000);
        sw.step();
        final List<String> out = new ArrayList<>();
        for (final Map.Entry<String, InMemoryPort> p : sw.ports.entrySet()) {
            for (int i = 0; i < p.getValue().transmittedCount(); i++) {
                final byte[] frame = p.getValue().transmitted(i);
                out.add(p.getKey() + " " + String.format("%012x", Frames.mac(frame, 0)));
            }
        }
        return out.isEmpty() ? "none" : String.join(";", out);
    }
}
