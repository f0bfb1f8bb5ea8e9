package io.asicemu.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private Docker engine for the lab tests: Debian's dockerd with its data root, exec root and socket in a temporary
 * directory, no default bridge and no iptables/NAT rules (labs use their own networks and veth links), so the tests
 * touch nothing the machine already had. {@link #close()} removes every container and network the tests made, stops
 * the daemon (and the containerd it started), deletes its directory and any veth interface left in the host's
 * namespace by a failed wiring step, so the host ends as it began.
 */
final class DockerLab implements AutoCloseable {
    /** Debian's docker client (a different static client may come first on PATH). */
    static final String DOCKER = "/usr/bin/docker";

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final Path dir;
    private final Process daemon;
    private final Set<String> interfacesBefore;

    private DockerLab(final Path dir, final Process daemon, final Set<String> interfacesBefore) {
        this.dir = dir;
        this.daemon = daemon;
        this.interfacesBefore = interfacesBefore;
    }

    /** Starts the daemon and waits until it answers. */
    static DockerLab start() throws IOException, InterruptedException {
        final Set<String> before = interfaces();
        final Path dir = Files.createTempDirectory("asicemu-lab-");
        final Process daemon = new ProcessBuilder(
                        "/usr/sbin/dockerd",
                        "--data-root",
                        dir.resolve("data").toString(),
                        "--exec-root",
                        dir.resolve("exec").toString(),
                        "--pidfile",
                        dir.resolve("dockerd.pid").toString(),
                        "-H",
                        "unix://" + dir.resolve("docker.sock"),
                        "--storage-driver",
                        "overlay2",
                        "--iptables=false",
                        "--ip-masq=false",
                        "--bridge=none",
                        "--userland-proxy=false",
                        "--log-level=warn")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("dockerd.log").toFile())
                .start();
        final DockerLab lab = new DockerLab(dir, daemon, before);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lab.docker(Duration.ofSeconds(10), "version").exit() != 0) {
            if (!daemon.isAlive() || System.nanoTime() > deadline) {
                final String log = Files.readString(dir.resolve("dockerd.log"));
                lab.close();
                throw new IllegalStateException("dockerd did not start: " + log);
            }
            Thread.sleep(200);
        }
        return lab;
    }

    /** @return the environment docker-compose and labctl.py need to reach this daemon. */
    Map<String, String> env() {
        return Map.of("DOCKER_HOST", "unix://" + dir.resolve("docker.sock"), "DOCKER", DOCKER);
    }

    Sh.Result docker(final Duration timeout, final String... args) {
        final List<String> command = new ArrayList<>(List.of(DOCKER, "-H", "unix://" + dir.resolve("docker.sock")));
        command.addAll(Arrays.asList(args));
        return Sh.run(timeout, Map.of(), null, command);
    }

    Sh.Result docker(final String... args) {
        return docker(TIMEOUT, args);
    }

    /** Runs a command with this daemon's environment (docker-compose, labctl.py). */
    Sh.Result withEnv(final Duration timeout, final String... command) {
        return Sh.run(timeout, env(), null, List.of(command));
    }

    /** @return the host PID of a running container's first process. */
    long pid(final String container) {
        return Long.parseLong(
                docker("inspect", "-f", "{{.State.Pid}}", container).ok().out().strip());
    }

    /** @return the interfaces in the host's network namespace. */
    static Set<String> interfaces() {
        try (Stream<Path> s = Files.list(Path.of("/sys/class/net"))) {
            final Set<String> names = new HashSet<>();
            s.forEach(p -> names.add(p.getFileName().toString()));
            return names;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (daemon.isAlive()) {
                final String ids = docker("ps", "-aq").out().strip();
                if (!ids.isEmpty()) {
                    final List<String> rm = new ArrayList<>(List.of("rm", "-f", "-v"));
                    rm.addAll(Arrays.asList(ids.split("\\s+")));
                    docker(rm.toArray(String[]::new));
                }
                docker("network", "prune", "-f");
                daemon.destroy(); // SIGTERM: dockerd stops its containerd and unmounts its layers
                if (!daemon.waitFor(30, TimeUnit.SECONDS)) {
                    daemon.destroyForcibly();
                    daemon.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            for (final String name : interfaces()) {
                if (!interfacesBefore.contains(name) && name.startsWith("clab-")) {
                    Sh.run(Duration.ofSeconds(10), "ip", "link", "del", name);
                }
            }
            // overlay mounts of a daemon that died hard
            Sh.run(
                    Duration.ofSeconds(30),
                    "sh",
                    "-c",
                    "grep -o ' " + dir + "[^ ]*' /proc/mounts | sort -r | " + "xargs -r -n1 umount -l");
            deleteTree(dir);
        }
    }

    private static void deleteTree(final Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (final IOException e) {
            // best effort: a leftover temp directory is reported by the test's leak check
        }
    }

    Path dir() {
        return dir;
    }
}
