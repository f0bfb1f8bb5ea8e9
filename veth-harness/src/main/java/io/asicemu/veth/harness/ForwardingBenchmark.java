package io.asicemu.veth.harness;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.PollSet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

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
    private static final int SEQ_OFFSET = 42;
    private static final int TS_OFFSET = 50;
    private static final String ROUTER_MAC = "02:aa:00:00:00:01";

    /** What one run measured. */
    record Run(String target, String kind, int frameBytes, long sent, long received, double seconds, long[] latencyNs) {
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

    private ForwardingBenchmark() {
    }

    /** @param args [seconds per run (3)] [latency rate in pps (100000)] */
    public static void main(final String[] args) throws Exception {
        final int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        final int rate = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        final List<Run> runs = new ArrayList<>();
        for (final String target : List.of("bridge", "asic-emu")) {
            try (NetnsLab lab = NetnsLab.create()) {
                final Netns h1 = lab.namespace("h1");
                final Netns h2 = lab.namespace("h2");
                h1.disableIpv6();
                h2.disableIpv6();
                InProcessSwitch sw = null;
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
                    sw = InProcessSwitch.start(config(h2.mac("eth1")), Map.of("Ethernet0", sw1, "Ethernet4", sw2),
                        new AfPacketConfig(8192, 1024, false, true, 100_000), 1.0);
                    sw.awaitPorts(2, Duration.ofSeconds(5));
                    sw.awaitIdleControl();
                    dstMac = ROUTER_MAC;
                }
                try {
                    final String srcMac = h1.mac("eth1");
                    // warm-up (JIT, ARP-free path), then the measured runs
                    run(target, "warmup", h1, h2, srcMac, dstMac, 64, 1, 0);
                    runs.add(run(target, "throughput", h1, h2, srcMac, dstMac, 64, seconds, 0));
                    runs.add(run(target, "throughput", h1, h2, srcMac, dstMac, 1500, seconds, 0));
                    runs.add(run(target, "latency", h1, h2, srcMac, dstMac, 64, seconds, rate));
                } finally {
                    if (sw != null) {
                        System.out.print(sw.counters().render());
                        sw.ports().forEach((name, port) -> System.out.printf("%s: rx %d, tx %d, tx ring full %d,"
                            + " kernel rx drops %d%n", name, port.rxFrameCount(), port.txFrameCount(),
                            port.txRingFullCount(), port.kernelDropCount()));
                        sw.close();
                    }
                }
            }
        }
        report(runs, rate);
    }

    private static ConfigDb config(final String h2Mac) {
        return ConfigDb.parse("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"" + ROUTER_MAC + "\"}},"
            + " \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\", \"admin_status\": \"up\", \"mtu\": \"9100\"},"
            + " \"Ethernet4\": {\"speed\": \"100000\", \"admin_status\": \"up\", \"mtu\": \"9100\"}},"
            + " \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.254/24\": {}, \"Ethernet4\": {},"
            + " \"Ethernet4|10.0.2.254/24\": {}}, \"NEIGH\": {\"Ethernet4|10.0.2.1\": {\"neigh\": \"" + h2Mac
            + "\"}}}");
    }

    private static Run run(final String target, final String kind, final Netns h1, final Netns h2,
        final String srcMac, final String dstMac, final int frameBytes, final int seconds, final int ratePps)
        throws InterruptedException {
        final byte[] frame = frame(frameBytes - 4, srcMac, dstMac);
        final AtomicBoolean receiverReady = new AtomicBoolean();
        final AtomicBoolean senderDone = new AtomicBoolean();
        final long[] sent = new long[1];
        final long[] received = new long[1];
        final long[] latencies = new long[ratePps > 0 ? ratePps * seconds + 1024 : 0];
        final long[] times = new long[2];
        final Throwable[] failure = new Throwable[2];
        final Thread receiver = new Thread(() -> {
            try {
                Libc.enterNetworkNamespace(h2.name());
                received[0] = receive(receiverReady, senderDone, latencies);
            } catch (final Throwable t) {
                failure[0] = t;
                receiverReady.set(true);
            }
        }, "bench-rx");
        final Thread sender = new Thread(() -> {
            try {
                Libc.enterNetworkNamespace(h1.name());
                while (!receiverReady.get()) {
                    Thread.onSpinWait();
                }
                times[0] = System.nanoTime();
                sent[0] = send(frame, seconds, ratePps);
                times[1] = System.nanoTime();
            } catch (final Throwable t) {
                failure[1] = t;
            } finally {
                senderDone.set(true);
            }
        }, "bench-tx");
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
        final Run run = new Run(target, kind, frameBytes, sent[0], received[0], (times[1] - times[0]) / 1e9, sorted);
        System.out.printf("%-8s %-10s %5d B: sent %,d received %,d in %.2f s -> %,.0f pps, loss %.4f%s%n", target,
            kind, frameBytes, run.sent(), run.received(), run.seconds(), run.pps(), run.loss(), ratePps > 0
                ? String.format(", latency p50 %.1f us p99 %.1f us p999 %.1f us", run.percentile(0.5) / 1e3,
                    run.percentile(0.99) / 1e3, run.percentile(0.999) / 1e3) : "");
        return run;
    }

    private static long send(final byte[] frame, final int seconds, final int ratePps) {
        try (AfPacketPort port = AfPacketPort.open("eth1", new AfPacketConfig(64, 1024, false, false, 100_000));
             Arena arena = Arena.ofConfined()) {
            final MemorySegment template = arena.allocate(frame.length, 64);
            MemorySegment.copy(frame, 0, template, ValueLayout.JAVA_BYTE, 0, frame.length);
            final long start = System.nanoTime();
            final long end = start + seconds * 1_000_000_000L;
            final long intervalNs = ratePps > 0 ? 1_000_000_000L / ratePps : 0;
            long seq = 0;
            long now = start;
            while (now - end < 0) {
                if (intervalNs > 0) {
                    final long due = start + seq * intervalNs;
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
                if (intervalNs > 0 || (seq & 31) == 0) {
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

    private static long receive(final AtomicBoolean ready, final AtomicBoolean senderDone, final long[] latencies) {
        try (AfPacketPort port = AfPacketPort.open("eth1", new AfPacketConfig(4096, 8, false, true, 100_000));
             PollSet poll = new PollSet(1)) {
            poll.add(port.pollFd());
            final RxBatch batch = new RxBatch(256);
            ready.set(true);
            long count = 0;
            long quietSince = 0;
            while (true) {
                final int n = port.receive(batch, 0);
                final long now = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    final MemorySegment seg = batch.segment(i);
                    final long off = batch.offset(i);
                    if (batch.length(i) >= TS_OFFSET + 8 && seg.get(ValueLayout.JAVA_BYTE, off + 37) == 9
                        && seg.get(ValueLayout.JAVA_BYTE, off + 23) == 17) {
                        if (count < latencies.length) {
                            latencies[(int) count] = now - seg.get(LONG_BE, off + TS_OFFSET);
                        }
                        count++;
                    }
                }
                if (n > 0) {
                    port.release(batch);
                    quietSince = 0;
                } else if (senderDone.get()) {
                    if (quietSince == 0) {
                        quietSince = now;
                    } else if (now - quietSince > 300_000_000L) {
                        return count;
                    }
                    poll.await(10_000_000L);
                }
            }
        }
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

    private static void report(final List<Run> runs, final int rate) {
        System.out.println();
        System.out.println("| target | 64 B pps | 64 B loss | 1500 B pps | 1500 B loss | latency @" + rate
            + " pps p50 / p99 / p999 (us) | latency loss |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (final String target : List.of("bridge", "asic-emu")) {
            final Run small = find(runs, target, "throughput", 64);
            final Run big = find(runs, target, "throughput", 1500);
            final Run lat = find(runs, target, "latency", 64);
            System.out.printf("| %s | %,.0f | %.4f | %,.0f | %.4f | %.1f / %.1f / %.1f | %.4f |%n", target,
                small.pps(), small.loss(), big.pps(), big.loss(), lat.percentile(0.5) / 1e3,
                lat.percentile(0.99) / 1e3, lat.percentile(0.999) / 1e3, lat.loss());
        }
        final Run b64 = find(runs, "bridge", "throughput", 64);
        final Run a64 = find(runs, "asic-emu", "throughput", 64);
        final Run b1500 = find(runs, "bridge", "throughput", 1500);
        final Run a1500 = find(runs, "asic-emu", "throughput", 1500);
        final Run bl = find(runs, "bridge", "latency", 64);
        final Run al = find(runs, "asic-emu", "latency", 64);
        System.out.printf("%nasic-emu/bridge: 64 B pps %.2fx, 1500 B pps %.2fx, p99 latency %.2fx%n",
            a64.pps() / b64.pps(), a1500.pps() / b1500.pps(),
            (double) al.percentile(0.99) / bl.percentile(0.99));
    }

    private static Run find(final List<Run> runs, final String target, final String kind, final int bytes) {
        return runs.stream().filter(r -> r.target().equals(target) && r.kind().equals(kind)
            && r.frameBytes() == bytes).findFirst().orElseThrow();
    }
}
