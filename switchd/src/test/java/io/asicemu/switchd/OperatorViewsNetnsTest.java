package io.asicemu.switchd;

import static io.asicemu.switchd.P4RuntimeClient.ipv4;
import static io.asicemu.switchd.P4RuntimeClient.mac;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.Code;
import io.asicemu.testsupport.LoopbackPorts;
import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Capture;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import p4.v1.P4RuntimeOuterClass.Update;
import picocli.CommandLine;

/**
 * The operator's read side on a running switch (with a Redis client that floods without reading and one that starts
 * a 100 MB bulk string while the traffic flows) ({@code run --redis-port --metrics-port}) carrying real traffic
 * between two namespaces: COUNTERS_DB read by Debian's redis-cli and by Python's redis client agrees with a
 * P4Runtime counter Read, with tshark's count of the frames on the wire (the switch's TX, captured where they arrive)
 * and the sender's kernel count (the switch's RX), with {@code asic-emu show interfaces counters} and with the
 * Prometheus metrics (parsed by the official Python client's parser); CONFIG_DB shows a register write.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OperatorViewsNetnsTest {
    private static final String RIF1_MAC = "02:aa:00:00:01:fe";
    private static final String RIF2_MAC = "02:aa:00:00:02:fe";
    private static final int PORT_IN_COUNTER = 0x12000001;
    private static final int PORT_OUT_COUNTER = 0x12000002;
    private static final int DATAGRAMS = 300;
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01", "standalone": "false"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "9100"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up", "mtu": "9100"}}}
        """;
    private static final String UDP_SEND = """
        import socket, sys
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for i in range(int(sys.argv[3])):
            s.sendto(b'x' * 100, (sys.argv[1], int(sys.argv[2])))
        """;

    @Test
    void countersDbAgreesWithP4RuntimeTsharkShowAndPrometheus() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final TwoHosts hosts = TwoHosts.wire(lab).routedVia(RIF1_MAC, RIF2_MAC);
            final Netns h1 = hosts.h1();
            final Netns h2 = hosts.h2();
            final String sw1 = hosts.sw1();
            final String sw2 = hosts.sw2();
            final Path config = lab.newFile(".json");
            Files.writeString(config, CONFIG);
            final int p4rtPort = LoopbackPorts.free();
            final int redisPort = LoopbackPorts.free();
            final int metricsPort = LoopbackPorts.free();
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
                            Integer.toString(p4rtPort),
                            "--p4runtime-address",
                            "127.0.0.1",
                            "--device-id",
                            "7",
                            "--redis-port",
                            Integer.toString(redisPort),
                            "--metrics-port",
                            Integer.toString(metricsPort));
            try (LiveSwitch sw = run.start();
                    P4RuntimeClient controller = new P4RuntimeClient("127.0.0.1", p4rtPort, 7)) {
                assertThat(sw.redisPort()).isEqualTo(redisPort);
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(5));
                sw.dataPlane().awaitIdleControl();
                assertThat(controller.arbitrate(1)).isEqualTo(Code.OK.getNumber());
                final int port0 = sw.dataPlane().portIndex("Ethernet0");
                final int port4 = sw.dataPlane().portIndex("Ethernet4");
                controller.write(
                        P4RuntimeClient.routerInterface(1, port0, mac(RIF1_MAC)),
                        P4RuntimeClient.routerInterface(2, port4, mac(RIF2_MAC)),
                        P4RuntimeClient.neighbor(1, ipv4("10.0.1.1"), mac(h1.mac("eth1"))),
                        P4RuntimeClient.neighbor(2, ipv4("10.0.2.1"), mac(h2.mac("eth1"))),
                        P4RuntimeClient.nextHop(11, 1, ipv4("10.0.1.1")),
                        P4RuntimeClient.nextHop(12, 2, ipv4("10.0.2.1")),
                        P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.1.0"), 24, 11),
                        P4RuntimeClient.route(Update.Type.INSERT, ipv4("10.0.2.0"), 24, 12));

                final String oid4 = redisCli(redisPort, "-n", "2", "hget", "COUNTERS_PORT_NAME_MAP", "Ethernet4");
                final String oid0 = redisCli(redisPort, "-n", "2", "hget", "COUNTERS_PORT_NAME_MAP", "Ethernet0");
                // everything the switch sends to h2 (tshark on the receiving side) and what h1's kernel sent it (a
                // capture on the sending side of a veth is not exact under load: it missed frames in our runs)
                final Capture toH2 = h2.capture("eth1", "ether src " + RIF2_MAC, 10_000, Duration.ofSeconds(60));
                final long h1SentBefore = kernelTxPackets(h1);
                final long txBefore =
                        sum(redisPort, oid4, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS", "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS");
                final long rxBefore =
                        sum(redisPort, oid0, "SAI_PORT_STAT_IF_IN_UCAST_PKTS", "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS");
                // while the traffic flows, a client floods the Redis port and never reads its replies, and another
                // starts a 100 MB bulk string: neither touches the data path (every datagram still crosses, counted)
                try (Socket lazy = new Socket(InetAddress.getLoopbackAddress(), redisPort);
                        Socket hostile = new Socket(InetAddress.getLoopbackAddress(), redisPort)) {
                    final Thread flood = Thread.ofPlatform().daemon().start(() -> {
                        final byte[] keys = "*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);
                        try {
                            lazy.getOutputStream()
                                    .write("*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n".getBytes(StandardCharsets.US_ASCII));
                            for (int i = 0; i < 200_000; i++) {
                                lazy.getOutputStream().write(keys);
                            }
                        } catch (final java.io.IOException e) {
                            // closed by the test
                        }
                    });
                    hostile.getOutputStream()
                            .write("*3\r\n$4\r\nHGET\r\n$104857600\r\n".getBytes(StandardCharsets.US_ASCII));
                    h1.python(UDP_SEND, Duration.ofSeconds(30), "10.0.2.1", "7777", Integer.toString(DATAGRAMS));
                    Thread.sleep(1000);
                    assertThat(new String(hostile.getInputStream().readNBytes(20), StandardCharsets.US_ASCII))
                            .startsWith("-ERR Protocol error");
                    lazy.close();
                    flood.join(10_000);
                }
                toH2.awaitPackets(DATAGRAMS, Duration.ofSeconds(10)); // a loaded tcpdump reads late
                final long onWireToH2 =
                        Tshark.fields(toH2.stop(), null, "frame.number").size();
                // where frames between the switch's TX ring and h2's capture went, if any did (CI saw 257 and 258 of
                // 300 twice, with the switch counting 300 out): both veth ends' counters, the backlog, tcpdump's own
                final String wire = "tcpdump at h2: " + toH2.log().strip()
                        + "\nh2 eth1: "
                        + h2.exec(Duration.ofSeconds(5), "ip", "-s", "-s", "link", "show", "eth1")
                                .stdout()
                        + "switch side " + sw2 + ": "
                        + Commands.run(Duration.ofSeconds(5), List.of("ip", "-s", "-s", "link", "show", sw2))
                                .stdout()
                        + "softnet_stat:\n"
                        + Commands.run(Duration.ofSeconds(5), List.of("cat", "/proc/net/softnet_stat"))
                                .stdout();
                final long h1Sent = kernelTxPackets(h1) - h1SentBefore;
                Thread.sleep(200); // past the operator views' 100 ms snapshot age
                final long tx =
                        sum(redisPort, oid4, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS", "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS");
                final long rx =
                        sum(redisPort, oid0, "SAI_PORT_STAT_IF_IN_UCAST_PKTS", "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS");
                // for a failure's diagnosis: which side lost frames, and whether the switch counted it
                System.err.println("after the traffic: h1 sent " + h1Sent + ", tshark at h2 " + onWireToH2 + "\n" + wire
                        + "\nEthernet0:\n" + nonZeroPairs(redisCli(redisPort, "-n", "2", "hgetall", "COUNTERS:" + oid0))
                        + "Ethernet4:\n" + nonZeroPairs(redisCli(redisPort, "-n", "2", "hgetall", "COUNTERS:" + oid4)));
                assertThat(onWireToH2).as("datagrams routed to h2 (%s)", wire).isGreaterThanOrEqualTo(DATAGRAMS);
                assertThat(tx - txBefore)
                        .as("COUNTERS_DB Ethernet4 TX = frames tshark saw reach h2 (%s)", toH2.log())
                        .isEqualTo(onWireToH2);
                assertThat(rx - rxBefore)
                        .as("COUNTERS_DB Ethernet0 RX = frames h1's kernel sent")
                        .isEqualTo(h1Sent);
                assertThat(h1Sent).as("h1 sent the datagrams").isGreaterThanOrEqualTo(DATAGRAMS);
                final long txCli = Long.parseLong(
                        redisCli(redisPort, "-n", "2", "hget", "COUNTERS:" + oid4, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"));
                final long txNonUcast = tx - txCli;

                final long[] p4Out = controller.readCounter(PORT_OUT_COUNTER, port4);
                final long[] p4In = controller.readCounter(PORT_IN_COUNTER, port0);
                assertThat(p4Out[0]).as("P4Runtime port_out_counter packets").isEqualTo(txCli + txNonUcast);
                assertThat(p4Out[1])
                        .as("P4Runtime port_out_counter bytes")
                        .isEqualTo(Long.parseLong(redisCli(
                                redisPort, "-n", "2", "hget", "COUNTERS:" + oid4, "SAI_PORT_STAT_IF_OUT_OCTETS")));
                assertThat(p4In[0]).as("P4Runtime port_in_counter packets").isEqualTo(rx);

                final String python = OperatorTestTools.run(List.of(
                        "/usr/bin/python3",
                        "-c",
                        String.join(
                                "\n",
                                "import redis",
                                "r = redis.Redis(host='127.0.0.1', port=" + redisPort
                                        + ", db=2, decode_responses=True)",
                                "print(r.hget('COUNTERS:' + r.hget('COUNTERS_PORT_NAME_MAP', 'Ethernet4'),"
                                        + " 'SAI_PORT_STAT_IF_OUT_UCAST_PKTS'))")));
                assertThat(python.strip()).as("python3-redis").isEqualTo(Long.toString(txCli));

                final StringWriter out = new StringWriter();
                final CommandLine cli = Main.commandLine();
                cli.setOut(new PrintWriter(out));
                assertThat(cli.execute("show", "interfaces", "counters", "-p", Integer.toString(redisPort)))
                        .isZero();
                final String row = out.toString()
                        .lines()
                        .filter(l -> l.startsWith("Ethernet4"))
                        .findFirst()
                        .orElseThrow();
                assertThat(row.trim().split(" {2,}")[8])
                        .as("TX_OK of show interfaces counters")
                        .isEqualTo(String.format(java.util.Locale.US, "%,d", txCli + txNonUcast));

                // The live switch's register map: a read, and a write through the CLI that waits until the data
                // plane applied it (run's 5 s apply timeout), seen by the next read.
                assertThat(redisCli(redisPort, "ASICEMU.REGISTER", "GET", "PORT_SPEED", "Ethernet4"))
                        .contains("100000")
                        .contains("RO");
                assertThat(cli.execute("config", "register", "HASH_SEED", "7", "-p", Integer.toString(redisPort)))
                        .isZero();
                assertThat(redisCli(redisPort, "ASICEMU.REGISTER", "GET", "HASH_SEED", ""))
                        .contains("HASH_SEED\n\n0x00000000\n7\n");

                final String metrics = OperatorTestTools.run(List.of(
                        "/usr/bin/python3",
                        "-c",
                        String.join(
                                "\n",
                                "import urllib.request",
                                "from prometheus_client.parser import text_string_to_metric_families",
                                "text = urllib.request.urlopen('http://127.0.0.1:" + metricsPort
                                        + "/metrics').read().decode()",
                                "for f in text_string_to_metric_families(text):",
                                "    for s in f.samples:",
                                "        if s.name == 'asicemu_port_if_out_ucast_pkts_total' and s.labels['port'] == 'Ethernet4':",
                                "            print(int(s.value))")));
                assertThat(metrics.strip()).as("Prometheus").isEqualTo(Long.toString(txCli));

                // CONFIG_DB (4) is the running config: the register map's HASH_SEED write above (the config has no
                // SWITCH_HASH table) shows in SWITCH_HASH|GLOBAL, and so does a later P4Runtime-path knob write.
                String written = "";
                for (int i = 0; i < 50 && !written.equals("7"); i++) {
                    written = redisCli(redisPort, "-n", "4", "hget", "SWITCH_HASH|GLOBAL", "ecmp_hash_seed")
                            .strip();
                    if (!written.equals("7")) {
                        Thread.sleep(100);
                    }
                }
                assertThat(written)
                        .as("CONFIG_DB after the HASH_SEED register write (config register)")
                        .isEqualTo("7");
                sw.dataPlane()
                        .control()
                        .run(c -> c.batch()
                                .setKnob(io.asicemu.pipeline.control.RuntimeKnob.HASH_SEED, 0, 12_345)
                                .commit());
                String seed = "";
                for (int i = 0; i < 50 && !seed.equals("12345"); i++) {
                    Thread.sleep(100);
                    seed = redisCli(redisPort, "-n", "4", "hget", "SWITCH_HASH|GLOBAL", "ecmp_hash_seed")
                            .strip();
                }
                assertThat(seed)
                        .as("CONFIG_DB after a hash seed register write")
                        .isEqualTo("12345");
                assertThat(sw.dataPlane().loop().failure()).isNull();
            }
        }
    }

    private static String nonZeroPairs(final String hgetall) {
        final List<String> lines = hgetall.lines().toList();
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i + 1 < lines.size(); i += 2) {
            if (!lines.get(i + 1).equals("0")) {
                out.append(lines.get(i)).append(' ').append(lines.get(i + 1)).append('\n');
            }
        }
        return out.toString();
    }

    private static long sum(final int port, final String oid, final String... stats) throws Exception {
        long total = 0;
        for (final String stat : stats) {
            total += Long.parseLong(redisCli(port, "-n", "2", "hget", "COUNTERS:" + oid, stat));
        }
        return total;
    }

    private static long kernelTxPackets(final Netns ns) throws Exception {
        return Long.parseLong(OperatorTestTools.run(
                        List.of("ip", "netns", "exec", ns.name(), "cat", "/sys/class/net/eth1/statistics/tx_packets"))
                .strip());
    }

    private static String redisCli(final int port, final String... args) throws Exception {
        final List<String> command =
                new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return OperatorTestTools.run(command).strip();
    }

    /** Runs external clients. */
    static final class OperatorTestTools {
        private OperatorTestTools() {}

        static String run(final List<String> command) throws Exception {
            final Process p =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            return out;
        }
    }
}
