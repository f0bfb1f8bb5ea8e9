package io.asicemu.veth.harness;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.PollSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Forwarding benchmark (not a test): on the same veth topology (sender namespace — device — receiver namespace,
 * containerlab offloads), measures asic-emu (in-process, routing between two ports, one data-plane thread) and the
 * Linux kernel bridge: forwarded packets/s and loss for 64- and 1500-byte frames sent as fast as a Java TX ring can,
 * and one-way latency p50/p99/p999 at a fixed rate. Traffic threads enter the host namespaces (setns) and use
 * AF_PACKET rings; the timestamp travels in the payload (same clock at both ends).
 * <p>
 * Run (root): {@code java --enable-native-access=ALL-UNNAMED -cp <veth-harness classpath>
 * io.asicemu.veth.harness.ForwardingBenchmark [seconds] [latencyRatePps]}.
 */
public final class ForwardingBenchmark {
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int SEQ_OFFSET = 42;
    private static final int TS_OFFSET = 50;
    private static final String ROUTER_MAC = "02:aa:00:00:00:01";
    /** Generator and sink share this core (the bridge forwards in their softirq), the switch gets the other. */
    private static final int TRAFFIC_CPU = 0;

    private static final int SWITCH_CPU = 1;
    /** The sink stops after this long without a frame once the sender is done (a starved switch may lag that long). */
    private static final long QUIET_NS = 1_000_000_000L;
    /**
     * Between empty looks at its ring a throughput run's sink sleeps on a timer this long instead of on its socket.
     * A veth pair hands a frame to the peer's stack on the sending CPU, so a sink asleep on its socket is woken from
     * the forwarder's CPU, which pays for that cross-CPU wake-up: measured with {@code perf} on the switch's CPU at half
     * rate, {@code sock_def_readable} of the sink's socket took 22 % of it. A sink on a timer is never found waiting
     * there. Its ring ({@link SinkRing}, 32,768 slots) holds 68 ms at 480 kpps, far longer than the nap.
     */
    private static final long SINK_NAP_NS = 100_000;
    /** {@code -Dasicemu.bench.wokenSink=true}: every run's sink sleeps on its socket, as before (for A/B runs). */
    static final boolean WOKEN_SINK = Boolean.getBoolean("asicemu.bench.wokenSink");

    private static final java.util.concurrent.atomic.AtomicInteger RUN_IDS =
            new java.util.concurrent.atomic.AtomicInteger(0x1000);

    /** What one run measured. */
    public record Run(
            String target,
            String kind,
            int frameBytes,
            long sent,
            long received,
            double seconds,
            long[] latencyNs,
            long sinkDrops) {
        double pps() {
            return received / seconds;
        }

        double loss() {
            return sent == 0 ? 0 : 1.0 - (double) received / sent;
        }

        long percentile(final double p) {
            if (latencyNs.length == 0) {
                return -1;
            }
            return latencyNs[(int) Math.min(latencyNs.length - 1, Math.floor(p * latencyNs.length))];
        }
    }

    private ForwardingBenchmark() {}

    /** What a run against asic-emu left in its counters: frames dropped under a reason, and the reasons. */
    record Accounting(long countedDrops, String reasons) {}

    /** The switch under test and how to read its drop counters (null for the bridge). */
    private static final class Target {
        final String name;
        final LinuxSwitch sw;
        final String egressIf;

        Target(final String name, final LinuxSwitch sw, final String egressIf) {
            this.name = name;
            this.sw = sw;
            this.egressIf = egressIf;
        }

        /** Frames the switch's egress veth could not hand to the sink's side (its backlog was full). */
        long egressVethDrops() {
            if (egressIf == null) {
                return 0;
            }
            try {
                return Long.parseLong(java.nio.file.Files.readString(
                                java.nio.file.Path.of("/sys/class/net", egressIf, "statistics", "tx_dropped"))
                        .trim());
            } catch (final java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        long drops() {
            if (sw == null) {
                return 0;
            }
            sw.awaitIdleControl(); // the agent folds ring overflow counts in every 100 ms; wait for one fold
            sleepMs(250);
            return sw.counters().drops().values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
        }
    }

    /**
     * @param args [seconds per run (3)] [latency rate in pps (5000)] [seconds at half the saturated rate (60)]
     *             [busy-poll window of the low-latency run in us (1000)]
     *             [RX ring depths to compare, comma-separated (the lab default's); RX/TX compares TX depths too]
     */
    public static void main(final String[] args) throws Exception {
        final int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        final int rate = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        final int halfRateSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        final long busyPollUs = args.length > 3 ? Long.parseLong(args[3]) : 1_000;
        final AfPacketConfig labDefault = AfPacketConfig.defaults();
        final List<String> targets = new ArrayList<>(List.of("bridge"));
        for (final String depth : (args.length > 4 ? args[4] : "" + labDefault.rxFrames()).split(",")) {
            final String[] rxTx = depth.trim().split("/"); // "RX" or "RX/TX"
            targets.add("asic-emu rx " + Integer.parseInt(rxTx[0])
                    + (rxTx.length > 1 ? " tx " + Integer.parseInt(rxTx[1]) : ""));
        }
        targets.add("asic-emu-lowlat");
        final List<Run> runs = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        for (final String target : targets) {
            try (NetnsLab lab = NetnsLab.create()) {
                final Netns h1 = lab.namespace("h1");
                final Netns h2 = lab.namespace("h2");
                h1.disableIpv6();
                h2.disableIpv6();
                LinuxSwitch sw = null;
                String egress = null;
                final String dstMac;
                if (target.equals("bridge")) {
                    final Netns br = lab.namespace("br");
                    br.disableIpv6();
                    lab.link(br, "p1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
                    lab.link(br, "p2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
                    br.execOk("ip", "link", "add", "br0", "type", "bridge");
                    br.execOk("ip", "link", "set", "p1", "master", "br0");
                    br.execOk("ip", "link", "set", "p2", "master", "br0");
                    br.execOk("ip", "link", "set", "br0", "up");
                    dstMac = h2.mac("eth1");
                } else {
                    final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
                    final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
                    egress = sw2;
                    final String[] depths = target.endsWith("lowlat")
                            ? new String[] {"" + labDefault.rxFrames(), "tx", "" + labDefault.txFrames()}
                            : target.substring("asic-emu rx ".length()).split(" ");
                    final AfPacketConfig ports = labDefault.withRxFrames(Integer.parseInt(depths[0]));
                    sw = LinuxSwitch.start(
                            config(h2.mac("eth1")),
                            Map.of("Ethernet0", sw1, "Ethernet4", sw2),
                            depths.length > 2 ? ports.withTxFrames(Integer.parseInt(depths[2])) : ports,
                            1.0,
                            target.endsWith("lowlat") ? busyPollUs * 1000 : 0);
                    sw.awaitPorts(2, Duration.ofSeconds(5));
                    sw.control().run(c -> c.submit(agent -> Libc.pinCurrentThread(SWITCH_CPU)));
                    sw.awaitIdleControl();
                    dstMac = ROUTER_MAC;
                }
                final Target t = new Target(target, sw, egress);
                try {
                    final String srcMac = h1.mac("eth1");
                    run(t, "warmup", h1, h2, srcMac, dstMac, 64, 1, 0, 0, notes);
                    if (target.endsWith("lowlat")) {
                        runs.add(run(t, "latency", h1, h2, srcMac, dstMac, 64, seconds, rate, 0, notes));
                        continue;
                    }
                    final Run saturated = run(t, "throughput", h1, h2, srcMac, dstMac, 64, seconds, 0, 0, notes);
                    runs.add(saturated);
                    runs.add(run(t, "throughput", h1, h2, srcMac, dstMac, 1500, seconds, 0, 0, notes));
                    runs.add(run(t, "latency", h1, h2, srcMac, dstMac, 64, seconds, rate, 0, notes));
                    runs.add(run(t, "burst", h1, h2, srcMac, dstMac, 128, seconds, 0, 5_000, notes));
                    runs.add(noDropSearch(t, h1, h2, srcMac, dstMac, saturated, notes));
                    if (halfRateSeconds > 0) {
                        runs.add(run(
                                t,
                                "half-rate",
                                h1,
                                h2,
                                srcMac,
                                dstMac,
                                64,
                                halfRateSeconds,
                                (int) Math.max(1_000, saturated.pps() / 2),
                                0,
                                notes));
                    }
                } finally {
                    if (sw != null) {
                        System.out.print(sw.counters().render());
                        sw.ports()
                                .forEach((name, port) -> System.out.printf(
                                        "%s: rx %d, tx %d, tx ring full %d," + " kernel rx drops %d, ring %d KiB%n",
                                        name,
                                        port.rxFrameCount(),
                                        port.txFrameCount(),
                                        port.txRingFullCount(),
                                        port.kernelDropCount(),
                                        port.ringBytes() / 1024));
                        sw.close();
                    }
                }
            }
        }
        report(runs, targets, rate, busyPollUs);
        notes.forEach(System.out::println);
    }

    /**
     * Highest offered rate with ≤ 0.1 % loss, by binary search between 0 and the generator's full rate (2 s steps,
     * 7 halvings: within 1 % of the generator's rate).
     */
    private static Run noDropSearch(
            final Target t,
            final Netns h1,
            final Netns h2,
            final String srcMac,
            final String dstMac,
            final Run saturated,
            final List<String> notes)
            throws InterruptedException {
        double low = 0;
        double high = saturated.sent() / saturated.seconds();
        Run best = null;
        for (int i = 0; i < 7; i++) {
            final double mid = (low + high) / 2;
            final Run r = run(t, "search", h1, h2, srcMac, dstMac, 64, 2, (int) mid, 0, notes);
            if (r.loss() <= 0.001) {
                low = mid;
                best = r;
            } else {
                high = mid;
            }
        }
        final Run found = best != null ? best : new Run(t.name, "search", 64, 0, 0, 1, new long[0], 0);
        return new Run(
                t.name,
                "no-drop",
                64,
                found.sent(),
                found.received(),
                found.seconds(),
                found.latencyNs(),
                found.sinkDrops());
    }

    static ConfigDb config(final String h2Mac) {
        return ConfigDb.parse(configJson(h2Mac));
    }

    /** The switch's config_db.json: routes 10.0.1.0/24 (Ethernet0) and 10.0.2.0/24 (Ethernet4), h2 a static neighbor. */
    static String configJson(final String h2Mac) {
        return "{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"" + ROUTER_MAC + "\"}},"
                + " \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\", \"admin_status\": \"up\", \"mtu\": \"9100\"},"
                + " \"Ethernet4\": {\"speed\": \"100000\", \"admin_status\": \"up\", \"mtu\": \"9100\"}},"
                + " \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.254/24\": {}, \"Ethernet4\": {},"
                + " \"Ethernet4|10.0.2.254/24\": {}}, \"NEIGH\": {\"Ethernet4|10.0.2.1\": {\"neigh\": \"" + h2Mac
                + "\"}}}";
    }

    private static Run run(
            final Target t,
            final String kind,
            final Netns h1,
            final Netns h2,
            final String srcMac,
            final String dstMac,
            final int frameBytes,
            final int seconds,
            final int ratePps,
            final long maxFrames,
            final List<String> notes)
            throws InterruptedException {
        final long dropsBefore = t.drops();
        final long hostDropsBefore = senderTxDrops(h1);
        final long egressDropsBefore = t.egressVethDrops();
        final Run run = measure(t.name, kind, h1, h2, srcMac, dstMac, frameBytes, seconds, ratePps, maxFrames);
        final long counted = t.drops() - dropsBefore;
        final long hostDrops = senderTxDrops(h1) - hostDropsBefore;
        final long afterSwitch = t.egressVethDrops() - egressDropsBefore + run.sinkDrops();
        final long lost = run.sent() - run.received();
        final long explained = counted + hostDrops + afterSwitch;
        final String accounting = t.sw == null
                ? ""
                : String.format(
                        "; lost %,d = counted by the switch %,d + before it (sender veth) %,d + after it (egress veth, sink ring)"
                                + " %,d%s",
                        lost,
                        counted,
                        hostDrops,
                        afterSwitch,
                        lost == explained ? " (exact)" : " (MISMATCH " + (lost - explained) + ")");
        System.out.printf(
                "%-15s %-10s %5d B%s: sent %,d received %,d in %.2f s -> %,.0f pps, loss %.4f%s%s%n",
                t.name,
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
                accounting);
        if (t.sw != null && lost != explained) {
            notes.add("accounting mismatch in " + t.name + " " + kind + ": lost " + lost + ", counted " + counted
                    + ", sender veth " + hostDrops + ", after the switch " + afterSwitch);
        }
        return run;
    }

    /** Frames the sender's veth dropped on its way in (peer backlog full): lost before any switch saw them. */
    private static long senderTxDrops(final Netns h1) {
        final String out = h1.execOk("cat", "/sys/class/net/eth1/statistics/tx_dropped")
                .stdout()
                .trim();
        return out.isEmpty() ? 0 : Long.parseLong(out);
    }

    private static void sleepMs(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static Run measure(
            final String target,
            final String kind,
            final Netns h1,
            final Netns h2,
            final String srcMac,
            final String dstMac,
            final int frameBytes,
            final int seconds,
            final int ratePps,
            final long maxFrames)
            throws InterruptedException {
        final int runId = RUN_IDS.incrementAndGet() & 0xffff;
        final byte[] frame = frame(frameBytes - 4, srcMac, dstMac);
        frame[34] = (byte) (runId >>> 8); // UDP source port = run id: late frames of an earlier run are not counted
        frame[35] = (byte) runId;
        final AtomicBoolean receiverReady = new AtomicBoolean();
        final AtomicBoolean senderDone = new AtomicBoolean();
        final long[] sent = new long[1];
        final long[] received = new long[1];
        final long[] sinkDrops = new long[1];
        final long[] latencies =
                new long[ratePps > 0 ? (int) Math.min(20_000_000L, (long) ratePps * seconds + 1024) : 0];
        final long[] times = new long[2];
        final Throwable[] failure = new Throwable[2];
        final Thread receiver = new Thread(
                () -> {
                    try {
                        Libc.enterNetworkNamespace(h2.name());
                        Libc.pinCurrentThread(TRAFFIC_CPU);
                        received[0] = receive(
                                receiverReady,
                                senderDone,
                                latencies,
                                runId,
                                sinkDrops,
                                WOKEN_SINK || kind.equals("latency"));
                    } catch (final Throwable t) {
                        failure[0] = t;
                        receiverReady.set(true);
                    }
                },
                "bench-rx");
        final Thread sender = new Thread(
                () -> {
                    try {
                        Libc.enterNetworkNamespace(h1.name());
                        Libc.pinCurrentThread(TRAFFIC_CPU);
                        while (!receiverReady.get()) {
                            Thread.onSpinWait();
                        }
                        times[0] = System.nanoTime();
                        sent[0] = send(frame, seconds, ratePps, maxFrames);
                        times[1] = System.nanoTime();
                    } catch (final Throwable t) {
                        failure[1] = t;
                    } finally {
                        senderDone.set(true);
                    }
                },
                "bench-tx");
        receiver.start();
        sender.start();
        sender.join();
        receiver.join();
        for (final Throwable t : failure) {
            if (t != null) {
                throw new IllegalStateException("benchmark thread failed", t);
            }
        }
        final int count = (int) Math.min(latencies.length, received[0]);
        final long[] sorted = Arrays.copyOf(latencies, ratePps > 0 ? count : 0);
        Arrays.sort(sorted);
        return new Run(
                target,
                kind,
                frameBytes,
                sent[0],
                received[0],
                Math.max(1e-6, (times[1] - times[0]) / 1e9),
                sorted,
                sinkDrops[0]);
    }

    /**
     * One-way latency at a fixed rate measured by one thread that both sends and receives, spinning on its pinned CPU:
     * it opens the sender's socket in {@code h1} and the sink's in {@code h2} (a socket keeps the namespace it was
     * made in) and never sleeps, so no wake-up of the sink is in the figure. With {@link #measure}'s two threads the
     * sink blocks in poll(2) and is woken by the egress softirq on the forwarder's CPU: on this VM that cross-CPU
     * wake-up alone measured ≈ 60 µs p50 for every forwarder, the C busy-poll one included, which hides what the
     * forwarder itself costs. Both figures are reported; this one is the forwarder's own latency plus two veth hops.
     */
    public static Run measureWithSpinningProbe(
            final String target,
            final String kind,
            final Netns h1,
            final Netns h2,
            final String srcMac,
            final String dstMac,
            final int frameBytes,
            final int seconds,
            final int ratePps)
            throws InterruptedException {
        if (ratePps <= 0) {
            throw new IllegalArgumentException("the probe measures at a fixed rate: " + ratePps);
        }
        final int runId = RUN_IDS.incrementAndGet() & 0xffff;
        final byte[] frame = frame(frameBytes - 4, srcMac, dstMac);
        frame[34] = (byte) (runId >>> 8);
        frame[35] = (byte) runId;
        final long[] latencies = new long[(int) Math.min(20_000_000L, (long) ratePps * seconds + 1024)];
        final long[] result = new long[4]; // sent, received, sink drops, elapsed ns
        // -Dasicemu.probe.dump=<prefix>: every frame's send and receive time (CLOCK_MONOTONIC ns) to
        // <prefix>-<run>.txt,
        // to join with the switch's -Dasicemu.frameTrace record (the send time is the frame's key there)
        final String dump = System.getProperty("asicemu.probe.dump");
        final long[] receivedAt = new long[dump != null ? latencies.length : 0];
        final Throwable[] failure = new Throwable[1];
        final Thread probe = new Thread(
                () -> {
                    try {
                        Libc.pinCurrentThread(TRAFFIC_CPU);
                        Libc.enterNetworkNamespace(h1.name());
                        try (AfPacketPort tx =
                                        AfPacketPort.open("eth1", new AfPacketConfig(64, 1024, false, false, 100_000));
                                Arena arena = Arena.ofConfined()) {
                            Libc.enterNetworkNamespace(h2.name());
                            try (AfPacketPort rx =
                                    AfPacketPort.open("eth1", new AfPacketConfig(4096, 8, false, true, 100_000))) {
                                spinProbe(tx, rx, arena, frame, seconds, ratePps, runId, latencies, receivedAt, result);
                            }
                        }
                    } catch (final Throwable t) {
                        failure[0] = t;
                    }
                },
                "bench-probe");
        probe.start();
        probe.join();
        if (failure[0] != null) {
            throw new IllegalStateException("probe thread failed", failure[0]);
        }
        final int count = (int) Math.min(latencies.length, result[1]);
        if (dump != null) {
            final StringBuilder text = new StringBuilder();
            for (int i = 0; i < count; i++) {
                text.append(receivedAt[i] - latencies[i])
                        .append(' ')
                        .append(receivedAt[i])
                        .append('\n');
            }
            try {
                Files.writeString(Path.of(dump + "-" + runId + ".txt"), text);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        final long[] sorted = Arrays.copyOf(latencies, count);
        Arrays.sort(sorted);
        return new Run(
                target, kind, frameBytes, result[0], result[1], Math.max(1e-6, result[3] / 1e9), sorted, result[2]);
    }

    private static void spinProbe(
            final AfPacketPort tx,
            final AfPacketPort rx,
            final Arena arena,
            final byte[] frame,
            final int seconds,
            final int ratePps,
            final int runId,
            final long[] latencies,
            final long[] receivedAt,
            final long[] result) {
        final MemorySegment template = arena.allocate(frame.length, 64);
        MemorySegment.copy(frame, 0, template, ValueLayout.JAVA_BYTE, 0, frame.length);
        final RxBatch batch = new RxBatch(256);
        final double intervalNs = 1e9 / ratePps;
        final long start = System.nanoTime();
        final long end = start + seconds * 1_000_000_000L;
        long seq = 0;
        long received = 0;
        long lastSendNs = start;
        long nextDue = start;
        while (true) {
            long now = System.nanoTime();
            if (now - end < 0 && now - nextDue >= 0) {
                template.set(LONG_BE, SEQ_OFFSET, seq);
                template.set(LONG_BE, TS_OFFSET, System.nanoTime());
                while (!tx.transmit(template, 0, frame.length, 0)) {
                    tx.flush();
                }
                tx.flush();
                seq++;
                lastSendNs = System.nanoTime();
                nextDue = start + (long) (seq * intervalNs);
            }
            final int n = rx.receive(batch, 0);
            if (n > 0) {
                now = System.nanoTime();
                final long before = received;
                received = countRunFrames(batch, n, runId, now, latencies, received);
                for (long j = before; j < Math.min(received, receivedAt.length); j++) {
                    receivedAt[(int) j] = now;
                }
                rx.release(batch);
            } else if (now - end >= 0 && (received == seq || now - lastSendNs > QUIET_NS)) {
                break;
            } else {
                Thread.onSpinWait();
            }
        }
        result[0] = seq;
        result[1] = received;
        result[2] = rx.kernelDropCount();
        result[3] = lastSendNs - start;
    }

    /**
     * Sends for {@code seconds} (or until {@code maxFrames} were sent, if > 0) at {@code ratePps} (0: as fast as the
     * TX ring goes). Paced sending kicks the ring when ahead of schedule or every 32 frames.
     */
    static long send(final byte[] frame, final int seconds, final int ratePps, final long maxFrames) {
        try (AfPacketPort port = AfPacketPort.open("eth1", new AfPacketConfig(64, 1024, false, false, 100_000));
                Arena arena = Arena.ofConfined()) {
            final MemorySegment template = arena.allocate(frame.length, 64);
            MemorySegment.copy(frame, 0, template, ValueLayout.JAVA_BYTE, 0, frame.length);
            final long start = System.nanoTime();
            final long end = start + seconds * 1_000_000_000L;
            final double intervalNs = ratePps > 0 ? 1e9 / ratePps : 0;
            long seq = 0;
            long now = start;
            while (now - end < 0 && (maxFrames <= 0 || seq < maxFrames)) {
                if (intervalNs > 0) {
                    final long due = start + (long) (seq * intervalNs);
                    while ((now = System.nanoTime()) - due < 0) {
                        Thread.onSpinWait();
                    }
                }
                template.set(LONG_BE, SEQ_OFFSET, seq);
                template.set(LONG_BE, TS_OFFSET, System.nanoTime());
                while (!port.transmit(template, 0, frame.length, 0)) {
                    port.flush();
                }
                seq++;
                if (intervalNs > 0) {
                    final long nextDue = start + (long) (seq * intervalNs);
                    if (System.nanoTime() - nextDue < 0 || (seq & 31) == 0) {
                        port.flush(); // ahead of schedule: kick now; behind: batch up to 32 frames per kick
                    }
                } else if ((seq & 31) == 0) {
                    port.flush();
                }
                if (intervalNs == 0 && (seq & 1023) == 0) {
                    now = System.nanoTime();
                }
            }
            port.flush();
            return seq;
        }
    }

    private static long receive(
            final AtomicBoolean ready,
            final AtomicBoolean senderDone,
            final long[] latencies,
            final int runId,
            final long[] sinkDrops,
            final boolean wokenBySocket) {
        try (SinkRing ring = new SinkRing("eth1");
                PollSet poll = new PollSet(1)) {
            poll.add(ring.fd());
            ready.set(true);
            long count = 0;
            long quietSince = 0;
            while (true) {
                final long now = System.nanoTime();
                int n = 0;
                for (; n < 256 && ring.ready(); n++) {
                    count = countRunFrame(ring, runId, now, latencies, count);
                    ring.next();
                }
                if (n > 0) {
                    quietSince = 0;
                } else if (senderDone.get()) {
                    if (quietSince == 0) {
                        quietSince = now;
                    } else if (now - quietSince > QUIET_NS) {
                        sinkDrops[0] = ring.drops(); // the sink's own RX ring overflowed
                        return count;
                    }
                    poll.await(10_000_000L);
                } else if (wokenBySocket) {
                    // block, never spin: the sink shares its pinned CPU with the sender, and two spinning threads on
                    // one CPU take turns per scheduler tick (4 ms), which measured the bridge's p50 at 4 ms
                    poll.await(1_000_000L);
                } else {
                    LockSupport.parkNanos(SINK_NAP_NS); // see SINK_NAP_NS: not woken from the forwarder's CPU
                }
            }
        }
    }

    /**
     * Counts the sink ring's current frame if it is this run's (UDP to port 9 from source port {@code runId}) and
     * records its latency at index {@code count} while there is room.
     *
     * @return {@code count}, plus one if the frame is the run's.
     */
    private static long countRunFrame(
            final SinkRing ring, final int runId, final long nowNs, final long[] latencies, final long count) {
        final MemorySegment seg = ring.ring();
        final long off = ring.head();
        if (ring.headLength() >= TS_OFFSET + 8
                && seg.get(ValueLayout.JAVA_BYTE, off + 37) == 9
                && seg.get(ValueLayout.JAVA_BYTE, off + 23) == 17
                && (seg.get(SHORT_BE, off + 34) & 0xffff) == runId) {
            if (count < latencies.length) {
                latencies[(int) count] = nowNs - seg.get(LONG_BE, off + TS_OFFSET);
            }
            return count + 1;
        }
        return count;
    }

    /**
     * Counts this run's frames in {@code batch} (UDP to port 9 from source port {@code runId}) and records each one's
     * latency at index {@code count} onwards while there is room.
     *
     * @return {@code count} plus the run's frames found.
     */
    private static long countRunFrames(
            final RxBatch batch, final int n, final int runId, final long nowNs, final long[] latencies, long count) {
        for (int i = 0; i < n; i++) {
            final MemorySegment seg = batch.segment(i);
            final long off = batch.offset(i);
            if (batch.length(i) >= TS_OFFSET + 8
                    && seg.get(ValueLayout.JAVA_BYTE, off + 37) == 9
                    && seg.get(ValueLayout.JAVA_BYTE, off + 23) == 17
                    && (seg.get(SHORT_BE, off + 34) & 0xffff) == runId) {
                if (count < latencies.length) {
                    latencies[(int) count] = nowNs - seg.get(LONG_BE, off + TS_OFFSET);
                }
                count++;
            }
        }
        return count;
    }

    /** An Ethernet/IPv4/UDP frame of {@code length} bytes (without FCS) to UDP port 9 with room for seq + ts. */
    static byte[] frame(final int length, final String srcMac, final String dstMac) {
        final byte[] f = new byte[length];
        System.arraycopy(HexFormat.ofDelimiter(":").parseHex(dstMac), 0, f, 0, 6);
        System.arraycopy(HexFormat.ofDelimiter(":").parseHex(srcMac), 0, f, 6, 6);
        f[12] = 0x08;
        f[14] = 0x45;
        final int ipLength = length - 14;
        f[16] = (byte) (ipLength >>> 8);
        f[17] = (byte) ipLength;
        f[22] = 64;
        f[23] = 17;
        final byte[] src = {10, 0, 1, 1};
        final byte[] dst = {10, 0, 2, 1};
        System.arraycopy(src, 0, f, 26, 4);
        System.arraycopy(dst, 0, f, 30, 4);
        int sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += ((f[i] & 0xff) << 8) | (f[i + 1] & 0xff);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        sum = ~sum & 0xffff;
        f[24] = (byte) (sum >>> 8);
        f[25] = (byte) sum;
        f[34] = 0x04;
        f[35] = (byte) 0xd2;
        f[37] = 9;
        final int udpLength = ipLength - 20;
        f[38] = (byte) (udpLength >>> 8);
        f[39] = (byte) udpLength;
        return f;
    }

    private static void report(
            final List<Run> runs, final List<String> targets, final int rate, final long busyPollUs) {
        System.out.println();
        System.out.println("| target | 64 B pps (saturated) | loss | 1500 B pps | loss | no-drop rate (<= 0.1 %)"
                + " | 5,000 x 128 B burst delivered | half rate: offered / lost | latency @" + rate
                + " pps p50 / p99 / p99.9 (us) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (final String target : targets.subList(0, targets.size() - 1)) {
            final Run small = find(runs, target, "throughput", 64);
            final Run big = find(runs, target, "throughput", 1500);
            final Run lat = find(runs, target, "latency", 64);
            final Run burst = find(runs, target, "burst", 128);
            final Run noDrop = find(runs, target, "no-drop", 64);
            final Run half = runs.stream()
                    .filter(r -> r.target().equals(target) && r.kind().equals("half-rate"))
                    .findFirst()
                    .orElse(null);
            System.out.printf(
                    "| %s | %,.0f | %.4f | %,.0f | %.4f | %,.0f | %,d of %,d | %s | %.1f / %.1f / %.1f |%n",
                    target,
                    small.pps(),
                    small.loss(),
                    big.pps(),
                    big.loss(),
                    noDrop.sent() / noDrop.seconds(),
                    burst.received(),
                    burst.sent(),
                    half == null
                            ? "-"
                            : String.format(
                                    "%,.0f pps %.0f s / %,d",
                                    half.sent() / half.seconds(), half.seconds(), half.sent() - half.received()),
                    lat.percentile(0.5) / 1e3,
                    lat.percentile(0.99) / 1e3,
                    lat.percentile(0.999) / 1e3);
        }
        final Run low = find(runs, "asic-emu-lowlat", "latency", 64);
        System.out.printf(
                "| asic-emu --busy-poll-us %d | | | | | | | | %.1f / %.1f / %.1f |%n",
                busyPollUs, low.percentile(0.5) / 1e3, low.percentile(0.99) / 1e3, low.percentile(0.999) / 1e3);
        final Run b64 = find(runs, "bridge", "throughput", 64);
        final String main = "asic-emu rx " + AfPacketConfig.defaults().rxFrames();
        if (!targets.contains(main)) {
            return;
        }
        final Run a64 = find(runs, main, "throughput", 64);
        final Run aNoDrop = find(runs, main, "no-drop", 64);
        final Run bNoDrop = find(runs, "bridge", "no-drop", 64);
        System.out.printf(
                "%n" + main + ": /bridge 64 B saturated: %.2fx; asic-emu no-drop / own saturated: %.2f;"
                        + " asic-emu no-drop / bridge no-drop: %.2f; asic-emu no-drop / bridge saturated: %.2f%n",
                a64.pps() / b64.pps(),
                aNoDrop.sent() / aNoDrop.seconds() / a64.pps(),
                (aNoDrop.sent() / aNoDrop.seconds()) / (bNoDrop.sent() / bNoDrop.seconds()),
                aNoDrop.sent() / aNoDrop.seconds() / b64.pps());
    }

    private static Run find(final List<Run> runs, final String target, final String kind, final int bytes) {
        return runs.stream()
                .filter(r -> r.target().equals(target) && r.kind().equals(kind) && r.frameBytes() == bytes)
                .findFirst()
                .orElseThrow();
    }
}
