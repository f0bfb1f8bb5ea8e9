package io.asicemu.switchd;

import static io.asicemu.switchd.P4RuntimeClient.ipv4;
import static io.asicemu.switchd.P4RuntimeClient.mac;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.Code;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * A live soak of {@code asic-emu run} as its own process with the product's JVM flags ({@code switchd/jvm.options},
 * plus native memory tracking) (issue 14), on two veth links into namespaces: first 300 TCP connections to P4Runtime
 * that never speak are held open (the server takes its connection limit's worth, 64, refuses the rest at accept, and
 * closes the ones it took after its 10 s handshake timeout: its descriptors come back while ours stay open); then, for {@code -Dasicemu.soak.seconds} (default 20),
 * rounds of a port flap (link down and up), a controller reconnect (new connection, arbitration with a higher election
 * id, a route deleted and re-inserted) and pings across the switch, which must keep answering. The switch's
 * descriptors and RSS (from /proc) and the live heap after a full GC (jcmd) are sampled after warm-up and at the end:
 * descriptors must be flat (± 8), the live heap within 16 MiB, RSS within 64 MiB, the data-plane loop alive. RSS is
 * also sampled at each quarter, its growth in the second half must stay under 16 MiB, and the JVM's native memory
 * diff (NMT, from the first sample) is printed, so that growth that settles can be told from a leak. The
 * documented long run is {@code -Dasicemu.soak.seconds=1800} (docs/PERFORMANCE.md, "Issue 14").
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 3, unit = TimeUnit.HOURS)
class LiveSoakNetnsTest {
    private static final String RIF1_MAC = "02:aa:00:00:01:fe";
    private static final String RIF2_MAC = "02:aa:00:00:02:fe";
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "9100"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up", "mtu": "9100"}}}
        """;

    @Test
    void shouldKeepDescriptorsAndMemoryFlatThroughSilentConnectionsPortFlapsAndControllerReconnects() throws Exception {
        final long seconds = Long.getLong("asicemu.soak.seconds", 20);
        try (NetnsLab lab = NetnsLab.create()) {
            final TwoHosts hosts = TwoHosts.wire(lab).routedVia(RIF1_MAC, RIF2_MAC);
            final Netns h1 = hosts.h1();
            final Netns h2 = hosts.h2();
            final String sw1 = hosts.sw1();
            final String sw2 = hosts.sw2();
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);
            final int p4rt;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                p4rt = s.getLocalPort();
            }
            final String java = ProcessHandle.current().info().command().orElseThrow();
            final Path jvmOptions = Path.of("jvm.options").toAbsolutePath(); // surefire runs in switchd/
            assertThat(jvmOptions).as("the launcher's JVM flags").exists();
            final Process process = new ProcessBuilder(
                            java,
                            "@" + jvmOptions,
                            "-XX:NativeMemoryTracking=summary",
                            "-cp",
                            System.getProperty("java.class.path"),
                            Main.class.getName(),
                            "run",
                            "--config",
                            config.toString(),
                            "--port-map",
                            "Ethernet0=" + sw1,
                            "--port-map",
                            "Ethernet4=" + sw2,
                            "--p4runtime-port",
                            Integer.toString(p4rt),
                            "--device-id",
                            "7")
                    .redirectErrorStream(true)
                    .start();
            final StringBuilder log = new StringBuilder();
            final CompletableFuture<Void> started = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        synchronized (log) {
                            log.append(line).append('\n');
                        }
                        if (line.contains("asic-emu live: 2 ports")) {
                            started.complete(null);
                        }
                    }
                } catch (final java.io.IOException e) {
                    started.completeExceptionally(e);
                }
            });
            try {
                started.get(60, TimeUnit.SECONDS);
                long election = 1;
                program(p4rt, election++, h1, h2);
                assertThat(h1.ping("10.0.2.1", 3)).as("h1 → h2 before the soak").isGreaterThanOrEqualTo(2);
                Thread.sleep(3_000);
                final long pid = process.pid();
                final int fdsIdle = fds(pid);

                final List<Socket> silent = new ArrayList<>();
                try {
                    for (int i = 0; i < 300; i++) {
                        silent.add(new Socket(InetAddress.getLoopbackAddress(), p4rt));
                    }
                    Thread.sleep(1_000);
                    final int fdsHeld = fds(pid);
                    Thread.sleep(14_000);
                    final int fdsAfterTimeout = fds(pid);
                    System.out.printf(
                            "soak: switch descriptors idle %d, with 300 silent connections %d, 15 s later "
                                    + "(handshake timeout 10 s, our sockets still open) %d%n",
                            fdsIdle, fdsHeld, fdsAfterTimeout);
                    assertThat(fdsHeld)
                            .as("descriptors while 300 silent connections are open: the limit's 64")
                            .isBetween(fdsIdle + 56, fdsIdle + 72);
                    assertThat(fdsAfterTimeout)
                            .as("descriptors after the handshake timeout")
                            .isLessThan(fdsIdle + 8);
                } finally {
                    for (final Socket s : silent) {
                        s.close();
                    }
                }

                final long heapStartKb = heapAfterGcKb(pid);
                final long rssStartKb = rssKb(pid);
                final int fdsStart = fds(pid);
                jcmd(pid, "VM.native_memory", "baseline");
                final long startNs = System.nanoTime();
                final long endNs = startNs + TimeUnit.SECONDS.toNanos(seconds);
                final List<String> rssByQuarter = new ArrayList<>();
                long rssAtHalfKb = -1;
                int quarter = 1;
                int rounds = 0;
                int pingsAnswered = 0;
                while (System.nanoTime() < endNs) {
                    if (System.nanoTime() - startNs >= quarter * (endNs - startNs) / 4) {
                        final long untrimmed = untrimmedRssKb(pid);
                        final long rss = rssKb(pid);
                        rssByQuarter.add(quarter + "/4: " + untrimmed + " -> " + rss);
                        rssAtHalfKb = quarter == 2 ? rss : rssAtHalfKb;
                        quarter++;
                    }
                    Commands.runOrFail("ip", "link", "set", sw1, "down");
                    Thread.sleep(200);
                    Commands.runOrFail("ip", "link", "set", sw1, "up");
                    try (P4RuntimeClient controller = new P4RuntimeClient("127.0.0.1", p4rt, 7)) {
                        assertThat(controller.arbitrate(election++))
                                .as("primary again")
                                .isEqualTo(Code.OK.getNumber());
                        controller.write(P4RuntimeClient.route(Update.Type.DELETE, ipv4("10.0.2.0"), 24, 0));
                        controller.write(P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.2.0"), 24, 12));
                    }
                    pingsAnswered += h1.ping("10.0.2.1", 2);
                    rounds++;
                }
                Thread.sleep(2_000);
                final long rssEndKb = rssKb(pid);
                final int fdsEnd = fds(pid);
                final long heapEndKb = heapAfterGcKb(pid);
                final String nmt = jcmd(pid, "VM.native_memory", "summary.diff");
                System.out.println("soak: RSS (KiB; untrimmed -> after a trim) at start " + rssStartKb + ", "
                        + String.join(", ", rssByQuarter) + ", end " + rssEndKb
                        + "\nsoak: native memory since the start of the soak (NMT):\n" + nmt);
                System.out.printf(
                        "soak: %d s, %d rounds (flap + reconnect + 2 pings), %d of %d pings answered; "
                                + "descriptors %d -> %d, RSS %d -> %d KiB, heap after a full GC %d -> %d KiB%n",
                        seconds,
                        rounds,
                        pingsAnswered,
                        2 * rounds,
                        fdsStart,
                        fdsEnd,
                        rssStartKb,
                        rssEndKb,
                        heapStartKb,
                        heapEndKb);
                assertThat(heapEndKb - heapStartKb)
                        .as("live heap growth after a full GC (KiB)")
                        .isLessThan(16 * 1024);
                assertThat(rounds).isPositive();
                assertThat(pingsAnswered).as("pings answered across the switch").isGreaterThanOrEqualTo(rounds);
                assertThat(fdsEnd).as("descriptors after the soak").isBetween(fdsStart - 8, fdsStart + 8);
                assertThat(rssEndKb - rssStartKb).as("RSS growth (KiB)").isLessThan(64 * 1024);
                // warm-up (JIT code, metaspace, heap sizing) happens early; a leak keeps growing in the second half
                assertThat(rssAtHalfKb).as("RSS sampled at half time").isPositive();
                assertThat(rssEndKb - rssAtHalfKb)
                        .as("RSS growth in the second half (KiB)")
                        .isLessThan(16 * 1024);
                assertThat(process.isAlive()).isTrue();
                synchronized (log) {
                    assertThat(log.toString())
                            .as("the switch's log")
                            // issue 43: silent connections beyond the cap no longer lock newcomers out (refused at
                            // accept); the oldest that never sent its preface is closed for each new one, and said so
                            .contains("P4Runtime: closed")
                            .doesNotContain("Exception")
                            .doesNotContain("loop failed");
                }
            } finally {
                process.toHandle().destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }

    /** Router interfaces, neighbors, next hops and the two /24 routes, as RunCommandNetnsTest programs them. */
    private static void program(final int p4rt, final long election, final Netns h1, final Netns h2) throws Exception {
        try (P4RuntimeClient controller = new P4RuntimeClient("127.0.0.1", p4rt, 7)) {
            assertThat(controller.arbitrate(election)).as("primary").isEqualTo(Code.OK.getNumber());
            controller.write(
                    P4RuntimeClient.routerInterface(1, 0, mac(RIF1_MAC)),
                    P4RuntimeClient.routerInterface(2, 1, mac(RIF2_MAC)),
                    P4RuntimeClient.neighbor(1, ipv4("10.0.1.1"), mac(h1.mac("eth1"))),
                    P4RuntimeClient.neighbor(2, ipv4("10.0.2.1"), mac(h2.mac("eth1"))),
                    P4RuntimeClient.nextHop(11, 1, ipv4("10.0.1.1")),
                    P4RuntimeClient.nextHop(12, 2, ipv4("10.0.2.1")),
                    P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.1.0"), 24, 11),
                    P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.2.0"), 24, 12));
        }
    }

    private static int fds(final long pid) throws Exception {
        try (var entries = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return (int) entries.count();
        }
    }

    private static String jcmd(final long pid, final String... command) throws Exception {
        final String jcmd =
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        final List<String> args = new ArrayList<>(List.of(jcmd, Long.toString(pid)));
        args.addAll(List.of(command));
        return Commands.runOrFail(args.toArray(String[]::new)).stdout();
    }

    /** Live heap: jcmd GC.run, then the "used" of GC.heap_info. */
    private static long heapAfterGcKb(final long pid) throws Exception {
        jcmd(pid, "GC.run");
        final String info = jcmd(pid, "GC.heap_info");
        final java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("used (\\d+)K").matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("no heap usage in: " + info);
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * RSS after glibc has given back the memory freed since its last trim. The switch trims itself every 30 s while
     * its data plane is quiet (IdleHeapCollector; before session 16 every 30 s with {@code -XX:TrimNativeHeapInterval}),
     * so an untrimmed sample depends on when the last trim ran:
     * memory freed a second before the sample (a compiler's arena, a connection's buffers) stays in RSS until the next
     * trim (CI at 8c9e4ff: 21.6 MB more at the end than at half time, untrimmed). A leak survives the trim.
     */
    private static long rssKb(final long pid) throws Exception {
        jcmd(pid, "System.trim_native_heap");
        return untrimmedRssKb(pid);
    }

    private static long untrimmedRssKb(final long pid) throws Exception {
        for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D+", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for " + pid);
    }
}
