package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.LoopbackPorts;
import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Capture;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.tm.TmOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * CONFIG_DB writes on a running switch ({@code run --redis-port}) carrying real traffic between two namespaces, with
 * Debian's redis-cli and Python's redis client: an HSET on WRED_PROFILE moves the CE-marking depth of the queue that
 * uses the profile, as the WRED formula says (reference wred-ecn: Kmin = Kmax = K, Pmax 100 %: a frame is marked when
 * it leaves a queue of at least K, the queue counting the frame itself), counted by tshark at the receiver and by the
 * switch's WRED_ECN counter; an invalid value is refused naming {@code TABLE|key|field} and changes neither CONFIG_DB
 * nor the marking; MULTI/EXEC changes WRED_PROFILE and SWITCH_HASH together, or neither when one value is invalid;
 * subscribers (python3-redis on {@code __keyspace@4__:*}, redis-cli on {@code __keyevent@4__:*}) see one notification
 * per change, a register write's included and the refused ones' not; {@code config save} writes what {@code run
 * --config} takes and {@code config load} of it changes nothing.
 * <p>
 * The traffic: the receiver's port is modeled at 1 Mb/s with time dilated 10x (a 1042-byte frame takes 83 ms of real
 * time), so each round is deterministic: a pilot frame starts on the idle port alone (a queue of 1 frame: unmarked),
 * then a burst of N frames arrives while it is sent, and burst frame k leaves a queue of N − k frames.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConfigWritesNetnsTest {
    private static final String ROUTER_MAC = "02:aa:00:00:00:01";
    private static final int PAYLOAD = 1000;
    private static final int N = 20;
    private static final int LENGTH = 14 + 20 + 8 + PAYLOAD;
    private static final int CELL = TmOptions.defaults().cellBytes();
    /** The bytes one frame charges to its queue (whole cells). */
    private static final long C = (LENGTH + CELL - 1) / CELL * (long) CELL;

    private static final String BURST = """
        import socket, sys, time
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, (3 << 2) | 2)  # DSCP 3 (queue 3), ECT(0)
        dst = (sys.argv[1], int(sys.argv[2]))
        s.sendto(b'p' * int(sys.argv[4]), dst)  # the pilot: alone on the idle port
        time.sleep(0.02)                         # the burst arrives while the pilot is sent (83 ms)
        for i in range(int(sys.argv[3])):
            s.sendto(b'x' * int(sys.argv[4]), dst)
        """;
    private static final String PY_SUBSCRIBER = """
        import redis, sys, time
        r = redis.Redis(host='127.0.0.1', port=int(sys.argv[1]), db=4, decode_responses=True)
        p = r.pubsub()
        p.psubscribe('__keyspace@4__:*')
        deadline = time.time() + float(sys.argv[2])
        while time.time() < deadline:
            m = p.get_message(timeout=0.2)
            if m and m['type'] == 'psubscribe':
                print('ready', flush=True)
            elif m and m['type'] == 'pmessage':
                print(m['channel'] + ' ' + m['data'], flush=True)
        """;

    private static String config(final String h2Mac) {
        final long never = 1000 * C; // a threshold no burst reaches: nothing marked
        return """
            {"DEVICE_METADATA": {"localhost": {"mac": "%s"}},
             "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "mtu": "9100"},
                      "Ethernet4": {"speed": "1", "admin_status": "up", "mtu": "9100"}},
             "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.254/24": {},
                           "Ethernet4": {}, "Ethernet4|10.0.2.254/24": {}},
             "NEIGH": {"Ethernet4|10.0.2.1": {"neigh": "%s"}},
             "DSCP_TO_TC_MAP": {"AZURE": {"0": "0", "3": "3"}},
             "TC_TO_QUEUE_MAP": {"AZURE": {"0": "0", "3": "3"}},
             "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE"}},
             "WRED_PROFILE": {"AZURE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_all",
                 "green_min_threshold": "%d", "green_max_threshold": "%d", "green_drop_probability": "100"}},
             "QUEUE": {"Ethernet4|3": {"wred_profile": "AZURE_LOSSLESS"}},
             "SWITCH_HASH": {"GLOBAL": {"ecmp_hash": ["SRC_IP", "DST_IP"], "ecmp_hash_seed": "0"}}}
            """.formatted(ROUTER_MAC, h2Mac, never, never);
    }

    @Test
    void configDbWritesRetuneTheRunningSwitchAtomicallyAndNotifySubscribers() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final TwoHosts hosts = TwoHosts.wire(lab).routedVia(ROUTER_MAC, null);
            final Netns h1 = hosts.h1();
            final Netns h2 = hosts.h2();
            final String sw1 = hosts.sw1();
            final String sw2 = hosts.sw2();
            final Path config = lab.newFile(".json");
            Files.writeString(config, config(h2.mac("eth1")));
            final int redisPort = LoopbackPorts.free();
            final String port = Integer.toString(redisPort);
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
                            "0",
                            "--dilation",
                            "10",
                            "--redis-port",
                            port);
            final List<Process> subscribers = new ArrayList<>();
            try (LiveSwitch sw = run.start()) {
                sw.dataPlane().awaitPorts(2, Duration.ofSeconds(5));
                sw.dataPlane().awaitIdleControl();
                final String queue = redisCli(port, "-n", "2", "hget", "COUNTERS_QUEUE_NAME_MAP", "Ethernet4:3");
                assertThat(queue).startsWith("oid:");

                // Two subscribers before any change: python3-redis on keyspace, redis-cli on keyevent.
                final List<String> keyspace = new CopyOnWriteArrayList<>();
                final Process py = start(
                        subscribers, keyspace, "timeout", "200", "/usr/bin/python3", "-c", PY_SUBSCRIBER, port, "190");
                final List<String> keyevent = new CopyOnWriteArrayList<>();
                start(
                        subscribers,
                        keyevent,
                        "timeout",
                        "200",
                        "stdbuf",
                        "-oL",
                        "redis-cli",
                        "-h",
                        "127.0.0.1",
                        "-p",
                        port,
                        "psubscribe",
                        "__keyevent@4__:*");
                awaitLine(keyspace, "ready");
                awaitLine(keyevent, "__keyevent@4__:*");
                assertThat(py.isAlive()).isTrue();

                // 1. As configured, no burst reaches the threshold.
                assertThat(round(h1, h2, port, queue)).as("CE marks as loaded").isZero();

                // 2. redis-cli HSET retunes the running switch: Kmin = Kmax = 10 C marks the burst frames that leave
                // a queue of 10 frames or more: k = 0..10 of 20, 11 frames (the pilot left a queue of 1).
                final long k1 = 10 * C;
                assertThat(redisCli(
                                port,
                                "-n",
                                "4",
                                "hset",
                                "WRED_PROFILE|AZURE_LOSSLESS",
                                "green_min_threshold",
                                Long.toString(k1),
                                "green_max_threshold",
                                Long.toString(k1)))
                        .as("HSET's reply: no new field")
                        .isEqualTo("0");
                assertThat(redisCli(port, "-n", "4", "hget", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold"))
                        .isEqualTo(Long.toString(k1));
                assertThat(round(h1, h2, port, queue))
                        .as("CE marks at K = 10 C")
                        .isEqualTo(N - 10 + 1);

                // 3. An invalid value is refused naming the field; CONFIG_DB and the marking stay.
                final String before = redisCli(port, "-n", "4", "hgetall", "WRED_PROFILE|AZURE_LOSSLESS");
                assertThat(redisCli(
                                port, "-n", "4", "hset", "WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold", "lots"))
                        .startsWith("ERR WRED_PROFILE|AZURE_LOSSLESS|green_min_threshold: ");
                assertThat(redisCli(port, "-n", "2", "hset", "COUNTERS_PORT_NAME_MAP", "Ethernet0", "x"))
                        .as("other databases are the switch's own")
                        .contains("CONFIG_DB (4) only");
                assertThat(redisCli(port, "-n", "4", "hgetall", "WRED_PROFILE|AZURE_LOSSLESS"))
                        .isEqualTo(before);
                assertThat(round(h1, h2, port, queue)).as("CE marks unchanged").isEqualTo(N - 10 + 1);

                // 4. MULTI/EXEC (python3-redis' transaction pipeline): two tables at once, then neither.
                final long k2 = 15 * C;
                final String multi = OperatorViewsNetnsTest.OperatorTestTools.run(List.of(
                        "/usr/bin/python3",
                        "-c",
                        String.join(
                                "\n",
                                "import redis",
                                "r = redis.Redis(host='127.0.0.1', port=" + port + ", db=4, decode_responses=True)",
                                "p = r.pipeline(transaction=True)",
                                "p.hset('WRED_PROFILE|AZURE_LOSSLESS', mapping={'green_min_threshold': '" + k2
                                        + "', 'green_max_threshold': '" + k2 + "'})",
                                "p.hset('SWITCH_HASH|GLOBAL', 'ecmp_hash_seed', '4242')",
                                "print('applied', p.execute())",
                                "p = r.pipeline(transaction=True)",
                                "p.hset('SWITCH_HASH|GLOBAL', 'ecmp_hash_seed', '5151')",
                                "p.hset('WRED_PROFILE|AZURE_LOSSLESS', 'green_drop_probability', '250')",
                                "try:",
                                "    print('applied', p.execute())",
                                "except redis.ResponseError as e:",
                                "    print('refused', e)")));
                final List<String> replies = multi.lines().toList();
                assertThat(replies).hasSize(2);
                assertThat(replies.get(0)).isEqualTo("applied [0, 0]");
                assertThat(replies.get(1))
                        .startsWith("refused WRED_PROFILE|AZURE_LOSSLESS|green_drop_probability: ")
                        .contains("EXEC changed nothing");
                assertThat(redisCli(port, "-n", "4", "hget", "SWITCH_HASH|GLOBAL", "ecmp_hash_seed"))
                        .as("the refused EXEC's valid write did not happen either")
                        .isEqualTo("4242");
                assertThat(redisCli(port, "ASICEMU.REGISTER", "GET", "HASH_SEED", ""))
                        .as("the data plane's seed register")
                        .contains("\n4242\n");
                assertThat(redisCli(port, "-n", "4", "hget", "WRED_PROFILE|AZURE_LOSSLESS", "green_drop_probability"))
                        .isEqualTo("100");
                assertThat(round(h1, h2, port, queue))
                        .as("CE marks at K = 15 C")
                        .isEqualTo(N - 15 + 1);

                // 5. A register write changes the running config too, and is notified.
                assertThat(redisCli(port, "ASICEMU.REGISTER", "SET", "HASH_SEED", "", "77"))
                        .contains("\n77\n");

                // Every change notified once, the refused ones not at all (python: keyspace; redis-cli: keyevent).
                final List<String> expected = List.of(
                        "__keyspace@4__:WRED_PROFILE|AZURE_LOSSLESS hset",
                        "__keyspace@4__:WRED_PROFILE|AZURE_LOSSLESS hset",
                        "__keyspace@4__:SWITCH_HASH|GLOBAL hset",
                        "__keyspace@4__:SWITCH_HASH|GLOBAL hset");
                final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (keyspace.size() < 1 + expected.size() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                Thread.sleep(500); // nothing more arrives
                assertThat(keyspace.subList(1, keyspace.size()))
                        .as("python3-redis keyspace notifications")
                        .containsExactlyInAnyOrderElementsOf(expected);
                assertThat(keyspace.get(1)).isEqualTo(expected.get(0));
                assertThat(keyspace.get(keyspace.size() - 1)).isEqualTo(expected.get(3));
                assertThat(String.join("\n", keyevent))
                        .as("redis-cli keyevent notifications")
                        .contains("__keyevent@4__:hset\nWRED_PROFILE|AZURE_LOSSLESS")
                        .contains("__keyevent@4__:hset\nSWITCH_HASH|GLOBAL");
                assertThat(keyevent.stream().filter(l -> l.equals("__keyevent@4__:hset")))
                        .hasSize(4);

                // 6. config save writes what run --config takes; config load of it changes nothing.
                final Path saved = lab.newFile(".json");
                final StringWriter out = new StringWriter();
                final StringWriter err = new StringWriter();
                final CommandLine cli = Main.commandLine();
                cli.setOut(new PrintWriter(out, true));
                cli.setErr(new PrintWriter(err, true));
                assertThat(cli.execute("config", "save", saved.toString(), "-p", port))
                        .as(err.toString())
                        .isZero();
                assertThat(ConfigFiles.load(saved).table("SWITCH_HASH").get("GLOBAL"))
                        .containsEntry("ecmp_hash_seed", "77");
                io.asicemu.pipeline.config.ConfigCompiler.compile(
                        ConfigFiles.load(saved),
                        io.asicemu.pipeline.table.PipelineSizing.defaults(),
                        java.util.Map.of());
                final String all = redisCli(port, "-n", "4", "keys", "*");
                final int notified = keyspace.size();
                assertThat(cli.execute("config", "load", saved.toString(), "-p", port))
                        .as(err.toString())
                        .isZero();
                assertThat(redisCli(port, "-n", "4", "keys", "*")).isEqualTo(all);
                Thread.sleep(500);
                assertThat(keyspace).as("load(save) changed nothing").hasSize(notified);
                assertThat(sw.dataPlane().loop().failure()).isNull();
            } finally {
                for (final Process p : subscribers) {
                    p.destroyForcibly();
                    p.waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** One pilot and a burst of N frames into queue 3 of the 1 Mb/s port; CE at the receiver = WRED_ECN's delta. */
    private static long round(final Netns h1, final Netns h2, final String port, final String queue) throws Exception {
        final long markedBefore = marked(port, queue);
        final Capture capture = h2.capture("eth1", "udp dst port 7777", N + 1, Duration.ofSeconds(60));
        h1.python(BURST, Duration.ofSeconds(30), "10.0.2.1", "7777", Integer.toString(N), Integer.toString(PAYLOAD));
        capture.awaitPackets(N + 1, Duration.ofSeconds(30));
        final List<List<String>> rows = Tshark.fields(capture.stop(), null, "ip.dsfield.ecn", "frame.len");
        assertThat(rows).as("frames at the receiver (%s)", capture.log()).hasSize(N + 1);
        assertThat(rows).allSatisfy(r -> assertThat(r.get(1)).isEqualTo(Integer.toString(LENGTH)));
        assertThat(rows.get(0).get(0)).as("the pilot left a queue of one frame").isEqualTo("2");
        final long ce = rows.stream().filter(r -> r.get(0).equals("3")).count();
        Thread.sleep(200); // past the operator views' snapshot age
        assertThat(marked(port, queue) - markedBefore)
                .as("WRED_ECN marked packets = CE at the receiver")
                .isEqualTo(ce);
        return ce;
    }

    private static long marked(final String port, final String queue) throws Exception {
        return Long.parseLong(
                redisCli(port, "-n", "2", "hget", "COUNTERS:" + queue, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"));
    }

    private static String redisCli(final String port, final String... args) throws Exception {
        final List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", port));
        command.addAll(List.of(args));
        return OperatorViewsNetnsTest.OperatorTestTools.run(command).strip();
    }

    /** Starts a subscriber whose stdout lines are collected into {@code lines}. */
    private static Process start(final List<Process> started, final List<String> lines, final String... command)
            throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(p);
        p.getOutputStream().close();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (final java.io.IOException e) {
                // the process ended
            }
        });
        return p;
    }

    private static void awaitLine(final List<String> lines, final String line) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!lines.contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lines).as("subscriber ready").contains(line);
    }
}
