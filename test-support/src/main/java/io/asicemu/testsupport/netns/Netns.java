package io.asicemu.testsupport.netns;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One network namespace of a {@link NetnsLab} (a host): runs commands in it (ip netns exec), configures addresses,
 * sends frames with scapy, runs ping and TCP transfers, and captures. Every command is bounded in time. Created and
 * removed by its lab. Thread safe for independent commands.
 */
public final class Netns {
    private static final String SEND_SCRIPT = "/io/asicemu/veth/harness/send.py";
    private static final String TCP_SCRIPT = "/io/asicemu/veth/harness/tcp.py";

    private final NetnsLab lab;
    private final String name;

    Netns(final NetnsLab lab, final String name) {
        this.lab = lab;
        this.name = name;
    }

    /** @return the namespace name (carries the lab prefix). */
    public String name() {
        return name;
    }

    /** Runs {@code command} in the namespace, bounded by {@code timeout}; does not throw on a non-zero exit. */
    public Commands.Result exec(final Duration timeout, final String... command) {
        return Commands.run(timeout, wrap(command));
    }

    /** Runs {@code command} in the namespace with the default bound and fails unless it exits 0. */
    public Commands.Result execOk(final String... command) {
        return exec(Commands.DEFAULT_TIMEOUT, command).requireSuccess();
    }

    /** Adds an IP address (CIDR, e.g. {@code 10.0.1.1/24}) to an interface of the namespace. */
    public void addAddress(final String ifName, final String cidr) {
        execOk("ip", "addr", "add", cidr, "dev", ifName);
    }

    /** Adds a route, e.g. {@code route("10.0.0.0/8", "10.0.1.254")}. */
    public void route(final String prefix, final String via) {
        execOk("ip", "route", "add", prefix, "via", via);
    }

    /** Adds a permanent neighbour entry, so no ARP is needed for {@code ip} on {@code ifName}. */
    public void neighbour(final String ifName, final String ip, final String mac) {
        execOk("ip", "neigh", "replace", ip, "lladdr", mac, "dev", ifName, "nud", "permanent");
    }

    /** Turns IPv6 off in the namespace (no RS/MLD/DAD chatter from the hosts). */
    public void disableIpv6() {
        execOk("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
        execOk("sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
    }

    /** @return the MAC address of {@code ifName}, as {@code aa:bb:cc:dd:ee:ff}. */
    public String mac(final String ifName) {
        return execOk("cat", "/sys/class/net/" + ifName + "/address").stdout().trim();
    }

    /** Sets the offloads of {@code ifName} with ethtool -K (e.g. "tx", "off"). */
    public void ethtool(final String ifName, final String... features) {
        final List<String> command = new ArrayList<>(List.of("ethtool", "-K", ifName));
        command.addAll(List.of(features));
        execOk(command.toArray(String[]::new));
    }

    /**
     * Pings {@code address} {@code count} times (0.2 s apart, each reply awaited at most 2 s).
     *
     * @return how many replies came back.
     */
    public int ping(final String address, final int count) {
        final Commands.Result result = exec(
                Duration.ofSeconds(10L + count),
                "ping",
                "-n",
                "-c",
                Integer.toString(count),
                "-i",
                "0.2",
                "-W",
                "2",
                address);
        for (final String line : result.stdout().split("\n")) {
            final int at = line.indexOf(" received");
            if (at > 0) {
                final String head = line.substring(0, at);
                return Integer.parseInt(head.substring(head.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /**
     * Runs the frame sender (scapy) with a sub-command; see send.py: {@code hex}, {@code roce}, {@code pfc},
     * {@code udp}, {@code arp}.
     *
     * @return what the script printed.
     */
    public String scapySend(final String... args) {
        return python(resource(SEND_SCRIPT), Duration.ofSeconds(60), args);
    }

    /**
     * Starts the bundled scapy sender in the background, for traffic that must last until the test has seen what it
     * does (a PFC storm); closing the returned process (or the lab) stops it.
     *
     * @param timeout the longest it may run.
     */
    public Background scapySendInBackground(final Duration timeout, final String... args) {
        final Path file = lab.writeTemp("py", resource(SEND_SCRIPT));
        final List<String> command = new ArrayList<>(List.of(Commands.PYTHON, file.toString()));
        command.addAll(List.of(args));
        return start(timeout, command.toArray(String[]::new));
    }

    /**
     * Runs a Python 3 script (with scapy available) in the namespace.
     *
     * @return its stdout.
     */
    public String python(final String script, final Duration timeout, final String... args) {
        final Path file = lab.writeTemp("py", script);
        final List<String> command = new ArrayList<>(List.of(Commands.PYTHON, file.toString()));
        command.addAll(List.of(args));
        return exec(timeout, command.toArray(String[]::new)).requireSuccess().stdout();
    }

    /**
     * Starts a TCP sink on {@code port} that accepts one connection and prints the byte count and SHA-256 of what it
     * received; killed with the lab at the latest.
     */
    public Background tcpSink(final int port, final Duration timeout) {
        final Path file = lab.writeTemp("py", resource(TCP_SCRIPT));
        return start(
                timeout,
                Commands.PYTHON,
                file.toString(),
                "sink",
                Integer.toString(port),
                Long.toString(timeout.toSeconds()));
    }

    /**
     * Sends {@code bytes} pseudo-random bytes (seeded) over TCP to {@code address:port}.
     *
     * @return the byte count and SHA-256 the sender computed, as "count sha".
     */
    public String tcpSend(final String address, final int port, final long bytes, final Duration timeout) {
        final Path file = lab.writeTemp("py", resource(TCP_SCRIPT));
        return exec(
                        timeout,
                        Commands.PYTHON,
                        file.toString(),
                        "send",
                        address,
                        Integer.toString(port),
                        Long.toString(bytes),
                        Long.toString(timeout.toSeconds()))
                .requireSuccess()
                .stdout()
                .trim();
    }

    /**
     * Starts a bounded capture on {@code ifName} and returns once tcpdump listens.
     *
     * @param filter a BPF filter, or null for everything.
     * @param maxPackets stop after this many packets.
     * @param maxDuration stop after this long.
     */
    public Capture capture(final String ifName, final String filter, final int maxPackets, final Duration maxDuration) {
        final Path pcap = lab.tempFile("pcap");
        final List<String> command = new ArrayList<>(wrap(
                "timeout",
                "-s",
                "TERM",
                Long.toString(Math.max(1, maxDuration.toSeconds())),
                "tcpdump",
                "--immediate-mode",
                // on a veth with GSO on, libpcap sizes each ring slot for a 64 KiB frame: 16 MiB held 256 frames and a
                // tcpdump descheduled on a loaded machine lost the rest of a burst (CI: 256 of 300 captured, all 300
                // counted by the interface); 64 MiB holds 1,024
                "-B",
                "65536",
                "-i",
                ifName,
                "-n",
                "-U",
                "-s",
                "0",
                "-c",
                Integer.toString(maxPackets),
                "-w",
                pcap.toString()));
        if (filter != null) {
            command.add(filter);
        }
        final Capture capture = new Capture(command, pcap);
        lab.track(capture);
        return capture;
    }

    /** Starts {@code command} in the background (bounded by {@code timeout} via coreutils timeout). */
    public Background start(final Duration timeout, final String... command) {
        final List<String> full =
                new ArrayList<>(List.of("timeout", "-s", "KILL", Long.toString(Math.max(1, timeout.toSeconds()))));
        full.addAll(List.of(command));
        final Background background = new Background(wrap(full.toArray(String[]::new)));
        lab.track(background);
        return background;
    }

    private List<String> wrap(final String... command) {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(List.of(command));
        return full;
    }

    static String resource(final String path) {
        try (InputStream in = Netns.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "netns " + name;
    }
}
