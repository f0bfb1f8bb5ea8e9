package io.asicemu.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One deployed leaf-spine lab (docker/labs/leaf-spine), however it was brought up (docker-compose + labctl wire, or
 * labctl deploy as containerlab would): container names, re-wiring after a restart, and the tools the checks use —
 * commands in host containers, captures in any node's network namespace (the host's tcpdump through nsenter), the
 * switches' counters over their management address.
 */
final class Fabric {
    static final List<String> SWITCHES = List.of("leaf1", "leaf2", "spine1", "spine2");
    static final List<String> HOSTS = List.of("h1", "h2", "h3", "h4");
    /** Host → its address; gateways are .1 of the same /24. */
    static final Map<String, String> ADDRESS =
            Map.of("h1", "10.1.1.2", "h2", "10.1.2.2", "h3", "10.2.1.2", "h4", "10.2.2.2");
    /** Host → its leaf. */
    static final Map<String, String> LEAF = Map.of("h1", "leaf1", "h2", "leaf1", "h3", "leaf2", "h4", "leaf2");
    /** Router MACs from configs/*.json (DEVICE_METADATA). */
    static final Map<String, String> ROUTER_MAC = Map.of(
            "leaf1",
            "02:ae:00:00:00:11",
            "leaf2",
            "02:ae:00:00:00:12",
            "spine1",
            "02:ae:00:00:00:21",
            "spine2",
            "02:ae:00:00:00:22");

    final String kind;
    final DockerLab docker;
    final Path labDir;
    private final Function<String, String> containerOf;
    private final List<String> rewire;

    /**
     * @param kind "compose" or "containerlab", for messages.
     * @param labDir the lab's copy the test deployed (configs may be edited there: they are bind-mounted).
     * @param containerOf node → container name or id.
     * @param rewire the labctl.py command (without --node) that re-creates a node's links.
     */
    Fabric(
            final String kind,
            final DockerLab docker,
            final Path labDir,
            final Function<String, String> containerOf,
            final List<String> rewire) {
        this.kind = kind;
        this.docker = docker;
        this.labDir = labDir;
        this.containerOf = containerOf;
        this.rewire = rewire;
    }

    String container(final String node) {
        return containerOf.apply(node);
    }

    long pid(final String node) {
        return docker.pid(container(node));
    }

    /** Runs a shell command in a node's container. */
    Sh.Result exec(final Duration timeout, final String node, final String command) {
        return docker.docker(timeout, "exec", container(node), "sh", "-c", command);
    }

    /** Runs a python3 script (stdin) in a host container. */
    Sh.Result python(final String host, final String script, final String... args) {
        final List<String> command = new ArrayList<>(List.of(
                DockerLab.DOCKER,
                "-H",
                docker.env().get("DOCKER_HOST"),
                "exec",
                "-i",
                container(host),
                "python3",
                "-"));
        command.addAll(List.of(args));
        return Sh.run(Duration.ofSeconds(120), Map.of(), script, command);
    }

    /** @return the MAC of a node's interface. */
    String mac(final String node, final String ifName) {
        // netlink answers for the namespace entered (the host's /sys would not)
        final String link = Sh.run(
                        Duration.ofSeconds(10),
                        "nsenter",
                        "-t",
                        Long.toString(pid(node)),
                        "-n",
                        "ip",
                        "-o",
                        "link",
                        "show",
                        ifName)
                .ok()
                .out();
        final java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("link/ether ([0-9a-f:]{17})").matcher(link);
        if (!m.find()) {
            throw new AssertionError("no MAC on " + node + ":" + ifName + ": " + link);
        }
        return m.group(1);
    }

    /** @return a switch's management (eth0) address. */
    String managementAddress(final String sw) {
        return docker.docker(
                        "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", container(sw))
                .ok()
                .out()
                .strip()
                .split("\\s+")[0];
    }

    /** @return a switch's counters (GET /counters on its management address, port 9560). */
    String counters(final String sw) {
        final HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://" + managementAddress(sw) + ":9560/counters"))
                .timeout(Duration.ofSeconds(10))
                .build();
        try (HttpClient client = HttpClient.newHttpClient()) {
            final HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError(sw + " /counters answered " + r.statusCode() + ": " + r.body());
            }
            return r.body();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** @return one counter's value from {@link #counters} text ({@code <prefix> <name> <value>} lines), 0 if absent. */
    static long counter(final String counters, final String prefixAndName) {
        for (final String line : counters.split("\n")) {
            if (line.startsWith(prefixAndName + " ")) {
                return Long.parseLong(line.substring(prefixAndName.length() + 1).strip());
            }
        }
        return 0;
    }

    /** Re-creates a node's links (containerlab semantics: a restarted container has lost them). */
    void rewire(final String node) {
        final List<String> command = new ArrayList<>(rewire);
        command.addAll(List.of("--node", node));
        Sh.run(Duration.ofSeconds(60), docker.env(), null, command).ok();
    }

    /** A capture running in a node's network namespace. */
    final class Capture implements AutoCloseable {
        private final Process process;
        private final Path file;

        private Capture(final Process process, final Path file) {
            this.process = process;
            this.file = file;
        }

        /** Stops the capture (after letting the last frames arrive) and returns the pcap. */
        Path stop() throws InterruptedException {
            Thread.sleep(700);
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            return file;
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    /** Starts tcpdump on a node's interface (in its namespace) and waits until it listens. */
    Capture capture(final String node, final String ifName, final String filter)
            throws IOException, InterruptedException {
        final Path file = Files.createTempFile(docker.dir(), node + "-" + ifName + "-", ".pcap");
        final Path log = Files.createTempFile(docker.dir(), "tcpdump-", ".log");
        // --immediate-mode: libpcap's TPACKET_V3 blocks otherwise hand frames over only when a block fills or its
        // 1 s timeout expires, and the frames of a block not yet handed over are lost when the capture is stopped
        final Process p = new ProcessBuilder(
                        "nsenter",
                        "-t",
                        Long.toString(pid(node)),
                        "-n",
                        "tcpdump",
                        "--immediate-mode",
                        "-U",
                        "-n",
                        "-i",
                        ifName,
                        "-w",
                        file.toString(),
                        filter)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(log, StandardCharsets.UTF_8).contains("listening on")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new AssertionError(
                        "tcpdump on " + node + ":" + ifName + " did not start: " + Files.readString(log));
            }
            Thread.sleep(50);
        }
        return new Capture(p, file);
    }
}
