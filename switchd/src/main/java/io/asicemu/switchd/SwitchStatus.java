package io.asicemu.switchd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live switch's readiness as lab tooling sees it: which configured ports have their Linux interface attached,
 * how many data links are expected (containerlab's {@code CLAB_INTFS}, else every configured port) and where
 * P4Runtime listens. Logs one line whenever readiness changes and, if given a file, rewrites it atomically (the
 * container's {@code asic-emu-health} reads it; a health check must not start a JVM every few seconds).
 * <p>
 * File format, one {@code key=value} per line: {@code pid}, {@code state} ({@code ready}/{@code waiting}),
 * {@code expected}, {@code attached}, {@code p4runtime} ({@code host:port} or {@code off}), then
 * {@code attached_ports} and {@code missing_ports} as space-separated {@code Ethernet0(eth1)} items, then
 * {@code admin_down}: the ports the configuration leaves admin down (no {@code admin_status: up}), space-separated.
 * <p>
 * Threading: {@link #update} is called from the discovery thread and once from the starting thread; it is
 * synchronized.
 */
final class SwitchStatus {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchStatus.class);

    private final Path file;
    private final Map<String, String> sonicToLinux;
    private final int expected;
    private final String p4runtime;
    private final List<String> orderedPorts;
    private final List<String> adminDown;
    private Boolean lastReady;

    /**
     * @param file where to publish the status, or null to only log it.
     * @param sonicToLinux every configured port → its Linux interface (iteration order = port order).
     * @param expectedLinks how many attached data links make the switch ready (≤ 0: all configured ports).
     * @param p4runtime where P4Runtime listens ({@code host:port}) or {@code off}.
     */
    SwitchStatus(
            final Path file, final Map<String, String> sonicToLinux, final int expectedLinks, final String p4runtime) {
        this(file, sonicToLinux, expectedLinks, p4runtime, List.of());
    }

    /**
     * @param file where to publish the status, or null to only log it.
     * @param sonicToLinux every configured port → its Linux interface (iteration order = port order).
     * @param expectedLinks how many attached data links make the switch ready (≤ 0: all configured ports).
     * @param p4runtime where P4Runtime listens ({@code host:port}) or {@code off}.
     * @param adminDown the ports the configuration leaves admin down ({@code asic-emu health} names them).
     */
    SwitchStatus(
            final Path file,
            final Map<String, String> sonicToLinux,
            final int expectedLinks,
            final String p4runtime,
            final List<String> adminDown) {
        this.adminDown = List.copyOf(adminDown);
        this.file = file;
        this.sonicToLinux = Map.copyOf(sonicToLinux);
        this.expected = expectedLinks > 0 ? expectedLinks : sonicToLinux.size();
        this.p4runtime = p4runtime;
        this.orderedPorts = List.copyOf(sonicToLinux.keySet());
    }

    /** @return how many attached data links make the switch ready. */
    int expected() {
        return expected;
    }

    /**
     * Publishes the status for the interfaces attached now.
     *
     * @param attachedLinux the attached ports' Linux names.
     */
    synchronized void update(final Set<String> attachedLinux) {
        final List<String> attached = new ArrayList<>();
        final List<String> missing = new ArrayList<>();
        for (final String port : orderedPorts) {
            final String item = port + "(" + sonicToLinux.get(port) + ")";
            (attachedLinux.contains(sonicToLinux.get(port)) ? attached : missing).add(item);
        }
        final boolean ready = attached.size() >= expected;
        if (lastReady == null || lastReady != ready) {
            if (ready) {
                LOG.info(
                        "ready: {} of {} expected data links attached{}",
                        attached.size(),
                        expected,
                        missing.isEmpty() ? "" : "; down: " + String.join(" ", missing));
            } else {
                LOG.info(
                        "waiting: {} of {} expected data links attached; missing: {} (forwarding on those present)",
                        attached.size(),
                        expected,
                        String.join(" ", missing));
            }
            lastReady = ready;
        }
        if (file == null) {
            return;
        }
        final String text = "pid=" + ProcessHandle.current().pid() + "\n"
                + "state=" + (ready ? "ready" : "waiting") + "\n"
                + "expected=" + expected + "\n"
                + "attached=" + attached.size() + "\n"
                + "p4runtime=" + p4runtime + "\n"
                + "attached_ports=" + String.join(" ", attached) + "\n"
                + "missing_ports=" + String.join(" ", missing) + "\n"
                + "admin_down=" + String.join(" ", adminDown) + "\n";
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write the status file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Removes the status file (the switch is stopping: a health check must not read a stale "ready"). */
    synchronized void remove() {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (final IOException e) {
            LOG.warn("cannot remove the status file {}: {}", file, e.getMessage());
        }
    }
}
