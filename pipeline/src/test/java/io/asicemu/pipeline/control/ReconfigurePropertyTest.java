package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.DataPlaneAgent;
import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
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
 * A running-config change ({@link PipelineControl#reconfigure}) leaves the switch as a fresh switch loaded with that
 * config would be, and keeps what controllers wrote and what the traffic manager counted. A random sequence of
 * CONFIG_DB edits (WRED_PROFILE thresholds, QUEUE profile assignment, BUFFER_PROFILE xoff/xon, PFC_WD times, the
 * ECMP hash seed) interleaved with runtime register writes (WRED of one queue, PFC xoff of one PG, hash seed, watchdog
 * detection) is applied to one switch, each edit on its {@link PipelineControl#runningConfig()}; after every step the
 * switch's data-path state (the traffic manager's WRED settings of every queue and colour, the hash engine's seed,
 * every knob) equals that of a fresh switch loaded with its running config, and reconfiguring to the running config
 * changes nothing. Invalid edits (Kmin above Kmax, a probability over 100) and edits that need a reload (a port's
 * speed, WRED turned on for a queue, the ECN mode of a profile in use, a pool's size) are refused naming the field and
 * change neither the state nor the running config. A controller's route forwards before and after; the queue counters
 * are not reset.
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
            control().applyConfig(db);
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
                    RunningConfig.mutableCopy(control.runningConfig());
            final String expectRefusal = edit(kind, next, control, random);
            if (expectRefusal == null && kind >= 7) {
                sw.step();
            } else if (expectRefusal == null) {
                control.reconfigure(new ConfigDb(next));
                sw.step();
                applied++;
            } else {
                final List<String> stateBefore = sw.state();
                final ConfigDb runningBefore = control.runningConfig();
                assertThatThrownBy(() -> control.reconfigure(new ConfigDb(next)))
                        .isInstanceOf(ConfigException.class)
                        .hasMessageContaining(expectRefusal);
                sw.step();
                assertThat(sw.state()).as("a refused edit changes nothing").isEqualTo(stateBefore);
                assertThat(control.runningConfig()).isEqualTo(runningBefore);
                refused++;
            }
            final Sw fresh = new Sw(control.runningConfig());
            assertThat(sw.state())
                    .as("step %d (kind %d): reconfigured = a fresh switch with the running config", step, kind)
                    .isEqualTo(fresh.state());
            final long appliedBefore = sw.pipeline.agent().appliedCommands();
            final ConfigDb running = control.runningConfig();
            assertThat(control.reconfigure(running))
                    .as("the running config fed back: no command")
                    .isLessThanOrEqualTo(appliedBefore);
            assertThat(control.runningConfig()).isEqualTo(running);
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
}
