package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.switchd.hostif.HostInterfaces;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * Host interfaces end to end (issue 37), on veth links the test creates: a switch with two ports and
 * {@code --host-interfaces}; its kernel (this process's network namespace) owns 198.51.100.1 on {@code Ethernet0}.
 * The neighbor's ping is answered by that kernel through the host interface (punt counters, host-interface counters
 * and the kernel's interface statistics agree), a TCP connection to port 179 on that address carries bytes both ways,
 * the kernel has learned the neighbor, the carrier follows the far end's link, the reader and punt threads use no CPU
 * while idle, and the interfaces are gone when the switch stops.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HostInterfacesNetnsTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "1500"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up", "mtu": "1500"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|198.51.100.1/24": {},
                       "Ethernet4": {}, "Ethernet4|198.51.101.1/24": {}},
         "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|203.0.113.1/32": {}}}
        """;
    private static final String LOOPBACK_ADDRESS = "203.0.113.1";
    private static final String SWITCH_ADDRESS = "198.51.100.1";
    private static final String PEER_ADDRESS = "198.51.100.2";
    private static final int BGP_PORT = 179;
    private static final int BYTES = 200_000;

    /** An echo server (the switch side) and a client that sends, reads the echo back and compares. */
    private static final String TCP_ECHO = """
        import socket, sys, hashlib
        mode, addr, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        if mode == "server":
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((addr, port)); s.listen(1); s.settimeout(60)
            print("listening", flush=True)
            c, peer = s.accept(); c.settimeout(30); got = 0
            while got < n:
                b = c.recv(65536)
                if not b: break
                c.sendall(b); got += len(b)
            c.close(); print("echoed", got, peer[0], flush=True)
        else:
            data = bytes((i * 7 + 3) % 251 for i in range(n))
            c = socket.create_connection((addr, port), timeout=30)
            c.sendall(data); back = b""
            while len(back) < n:
                b = c.recv(65536)
                if not b: break
                back += b
            print("sent", n, "received", len(back), "same", hashlib.sha256(back).hexdigest() == hashlib.sha256(data).hexdigest())
        """;

    private static LiveSwitch start(final Path config, final String sw1, final String sw2, final int p4runtimePort)
            throws Exception {
        final RunCommand run = new RunCommand();
        new CommandLine(run)
                .parseArgs(
                        "--config",
                        config.toString(),
                        "--port-map",
                        "Ethernet0=" + sw1,
                        "--port-map",
                        "Ethernet4=" + sw2,
                        "--p4runtime-port",
                        Integer.toString(p4runtimePort),
                        "--host-interfaces");
        return run.start();
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void shouldFeedTheHostInterfacesThroughThePacketInPollerWhenP4RuntimeIsOn() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h1.disableIpv6();
            h2.disableIpv6();
            final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
            h1.addAddress("eth1", PEER_ADDRESS + "/24");
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);
            try (LiveSwitch sw = start(config, sw1, sw2, freePort())) {
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(10));
                assertThat(sw.p4runtimePort()).as("P4Runtime on").isPositive();
                await("Ethernet0's carrier up", () -> carrier("Ethernet0"));
                assertThat(h1.ping(SWITCH_ADDRESS, 3))
                        .as("answered by the kernel with no controller connected")
                        .isEqualTo(3);
                final HostInterfaces hostif = sw.hostInterfaces();
                await(
                        "punts all delivered by the PacketIn poller",
                        () -> hostif.stats("Ethernet0").toKernel() >= 4
                                && hostif.stats("Ethernet0").toKernel()
                                        == punts(sw.dataPlane().counters(), "Ethernet0"));
                assertThat(threadNames()).as("the poller is the one consumer").doesNotContain("hostif-punts");
            }
        }
    }

    @Test
    void shouldRefuseInOneLineWhenAPortNameIsTakenByAnotherInterface() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final String sw2 = lab.switchLink("sw2", h1, "eth2", Offloads.CONTAINERLAB, 1500);
            // a sonic-vs style port whose Linux interface is itself called Ethernet0: no TAP can take the name
            Commands.runOrFail(
                    "ip", "link", "add", "Ethernet0", "type", "veth", "peer", "name", "eth1", "netns", h1.name());
            try {
                final Path config = lab.newFile(".json");
                Files.writeString(config, CONFIG);
                final java.io.StringWriter err = new java.io.StringWriter();
                final CommandLine cli = Main.commandLine();
                cli.setErr(new java.io.PrintWriter(err));
                final int exit = cli.execute(
                        "run",
                        "--config",
                        config.toString(),
                        "--port-map",
                        "Ethernet0=Ethernet0",
                        "--port-map",
                        "Ethernet4=" + sw2,
                        "--p4runtime-port",
                        "0",
                        "--host-interfaces");
                assertThat(exit).as(err.toString()).isEqualTo(2);
                assertThat(err.toString().trim())
                        .startsWith("run: --host-interfaces: TUNSETIFF Ethernet0")
                        .doesNotContain("\n\tat ");
                assertThat(Path.of("/sys/class/net/Ethernet4"))
                        .as("nothing left behind")
                        .doesNotExist();
            } finally {
                Commands.runQuietly("ip", "link", "del", "Ethernet0");
            }
        }
    }

    @Test
    void shouldLetTheKernelAnswerIpv6PingAndResolveItsPeerByNeighborDiscovery() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h2.disableIpv6();
            final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
            h1.execOk("ip", "-6", "addr", "add", "2001:db8:100::2/64", "dev", "eth1", "nodad");
            final Path config = lab.newFile(".json");
            Files.writeString(
                    config,
                    CONFIG.replace(
                            "\"Ethernet0|198.51.100.1/24\": {},",
                            "\"Ethernet0|198.51.100.1/24\": {}, " + "\"Ethernet0|2001:db8:100::1/64\": {},"));
            try (LiveSwitch sw = start(config, sw1, sw2, 0)) {
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(10));
                await("Ethernet0's carrier up", () -> carrier("Ethernet0"));
                assertThat(Commands.runOrFail("ip", "-o", "-6", "addr", "show", "dev", "Ethernet0")
                                .stdout())
                        .contains("2001:db8:100::1/64");
                await(
                        "the kernel's duplicate address detection of its address done",
                        () -> !Commands.runOrFail("ip", "-o", "-6", "addr", "show", "dev", "Ethernet0")
                                .stdout()
                                .contains("tentative"));
                assertThat(h1.ping("2001:db8:100::1", 3))
                        .as("IPv6 echo replies from the switch's kernel")
                        .isEqualTo(3);
                assertThat(Commands.runOrFail("ip", "-6", "neigh", "show", "dev", "Ethernet0")
                                .stdout())
                        .as("resolved from the copied neighbor advertisement")
                        .contains("2001:db8:100::2 lladdr " + h1.mac("eth1"));
            }
        }
    }

    private static List<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
    }

    private static String sys(final String ifName, final String file) throws Exception {
        return Files.readString(Path.of("/sys/class/net", ifName, file)).trim();
    }

    private static long stat(final String ifName, final String counter) throws Exception {
        return Long.parseLong(sys(ifName, "statistics/" + counter));
    }

    private static void await(final String what, final BooleanSupplier condition) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(50);
        }
    }

    private static boolean carrier(final String ifName) {
        try {
            return sys(ifName, "carrier").equals("1");
        } catch (final Exception e) {
            return false; // reading carrier of an interface that is down fails with EINVAL
        }
    }

    private static long punts(final CountersSnapshot counters, final String port) {
        long sum = 0;
        for (final PuntReason r : PuntReason.values()) {
            sum += counters.port(port, r.counterName());
        }
        return sum;
    }

    @Test
    void shouldLetTheSwitchKernelTalkToItsNeighborThroughTheHostInterface() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h1.disableIpv6();
            h2.disableIpv6();
            final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
            h1.addAddress("eth1", PEER_ADDRESS + "/24");
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);

            try (LiveSwitch sw = start(config, sw1, sw2, 0)) {
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(10));
                final HostInterfaces hostif = sw.hostInterfaces();
                assertThat(hostif.names()).containsExactly("Ethernet0", "Ethernet4");
                assertThat(sys("Ethernet0", "address")).as("the router MAC").isEqualTo("02:aa:00:00:00:01");
                assertThat(sys("Ethernet0", "mtu")).isEqualTo("1500");
                await("Ethernet0's carrier up, as its port's link", () -> carrier("Ethernet0"));
                assertThat(Commands.runOrFail("ip", "-o", "-4", "addr", "show", "dev", "Ethernet0")
                                .stdout())
                        .contains("inet " + SWITCH_ADDRESS + "/24");
                assertThat(Commands.runOrFail("ip", "-o", "-6", "addr", "show", "dev", "Ethernet0")
                                .stdout())
                        .as("addrgenmode none: no link-local address, no IPv6 chatter")
                        .isBlank();

                final int replies = h1.ping(SWITCH_ADDRESS, 5);
                assertThat(replies).as("echo replies from the switch's kernel").isEqualTo(5);
                await(
                        "every echo request punted to the kernel (counters are snapshots: they may lag)",
                        () -> sw.dataPlane().counters().port("Ethernet0", PuntReason.IP2ME.counterName()) >= replies);
                await(
                        "punts all delivered",
                        () -> hostif.stats("Ethernet0").toKernel()
                                == punts(sw.dataPlane().counters(), "Ethernet0"));
                final HostInterfaces.Stats stats = hostif.stats("Ethernet0");
                final CountersSnapshot counters = sw.dataPlane().counters();
                assertThat(stats.toKernelFailed()).isZero();
                assertThat(stat("Ethernet0", "rx_packets"))
                        .as("the kernel received what was punted")
                        .isEqualTo(stats.toKernel());
                assertThat(stats.fromKernel())
                        .as("the kernel's echo replies (and its ARP request) went out")
                        .isGreaterThanOrEqualTo(replies + 1)
                        .isEqualTo(stat("Ethernet0", "tx_packets"));
                assertThat(counters.port("Ethernet0", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                        .as("the kernel's frames counted on the port like any")
                        .isGreaterThanOrEqualTo(replies);

                final String neighbors = Commands.runOrFail("ip", "neigh", "show", "dev", "Ethernet0")
                        .stdout();
                assertThat(neighbors)
                        .as("the kernel resolved its peer from the copied ARP reply")
                        .contains(PEER_ADDRESS + " lladdr " + h1.mac("eth1"));

                tcpBothWays(h1);

                // Loopback0: a dummy link where the kernel has the driver, else the address on lo
                final boolean dummy = !hostif.loopbackDummies().isEmpty();
                System.out.println("Loopback0 as " + (dummy ? "a dummy link" : "an address on lo"));
                assertThat(Commands.runOrFail("ip", "-o", "-4", "addr", "show", "dev", dummy ? "Loopback0" : "lo")
                                .stdout())
                        .contains("inet " + LOOPBACK_ADDRESS + "/32");
                h1.route(LOOPBACK_ADDRESS + "/32", SWITCH_ADDRESS);
                assertThat(h1.ping(LOOPBACK_ADDRESS, 3))
                        .as("the loopback address answered by the switch's kernel through Ethernet0")
                        .isEqualTo(3);

                idleThreadsUseNoCpu();

                h1.execOk("ip", "link", "set", "eth1", "down");
                await("Ethernet0's carrier down when the far end went down", () -> !carrier("Ethernet0"));
                assertThat(carrier("Ethernet4")).as("the other one unaffected").isTrue();
                h1.execOk("ip", "link", "set", "eth1", "up");
                await("Ethernet0's carrier back", () -> carrier("Ethernet0"));
            }
            assertThat(Path.of("/sys/class/net/Ethernet0"))
                    .as("removed on close")
                    .doesNotExist();
            assertThat(Path.of("/sys/class/net/Ethernet4")).doesNotExist();
        }
    }

    /** A listener on port 179 bound to the switch's address in its kernel; the neighbor connects and echoes. */
    private static void tcpBothWays(final Netns h1) throws Exception {
        final Path script = Files.createTempFile("hostif-tcp", ".py");
        try {
            Files.writeString(script, TCP_ECHO);
            final Process server = new ProcessBuilder(
                            Commands.PYTHON,
                            script.toString(),
                            "server",
                            SWITCH_ADDRESS,
                            Integer.toString(BGP_PORT),
                            Integer.toString(BYTES))
                    .redirectErrorStream(true)
                    .start();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                assertThat(out.readLine()).isEqualTo("listening");
                final String client = h1.python(
                        TCP_ECHO,
                        Duration.ofSeconds(60),
                        "client",
                        SWITCH_ADDRESS,
                        Integer.toString(BGP_PORT),
                        Integer.toString(BYTES));
                assertThat(client.trim()).isEqualTo("sent " + BYTES + " received " + BYTES + " same True");
                assertThat(out.readLine()).isEqualTo("echoed " + BYTES + " " + PEER_ADDRESS);
                assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
            } finally {
                server.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /** The host-interface threads over a quiet window: blocked (epoll, park), not polling. */
    private static void idleThreadsUseNoCpu() throws Exception {
        Thread.sleep(2_000);
        final Map<String, Long> before = hostifThreadTicks();
        final long processBefore = processTicks();
        final long windowStart = System.nanoTime();
        Thread.sleep(5_000);
        final Map<String, Long> after = hostifThreadTicks();
        final long processTicks = processTicks() - processBefore;
        final List<String> report = new ArrayList<>();
        long spent = 0;
        for (final Map.Entry<String, Long> e : after.entrySet()) {
            final long ticks = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            spent += ticks;
            report.add(e.getKey() + " " + ticks + " ticks");
        }
        final long windowNs = System.nanoTime() - windowStart;
        System.out.printf(
                "host-interface threads over %.1f s idle: %s; the whole JVM (switch, JIT, test): %d ticks, %.2f%% of a"
                        + " core%n",
                windowNs / 1e9, report, processTicks, 100.0 * processTicks * 10_000_000L / windowNs);
        assertThat(after.keySet()).as("the reader and the punt drain").hasSize(2);
        assertThat(spent)
                .as("clock ticks (10 ms each) of the idle host-interface threads")
                .isLessThanOrEqualTo(1);
    }

    /** utime + stime of this process in clock ticks (USER_HZ 100), fields 14 and 15 of /proc/self/stat. */
    private static long processTicks() throws Exception {
        final String stat = Files.readString(Path.of("/proc/self/stat"));
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /** utime + stime of the threads named hostif-*, from /proc/self/task/N/stat. */
    private static Map<String, Long> hostifThreadTicks() throws Exception {
        final Map<String, Long> ticks = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (final Path task : tasks.toList()) {
                final String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (final java.io.IOException e) {
                    continue; // the thread ended meanwhile
                }
                final String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (name.startsWith("hostif-")) {
                    final String[] fields =
                            stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks.put(name, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                }
            }
        }
        return ticks;
    }
}
