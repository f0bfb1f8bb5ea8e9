package io.asicemu.switchd;

import io.asicemu.rdma.dcqcn.DcqcnParameters;
import io.asicemu.rdma.host.RoceHost;
import io.asicemu.scenario.DcqcnKnobs;
import io.asicemu.scenario.Macs;
import io.asicemu.scenario.ScenarioException;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.ffm.NetDevice;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code host}: a RoCEv2 traffic host on a Linux interface, with the endpoint model the scenarios use (RC queue
 * pairs, go-back-N, DCQCN answering real CE marks with CNPs and real CNPs with rate cuts, PFC obeyed). Both ends run
 * it with the same {@code --qps} and {@code --qpn-base}; the one given {@code --send} posts the messages, the other
 * answers. Prints rates while running and the flow completion times at the end.
 */
@Command(
        name = "host",
        mixinStandardHelpOptions = true,
        description =
                "Run a RoCEv2 host (RC queue pairs with DCQCN) on an interface: send RDMA WRITEs to a peer running "
                        + "the same command, or answer them. Needs CAP_NET_RAW.")
final class HostCommand implements Callable<Integer> {
    @Option(names = "--interface", required = true, paramLabel = "IF", description = "the host's data interface")
    private String interfaceName;

    @Option(names = "--ip", required = true, paramLabel = "A.B.C.D", description = "this host's IPv4 address")
    private String ip;

    @Option(
            names = "--gateway-mac",
            required = true,
            paramLabel = "MAC",
            description = "next hop's MAC (the switch port's router MAC, or the peer's MAC back to back)")
    private String gatewayMac;

    @Option(names = "--peer", required = true, paramLabel = "A.B.C.D", description = "the other host's IPv4 address")
    private String peer;

    @Option(names = "--qps", defaultValue = "1", description = "queue pairs (default: ${DEFAULT-VALUE})")
    private int qps;

    @Option(
            names = "--qpn-base",
            defaultValue = "256",
            description = "first QP number, both ends alike " + "(default: ${DEFAULT-VALUE})")
    private int qpnBase;

    @Option(
            names = "--udp-port-base",
            defaultValue = "49152",
            description = "RoCEv2 source port of the first QP, then +1 per QP (default: ${DEFAULT-VALUE})")
    private int udpPortBase;

    @Option(names = "--send", paramLabel = "BYTES", description = "bytes per message to post on every QP")
    private long sendBytes;

    @Option(names = "--messages", defaultValue = "1", description = "messages per QP (default: ${DEFAULT-VALUE})")
    private int messages;

    @Option(
            names = "--line-rate-mbps",
            defaultValue = "1000",
            description = "the NIC's line rate, and DCQCN's highest rate (default: ${DEFAULT-VALUE})")
    private long lineRateMbps;

    @Option(names = "--dcqcn", defaultValue = "paper", description = "paper, nic or off (default: ${DEFAULT-VALUE})")
    private String dcqcn;

    @Option(
            names = "--dcqcn-knob",
            paramLabel = "NAME=VALUE",
            mapFallbackValue = "",
            description = "override one DCQCN knob of the --dcqcn base by its NIC name (rpg_time_reset=20000, "
                    + "rpg_ai_rate=1, dce_tcp_g=960, min_time_between_cnps=5000, clamp_tgt_rate=1, …; units: "
                    + "rdma-endpoint/DCQCN.md); repeatable")
    private Map<String, String> dcqcnKnobs = new LinkedHashMap<>();

    @Option(names = "--mtu-payload", defaultValue = "1024", description = "RDMA payload per packet")
    private int mtuPayload;

    @Option(names = "--dscp", defaultValue = "26", description = "DSCP of the data (default: ${DEFAULT-VALUE})")
    private int dscp;

    @Option(
            names = "--priority",
            defaultValue = "3",
            description = "the data's PFC priority, paused by PFC frames (default: ${DEFAULT-VALUE})")
    private int priority;

    @Option(
            names = "--duration-s",
            defaultValue = "30",
            description = "stop after this long (default: ${DEFAULT-VALUE})")
    private double durationS;

    @Option(
            names = "--idle-exit-s",
            defaultValue = "0",
            description = "stop once no frame for this host arrived for this long, after the first one did: a "
                    + "receiver that ends with its sender (default: ${DEFAULT-VALUE}, off)")
    private double idleExitS;

    @Option(
            names = "--drain-ms",
            defaultValue = "500",
            description = "a sender, once stopped, keeps counting the ACKs and CNPs that still arrive (for frames "
                    + "queued in the fabric) this long, sending nothing (default: ${DEFAULT-VALUE})")
    private long drainMs;

    @Option(
            names = "--report-ms",
            defaultValue = "1000",
            description = "print rates this often (default: ${DEFAULT-VALUE})")
    private long reportMs;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final DcqcnParameters parameters;
        final int localIp;
        final int peerIp;
        final long gateway;
        try {
            parameters = DcqcnKnobs.apply(
                    switch (dcqcn) {
                        case "paper", "off" -> DcqcnParameters.paperSettings();
                        case "nic" -> DcqcnParameters.nicDefaults();
                        default -> throw new IllegalArgumentException("--dcqcn: paper, nic or off, not " + dcqcn);
                    },
                    knobValues(dcqcnKnobs));
            localIp = Macs.parseIpv4(ip, "--ip");
            peerIp = Macs.parseIpv4(peer, "--peer");
            gateway = Macs.parse(gatewayMac, "--gateway-mac");
            if (qps < 1 || qps > 4096 || messages < 1 || lineRateMbps < 1 || mtuPayload < 64 || mtuPayload > 8192) {
                throw new IllegalArgumentException(
                        "--qps 1..4096, --messages ≥ 1, --line-rate-mbps ≥ 1, " + "--mtu-payload 64..8192");
            }
            if (!(durationS > 0) || !(idleExitS >= 0) || drainMs < 0) {
                throw new IllegalArgumentException("--duration-s > 0, --idle-exit-s ≥ 0, --drain-ms ≥ 0");
            }
        } catch (final IllegalArgumentException | ScenarioException e) {
            err.println("host: " + e.getMessage());
            return 2;
        }
        final List<long[]> done = new ArrayList<>();
        final long ownMac;
        final AfPacketPort port;
        try {
            NetDevice.up(interfaceName);
            ownMac = macOf(NetDevice.macAddress(interfaceName));
            port = AfPacketPort.open(interfaceName, AfPacketConfig.defaults().withSpeedMbps(lineRateMbps));
        } catch (final IllegalStateException e) {
            err.println("host: " + interfaceName + ": " + e.getMessage());
            return 2;
        }
        final RoceHost host = new RoceHost(
                interfaceName,
                ownMac,
                localIp,
                gateway,
                lineRateMbps * 1_000_000L,
                parameters,
                mtuPayload,
                256,
                100_000_000L,
                dscp,
                priority,
                (qp, id, bytes, posted, completed) -> done.add(new long[] {bytes, posted, completed}));
        host.congestionControl(!"off".equals(dcqcn));
        final List<RoceHost.QueuePair> pairs = new ArrayList<>();
        final long startNs = System.nanoTime();
        for (int q = 0; q < qps; q++) {
            final RoceHost.QueuePair qp = host.connect(qpnBase + q, peerIp, qpnBase + q, udpPortBase + q);
            pairs.add(qp);
            for (int m = 0; m < (sendBytes > 0 ? messages : 0); m++) {
                qp.post(sendBytes, startNs);
            }
        }
        final int expected = sendBytes > 0 ? qps * messages : 0;
        final long[] lastBytes = {0, 0};
        try (LiveRoceHost live = new LiveRoceHost(port, host)) {
            out.printf(
                    Locale.ROOT,
                    "host: %s %s, %d QPs to %s, %s%n",
                    interfaceName,
                    ip,
                    qps,
                    peer,
                    sendBytes > 0 ? "sending " + messages + " x " + sendBytes + " B per QP" : "answering");
            // the line a script or test waits for: the packet socket is open, frames from now on are answered
            // with the time since the JVM started (the process's start time as the kernel has it), so that a slow
            // start shows where it went: before the JVM ran, or in it
            out.printf(
                    Locale.ROOT,
                    "host: ready, %.2f s after the JVM started%n",
                    ProcessHandle.current()
                                    .info()
                                    .startInstant()
                                    .map(t -> java.time.Duration.between(t, java.time.Instant.now())
                                            .toNanos())
                                    .orElse(-1L)
                            / 1e9);
            out.flush();
            final LiveRoceHost.Stop stop = live.run(
                    startNs + (long) (durationS * 1e9),
                    (long) (idleExitS * 1e9),
                    () -> expected > 0 && done.size() == expected,
                    () -> {
                        long sent = 0;
                        long received = 0;
                        double rate = 0;
                        for (final RoceHost.QueuePair qp : pairs) {
                            sent += qp.sender().bytesCompleted();
                            received += qp.bytesReceived();
                            rate += qp.sender().idle() ? 0 : qp.reaction().currentRateBps();
                        }
                        // Mb/s with three decimals: lab links run at a few Mb/s, where Gb/s would print zeros
                        out.printf(
                                Locale.ROOT,
                                "host: %.1f s  acked %.3f Mb/s  received %.3f Mb/s  DCQCN rate %.3f Mb/s%n",
                                (System.nanoTime() - startNs) / 1e9,
                                (sent - lastBytes[0]) * 8.0 / (reportMs * 1e3),
                                (received - lastBytes[1]) * 8.0 / (reportMs * 1e3),
                                rate / 1e6);
                        out.flush();
                        lastBytes[0] = sent;
                        lastBytes[1] = received;
                    },
                    reportMs * 1_000_000L);
            if (sendBytes > 0) {
                live.drain(drainMs * 1_000_000L);
            }
            long ce = 0;
            long cnpsSent = 0;
            long cnpsReceived = 0;
            long retransmitted = 0;
            long received = 0;
            for (final RoceHost.QueuePair qp : pairs) {
                ce += qp.ceMarksReceived();
                cnpsSent += qp.cnpsSent();
                cnpsReceived += qp.cnpsReceived();
                retransmitted += qp.sender().packetsRetransmitted();
                received += qp.bytesReceived();
            }
            out.printf(
                    Locale.ROOT,
                    "host: done: %d of %d messages acknowledged, %d B received, CE %d, CNPs sent %d, "
                            + "CNPs received %d, retransmitted %d, PFC frames %d, paused %.3f ms; lost at the port: TX ring full "
                            + "%d, RX ring overflow %d; control queue full %d; frames not for this host %d%n",
                    done.size(),
                    expected,
                    received,
                    ce,
                    cnpsSent,
                    cnpsReceived,
                    retransmitted,
                    host.pfcFramesReceived(),
                    host.pausedNs(priority) / 1e6,
                    live.txRefused(),
                    port.takeRxOverflowDrops(),
                    host.controlQueueDrops(),
                    host.framesIgnored());
            out.printf(
                    Locale.ROOT,
                    "host: stopped: %s; pacing: %d parks (late by %.0f µs on average), %.1f ms spun%n",
                    switch (stop) {
                        case DONE -> "every message acknowledged";
                        case DEADLINE -> "--duration-s passed";
                        case IDLE -> "idle for --idle-exit-s";
                    },
                    live.parks(),
                    live.parkLatenessNs() / 1e3,
                    live.spinNs() / 1e6);
            if (!done.isEmpty()) {
                final long[] fct =
                        done.stream().mapToLong(d -> d[2] - d[1]).sorted().toArray();
                out.printf(
                        Locale.ROOT,
                        "host: FCT P50 %.3f ms, P99 %.3f ms, max %.3f ms%n",
                        fct[Math.max(0, (int) Math.ceil(0.5 * fct.length) - 1)] / 1e6,
                        fct[Math.max(0, (int) Math.ceil(0.99 * fct.length) - 1)] / 1e6,
                        fct[fct.length - 1] / 1e6);
            }
            out.flush();
            return expected == 0 || done.size() == expected ? 0 : 1;
        }
    }

    /** NAME=VALUE texts → numbers (or booleans for true/false), as a scenario file's dcqcn section gives them. */
    private static Map<String, Object> knobValues(final Map<String, String> texts) {
        final Map<String, Object> values = new LinkedHashMap<>();
        for (final Map.Entry<String, String> e : texts.entrySet()) {
            final String v = e.getValue().strip();
            if (v.equals("true") || v.equals("false")) {
                values.put(e.getKey(), Boolean.parseBoolean(v));
            } else {
                try {
                    values.put(e.getKey(), Long.parseLong(v));
                } catch (final NumberFormatException notANumber) {
                    throw new IllegalArgumentException("--dcqcn-knob " + e.getKey() + "=" + v
                            + ": the value is not a whole number, true or false");
                }
            }
        }
        return values;
    }

    private static long macOf(final byte[] bytes) {
        long value = 0;
        for (final byte b : bytes) {
            value = (value << 8) | (b & 0xFF);
        }
        return value;
    }
}
