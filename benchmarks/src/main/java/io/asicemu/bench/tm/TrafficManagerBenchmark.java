package io.asicemu.bench.tm;

import io.asicemu.tm.DequeueVerdict;
import io.asicemu.tm.TmOptions;
import io.asicemu.tm.TrafficManager;
import io.asicemu.tm.config.TmConfigParser;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Traffic-manager cost per packet with WRED/ECN and PFC accounting on: 2:1 incast of ECT(0) 1086-byte frames from
 * two 100G ports into queue 3 (lossless PG 3, dynamic_th -2 with headroom, WRED 50 k..300 kB, 20 %, ecn_all) of a
 * 100G port, alternating 4000-packet phases of 40 ns and 200 ns gaps so the queue sweeps the WRED curve, the PGs
 * cross XOFF and drain to XON, refresh timers fire and a PFC frame is received every 1024 packets. One op = admit one
 * packet, dequeue every frame the port may start by then, fire due timers. gc.alloc.rate.norm must be 0.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class TrafficManagerBenchmark {
    private static final int[] QUANTA = {0, 0, 0, 200, 0, 0, 0, 0};

    private TrafficManager tm;
    /** The verdict the data plane reuses for every frame it dequeues. */
    private final DequeueVerdict verdict = new DequeueVerdict();

    private long nowNs;
    private int handle;
    private int phase;

    /** Builds the TM once, outside the measurement. */
    @Setup(Level.Trial)
    public void setUp() {
        final Map<String, Map<String, Map<String, String>>> db = new LinkedHashMap<>();
        final Map<String, Integer> ports = new LinkedHashMap<>();
        put(db, "BUFFER_POOL", "ing", "type", "ingress", "mode", "dynamic", "size", "4000000");
        put(
                db,
                "BUFFER_PROFILE",
                "lossless",
                "pool",
                "ing",
                "size",
                "1248",
                "dynamic_th",
                "-2",
                "xoff",
                "100352",
                "xon",
                "2288",
                "xon_offset",
                "2288");
        put(
                db,
                "WRED_PROFILE",
                "W",
                "wred_green_enable",
                "true",
                "green_min_threshold",
                "50000",
                "green_max_threshold",
                "300000",
                "green_drop_probability",
                "20",
                "ecn",
                "ecn_all");
        put(db, "SCHEDULER", "s0", "type", "DWRR", "weight", "14");
        put(db, "SCHEDULER", "s1", "type", "DWRR", "weight", "15");
        for (int p = 0; p < 3; p++) {
            final String name = "Ethernet" + p * 4;
            ports.put(name, p);
            put(db, "PORT", name, "speed", "100000");
            put(db, "PORT_QOS_MAP", name, "pfc_enable", "3,4");
            put(db, "BUFFER_PG", name + "|3-4", "profile", "lossless");
            put(db, "QUEUE", name + "|3-4", "scheduler", "s1", "wred_profile", "W");
            put(db, "QUEUE", name + "|0-2", "scheduler", "s0");
        }
        tm = new TrafficManager(
                TmConfigParser.parse(db, ports), TmOptions.defaults(), (n, p, v, q) -> {}, (n, h, p, q, r) -> {}, 0);
    }

    private static void put(
            final Map<String, Map<String, Map<String, String>>> db,
            final String table,
            final String key,
            final String... kv) {
        final Map<String, String> f =
                db.computeIfAbsent(table, t -> new LinkedHashMap<>()).computeIfAbsent(key, k -> new LinkedHashMap<>());
        for (int i = 0; i < kv.length; i += 2) {
            f.put(kv[i], kv[i + 1]);
        }
    }

    /**
     * One packet through the TM.
     *
     * @return the last handle dequeued (consumed by JMH).
     */
    @Benchmark
    public int admitAndDequeueWithWredAndPfc() {
        nowNs += (phase++ / 4000 & 1) == 0 ? 40 : 200;
        final int h = handle++;
        tm.admit(nowNs, h & 1, 3, 2, 3, 1086, 2, h);
        int last = TrafficManager.NO_PACKET;
        while (tm.nextTransmitNs(nowNs, 2) <= nowNs) {
            final int out = tm.dequeue(nowNs, 2, verdict);
            if (out == TrafficManager.NO_PACKET) {
                break;
            }
            last = out;
        }
        if (tm.nextDeadlineNs() <= nowNs) {
            tm.poll(nowNs);
        }
        if ((h & 1023) == 0) {
            tm.onPfcReceived(nowNs, 2, 1 << 3, QUANTA);
        }
        return last;
    }
}
