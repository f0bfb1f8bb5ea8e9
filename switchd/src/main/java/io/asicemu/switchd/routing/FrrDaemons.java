package io.asicemu.switchd.routing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debian's FRR daemons beside the switch, as SONiC's bgp container runs them: zebra with {@code dplane_fpm_nl} (its
 * routes go to asic-emu's FPM listener), bgpd, staticd and bfdd, each with its pid file, API socket and vty socket in
 * one run directory, then the integrated frr.conf pushed to them with {@code vtysh -b} (so {@code vtysh} in that
 * directory, the default /var/run/frr in the appliance, shows and changes what they run). The daemons drop to the
 * user frr; started as root, they keep the capabilities zebra asks for (net_admin, net_raw and sys_admin: FRR's
 * privileges list, for namespace VRFs) — a non-root start is refused by FRR itself ({@code privs_init}).
 * <p>
 * {@link #close()} stops them (SIGTERM, then SIGKILL after 2 s). Not thread safe.
 */
public final class FrrDaemons implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrrDaemons.class);
    private static final Path DAEMONS = Path.of("/usr/lib/frr");
    private static final Duration DAEMON_UP = Duration.ofSeconds(10);

    /** The daemons started, in order: zebra first (the others register with it). */
    static final List<String> NAMES = List.of("zebra", "bgpd", "staticd", "bfdd");

    private final Path runDir;
    private final List<String> prefix;
    private final List<Process> processes = new ArrayList<>();

    private FrrDaemons(final Path runDir, final List<String> prefix) {
        this.runDir = runDir;
        this.prefix = prefix;
    }

    /**
     * Writes frr.conf into {@code runDir}, starts the daemons there and configures them.
     *
     * @param runDir their run directory (created, handed to user frr).
     * @param frrConf the configuration ({@link FrrConfig#render}).
     * @param prefix what runs each command (e.g. {@code ip netns exec NS} in tests; empty in the appliance).
     * @param logDir where each daemon's output goes ({@code <name>.log}); null: this process's stdout.
     * @return the running daemons.
     * @throws IOException if a daemon cannot start or the configuration is refused (the daemons are stopped).
     */
    public static FrrDaemons start(
            final Path runDir, final String frrConf, final List<String> prefix, final Path logDir) throws IOException {
        if (!Files.isExecutable(DAEMONS.resolve("zebra"))) {
            throw new IOException("routing needs Debian's FRR (" + DAEMONS.resolve("zebra") + " is missing)");
        }
        Files.createDirectories(runDir);
        Files.writeString(runDir.resolve("frr.conf"), frrConf);
        Files.writeString(runDir.resolve("vtysh.conf"), "service integrated-vtysh-config\n");
        run(List.of("chown", "-R", "frr:frr", runDir.toString()), Duration.ofSeconds(10));
        final FrrDaemons daemons = new FrrDaemons(runDir, List.copyOf(prefix));
        try {
            final Path api = runDir.resolve("zserv.api");
            Files.deleteIfExists(api);
            for (final String name : NAMES) {
                Files.deleteIfExists(runDir.resolve(name + ".vty"));
            }
            for (final String name : NAMES) {
                daemons.startDaemon(name, logDir);
                if (name.equals("zebra")) {
                    awaitFile(api, DAEMON_UP);
                }
            }
            // vtysh -b configures only the daemons whose vty socket is open (and still exits 0): wait for all of them
            for (final String name : NAMES) {
                awaitFile(runDir.resolve(name + ".vty"), DAEMON_UP);
            }
            daemons.vtysh(Duration.ofSeconds(30), "-b");
            return daemons;
        } catch (final IOException | RuntimeException e) {
            daemons.close();
            throw e;
        }
    }

    private void startDaemon(final String name, final Path logDir) throws IOException {
        final List<String> command = new ArrayList<>(prefix);
        command.add(DAEMONS.resolve(name).toString());
        if (name.equals("zebra")) {
            command.addAll(List.of("-M", "dplane_fpm_nl"));
        }
        command.addAll(List.of(
                "-f",
                "/dev/null",
                "-i",
                runDir.resolve(name + ".pid").toString(),
                "-z",
                runDir.resolve("zserv.api").toString(),
                "--vty_socket",
                runDir.toString(),
                "-u",
                "frr",
                "-g",
                "frr",
                "--log",
                "stdout"));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (logDir == null) {
            builder.redirectOutput(ProcessBuilder.Redirect.INHERIT);
        } else {
            builder.redirectOutput(logDir.resolve(name + ".log").toFile());
        }
        processes.add(builder.start());
    }

    /**
     * Runs vtysh against the daemons.
     *
     * @param args vtysh's arguments (e.g. {@code -c "show bgp summary json"}).
     * @return its output.
     * @throws IOException if it fails or does not finish in time.
     */
    public String vtysh(final Duration timeout, final String... args) throws IOException {
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of("vtysh", "--vty_socket", runDir.toString(), "--config_dir", runDir.toString()));
        command.addAll(List.of(args));
        return run(command, timeout);
    }

    /** @return whether every daemon still runs. */
    public boolean running() {
        return processes.size() == NAMES.size() && processes.stream().allMatch(Process::isAlive);
    }

    /** @return the run directory (vtysh's {@code --vty_socket}). */
    public Path runDir() {
        return runDir;
    }

    private static String run(final List<String> command, final Duration timeout) throws IOException {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            final byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no answer within " + timeout.toSeconds() + " s");
            }
            final String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + text.strip());
            }
            return text;
        } catch (final InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static void awaitFile(final Path file, final Duration timeout) throws IOException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("FRR did not open " + file + " within " + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(20);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /** Stops the daemons: SIGTERM, SIGKILL to those still running after 2 s. */
    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).destroy();
        }
        for (final Process p : processes) {
            try {
                if (!p.waitFor(2, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(2, TimeUnit.SECONDS);
                }
            } catch (final InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        if (processes.stream().anyMatch(Process::isAlive)) {
            LOG.warn("routing: an FRR daemon did not stop");
        }
        processes.clear();
    }
}
