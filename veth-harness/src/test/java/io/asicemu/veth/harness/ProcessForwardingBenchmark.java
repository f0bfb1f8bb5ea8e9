package io.asicemu.veth.harness;

import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.testsupport.netns.Background;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.Offloads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Issue 12's forwarding comparison with every forwarder as its own process (not a test; run by hand, root): asic-emu
 * started by the real launcher ({@code bin/asic-emu run}, its jvm.options and AOT cache) in a namespace of its own and
 * pinned with {@code taskset} to CPU 1; the reference C TPACKET_V2 forwarder ({@code src/test/c/tpacket_fwd.c},
 * compiled here with gcc) in poll and busy-poll mode, pinned the same way; and the Linux bridge. Generator and sink are
 * {@link ForwardingBenchmark#measure}'s threads, on CPU 0 (run this JVM under {@code taskset -c 0} so that its JIT and
 * GC threads stay there too). Topology per target: namespace h1 —veth— device namespace —veth— h2, containerlab
 * offloads, 64 B…1500 B routed IPv4/UDP.
 * <p>
 * Every frame is accounted for: for asic-emu, {@code lost = counted by the switch (Σ drop reasons of GET /counters, its
 * management interface) + before it (the sender's veth) + after it (the egress veth, the sink's RX ring)}; for the C
 * forwarder the same with its own counts (RX ring drops from PACKET_STATISTICS, non-IPv4 frames).
 * <p>
 * Run: {@code taskset -c 0 java -Djava.util.concurrent.ForkJoinPool.common.parallelism=8
 * --enable-native-access=ALL-UNNAMED -cp <veth-harness test classpath>
 * io.asicemu.veth.harness.ProcessForwardingBenchmark [seconds (3)] [latency pps (5000)] [half-rate seconds (60)]
 * [busy-poll us (1000)] [targets (bridge,asic-emu,asic-emu-busy,c-poll,c-busy; also asic-emu-deep: -Dasicemu.bench.deepRxFrames RX slots, default 8192)] [warm-up seconds at full rate (10)]}. Targets whose name ends in
 * {@code -busy} measure latency (and saturated 64 B) only. Latency is measured twice: by the generator and sink threads
 * (the sink sleeps in poll(2)) and by one thread that sends and receives spinning
 * ({@link ForwardingBenchmark#measureWithSpinningProbe}), which leaves the sink's wake-up out.
 * <p>
 * The sink costs the forwarder's CPU as little as it can: a veth pair runs the receiving side on the sending CPU, so
 * whatever h2's kernel does with a frame is charged to the forwarder. Frames go to {@link #SINK_MAC}, which h2's IPv4
 * stack drops on sight, and outside the latency runs the sink sleeps on a timer, not on its socket, so no frame wakes
 * it from the forwarder's CPU. {@code -Dasicemu.bench.wokenSink=true} restores the old sink (h2's MAC, woken per
 * batch) for side-by-side runs.
 */
public final class ProcessForwardingBenchmark {
    private static final String ROUTER_MAC = "02:aa:00:00:00:01";
    /**
     * The MAC every forwarder sends the sink's frames to: not h2's own, so h2's kernel sees them as another host's and
     * drops them at once ({@code ip_rcv}), while the sink's packet socket still gets them. To h2's own MAC, each frame
     * went through h2's IPv4 routing to an ICMP error and a destination freed by RCU, on the forwarder's CPU (a veth
     * pair runs the peer's receive on the sending CPU): 15 % of that CPU at half rate by {@code perf}. The bridge
     * knows it as a static FDB entry on h2's port, so it forwards instead of flooding.
     */
    private static final String SINK_MAC = "02:bb:00:00:00:02";
    /**
     * Only the warm-up and the saturated 64 B run per target ({@code -Dasicemu.bench.saturatedOnly=true}): for
     * alternating a target list such as {@code asic-emu,c-poll,asic-emu,c-poll,…} many times in one sitting, where this
     * machine's noise needs many pairs.
     */
    private static final boolean SATURATED_ONLY = Boolean.getBoolean("asicemu.bench.saturatedOnly");
    /**
     * With {@link #SATURATED_ONLY}: also a 64 B run at this fixed rate ({@code -Dasicemu.bench.fixedRatePps}), where
     * the forwarder's CPU a frame compares variants at the same offered load (batching depends on the rate).
     */
    private static final int FIXED_RATE_PPS = Integer.getInteger("asicemu.bench.fixedRatePps", 0);
    /** RX slots a port of the {@code asic-emu-deep} target gets. */
    private static final int DEEP_RX_FRAMES = Integer.getInteger("asicemu.bench.deepRxFrames", 8192);

    /**
     * Unmeasured runs of the spinning probe (2 s each) before each measured latency-probe run. The probe shares CPU 0
     * with this JVM's JIT: cold, the probe's code compiled (C2, in 4 ms slices on that CPU) inside the measured window
     * and stalled the probe, which then sent the missed frames back to back while the forwarder had gone to sleep — the
     * first target of a run paid most of it. One warm-up run was not enough: the next run still recompiled the probe
     * loop after an uncommon trap in its first 200 ms (docs/PERFORMANCE.md "Session 16"). 0 measures cold, as before.
     */
    private static final int PROBE_WARMUP_RUNS = Integer.getInteger("asicemu.bench.probeWarmupRuns", 2);

    private static final int DEVICE_CPU = 1;
    private static final int COUNTERS_PORT = 9560;
    private static final Path REPO =
            Path.of(System.getProperty("asicemu.repo", ".")).toAbsolutePath().normalize();
    private static final Set<String> DROP_REASONS =
            Arrays.stream(DropReason.values()).map(DropReason::counterName).collect(Collectors.toSet());

    /** Every run, the binary search's steps included: the accounting column counts them all. */
    private static final List<Row> ALL_RUNS = new ArrayList<>();

    private ProcessForwardingBenchmark() {}

    /** A forwarder under test in the device namespace: how frames reach it and how it counts what it dropped. */
    private interface Device extends AutoCloseable {
        /** @return the destination MAC the generator uses (the router's, or h2's for the bridge). */
        String dstMac();

        /** @return frames the forwarder counted as dropped so far (cumulative), -1 if it counts none. */
        long countedDrops();

        /** @return CPU seconds the forwarder's process used so far, -1 if it is the kernel's. */
        double cpuSeconds();

        /** @return of {@link #cpuSeconds()}, the seconds spent in user space (the rest is the kernel's), -1 if none. */
        default double userCpuSeconds() {
            return -1;
        }

        @Override
        void close();
    }

    /** The Linux bridge in the device namespace: forwards in the sender's softirq, counts nothing of ours. */
    private record Bridge(String dstMac) implements Device {
        @Override
        public long countedDrops() {
            return -1;
        }

        @Override
        public double cpuSeconds() {
            return -1;
        }

        @Override
        public void close() {}
    }

    /** asic-emu as {@code bin/asic-emu run}, or the C forwarder: a process pinned to {@link #DEVICE_CPU}. */
    private static final class ProcessDevice implements Device {
        private final Netns ns;
        private final Background process;
        private final long pid;
        private final boolean asicEmu;
        private final Path statsFile;

        ProcessDevice(
                final Netns ns, final Background process, final long pid, final boolean asicEmu, final Path stats) {
            this.ns = ns;
            this.process = process;
            this.pid = pid;
            this.asicEmu = asicEmu;
            this.statsFile = stats;
        }

        @Override
        public String dstMac() {
            return ROUTER_MAC;
        }

        @Override
        public long countedDrops() {
            sleepMs(asicEmu ? 350 : 250); // the switch folds RX ring overflow into its counters every 100 ms
            if (asicEmu) {
                return countedByTheSwitch(counters());
            }
            final String[] f = readOrFail(statsFile).trim().split(" ");
            return Long.parseLong(f[5]) + Long.parseLong(f[7]); // rx_ring_drops + not_ipv4
        }

        String counters() {
            return ns.execOk("curl", "-sf", "--max-time", "10", "http://127.0.0.1:" + COUNTERS_PORT + "/counters")
                    .stdout();
        }

        @Override
        public double cpuSeconds() {
            final String[] f = stat();
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime + stime, USER_HZ = 100
        }

        @Override
        public double userCpuSeconds() {
            return Long.parseLong(stat()[11]) / 100.0; // utime
        }

        /** The process's /proc stat fields after its name (field 3 of proc(5) is [0]). */
        private String[] stat() {
            final String stat = readOrFail(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        }

        @Override
        public void close() {
            Commands.runQuietly("kill", "-TERM", Long.toString(pid));
            final long deadline = System.nanoTime() + 15_000_000_000L;
            while (process.alive() && System.nanoTime() < deadline) {
                sleepMs(100);
            }
            process.close();
        }
    }

    /** Σ of the drop-reason lines of {@code GET /counters} ({@code <port> <name> <value>}): what the switch counted. */
    static long countedByTheSwitch(final String counters) {
        long sum = 0;
        for (final String line : counters.split("\n")) {
            final String[] f = line.trim().split(" ");
            if (f.length == 3 && DROP_REASONS.contains(f[1])) {
                sum += Long.parseLong(f[2]);
            }
        }
        return sum;
    }

    /** One measured run and what the forwarder's counters said about it. */
    record Row(ForwardingBenchmark.Run run, long counted, long before, long after, double cpu, double userCpu) {
        boolean exact() {
            return counted < 0 || run.sent() - run.received() == counted + before + after;
        }
    }

    public static void main(final String[] args) throws Exception {
        if (java.util.concurrent.ForkJoinPool.getCommonPoolParallelism() < 4) {
            // Commands and Background drain process pipes on the common pool; on one CPU (taskset -c 0) it has one
            // worker, which a background process's drain holds for good, and every later command hangs
            throw new IllegalStateException("run with -Djava.util.concurrent.ForkJoinPool.common.parallelism=8");
        }
        final int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        final int rate = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        final int halfRateSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        final long busyPollUs = args.length > 3 ? Long.parseLong(args[3]) : 1_000;
        final List<String> targets =
                List.of((args.length > 4 ? args[4] : "bridge,asic-emu,asic-emu-busy,c-poll,c-busy").split(","));
        // a JVM's JIT compiles the data path in its first seconds, on the switch's pinned CPU: measured (per-thread
        // CPU) C1 + C2 took 1.6 s there while the busy-poll run's data-plane thread got 0.5 s
        final int warmupSeconds = args.length > 5 ? Integer.parseInt(args[5]) : 10;
        final Path forwarder = targets.stream().anyMatch(t -> t.startsWith("c-")) ? compileForwarder() : null;
        final List<Row> rows = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        notes.add("start " + java.time.Instant.now() + ", " + uptime());
        for (final String target : targets) {
            try (NetnsLab lab = NetnsLab.create()) {
                final Netns h1 = lab.namespace("h1");
                final Netns h2 = lab.namespace("h2");
                final Netns dev = lab.namespace("dev");
                for (final Netns ns : List.of(h1, h2, dev)) {
                    ns.disableIpv6();
                }
                lab.link(dev, "p1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
                lab.link(dev, "p2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
                final String sinkMac = ForwardingBenchmark.WOKEN_SINK ? h2.mac("eth1") : SINK_MAC;
                try (Device device = start(target, lab, dev, sinkMac, busyPollUs, forwarder)) {
                    final String src = h1.mac("eth1");
                    final String name = target.equals("asic-emu-busy")
                            ? "asic-emu --busy-poll-us " + busyPollUs
                            : target.equals("asic-emu-deep")
                                    ? "asic-emu --rx-ring-frames " + DEEP_RX_FRAMES
                                    : target.equals("c-busy") ? "C TPACKET_V2 busy-poll" : target;
                    run(name, "warmup", device, h1, h2, dev, src, 64, warmupSeconds, 0, 0, notes);
                    final Row saturated = run(name, "throughput", device, h1, h2, dev, src, 64, seconds, 0, 0, notes);
                    rows.add(saturated);
                    if (SATURATED_ONLY) {
                        if (FIXED_RATE_PPS > 0) {
                            rows.add(run(
                                    name,
                                    "fixed-rate",
                                    device,
                                    h1,
                                    h2,
                                    dev,
                                    src,
                                    64,
                                    seconds,
                                    FIXED_RATE_PPS,
                                    0,
                                    notes));
                        }
                        printThreads(device);
                        continue;
                    }
                    rows.add(run(name, "latency", device, h1, h2, dev, src, 64, seconds, rate, 0, notes));
                    rows.add(run(name, "latency-probe", device, h1, h2, dev, src, 64, seconds, rate, 0, notes));
                    if (target.endsWith("-busy")) {
                        printThreads(device);
                        continue;
                    }
                    rows.add(run(name, "throughput", device, h1, h2, dev, src, 1500, seconds, 0, 0, notes));
                    rows.add(run(name, "burst", device, h1, h2, dev, src, 128, seconds, 0, 5_000, notes));
                    rows.add(noDropSearch(name, device, h1, h2, dev, src, saturated.run(), notes));
                    if (halfRateSeconds > 0) {
                        final int half = (int) Math.max(1_000, saturated.run().pps() / 2);
                        rows.add(run(name, "half-rate", device, h1, h2, dev, src, 64, halfRateSeconds, half, 0, notes));
                    }
                    if (device instanceof ProcessDevice p && p.asicEmu) {
                        System.out.print(p.counters());
                    }
                    printThreads(device);
                }
            }
        }
        notes.add("end " + java.time.Instant.now() + ", " + uptime());
        report(rows, rate);
        notes.forEach(System.out::println);
        System.out.println("links left in the root namespace: "
                + Commands.runOrFail("ip", "-o", "link").stdout().lines().count());
    }

    /** CPU seconds per thread of the forwarder's process so far (JIT and GC share its pinned CPU). */
    private static void printThreads(final Device device) {
        if (!(device instanceof ProcessDevice p)) {
            return;
        }
        final StringBuilder out = new StringBuilder("CPU per thread of pid " + p.pid + " (s):");
        try (var tasks = Files.list(Path.of("/proc", Long.toString(p.pid), "task"))) {
            tasks.map(task -> {
                        final String stat = readOrFail(task.resolve("stat"));
                        final String[] f =
                                stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        final double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
                        return java.util.Map.entry(stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpu);
                    })
                    .filter(e -> e.getValue() >= 0.05)
                    .sorted(java.util.Map.Entry.<String, Double>comparingByValue()
                            .reversed())
                    .forEach(e -> out.append(String.format(" %s %.2f;", e.getKey(), e.getValue())));
        } catch (final IOException | UncheckedIOException e) {
            out.append(" unreadable: ").append(e.getMessage());
        }
        System.out.println(out);
    }

    private static Device start(
            final String target,
            final NetnsLab lab,
            final Netns dev,
            final String sinkMac,
            final long busyPollUs,
            final Path forwarder) {
        switch (target) {
            case "bridge" -> {
                dev.execOk("ip", "link", "add", "br0", "type", "bridge");
                dev.execOk("ip", "link", "set", "p1", "master", "br0");
                dev.execOk("ip", "link", "set", "p2", "master", "br0");
                dev.execOk("ip", "link", "set", "br0", "up");
                if (!ForwardingBenchmark.WOKEN_SINK) {
                    dev.execOk("bridge", "fdb", "add", sinkMac, "dev", "p2", "master", "static");
                }
                return new Bridge(sinkMac);
            }
            case "asic-emu", "asic-emu-busy", "asic-emu-deep" -> {
                final Path config = lab.newFile(".json");
                final Path status = lab.newFile(".status");
                writeOrFail(config, ForwardingBenchmark.configJson(sinkMac));
                final List<String> command = new ArrayList<>(List.of(
                        "taskset",
                        "-c",
                        Integer.toString(DEVICE_CPU),
                        REPO.resolve("bin/asic-emu").toString(),
                        "run",
                        "--config",
                        config.toString(),
                        "--port-map",
                        "Ethernet0=p1",
                        "--port-map",
                        "Ethernet4=p2",
                        "--p4runtime-port",
                        "0",
                        "--counters-port",
                        Integer.toString(COUNTERS_PORT),
                        "--status-file",
                        status.toString()));
                if (target.endsWith("-busy")) {
                    command.addAll(List.of("--busy-poll-us", Long.toString(busyPollUs)));
                }
                if (target.endsWith("-deep")) {
                    // 8192 slots a port (13 MiB at MTU 1500; the default budget of 32 MiB allows it for 2 ports)
                    command.addAll(List.of("--rx-ring-frames", Integer.toString(DEEP_RX_FRAMES)));
                }
                final Background process = dev.start(Duration.ofHours(2), command.toArray(String[]::new));
                final long pid = awaitReady(process, status);
                final ProcessDevice device = new ProcessDevice(dev, process, pid, true, null);
                System.out.printf("%s: pid %d ready after %.1f s of CPU%n", target, pid, device.cpuSeconds());
                return device;
            }
            case "c-poll", "c-busy" -> {
                final Path stats = lab.newFile(".stats");
                final List<String> command = new ArrayList<>(List.of(
                        "taskset",
                        "-c",
                        Integer.toString(DEVICE_CPU),
                        forwarder.toString(),
                        "p1",
                        "p2",
                        sinkMac,
                        ROUTER_MAC,
                        stats.toString()));
                if (target.equals("c-busy")) {
                    command.add("busy");
                }
                final Background process = dev.start(Duration.ofHours(2), command.toArray(String[]::new));
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (!Files.exists(stats) || readOrFail(stats).isBlank()) {
                    if (!process.alive() || System.nanoTime() > deadline) {
                        throw new IllegalStateException("the C forwarder did not start: " + process.await(1_000));
                    }
                    sleepMs(20);
                }
                final long pid = Long.parseLong(readOrFail(stats).trim().split(" ")[1]);
                return new ProcessDevice(dev, process, pid, false, stats);
            }
            default -> throw new IllegalArgumentException("unknown target " + target);
        }
    }

    /** Waits for the switch's status file to say ready; returns the JVM's pid (the launcher exec'd into it). */
    private static long awaitReady(final Background process, final Path status) {
        final long deadline = System.nanoTime() + 300_000_000_000L; // a first start records the AOT cache
        while (System.nanoTime() < deadline) {
            if (!process.alive()) {
                throw new IllegalStateException("asic-emu ended before it was ready: " + process.await(1_000));
            }
            if (Files.exists(status)) {
                final String text = readOrFail(status);
                if (text.contains("state=ready")) {
                    return Long.parseLong(text.lines()
                            .filter(l -> l.startsWith("pid="))
                            .findFirst()
                            .orElseThrow()
                            .substring(4));
                }
            }
            sleepMs(100);
        }
        throw new IllegalStateException("asic-emu not ready after 300 s");
    }

    private static Path compileForwarder() {
        final Path source = REPO.resolve("veth-harness/src/test/c/tpacket_fwd.c");
        final Path binary = REPO.resolve("veth-harness/target/tpacket_fwd");
        Commands.runOrFail("gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(), source.toString());
        return binary;
    }

    private static Row noDropSearch(
            final String name,
            final Device device,
            final Netns h1,
            final Netns h2,
            final Netns dev,
            final String src,
            final ForwardingBenchmark.Run saturated,
            final List<String> notes)
            throws InterruptedException {
        double low = 0;
        double high = saturated.sent() / saturated.seconds();
        Row best = null;
        for (int i = 0; i < 7; i++) {
            final double mid = (low + high) / 2;
            final Row r = run(name, "search", device, h1, h2, dev, src, 64, 2, (int) mid, 0, notes);
            if (r.run().loss() <= 0.001) {
                low = mid;
                best = r;
            } else {
                high = mid;
            }
        }
        final ForwardingBenchmark.Run found =
                best != null ? best.run() : new ForwardingBenchmark.Run(name, "search", 64, 0, 0, 1, new long[0], 0);
        return new Row(
                new ForwardingBenchmark.Run(
                        name,
                        "no-drop",
                        64,
                        found.sent(),
                        found.received(),
                        found.seconds(),
                        found.latencyNs(),
                        found.sinkDrops()),
                -1,
                0,
                0,
                -1,
                -1);
    }

    private static Row run(
            final String name,
            final String kind,
            final Device device,
            final Netns h1,
            final Netns h2,
            final Netns dev,
            final String src,
            final int frameBytes,
            final int seconds,
            final int ratePps,
            final long maxFrames,
            final List<String> notes)
            throws InterruptedException {
        for (int i = 0; kind.equals("latency-probe") && i < PROBE_WARMUP_RUNS; i++) {
            ForwardingBenchmark.measureWithSpinningProbe(
                    name, "probe-warmup", h1, h2, src, device.dstMac(), frameBytes, 2, ratePps);
        }
        final long countedBefore = device.countedDrops();
        final long senderBefore = txDropped(h1, "eth1");
        final long egressBefore = txDropped(dev, "p2");
        final double cpuBefore = device.cpuSeconds();
        final double userBefore = device.userCpuSeconds();
        final ForwardingBenchmark.Run run = kind.equals("latency-probe")
                ? ForwardingBenchmark.measureWithSpinningProbe(
                        name, kind, h1, h2, src, device.dstMac(), frameBytes, seconds, ratePps)
                : ForwardingBenchmark.measure(
                        name, kind, h1, h2, src, device.dstMac(), frameBytes, seconds, ratePps, maxFrames);
        final double cpu = cpuBefore < 0 ? -1 : device.cpuSeconds() - cpuBefore;
        final double user = userBefore < 0 ? -1 : device.userCpuSeconds() - userBefore;
        final long counted = countedBefore < 0 ? -1 : device.countedDrops() - countedBefore;
        final long before = txDropped(h1, "eth1") - senderBefore;
        final long egressVeth = txDropped(dev, "p2") - egressBefore;
        final long after = egressVeth + run.sinkDrops();
        final Row row = new Row(run, counted, before, after, cpu, user);
        ALL_RUNS.add(row);
        final long lost = run.sent() - run.received();
        System.out.printf(
                "%-28s %-10s %5d B%s: sent %,d received %,d in %.2f s -> %,.0f pps, loss %.4f%s%s%s%n",
                name,
                kind,
                frameBytes,
                ratePps > 0 ? String.format(" @%,d pps", ratePps) : "",
                run.sent(),
                run.received(),
                run.seconds(),
                run.pps(),
                run.loss(),
                ratePps > 0 && !kind.equals("search")
                        ? String.format(
                                ", latency p50 %.1f us p99 %.1f us p999 %.1f us",
                                run.percentile(0.5) / 1e3, run.percentile(0.99) / 1e3, run.percentile(0.999) / 1e3)
                        : "",
                cpu < 0
                        ? ""
                        : String.format(
                                ", forwarder CPU %.2f s (user %.2f s: %.0f ns a frame)",
                                cpu, user, run.received() == 0 ? 0.0 : user * 1e9 / run.received()),
                counted < 0
                        ? ""
                        : String.format(
                                "; lost %,d = counted by the forwarder %,d + before it (sender veth) %,d"
                                        + " + after it (egress veth, sink ring) %,d (%,d + %,d)%s",
                                lost,
                                counted,
                                before,
                                after,
                                egressVeth,
                                run.sinkDrops(),
                                row.exact() ? " (exact)" : " (MISMATCH " + (lost - counted - before - after) + ")"));
        if (!row.exact()) {
            notes.add("accounting mismatch in " + name + " " + kind + ": lost " + lost + ", counted " + counted
                    + ", before " + before + ", after " + after);
        }
        return row;
    }

    private static long txDropped(final Netns ns, final String ifName) {
        return Long.parseLong(ns.execOk("cat", "/sys/class/net/" + ifName + "/statistics/tx_dropped")
                .stdout()
                .trim());
    }

    private static String uptime() {
        return Commands.runOrFail("uptime").stdout().trim();
    }

    /** p50 / p99 / p99.9 in µs, or blank for a run not made (saturated-only mode). */
    private static String percentiles(final Row latency) {
        return latency == null
                ? ""
                : String.format(
                        "%.1f / %.1f / %.1f",
                        latency.run().percentile(0.5) / 1e3,
                        latency.run().percentile(0.99) / 1e3,
                        latency.run().percentile(0.999) / 1e3);
    }

    private static void report(final List<Row> rows, final int rate) {
        System.out.println();
        System.out.println("| target | 64 B pps (saturated) | loss | 1500 B pps | loss | no-drop rate (<= 0.1 %)"
                + " | 5,000 x 128 B burst delivered | half rate: offered / lost | latency @" + rate
                + " pps p50 / p99 / p99.9 (us) | the same, one spinning probe thread (us)"
                + " | 64 B saturated: forwarder CPU s / frames per CPU s / user-space ns a frame | accounting |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        final List<String> names =
                rows.stream().map(r -> r.run().target()).distinct().toList();
        for (final String name : names) {
            final Row small = find(rows, name, "throughput", 64);
            final Row big = find(rows, name, "throughput", 1500);
            final Row lat = find(rows, name, "latency", 64);
            final Row probe = find(rows, name, "latency-probe", 64);
            final Row burst = find(rows, name, "burst", 128);
            final Row noDrop = find(rows, name, "no-drop", 64);
            final Row half = find(rows, name, "half-rate", 64);
            final long exact = ALL_RUNS.stream()
                    .filter(r -> r.run().target().equals(name) && r.counted() >= 0)
                    .count();
            final long mismatches = ALL_RUNS.stream()
                    .filter(r -> r.run().target().equals(name) && !r.exact())
                    .count();
            System.out.printf(
                    "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    name,
                    small == null ? "" : String.format("%,.0f", small.run().pps()),
                    small == null ? "" : String.format("%.4f", small.run().loss()),
                    big == null ? "" : String.format("%,.0f", big.run().pps()),
                    big == null ? "" : String.format("%.4f", big.run().loss()),
                    noDrop == null
                            ? ""
                            : String.format(
                                    "%,.0f", noDrop.run().sent() / noDrop.run().seconds()),
                    burst == null
                            ? ""
                            : String.format(
                                    "%,d of %,d",
                                    burst.run().received(), burst.run().sent()),
                    half == null
                            ? ""
                            : String.format(
                                    "%,.0f pps %.0f s / %,d",
                                    half.run().sent() / half.run().seconds(),
                                    half.run().seconds(),
                                    half.run().sent() - half.run().received()),
                    percentiles(lat),
                    percentiles(probe),
                    small == null || small.cpu() <= 0
                            ? "-"
                            : String.format(
                                    "%.2f / %,.0f / %.0f",
                                    small.cpu(),
                                    small.run().received() / small.cpu(),
                                    small.userCpu() * 1e9 / small.run().received()),
                    exact == 0
                            ? "not counted"
                            : mismatches == 0 ? "exact (" + exact + " runs)" : mismatches + " MISMATCHES");
        }
        final Row bridge = find(rows, "bridge", "throughput", 64);
        final Row bridgeNoDrop = find(rows, "bridge", "no-drop", 64);
        for (final String name : names) {
            final Row own = find(rows, name, "throughput", 64);
            final Row noDrop = find(rows, name, "no-drop", 64);
            if (name.equals("bridge") || own == null || noDrop == null || bridge == null || bridgeNoDrop == null) {
                continue;
            }
            final double nd = noDrop.run().sent() / noDrop.run().seconds();
            System.out.printf(
                    "%s: /bridge 64 B saturated %.2fx; no-drop / own saturated %.2f; no-drop / bridge no-drop %.2f;"
                            + " no-drop / bridge saturated %.2f%n",
                    name,
                    own.run().pps() / bridge.run().pps(),
                    nd / own.run().pps(),
                    nd / (bridgeNoDrop.run().sent() / bridgeNoDrop.run().seconds()),
                    nd / bridge.run().pps());
        }
    }

    private static Row find(final List<Row> rows, final String name, final String kind, final int bytes) {
        return rows.stream()
                .filter(r -> r.run().target().equals(name)
                        && r.run().kind().equals(kind)
                        && r.run().frameBytes() == bytes)
                .findFirst()
                .orElse(null);
    }

    private static String readOrFail(final Path file) {
        try {
            return Files.readString(file);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeOrFail(final Path file, final String text) {
        try {
            Files.writeString(file, text);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleepMs(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
