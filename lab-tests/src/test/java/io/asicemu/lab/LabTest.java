package io.asicemu.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.switchd.P4RuntimeClient;
import io.asicemu.testsupport.Concurrently;
import io.asicemu.testsupport.Tshark;
import io.grpc.Status.Code;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * The appliance image and the docker/labs leaf-spine fabric with real containers, on a private dockerd
 * ({@link DockerLab}): bad input, health, stop and start-up of one switch container; then the fabric brought up with
 * docker-compose + {@code labctl.py wire}, and as containerlab deploys it ({@code labctl.py deploy}), each checked
 * the same way: every host pings every host (TTL = 64 − switches crossed); 64 RoCEv2 QPs of one UDP 5-tuple spread
 * over both spines with the RDMA hash and stay on one with the 5-tuple hash (tcpdump at the spines); a 2:1 incast
 * into h4 gets CE marks at h4 (tshark) and raises leaf2's WRED ECN counter, and leaf2 sends PFC XOFF/XON that tshark
 * decodes at the sender h3; a controller outside the fabric programs a route on leaf1 over P4Runtime on its
 * management address and the next frames follow it; a restarted switch rejoins. Numbers measured on the way are
 * printed as {@code LAB ...} lines (docs/LAB.md records them).
 * <p>
 * Needs root, dockerd/docker-compose (Debian), mmdebstrap, tcpdump, tshark, nsenter; .ci/run installs them. Tagged
 * {@code lab}: skip with {@code -Dasicemu.excludedGroups=lab}.
 */
@Tag("lab")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class LabTest {
    private static final Duration SHORT = Duration.ofSeconds(30);
    private static final Map<String, String> MEASURED = new LinkedHashMap<>();
    private static DockerLab docker;
    private static String sendScript;
    private static String daemonsBefore;

    @BeforeAll
    static void startDockerAndLoadImages() throws Exception {
        daemonsBefore = daemons();
        docker = DockerLab.start();
        Images.buildAndLoad(docker);
        if (Images.buildSeconds >= 0) {
            MEASURED.put("image build (docker/build-image.sh, s)", Long.toString(Images.buildSeconds));
        }
        MEASURED.put(
                "appliance image size (MB, docker image inspect)",
                Long.toString(Long.parseLong(docker.docker("image", "inspect", "-f", "{{.Size}}", Images.APPLIANCE)
                                .ok()
                                .out()
                                .strip())
                        / 1_000_000));
        try (InputStream in = LabTest.class.getResourceAsStream("/io/asicemu/veth/harness/send.py")) {
            sendScript = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @AfterAll
    static void stopDockerAndCheckNothingIsLeft() throws IOException {
        final Path dir = docker == null ? null : docker.dir();
        final java.util.Set<String> before = DockerLab.interfaces();
        if (docker != null) {
            docker.close();
        }
        final StringBuilder text = new StringBuilder();
        MEASURED.forEach(
                (k, v) -> text.append("LAB ").append(k).append(": ").append(v).append('\n'));
        System.out.print(text);
        final Path out = Path.of("target", "lab-measurements.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, text);
        assertThat(dir)
                .as("the daemon's directory is removed")
                .satisfiesAnyOf(d -> assertThat(d).isNull(), d -> assertThat(d).doesNotExist());
        assertThat(DockerLab.interfaces())
                .as("no interface left behind")
                .allMatch(name -> !name.startsWith("clab-") && !name.startsWith("br-") || before.contains(name));
        assertThat(daemons())
                .as("dockerd/containerd processes as before the tests")
                .isEqualTo(daemonsBefore);
    }

    private static String daemons() {
        return Sh.run(SHORT, "sh", "-c", "pgrep -x 'dockerd|containerd' | sort || true")
                .out()
                .strip();
    }

    // ---- one switch container ----------------------------------------------------------------------------------

    private static final String ONE_SWITCH_CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:ae:00:00:00:99", "hostname": "sw"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.10.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.10.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.10.3.1/24": {}}}
        """;

    @Test
    @Order(1)
    void shouldExitTwoWithOneClearLineWhenTheConfigIsMissingOrBad() throws IOException {
        docker.docker("network", "create", "--subnet", "172.20.21.0/24", "labmgmt")
                .ok();
        try {
            final Path dir = Files.createTempDirectory(docker.dir(), "bad-");
            final Sh.Result none = docker.docker(
                    SHORT,
                    "run",
                    "--rm",
                    "--network",
                    "labmgmt",
                    "--cap-add",
                    "NET_ADMIN",
                    "--cap-add",
                    "NET_RAW",
                    Images.APPLIANCE);
            assertThat(none.exit()).as(none.toString()).isEqualTo(2);
            assertThat(none.err().strip())
                    .as("one line")
                    .doesNotContain("\n")
                    .startsWith("run: no configuration at /etc/asic-emu/config_db.json");

            final Sh.Result directory = docker.docker(
                    SHORT,
                    "run",
                    "--rm",
                    "--network",
                    "labmgmt",
                    "--cap-add",
                    "NET_ADMIN",
                    "--cap-add",
                    "NET_RAW",
                    "-v",
                    dir.resolve("absent.json") + ":/etc/asic-emu/config_db.json",
                    Images.APPLIANCE);
            assertThat(directory.exit()).isEqualTo(2);
            assertThat(directory.err().strip()).doesNotContain("\n").contains("is a directory");

            final Path garbage = dir.resolve("garbage.json");
            Files.writeString(garbage, "{\"PORT\": {\"Ethernet0\": ");
            final Sh.Result unreadable = docker.docker(
                    SHORT,
                    "run",
                    "--rm",
                    "--network",
                    "labmgmt",
                    "--cap-add",
                    "NET_ADMIN",
                    "--cap-add",
                    "NET_RAW",
                    "-v",
                    garbage + ":/etc/asic-emu/config_db.json:ro",
                    Images.APPLIANCE);
            assertThat(unreadable.exit()).isEqualTo(2);
            assertThat(unreadable.err().strip())
                    .doesNotContain("\n")
                    .startsWith("run: /etc/asic-emu/config_db.json: configuration refused")
                    .contains("not valid JSON");
        } finally {
            docker.docker("network", "rm", "labmgmt");
        }
    }

    @Test
    @Order(0)
    void shouldRunTheDemoAndReplayAMountedFolderInTheSameImage() throws IOException {
        final Sh.Result demo =
                docker.docker(Duration.ofMinutes(3), "run", "--rm", "--network", "none", Images.APPLIANCE, "demo");
        assertThat(demo.exit()).as(demo.err()).isZero();
        assertThat(demo.out()).contains("Virtual time");

        final Path data = Files.createTempDirectory(docker.dir(), "replay-");
        final String demoDir = "/io/asicemu/switchd/demo/";
        try (InputStream config = LabTest.class.getResourceAsStream(demoDir + "config_db.json");
                InputStream pcap = new java.util.zip.GZIPInputStream(
                        LabTest.class.getResourceAsStream(demoDir + "Ethernet0.pcap.gz"))) {
            Files.copy(config, data.resolve("config_db.json"));
            Files.copy(pcap, data.resolve("Ethernet0.pcap"));
        }
        final Sh.Result replay = docker.docker(
                Duration.ofMinutes(3),
                "run",
                "--rm",
                "--network",
                "none",
                "-v",
                data + ":/data",
                Images.APPLIANCE,
                "replay",
                "--config",
                "/data/config_db.json",
                "--in",
                "Ethernet0=/data/Ethernet0.pcap",
                "--out-dir",
                "/data/out");
        assertThat(replay.exit()).as(replay.err()).isZero();
        assertThat(data.resolve("out/counters.txt"))
                .as("replay wrote into the mounted folder")
                .isNotEmptyFile();
        assertThat(Files.readString(data.resolve("out/counters.txt"))).contains("Ethernet0");
    }

    @Test
    @Order(2)
    void shouldForwardSoonAfterStartReportHealthAndStopWithinTwoSeconds() throws Exception {
        final Path dir = Files.createTempDirectory(docker.dir(), "one-");
        final Path config = dir.resolve("sw.json");
        Files.writeString(config, ONE_SWITCH_CONFIG);
        Files.writeString(dir.resolve("one.clab.yml"), """
            name: one
            topology:
              nodes:
                sw: {kind: linux, image: asic-emu:dev}
                h1:
                  kind: linux
                  image: asic-emu-host:dev
                  exec: ["ip addr add 10.10.1.2/24 dev eth1", "ip route add 10.10.0.0/16 via 10.10.1.1"]
                h2:
                  kind: linux
                  image: asic-emu-host:dev
                  exec: ["ip addr add 10.10.2.2/24 dev eth1", "ip route add 10.10.0.0/16 via 10.10.2.1"]
              links:
                - endpoints: ["sw:eth1", "h1:eth1"]
                - endpoints: ["sw:eth2", "h2:eth1"]
            """);
        docker.docker("network", "create", "--subnet", "172.20.22.0/24", "onemgmt")
                .ok();
        try {
            for (final String h : List.of("h1", "h2")) {
                docker.docker("run", "-d", "--name", "clab-one-" + h, "--network", "none", Images.HOST)
                        .ok();
            }
            // the switch expects 2 data links (CLAB_INTFS); its config also names Ethernet8, which never appears
            docker.docker(
                            "create",
                            "--name",
                            "clab-one-sw",
                            "--network",
                            "onemgmt",
                            "--cap-add",
                            "NET_ADMIN",
                            "--cap-add",
                            "NET_RAW",
                            "-e",
                            "CLAB_INTFS=2",
                            "-v",
                            config + ":/etc/asic-emu/config_db.json:ro",
                            Images.APPLIANCE)
                    .ok();
            final Fabric one = new Fabric("one", docker, dir, n -> "clab-one-" + n, List.of());
            final long h1Pid = one.pid("h1"); // asked before the start: the timed part runs only what a lab runs
            final TimedStart start = startWireAndPing(dir, h1Pid);
            MEASURED.put(
                    "the first start's steps (ms after StartedAt: links wired, eth1/eth2 attached, first frame; then the"
                            + " switch's own timeline)",
                    stepsOf(start));
            final Instant started = start.started();
            final Instant wired = start.wired();
            final Instant answered = start.answered();
            MEASURED.put(
                    "container start -> links wired (labctl.py, ms)",
                    Long.toString(Duration.between(started, wired).toMillis()));
            MEASURED.put(
                    "container start -> first forwarded frame (ping reply, ms)",
                    Long.toString(Duration.between(started, answered).toMillis()));

            final Sh.Result healthy = awaitHealth(one, "sw", 0);
            assertThat(healthy.out())
                    .contains("healthy: 2 of 2 data links attached, P4Runtime on 172.20.22.")
                    .contains("down: Ethernet8(eth3)");
            assertThat(awaitDockerHealth("clab-one-sw", "healthy")).isEqualTo("healthy");
            final long rss = rssKb(one.pid("sw"));
            MEASURED.put("RSS of one switch container after forwarding (MB)", Long.toString(rss / 1024));
            // the JVM (PID 1 of the container) runs unprivileged with CAP_NET_ADMIN and CAP_NET_RAW only
            final Map<String, String> status = procStatus(one.pid("sw"));
            assertThat(status.get("Uid"))
                    .as("the switch's real/effective/saved/fs uids")
                    .isEqualTo("10001\t10001\t10001\t10001");
            assertThat(status.get("CapEff"))
                    .as("cap_net_admin + cap_net_raw (bits 12, 13) and nothing else")
                    .isEqualTo("0000000000003000");
            assertThat(status.get("CapBnd")).isEqualTo("0000000000003000");

            nsenter(one, "h2", "ip link del eth1");
            final Sh.Result missing = awaitHealth(one, "sw", 1);
            assertThat(missing.out())
                    .contains("unhealthy: 1 of 2 data links attached; missing: Ethernet4(eth2) " + "Ethernet8(eth3)");
            assertThat(Sh.run(
                                    Duration.ofSeconds(5),
                                    "nsenter",
                                    "-t",
                                    Long.toString(one.pid("h1")),
                                    "-n",
                                    "ping",
                                    "-c",
                                    "1",
                                    "-W",
                                    "2",
                                    "10.10.1.1")
                            .exit())
                    .as("still forwarding on the port present")
                    .isZero();

            final long t0 = System.nanoTime();
            docker.docker("stop", "-t", "10", "clab-one-sw").ok();
            final long stopMs = (System.nanoTime() - t0) / 1_000_000;
            MEASURED.put("docker stop of a switch (ms)", Long.toString(stopMs));
            assertThat(stopMs).as("docker stop ends the switch within 2 s").isLessThan(2000);
            final String logs = docker.docker("logs", "clab-one-sw").out();
            assertThat(logs)
                    .contains("ready: 2 of 2 expected data links attached; down: Ethernet8(eth3)")
                    .contains("asic-emu live: stopped");
            // where the start-up time goes, from the switch's own log (UTC, ms): the JVM up and serving, then both
            // links attached (after labctl.py made them), then the first frame forwarded (the ping's reply)
            MEASURED.put(
                    "start-up timeline after container start (ms): JVM live / links wired (labctl.py) / "
                            + "2 of 2 links attached (switch log) / first forwarded frame",
                    logMs(logs, "asic-emu live: ", started)
                            + " / " + Duration.between(started, wired).toMillis() + " / "
                            + logMs(logs, "ready: 2 of 2 expected data links attached", started) + " / "
                            + Duration.between(started, answered).toMillis());
            MEASURED.put(
                    "links wired -> first forwarded frame (ms)",
                    Long.toString(Duration.between(wired, answered).toMillis()));
            // the switch's own account of its start (StartupTimeline): per step, ms since the container started / the
            // main thread's CPU ms
            logs.lines()
                    .filter(line -> line.contains("start-up (ms since the process started"))
                    .findFirst()
                    .ifPresent(line -> MEASURED.put(
                            "switch start-up steps (switch log)", line.substring(line.indexOf("start-up"))));
            // two more starts of the same container, timed the same way, so that one CI run gives three samples of
            // the start (its links are gone with its namespace: labctl.py wires them again, as for a restart)
            final List<String> again = new ArrayList<>();
            final List<String> steps = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                final TimedStart restart = startWireAndPing(dir, h1Pid);
                again.add(Long.toString(
                        Duration.between(restart.started(), restart.answered()).toMillis()));
                steps.add(stepsOf(restart));
                docker.docker("stop", "-t", "10", "clab-one-sw").ok();
            }
            MEASURED.put("container start -> first forwarded frame, two restarts (ms)", String.join(" / ", again));
            MEASURED.put(
                    "the two restarts' steps (ms after StartedAt: links wired, eth1/eth2 attached, first frame; then the"
                            + " switch's own timeline)",
                    String.join(" || ", steps));
        } finally {
            docker.docker("rm", "-f", "clab-one-sw", "clab-one-h1", "clab-one-h2");
            docker.docker("network", "rm", "onemgmt");
        }
    }

    /** When a timed start of the one-switch lab's switch began (Docker's StartedAt), had its links, and forwarded. */
    private record TimedStart(Instant started, Instant wired, Instant answered) {}

    /**
     * Where one start's time went, from the switch's log of that start alone ({@code docker logs --since}): links
     * wired, each port attached and the first forwarded frame in ms after StartedAt, then the switch's own timeline
     * (waited for: the switch logs it once P4Runtime serves, after the first frame). So that a start slower than
     * another shows whether its time went before the JVM's main or after.
     */
    private String stepsOf(final TimedStart start) throws InterruptedException {
        final Instant started = start.started();
        String logs = "";
        for (int i = 0; i < 50 && !logs.contains("start-up (ms since"); i++) {
            Thread.sleep(100);
            logs = docker.docker("logs", "--since", started.toString(), "clab-one-sw")
                    .out();
        }
        final String timeline = logs.lines()
                .filter(line -> line.contains("start-up (ms since the process started"))
                .map(line -> line.substring(line.indexOf("JVM ")))
                .findFirst()
                .orElse("no timeline");
        return Duration.between(started, start.wired()).toMillis() + ", "
                + logMs(logs, "port eth1 added", started) + "/" + logMs(logs, "port eth2 added", started) + ", "
                + Duration.between(started, start.answered()).toMillis() + "; " + timeline;
    }

    /**
     * Starts the created (or stopped) switch container of the one-switch lab as containerlab deploys a node: the node
     * started, then its links (labctl.py, at once), then the hosts' exec (their addresses, by labctl.py too); then
     * pings h2 from h1 every 10 ms until one reply. The start's time is read from docker afterwards.
     */
    private TimedStart startWireAndPing(final Path dir, final long h1Pid) throws Exception {
        docker.docker("start", "clab-one-sw").ok();
        Sh.run(
                        SHORT,
                        docker.env(),
                        null,
                        List.of(
                                labctl(),
                                "wire",
                                "-t",
                                dir.resolve("one.clab.yml").toString()))
                .ok();
        final Instant wired = Instant.now();
        final Instant started = Instant.parse(docker.docker("inspect", "-f", "{{.State.StartedAt}}", "clab-one-sw")
                .ok()
                .out()
                .strip());
        final Sh.Result ping = Sh.run(
                Duration.ofSeconds(20),
                "nsenter",
                "-t",
                Long.toString(h1Pid),
                "-n",
                "ping",
                "-D",
                "-i",
                "0.01",
                "-W",
                "1",
                "-c",
                "1",
                "-w",
                "15",
                "10.10.2.2");
        final Matcher first =
                Pattern.compile("\\[(\\d+)\\.(\\d+)\\] .*ttl=(\\d+)").matcher(ping.out());
        assertThat(first.find())
                .as("a ping answered through the switch: " + ping.out())
                .isTrue();
        assertThat(first.group(3)).as("TTL after one switch").isEqualTo("63");
        return new TimedStart(
                started,
                wired,
                Instant.ofEpochSecond(Long.parseLong(first.group(1)), Long.parseLong(first.group(2)) * 1000));
    }

    // ---- the leaf-spine fabric -----------------------------------------------------------------------------------

    @Test
    @Order(3)
    void composeFabricShouldForwardBalanceMarkPauseAndTakeRoutesFromAController() throws Exception {
        final Path lab = copyLab();
        final Path compose = lab.resolve("leaf-spine/docker-compose.yml");
        final long t0 = System.nanoTime();
        compose(compose, "up", "-d").ok();
        try {
            Sh.run(
                            Duration.ofSeconds(60),
                            docker.env(),
                            null,
                            List.of(labctl(), "wire", "-f", compose.toString(), "-p", "asicemulab"))
                    .ok();
            final Fabric fabric = new Fabric(
                    "compose",
                    docker,
                    lab.resolve("leaf-spine"),
                    node -> docker.docker(
                                    "ps",
                                    "-q",
                                    "--filter",
                                    "label=com.docker.compose.project=asicemulab",
                                    "--filter",
                                    "label=com.docker.compose.service=" + node)
                            .ok()
                            .out()
                            .strip(),
                    List.of(labctl(), "wire", "-f", compose.toString(), "-p", "asicemulab"));
            checkFabric(fabric, t0);
        } finally {
            compose(compose, "down", "-t", "5").ok();
        }
    }

    @Test
    @Order(4)
    void containerlabWiredFabricShouldForwardBalanceMarkPauseAndTakeRoutesFromAController() throws Exception {
        final Path lab = copyLab();
        final Path topo = lab.resolve("leaf-spine/leaf-spine.clab.yml");
        final long t0 = System.nanoTime();
        Sh.run(Duration.ofSeconds(120), docker.env(), null, List.of(labctl(), "deploy", "-t", topo.toString()))
                .ok();
        try {
            final Fabric fabric = new Fabric(
                    "containerlab",
                    docker,
                    lab.resolve("leaf-spine"),
                    node -> "clab-leaf-spine-" + node,
                    List.of(labctl(), "wire", "-t", topo.toString()));
            checkFabric(fabric, t0);
        } finally {
            Sh.run(Duration.ofSeconds(120), docker.env(), null, List.of(labctl(), "destroy", "-t", topo.toString()))
                    .ok();
        }
    }

    private void checkFabric(final Fabric fabric, final long upStartedNs) throws Exception {
        final String k = fabric.kind;
        // every host pings every other host; TTL shows the switches crossed
        final Map<String, Integer> ttl = allPairsPing(fabric);
        MEASURED.put(
                k + ": fabric up -> all 12 host pairs answered (s)",
                String.format("%.1f", (System.nanoTime() - upStartedNs) / 1e9));
        ttl.forEach((pair, t) -> {
            final String[] p = pair.split(">");
            assertThat(t).as("TTL %s", pair).isEqualTo(Fabric.LEAF.get(p[0]).equals(Fabric.LEAF.get(p[1])) ? 63 : 61);
        });
        for (final String sw : Fabric.SWITCHES) {
            assertThat(awaitDockerHealth(fabric.container(sw), "healthy"))
                    .as(sw + " docker health")
                    .isEqualTo("healthy");
        }

        // 64 QPs of one 5-tuple, h1 -> h3: both spines with the RDMA hash
        final Map<String, Integer> rdma = roceOverSpines(fabric, "10.2.1.2");
        assertThat(rdma.get("spine1")).as("frames at spine1 (RDMA hash)").isPositive();
        assertThat(rdma.get("spine2")).as("frames at spine2 (RDMA hash)").isPositive();
        MEASURED.put(k + ": 64 QPs x 2 over spine1/spine2, RDMA hash", rdma.get("spine1") + "/" + rdma.get("spine2"));

        incast(fabric);
        idleCostAndMemory(fabric);

        // leaf1 restarted with the 5-tuple hash: rejoins, forwarding resumes, the others are untouched
        final Map<String, String> startedBefore = new HashMap<>();
        for (final String sw : Fabric.SWITCHES) {
            startedBefore.put(
                    sw,
                    docker.docker("inspect", "-f", "{{.State.StartedAt}}", fabric.container(sw))
                            .ok()
                            .out()
                            .strip());
        }
        final Path leaf1 = fabric.labDir.resolve("configs/leaf1.json");
        Files.writeString(leaf1, Files.readString(leaf1).replace("\"enhanced_ecmp\"", "\"static_hash\""));
        docker.docker("restart", "-t", "5", fabric.container("leaf1")).ok();
        fabric.rewire("leaf1");
        final long rejoinStart = System.nanoTime();
        awaitPing(fabric, "h1", Fabric.ADDRESS.get("h3"), Duration.ofSeconds(30));
        MEASURED.put(
                k + ": leaf1 restarted + rewired -> h1 reaches h3 again (s)",
                String.format("%.1f", (System.nanoTime() - rejoinStart) / 1e9));
        for (final String sw : List.of("leaf2", "spine1", "spine2")) {
            assertThat(docker.docker("inspect", "-f", "{{.State.StartedAt}}", fabric.container(sw))
                            .ok()
                            .out()
                            .strip())
                    .as(sw + " untouched")
                    .isEqualTo(startedBefore.get(sw));
        }
        final Map<String, Integer> fiveTuple = roceOverSpines(fabric, "10.2.1.2");
        assertThat(fiveTuple.get("spine1") == 0 || fiveTuple.get("spine2") == 0)
                .as("one 5-tuple stays on one spine with the 5-tuple hash: " + fiveTuple)
                .isTrue();
        assertThat(fiveTuple.get("spine1") + fiveTuple.get("spine2")).isEqualTo(128);
        MEASURED.put(
                k + ": 64 QPs x 2 over spine1/spine2, 5-tuple hash",
                fiveTuple.get("spine1") + "/" + fiveTuple.get("spine2"));

        controllerRoute(fabric);

        final long t0 = System.nanoTime();
        docker.docker("stop", "-t", "10", fabric.container("spine2")).ok();
        final long stopMs = (System.nanoTime() - t0) / 1_000_000;
        MEASURED.put(k + ": docker stop spine2 (ms)", Long.toString(stopMs));
        assertThat(stopMs).as("docker stop ends a switch within 2 s").isLessThan(2000);
    }

    private static Map<String, Integer> allPairsPing(final Fabric fabric) throws Exception {
        final Map<String, Integer> ttl = new LinkedHashMap<>();
        for (final String src : Fabric.HOSTS) {
            for (final String dst : Fabric.HOSTS) {
                if (!src.equals(dst)) {
                    ttl.put(src + ">" + dst, awaitPing(fabric, src, Fabric.ADDRESS.get(dst), Duration.ofSeconds(60)));
                }
            }
        }
        return ttl;
    }

    /** Pings until a reply (the switches resolve neighbours on the first packets); @return the reply's TTL. */
    static int awaitPing(final Fabric fabric, final String host, final String address, final Duration within)
            throws InterruptedException {
        final long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            final Sh.Result r = fabric.exec(SHORT, host, "ping -c 1 -W 1 " + address);
            final Matcher m = Pattern.compile("ttl=(\\d+)").matcher(r.out());
            if (r.exit() == 0 && m.find()) {
                return Integer.parseInt(m.group(1));
            }
            last = r.out() + r.err();
            Thread.sleep(200);
        }
        final StringBuilder state = new StringBuilder();
        for (final String sw : Fabric.SWITCHES) {
            try {
                state.append("\n--- ").append(sw).append(" counters\n").append(fabric.counters(sw));
            } catch (final RuntimeException | AssertionError e) {
                state.append("\n--- ").append(sw).append(": ").append(e.getMessage());
            }
            state.append("--- ")
                    .append(sw)
                    .append(" log\n")
                    .append(fabric.docker
                            .docker("logs", "--tail", "15", fabric.container(sw))
                            .out());
        }
        throw new AssertionError(fabric.kind + ": " + host + " never reached " + address + ": " + last + state);
    }

    /** h1 sends 64 QPs x 2 of one 5-tuple to {@code address}; @return frames seen per spine (tcpdump at both). */
    private static Map<String, Integer> roceOverSpines(final Fabric fabric, final String address) throws Exception {
        final Map<String, Integer> perSpine = new LinkedHashMap<>();
        final StringBuilder qps = new StringBuilder();
        for (int qp = 1; qp <= 64; qp++) {
            qps.append(qp == 1 ? "" : ",").append(0x200 + qp);
        }
        final List<String> send = List.of(
                "roce",
                "--iface",
                "eth1",
                "--smac",
                fabric.mac("h1", "eth1"),
                "--dmac",
                Fabric.ROUTER_MAC.get("leaf1"),
                "--sip",
                Fabric.ADDRESS.get("h1"),
                "--dip",
                address,
                "--qps",
                qps.toString(),
                "--dscp",
                "26",
                "--ecn",
                "2",
                "--count");
        // a first round lets leaf1 resolve the next hops it picks (frames to an unresolved one are dropped and
        // counted while it ARPs, as an ASIC does): the measured rounds then see a settled fabric
        fabric.python("h1", sendScript, concat(send, "1")).ok();
        Thread.sleep(1000);
        final Map<String, Fabric.Capture> captures = new LinkedHashMap<>();
        for (final String spine : List.of("spine1", "spine2")) {
            captures.put(spine, fabric.capture(spine, "eth1", "udp dst port 4791"));
        }
        fabric.python("h1", sendScript, concat(send, "2")).ok();
        final Map<String, String> spineOfQp = new HashMap<>();
        for (final var e : captures.entrySet()) {
            final Path pcap = e.getValue().stop();
            final List<List<String>> rows =
                    Tshark.fields(pcap, "udp.dstport == 4791", "infiniband.bth.destqp", "udp.srcport", "ip.ttl");
            for (final List<String> row : rows) {
                final String before = spineOfQp.put(row.get(0), e.getKey());
                assertThat(before).as("QP %s at both spines", row.get(0)).isIn(null, e.getKey());
                assertThat(row.get(1)).as("one UDP 5-tuple").isEqualTo("49152");
                assertThat(row.get(2)).as("TTL after leaf1").isEqualTo("63");
            }
            perSpine.put(e.getKey(), rows.size());
        }
        final int total = perSpine.values().stream().mapToInt(Integer::intValue).sum();
        if (total != 128) {
            System.out.printf(
                    "LAB %s: only %d of 128 frames reached a spine %s; leaf1 counters:%n%s%n",
                    fabric.kind, total, perSpine, fabric.counters("leaf1"));
        }
        assertThat(total).as("all 128 frames reach a spine " + perSpine).isEqualTo(128);
        return perSpine;
    }

    /**
     * 2:1 incast into h4 (leaf2's Ethernet4, modeled at 1 Mb/s) from h1 (across the spines) and h3 (same leaf):
     * CE marks at h4, leaf2's WRED ECN counter rises, leaf2 sends PFC XOFF then XON to h3 on priority 3.
     */
    private static void incast(final Fabric fabric) throws Exception {
        final String k = fabric.kind;
        final long ecnBefore =
                Fabric.counter(fabric.counters("leaf2"), "Ethernet4 queue 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS");
        try (Fabric.Capture atReceiver = fabric.capture("h4", "eth1", "udp dst port 4791");
                Fabric.Capture atSender = fabric.capture("h3", "eth1", "ether proto 0x8808")) {
            // both senders at once, each on a thread of its own (the common fork-join pool has one thread on 2 CPUs
            // and ran them one after the other: no incast)
            final CompletableFuture<Sh.Result> a = Concurrently.supply(() -> send(fabric, "h1"));
            final CompletableFuture<Sh.Result> b = Concurrently.supply(() -> send(fabric, "h3"));
            a.join().ok();
            b.join().ok();
            Thread.sleep(4000); // 300 kB drain through 1 Mb/s in ~2.5 s
            final Path receiverPcap = atReceiver.stop();
            final Path senderPcap = atSender.stop();
            final List<List<String>> frames = Tshark.fields(receiverPcap, null, "ip.dsfield.ecn", "ip.dsfield.dscp");
            final long ce = frames.stream().filter(r -> r.get(0).equals("3")).count();
            final List<List<String>> pfc =
                    Tshark.fields(senderPcap, "macc.opcode == 0x0101", "macc.cbfc.enbv.c3", "macc.cbfc.pause_time.c3");
            final long xoff = pfc.stream()
                    .filter(r -> r.get(0).equals("1") && Integer.parseInt(r.get(1)) > 0)
                    .count();
            final long xon = pfc.stream()
                    .filter(r -> r.get(0).equals("1") && Integer.parseInt(r.get(1)) == 0)
                    .count();
            final String counters = fabric.counters("leaf2");
            final long ecnAfter = Fabric.counter(counters, "Ethernet4 queue 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS");
            MEASURED.put(
                    k + ": incast h1+h3 -> h4: frames at h4 / CE / leaf2 ECN counter delta / PFC XOFF, XON at h3",
                    frames.size() + " / " + ce + " / " + (ecnAfter - ecnBefore) + " / " + xoff + ", " + xon);
            assertThat(ce).as("CE-marked frames at h4 (tshark)\n" + counters).isPositive();
            assertThat(ecnAfter).as("leaf2 Ethernet4 queue 3 WRED ECN marked").isGreaterThan(ecnBefore);
            assertThat(xoff).as("PFC XOFF for priority 3 decoded at h3").isPositive();
            assertThat(xon).as("PFC XON for priority 3 decoded at h3").isPositive();
        }
    }

    private static String[] concat(final List<String> list, final String last) {
        final List<String> all = new ArrayList<>(list);
        all.add(last);
        return all.toArray(String[]::new);
    }

    private static Sh.Result send(final Fabric fabric, final String host) {
        return fabric.python(
                host,
                sendScript,
                "roce",
                "--iface",
                "eth1",
                "--smac",
                fabric.mac(host, "eth1"),
                "--dmac",
                Fabric.ROUTER_MAC.get(Fabric.LEAF.get(host)),
                "--sip",
                Fabric.ADDRESS.get(host),
                "--dip",
                Fabric.ADDRESS.get("h4"),
                "--qps",
                "0x77",
                "--dscp",
                "26",
                "--ecn",
                "2",
                "--payload",
                "1000",
                "--count",
                "150");
    }

    /**
     * A controller outside the fabric (this test, grpc-java) owns leaf1's uplink to spine2: leaf1 restarts with a
     * config whose Ethernet12 has no router interface (the configured route uses spine1 only; P4Runtime cannot
     * address configured router interfaces), then the controller writes a router interface on Ethernet12, spine2 as
     * neighbor and next hop, and a /32 route for h3, over P4Runtime on leaf1's management address: the next 64 QPs
     * all cross spine2 instead of spine1.
     */
    private static void controllerRoute(final Fabric fabric) throws Exception {
        final Path leaf1 = fabric.labDir.resolve("configs/leaf1.json");
        final com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        final com.fasterxml.jackson.databind.node.ObjectNode config =
                (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(leaf1.toFile());
        final com.fasterxml.jackson.databind.node.ObjectNode interfaces =
                (com.fasterxml.jackson.databind.node.ObjectNode) config.get("INTERFACE");
        interfaces.remove("Ethernet12");
        interfaces.remove("Ethernet12|10.0.12.1/24");
        final com.fasterxml.jackson.databind.node.ObjectNode route = (com.fasterxml.jackson.databind.node.ObjectNode)
                config.get("STATIC_ROUTE").get("10.2.0.0/16");
        route.put("nexthop", "10.0.11.2");
        route.put("ifname", "Ethernet8");
        Files.writeString(leaf1, json.writerWithDefaultPrettyPrinter().writeValueAsString(config));
        docker.docker("restart", "-t", "5", fabric.container("leaf1")).ok();
        fabric.rewire("leaf1");
        awaitPing(fabric, "h1", Fabric.ADDRESS.get("h3"), Duration.ofSeconds(60));
        final Map<String, Integer> before = roceOverSpines(fabric, "10.2.1.2");
        assertThat(before.get("spine1")).as("the configured route: spine1 only").isEqualTo(128);

        final String address = fabric.managementAddress("leaf1");
        try (P4RuntimeClient controller = new P4RuntimeClient(address, 9559, 1)) {
            assertThat(controller.arbitrate(1)).as("primary").isEqualTo(Code.OK.value());
            controller.write(
                    P4RuntimeClient.routerInterface(100, 3, P4RuntimeClient.mac(Fabric.ROUTER_MAC.get("leaf1"))),
                    P4RuntimeClient.neighbor(
                            100,
                            P4RuntimeClient.ipv4("10.0.12.2"),
                            P4RuntimeClient.mac(Fabric.ROUTER_MAC.get("spine2"))),
                    P4RuntimeClient.nextHop(100, 100, P4RuntimeClient.ipv4("10.0.12.2")),
                    P4RuntimeClient.route(Update.Type.INSERT, P4RuntimeClient.ipv4("10.2.1.2"), 32, 100));
            final Map<String, Integer> pinned = roceOverSpines(fabric, "10.2.1.2");
            MEASURED.put(
                    fabric.kind + ": spine1/spine2 before / after a P4Runtime route via spine2 (64 QPs x 2)",
                    before.get("spine1") + "/" + before.get("spine2") + " -> " + pinned.get("spine1") + "/"
                            + pinned.get("spine2"));
            assertThat(pinned.get("spine2"))
                    .as("every frame follows the controller's route")
                    .isEqualTo(128);
        }
    }

    /** RSS per switch container and CPU of the idle fabric (all four switches, 10 s, from their cgroups). */
    private static void idleCostAndMemory(final Fabric fabric) throws Exception {
        final StringBuilder rss = new StringBuilder();
        long maxRss = 0;
        for (final String sw : Fabric.SWITCHES) {
            final long kb = rssKb(fabric.pid(sw));
            maxRss = Math.max(maxRss, kb);
            rss.append(sw).append(' ').append(kb / 1024).append(" MB  ");
        }
        MEASURED.put(
                fabric.kind + ": RSS per switch (VmRSS of the JVM)",
                rss.toString().strip());
        Thread.sleep(3000);
        final Map<String, Long> before = new HashMap<>();
        final Map<String, Long> jvmBefore = new HashMap<>();
        for (final String sw : Fabric.SWITCHES) {
            before.put(sw, cgroupCpuNs(fabric.pid(sw)));
            jvmBefore.put(sw, processCpuTicks(fabric.pid(sw)));
        }
        final long t0 = System.nanoTime();
        Thread.sleep(20_000);
        long used = 0;
        long jvmTicks = 0;
        for (final String sw : Fabric.SWITCHES) {
            used += cgroupCpuNs(fabric.pid(sw)) - before.get(sw);
            jvmTicks += processCpuTicks(fabric.pid(sw)) - jvmBefore.get(sw);
        }
        final long elapsed = System.nanoTime() - t0;
        MEASURED.put(
                fabric.kind + ": CPU of the idle fabric, 4 switches, % of one core over 20 s: containers "
                        + "(JVMs + health checks) / JVMs alone",
                String.format("%.2f / %.2f", 100.0 * used / elapsed, 100.0 * jvmTicks * 10_000_000L / elapsed));
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    private static Sh.Result awaitHealth(final Fabric fabric, final String sw, final int exit) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Sh.Result r;
        do {
            r = fabric.exec(SHORT, sw, "asic-emu health");
            if (r.exit() == exit) {
                return r;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("health of " + sw + " never exited " + exit + ": " + r.out());
    }

    private static String awaitDockerHealth(final String container, final String wanted) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String status;
        do {
            status = docker.docker("inspect", "-f", "{{.State.Health.Status}}", container)
                    .ok()
                    .out()
                    .strip();
            if (status.equals(wanted)) {
                return status;
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        return status;
    }

    /**
     * @return ms from {@code start} to the first log line containing {@code text} (logback's {@code HH:mm:ss.SSS}
     *     prefix, the container's clock in UTC, on the day of {@code start}), or -1 if no line has it.
     */
    private static long logMs(final String logs, final String text, final Instant start) {
        for (final String line : logs.split("\n")) {
            if (line.contains(text) && line.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*")) {
                final Instant at = start.atZone(java.time.ZoneOffset.UTC)
                        .toLocalDate()
                        .atTime(java.time.LocalTime.parse(line.substring(0, 12)))
                        .toInstant(java.time.ZoneOffset.UTC);
                return Duration.between(start, at).toMillis();
            }
        }
        return -1;
    }

    private static void nsenter(final Fabric fabric, final String node, final String command) {
        Sh.run(SHORT, "nsenter", "-t", Long.toString(fabric.pid(node)), "-n", "sh", "-c", command)
                .ok();
    }

    /** The fields of /proc/PID/status, name → value (tabs inside values kept). */
    private static Map<String, String> procStatus(final long pid) throws IOException {
        final Map<String, String> fields = new HashMap<>();
        for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            final int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }

    private static long rssKb(final long pid) throws IOException {
        for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new AssertionError("no VmRSS for " + pid);
    }

    /** utime + stime of a process in clock ticks (USER_HZ = 100 on Linux). */
    private static long processCpuTicks(final long pid) throws IOException {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** CPU time of the cgroup a process is in (cgroup v2 cpu.stat, or v1 cpuacct.usage), in ns. */
    private static long cgroupCpuNs(final long pid) throws IOException {
        for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
            final String[] f = line.split(":", 3);
            if (f[0].equals("0") && f[1].isEmpty()) {
                final Path stat = Path.of("/sys/fs/cgroup" + f[2], "cpu.stat");
                if (Files.exists(stat)) {
                    for (final String s : Files.readAllLines(stat)) {
                        if (s.startsWith("usage_usec ")) {
                            return Long.parseLong(s.substring(11).strip()) * 1000;
                        }
                    }
                }
            } else if (List.of(f[1].split(",")).contains("cpuacct")) {
                for (final String mount : List.of("cpu,cpuacct", "cpuacct,cpu", "cpuacct")) {
                    final Path usage = Path.of("/sys/fs/cgroup", mount + f[2], "cpuacct.usage");
                    if (Files.exists(usage)) {
                        return Long.parseLong(Files.readString(usage).strip());
                    }
                }
            }
        }
        throw new AssertionError("no CPU accounting found for pid " + pid);
    }

    private static Sh.Result compose(final Path file, final String... args) {
        final List<String> command =
                new ArrayList<>(List.of("/usr/bin/docker-compose", "-p", "asicemulab", "-f", file.toString()));
        command.addAll(List.of(args));
        return Sh.run(Duration.ofSeconds(180), docker.env(), null, command);
    }

    static String labctl() {
        return Images.repo().resolve("docker/labs/labctl.py").toString();
    }

    private static Path copyLab() throws IOException {
        return copyLab(docker);
    }

    /** A copy of docker/labs (the tests edit a config; the repository's files stay as they are). */
    static Path copyLab(final DockerLab docker) throws IOException {
        final Path src = Images.repo().resolve("docker/labs");
        final Path dst = Files.createTempDirectory(docker.dir(), "labs-");
        try (Stream<Path> s = Files.walk(src)) {
            for (final Path p : (Iterable<Path>) s::iterator) {
                final Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return dst;
    }
}
