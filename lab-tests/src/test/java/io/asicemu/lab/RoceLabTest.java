package io.asicemu.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17's live lab: two RoCEv2 transfers with DCQCN ({@code asic-emu host} in the lab host image, the endpoint model
 * over AF_PACKET) through the leaf-spine fabric wired as containerlab does, across one congested spine uplink: h1 → h3
 * and h2 → h4 (h1, h2 on leaf1; h3, h4 on leaf2), both routed over leaf1's uplink to spine1, modeled at
 * {@value #BOTTLENECK_MBPS} Mb/s for this test with the lab's RoCE QoS (WRED/ECN on queue 3 with Kmin/Kmax below the PFC
 * XOFF threshold). h1 starts alone; h2 joins {@value #JOIN_S} s later. Checked from the hosts' own reports: the two
 * receive rates converge, h1 gives up its share when h2 joins; leaf1's WRED ECN counter delta equals the CE marks the
 * receivers counted; the CNPs the receivers sent equal those the senders received, and are no more than the CE marks.
 * <p>
 * The DCQCN knobs are the paper's settings with the time constants scaled to this lab (docs/LAB.md, "Closed-loop
 * RoCE"): the paper's 55 µs timers fit a 40 Gb/s link with microsecond round trips; here the bottleneck is 4,000 times
 * slower and a round trip through three JVM switches in containers takes milliseconds.
 */
@Tag("lab")
@Timeout(value = 600, unit = TimeUnit.SECONDS)
@Disabled("does not pass yet: the hosts' JVMs in the lab containers start tens of seconds late, so receivers and "
        + "senders do not overlap; once they did (run 7) CE, CNPs and the DCQCN cut showed (docs/LAB.md, session 5)")
class RoceLabTest {
    static final int BOTTLENECK_MBPS = 5;
    static final int JOIN_S = 8;
    /**
     * RDMA payload per packet: 8 KiB, so that a sender at line rate paces packets 6.6 ms apart. The live host spins
     * through waits shorter than 2 ms (epoll's resolution); with 1 KiB packets both senders spun a core each and
     * starved the fabric's JVMs on a 2-core machine (host JVMs then took 20 s and more to start).
     */
    private static final int PAYLOAD_BYTES = 8192;
    /** Each sender's line rate: twice the bottleneck, so one alone congests it. */
    private static final int LINE_RATE_MBPS = 2 * BOTTLENECK_MBPS;
    /** The paper's settings (timer-driven increase) with times in the lab's scale; units: rdma-endpoint/DCQCN.md. */
    static final List<String> LAB_DCQCN = List.of(
            "rpg_time_reset=20000",
            "rpg_byte_reset=0",
            "rpg_ai_rate=1",
            "rpg_hai_rate=2",
            "dce_tcp_rtt=20000",
            "dce_tcp_g=960",
            "min_time_between_cnps=5000");

    private static final Pattern REPORT = Pattern.compile(
            "host: ([0-9.]+) s  acked ([0-9.]+) Mb/s  received ([0-9.]+) Mb/s  DCQCN rate ([0-9.]+) Mb/s");
    private static final Pattern DONE = Pattern.compile("host: done: (\\d+) of (\\d+) messages acknowledged, (\\d+) B "
            + "received, CE (\\d+), CNPs sent (\\d+), CNPs received (\\d+), retransmitted (\\d+), PFC frames (\\d+)");
    private static final Map<String, String> MEASURED = new LinkedHashMap<>();
    private static DockerLab docker;

    @BeforeAll
    static void startDockerAndLoadImages() throws Exception {
        docker = DockerLab.start();
        Images.buildAndLoad(docker);
        MEASURED.put(
                "host image size (MB, docker image inspect)",
                Long.toString(Long.parseLong(docker.docker("image", "inspect", "-f", "{{.Size}}", Images.HOST)
                                .ok()
                                .out()
                                .strip())
                        / 1_000_000));
    }

    @AfterAll
    static void stopDocker() throws IOException {
        if (docker != null) {
            docker.close();
        }
        final StringBuilder text = new StringBuilder();
        MEASURED.forEach(
                (k, v) -> text.append("LAB ").append(k).append(": ").append(v).append('\n'));
        System.out.print(text);
        final Path out = Path.of("target", "lab-roce-measurements.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, text);
    }

    /** One {@code asic-emu host} run's report: per-period lines and the final counters. */
    record HostReport(
            String host,
            List<double[]> periods,
            long ce,
            long cnpsSent,
            long cnpsReceived,
            long retransmitted,
            long pfcFrames,
            String text) {
        static HostReport of(final String host, final Sh.Result r) {
            final List<double[]> periods = new ArrayList<>();
            final Matcher m = REPORT.matcher(r.out());
            while (m.find()) {
                periods.add(new double[] {
                    Double.parseDouble(m.group(1)),
                    Double.parseDouble(m.group(2)),
                    Double.parseDouble(m.group(3)),
                    Double.parseDouble(m.group(4))
                });
            }
            final Matcher d = DONE.matcher(r.out());
            assertThat(d.find()).as(host + " printed its final counters:\n" + r).isTrue();
            return new HostReport(
                    host,
                    periods,
                    Long.parseLong(d.group(4)),
                    Long.parseLong(d.group(5)),
                    Long.parseLong(d.group(6)),
                    Long.parseLong(d.group(7)),
                    Long.parseLong(d.group(8)),
                    r.out() + r.err());
        }

        /** Mean of column {@code column} (1 acked, 2 received, 3 DCQCN rate) over periods ending in (from, to]. */
        double mean(final int column, final double fromS, final double toS) {
            return periods.stream()
                    .filter(p -> p[0] > fromS && p[0] <= toS)
                    .mapToDouble(p -> p[column])
                    .average()
                    .orElse(Double.NaN);
        }

        /** @return the end of the first period that received anything. */
        double firstReceivingS() {
            return periods.stream()
                    .filter(p -> p[2] > 0)
                    .mapToDouble(p -> p[0])
                    .findFirst()
                    .orElse(Double.NaN);
        }

        /** @return the end of the last period that received anything. */
        double lastReceivingS() {
            return periods.stream()
                    .filter(p -> p[2] > 0)
                    .mapToDouble(p -> p[0])
                    .max()
                    .orElse(Double.NaN);
        }
    }

    @Test
    void twoDcqcnTransfersThroughOneCongestedLinkConvergeAndCountersAgree() throws Exception {
        final Path lab = LabTest.copyLab(docker);
        congestLeaf1Uplink(lab.resolve("leaf-spine/configs"));
        final Path topo = lab.resolve("leaf-spine/leaf-spine.clab.yml");
        Sh.run(Duration.ofSeconds(120), docker.env(), null, List.of(LabTest.labctl(), "deploy", "-t", topo.toString()))
                .ok();
        try {
            final Fabric fabric = new Fabric(
                    "containerlab",
                    docker,
                    lab.resolve("leaf-spine"),
                    node -> "clab-leaf-spine-" + node,
                    List.of(LabTest.labctl(), "wire", "-t", topo.toString()));
            // both directions resolved (data out, ACKs and CNPs back), so no frame waits for ARP
            for (final String[] pair : new String[][] {{"h1", "h3"}, {"h2", "h4"}, {"h3", "h1"}, {"h4", "h2"}}) {
                LabTest.awaitPing(fabric, pair[0], Fabric.ADDRESS.get(pair[1]), Duration.ofSeconds(60));
            }
            closedLoop(fabric);
        } finally {
            Sh.run(
                            Duration.ofSeconds(120),
                            docker.env(),
                            null,
                            List.of(LabTest.labctl(), "destroy", "-t", topo.toString()))
                    .ok();
        }
    }

    /**
     * The congested link: leaf1's uplink to spine1 (Ethernet8) at {@value #BOTTLENECK_MBPS} Mb/s with the lab's
     * slow-port WRED profile (Kmin 8 kB, Kmax 16 kB, below the 20 kB XOFF threshold), and leaf1's route to leaf2's
     * hosts over spine1 only, so that h1 → h3 and h2 → h4 share it; leaf2's port to h4 at 100 Gb/s like the others
     * (the lab's 1 Mb/s port would be a second bottleneck). DCQCN's rates step in whole Mb/s (rpg_min_rate and
     * rpg_ai_rate ≥ 1 Mb/s), too coarse to share a 1 Mb/s link.
     */
    private static void congestLeaf1Uplink(final Path configs) throws IOException {
        final ObjectMapper json = new ObjectMapper();
        final ObjectNode leaf1 =
                (ObjectNode) json.readTree(configs.resolve("leaf1.json").toFile());
        ((ObjectNode) leaf1.get("PORT").get("Ethernet8")).put("speed", Integer.toString(BOTTLENECK_MBPS));
        ((ObjectNode) leaf1.get("QUEUE").get("Ethernet8|3")).put("wred_profile", "ROCE_SLOW_PORT");
        final ObjectNode route = (ObjectNode) leaf1.get("STATIC_ROUTE").get("10.2.0.0/16");
        route.put("nexthop", "10.0.11.2");
        route.put("ifname", "Ethernet8");
        Files.writeString(
                configs.resolve("leaf1.json"),
                json.writerWithDefaultPrettyPrinter().writeValueAsString(leaf1));
        final ObjectNode leaf2 =
                (ObjectNode) json.readTree(configs.resolve("leaf2.json").toFile());
        ((ObjectNode) leaf2.get("PORT").get("Ethernet4")).put("speed", "100000");
        Files.writeString(
                configs.resolve("leaf2.json"),
                json.writerWithDefaultPrettyPrinter().writeValueAsString(leaf2));
    }

    private static void closedLoop(final Fabric fabric) throws Exception {
        final String ecnCounter = "Ethernet8 queue 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS";
        final long ecnBefore = Fabric.counter(fabric.counters("leaf1"), ecnCounter);
        final int senderS = 2 * JOIN_S + 14;
        // h1 → h3 and h2 → h4, one QP each, both over leaf1's uplink to spine1. A JVM in a host container can take
        // many seconds to start on a loaded machine, so each phase waits until the host's packet socket exists; the
        // receivers run long enough to cover that
        final CompletableFuture<Sh.Result> fromH1 = host(fabric, "h3", "h1", 256, 2 * senderS, false);
        final CompletableFuture<Sh.Result> fromH2 = host(fabric, "h4", "h2", 512, 2 * senderS, false);
        awaitPacketSocket(fabric, "h3");
        awaitPacketSocket(fabric, "h4");
        final CompletableFuture<Sh.Result> h1 = host(fabric, "h1", "h3", 256, senderS, true);
        awaitPacketSocket(fabric, "h1");
        Thread.sleep(JOIN_S * 1000L / 2);
        // the packet sockets of a receiver and a sender while they run (inode, interface index, receive memory)
        final String sockets = "--- h3 /proc/net/packet, links\n"
                + fabric.exec(
                                Duration.ofSeconds(10),
                                "h3",
                                "cat /proc/net/packet; ip -o link; ps -eo pid,stat,etime,args | grep -v grep | grep java")
                        .out()
                + "--- h1 /proc/net/packet\n"
                + fabric.exec(Duration.ofSeconds(10), "h1", "cat /proc/net/packet")
                        .out()
                // another AF_PACKET reader in the receiver's container at the same time: does it see the data?
                + "--- tcpdump in h3\n"
                + fabric.exec(Duration.ofSeconds(10), "h3", "timeout 3 tcpdump -c 5 -nei eth1 udp port 4791 2>&1")
                        .out();
        Thread.sleep(JOIN_S * 1000L / 2);
        final CompletableFuture<Sh.Result> h2 = host(fabric, "h2", "h4", 512, senderS - JOIN_S, true);
        awaitPacketSocket(fabric, "h2");
        final HostReport send1 = HostReport.of("h1", h1.get(300, TimeUnit.SECONDS));
        final HostReport send2 = HostReport.of("h2", h2.get(300, TimeUnit.SECONDS));
        final HostReport recv1 = HostReport.of("h3", fromH1.get(300, TimeUnit.SECONDS));
        final HostReport recv2 = HostReport.of("h4", fromH2.get(300, TimeUnit.SECONDS));
        final String counters = fabric.counters("leaf1") + "\n--- h3, h4 eth1 (kernel)\n"
                + fabric.exec(Duration.ofSeconds(10), "h3", "ip -s link show eth1")
                        .out()
                + fabric.exec(Duration.ofSeconds(10), "h4", "ip -s link show eth1")
                        .out();
        final long ecnDelta = Fabric.counter(counters, ecnCounter) - ecnBefore;
        final String all = String.join("\n", send1.text(), send2.text(), recv1.text(), recv2.text(), counters, sockets);

        // the receivers' clocks started together (before h1): the join and the end as the receivers saw them
        final double join = recv2.firstReceivingS();
        final double end = Math.min(recv1.lastReceivingS(), recv2.lastReceivingS());
        final double alone = recv1.mean(2, recv1.firstReceivingS() + 2, join - 1);
        final double h1Shared = recv1.mean(2, join + 5, end - 1);
        final double h2Shared = recv2.mean(2, join + 5, end - 1);
        final double fair = (h1Shared + h2Shared) / 2;
        final StringBuilder series = new StringBuilder();
        for (final HostReport r : List.of(recv1, recv2, send1, send2)) {
            series.append(r.host()).append(r == send1 || r == send2 ? " DCQCN rate:" : " received:");
            for (final double[] p : r.periods()) {
                series.append(String.format(" %.1f", r == send1 || r == send2 ? p[3] : p[2]));
            }
            series.append('\n');
        }
        System.out.print(series);
        MEASURED.put("RoCE: receive rates per second (Mb/s), h2 joined at " + join + " s", "\n" + series);
        MEASURED.put(
                "RoCE: h1 alone / then h1, h2 sharing (mean received Mb/s, bottleneck " + BOTTLENECK_MBPS + ")",
                String.format("%.2f / %.2f, %.2f (from %.0f to %.0f s)", alone, h1Shared, h2Shared, join + 5, end - 1));
        MEASURED.put(
                "RoCE: leaf1 uplink WRED ECN delta / CE at h3 + h4 (h3, h4) / CNPs sent by h3+h4 / received by h1+h2"
                        + " / retransmitted / PFC frames at the senders",
                ecnDelta + " / " + (recv1.ce() + recv2.ce()) + " ("
                        + recv1.ce() + ", " + recv2.ce() + ") / " + (recv1.cnpsSent() + recv2.cnpsSent()) + " / "
                        + (send1.cnpsReceived() + send2.cnpsReceived()) + " / "
                        + (send1.retransmitted() + send2.retransmitted())
                        + " / " + (send1.pfcFrames() + send2.pfcFrames()));

        assertThat(end - join)
                .as("both flows ran together long enough to compare\n" + all)
                .isGreaterThan(8);
        assertThat(recv1.ce() + recv2.ce())
                .as("CE marks reached the receivers\n" + all)
                .isPositive();
        assertThat(ecnDelta)
                .as("leaf1's WRED ECN counter (uplink, queue 3) = the CE marks the receivers counted\n" + all)
                .isEqualTo(recv1.ce() + recv2.ce());
        assertThat(send1.cnpsReceived())
                .as("CNPs h3 sent = CNPs h1 received\n" + all)
                .isEqualTo(recv1.cnpsSent());
        assertThat(send2.cnpsReceived())
                .as("CNPs h4 sent = CNPs h2 received\n" + all)
                .isEqualTo(recv2.cnpsSent());
        assertThat(recv1.cnpsSent())
                .as("at most one CNP per CE mark")
                .isPositive()
                .isLessThanOrEqualTo(recv1.ce());
        assertThat(recv2.cnpsSent())
                .as("at most one CNP per CE mark")
                .isPositive()
                .isLessThanOrEqualTo(recv2.ce());
        // converged: each flow within ±20 % of the fair share of what the two received together
        assertThat(Math.abs(h1Shared - fair) / fair)
                .as("h1's share vs fair share " + fair + "\n" + series)
                .isLessThanOrEqualTo(0.20);
        assertThat(Math.abs(h2Shared - fair) / fair)
                .as("h2's share vs fair share " + fair + "\n" + series)
                .isLessThanOrEqualTo(0.20);
        // and h1 gave up what h2 took: alone it had more than 1.5 times its shared rate
        assertThat(alone).as("h1 alone vs shared\n" + series).isGreaterThan(1.5 * h1Shared);
    }

    /** Waits until a packet socket is open in {@code node} (its {@code asic-emu host} has opened eth1). */
    private static void awaitPacketSocket(final Fabric fabric, final String node) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            // /proc/net/packet: a header line, then one line per packet socket of the container's namespace
            if (fabric.exec(Duration.ofSeconds(10), node, "cat /proc/net/packet")
                            .out()
                            .strip()
                            .lines()
                            .count()
                    > 1) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("asic-emu host in " + node + " opened no packet socket within 90 s");
    }

    /** Starts {@code asic-emu host} in {@code node} toward {@code peer}: sending (one QP) or answering. */
    private static CompletableFuture<Sh.Result> host(
            final Fabric fabric,
            final String node,
            final String peer,
            final int qpn,
            final int durationS,
            final boolean send) {
        final List<String> args = new ArrayList<>(List.of(
                "asic-emu",
                "host",
                "--interface",
                "eth1",
                "--ip",
                Fabric.ADDRESS.get(node),
                "--peer",
                Fabric.ADDRESS.get(peer),
                "--gateway-mac",
                Fabric.ROUTER_MAC.get(Fabric.LEAF.get(node)),
                "--qps",
                "1",
                "--qpn-base",
                Integer.toString(qpn),
                "--udp-port-base",
                Integer.toString(49152 + qpn),
                "--line-rate-mbps",
                Integer.toString(LINE_RATE_MBPS),
                "--mtu-payload",
                Integer.toString(PAYLOAD_BYTES),
                "--duration-s",
                Integer.toString(durationS),
                "--report-ms",
                "1000"));
        for (final String knob : LAB_DCQCN) {
            args.addAll(List.of("--dcqcn-knob", knob));
        }
        if (send) {
            args.addAll(List.of("--send", "1048576", "--messages", "1000"));
        }
        return CompletableFuture.supplyAsync(
                () -> fabric.exec(Duration.ofSeconds(durationS + 120), node, String.join(" ", args)));
    }
}
