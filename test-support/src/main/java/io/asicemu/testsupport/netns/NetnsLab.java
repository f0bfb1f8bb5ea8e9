package io.asicemu.testsupport.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A network-namespace lab: namespaces (hosts), veth links between them and switch ports in the caller's namespace,
 * all named with a random per-lab prefix ({@code av} + 4 hex digits) so runs never collide, and all removed by
 * {@link #close()} even when a test failed. A marker file with the owning PID lets {@link #sweepStale()} remove what a
 * killed run left behind without touching a live run's objects. Never touches interfaces it did not create.
 * <p>
 * Not thread safe: one thread builds and closes a lab.
 */
public final class NetnsLab implements AutoCloseable {
    /** Where labs leave their owner markers. */
    public static final Path MARKER_DIR = Path.of("/tmp/asicemu-veth-labs");

    private static final Pattern LAB_NAME = Pattern.compile("^(av[0-9a-f]{4})-");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final java.util.Set<NetnsLab> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static volatile boolean swept;

    private final String prefix;
    private final Path tempDir;
    private final List<String> namespaces = new ArrayList<>();
    private final List<String> rootLinks = new ArrayList<>();
    private final List<AutoCloseable> processes = new ArrayList<>();
    private boolean closed;

    private NetnsLab(final String prefix, final Path tempDir) {
        this.prefix = prefix;
        this.tempDir = tempDir;
    }

    /** Sweeps stale labs (once per JVM), then creates an empty lab with a fresh prefix. */
    public static NetnsLab create() {
        if (!swept) {
            sweepStale();
            swept = true;
        }
        try {
            Files.createDirectories(MARKER_DIR);
            for (int attempt = 0; attempt < 16; attempt++) {
                final String prefix = "av" + HexFormat.of().toHexDigits((short) RANDOM.nextInt());
                final Path marker = MARKER_DIR.resolve(prefix + ".pid");
                try {
                    Files.writeString(
                            marker,
                            Long.toString(ProcessHandle.current().pid()),
                            StandardCharsets.US_ASCII,
                            java.nio.file.StandardOpenOption.CREATE_NEW);
                } catch (final java.nio.file.FileAlreadyExistsException e) {
                    continue;
                }
                final NetnsLab lab = new NetnsLab(prefix, Files.createTempDirectory("asicemu-" + prefix + "-"));
                OPEN.add(lab);
                return lab;
            }
            throw new IllegalStateException("no free lab prefix after 16 attempts");
        } catch (final IOException e) {
            throw new IllegalStateException("cannot create lab marker in " + MARKER_DIR, e);
        }
    }

    /** @return the lab's name prefix, e.g. {@code av1f3c}. */
    public String prefix() {
        return prefix;
    }

    /**
     * Creates a namespace {@code <prefix>-<shortName>} with loopback up.
     *
     * @param shortName at most 8 characters.
     */
    public Netns namespace(final String shortName) {
        final String name = prefix + "-" + shortName;
        Commands.runOrFail("ip", "netns", "add", name);
        namespaces.add(name);
        final Netns netns = new Netns(this, name);
        netns.execOk("ip", "link", "set", "lo", "up");
        return netns;
    }

    /**
     * Creates a veth pair between a switch port in the caller's namespace, named {@code <prefix>-<shortName>}, and
     * {@code hostIf} in {@code host}. Both ends come up; the switch end is silenced (addrgenmode none, IPv6 off) and
     * gets no address.
     *
     * @param shortName at most 8 characters.
     * @param mtu the MTU of both ends.
     * @return the switch-side interface name.
     */
    public String switchLink(
            final String shortName, final Netns host, final String hostIf, final Offloads offloads, final int mtu) {
        final String port = prefix + "-" + shortName;
        if (port.length() > 15) {
            throw new IllegalArgumentException("interface name too long: " + port);
        }
        Commands.runOrFail(
                "ip",
                "link",
                "add",
                port,
                "mtu",
                Integer.toString(mtu),
                "type",
                "veth",
                "peer",
                "name",
                hostIf,
                "mtu",
                Integer.toString(mtu),
                "netns",
                host.name());
        rootLinks.add(port);
        silence(port);
        if (offloads == Offloads.CONTAINERLAB) {
            Commands.runOrFail("ethtool", "-K", port, "tx", "off");
            host.ethtool(hostIf, "tx", "off");
        }
        Commands.runOrFail("ip", "link", "set", port, "up");
        host.execOk("ip", "link", "set", hostIf, "up");
        return port;
    }

    /** Creates a veth pair between two namespaces ({@code aIf} in {@code a}, {@code bIf} in {@code b}), both up. */
    public void link(
            final Netns a, final String aIf, final Netns b, final String bIf, final Offloads offloads, final int mtu) {
        a.execOk(
                "ip",
                "link",
                "add",
                aIf,
                "mtu",
                Integer.toString(mtu),
                "type",
                "veth",
                "peer",
                "name",
                bIf,
                "mtu",
                Integer.toString(mtu),
                "netns",
                b.name());
        if (offloads == Offloads.CONTAINERLAB) {
            a.ethtool(aIf, "tx", "off");
            b.ethtool(bIf, "tx", "off");
        }
        a.execOk("ip", "link", "set", aIf, "up");
        b.execOk("ip", "link", "set", bIf, "up");
    }

    /**
     * Moves an interface of the caller's namespace (e.g. a TAP the switch created) into {@code ns} and brings it up
     * there; it goes away with the namespace.
     */
    public void moveLink(final String link, final Netns ns) {
        Commands.runOrFail("ip", "link", "set", link, "netns", ns.name());
        ns.execOk("ip", "link", "set", link, "up");
    }

    /** Deletes a switch-side link this lab created (its peer goes with it). */
    public void deleteSwitchLink(final String port) {
        Commands.runOrFail("ip", "link", "del", port);
        rootLinks.remove(port);
    }

    /**
     * Silences kernel chatter on a port of the caller's namespace: addrgenmode none (netlink) and, when /proc/sys is
     * writable, disable_ipv6=1 (no RS, MLD or DAD frames). Never assigns an address.
     */
    public static void silence(final String port) {
        Commands.runOrFail("ip", "link", "set", "dev", port, "addrgenmode", "none");
        final Path sysctl = Path.of("/proc/sys/net/ipv6/conf", port, "disable_ipv6");
        try {
            Files.writeString(sysctl, "1");
        } catch (final IOException e) {
            // read-only /proc/sys (unprivileged container): addrgenmode none already silenced the port
        }
    }

    Path tempFile(final String suffix) {
        try {
            return Files.createTempFile(tempDir, "f", "." + suffix);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
    }

    Path writeTemp(final String suffix, final String text) {
        final Path file = tempFile(suffix);
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
        return file;
    }

    void track(final AutoCloseable process) {
        processes.add(process);
    }

    /** @return a fresh file path in the lab's temporary directory (deleted with the lab). */
    public Path newFile(final String suffix) {
        return tempFile(suffix);
    }

    /** Kills the lab's processes, deletes its namespaces, links and temporary files. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        OPEN.remove(this);
        for (final AutoCloseable process : processes) {
            try {
                process.close();
            } catch (final Exception e) {
                // best effort: keep cleaning
            }
        }
        for (final String link : rootLinks) {
            Commands.runQuietly("ip", "link", "del", link);
        }
        for (final String ns : namespaces) {
            Commands.runQuietly("ip", "netns", "del", ns);
        }
        deleteTree(tempDir);
        try {
            Files.deleteIfExists(MARKER_DIR.resolve(prefix + ".pid"));
        } catch (final IOException e) {
            // a leftover marker only makes the next sweep look at this prefix again
        }
    }

    /** Closes every lab of this JVM that is still open (a test's safety net after it failed). */
    public static void closeAll() {
        for (final NetnsLab lab : List.copyOf(OPEN)) {
            lab.close();
        }
    }

    /**
     * Deletes the namespaces and links of labs whose owner process is gone (a killed test run). Live labs of other
     * processes are left alone.
     *
     * @return how many objects were deleted.
     */
    public static int sweepStale() {
        int deleted = 0;
        for (final String line :
                Commands.runOrFail("ip", "netns", "list").stdout().split("\n")) {
            final String ns = line.split(" ")[0].trim();
            if (isStale(ns)) {
                Commands.runQuietly("ip", "netns", "del", ns);
                deleted++;
            }
        }
        for (final String line :
                Commands.runOrFail("ip", "-o", "link", "show").stdout().split("\n")) {
            final String[] parts = line.split(": ");
            if (parts.length < 2) {
                continue;
            }
            final String name = parts[1].split("@")[0].trim();
            if (isStale(name)) {
                Commands.runQuietly("ip", "link", "del", name);
                deleted++;
            }
        }
        return deleted;
    }

    private static boolean isStale(final String name) {
        final Matcher matcher = LAB_NAME.matcher(name);
        if (!matcher.find()) {
            return false;
        }
        final Path marker = MARKER_DIR.resolve(matcher.group(1) + ".pid");
        try {
            final long pid = Long.parseLong(Files.readString(marker).trim());
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return false;
            }
            Files.deleteIfExists(marker);
            return true;
        } catch (final IOException | NumberFormatException e) {
            return true;
        }
    }

    private static void deleteTree(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (final IOException e) {
            // temp files only
        }
    }
}
