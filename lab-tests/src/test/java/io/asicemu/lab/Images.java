package io.asicemu.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The lab images: built by docker/build-image.sh (no registry, no daemon) from the jar this reactor just packaged
 * (both images hold it: the switch, and {@code asic-emu host} in the host image), unless docker/target already holds
 * archives made from this very jar and image files (a developer re-running the tests; build-image.sh records their
 * checksums), then loaded into the tests' private daemon.
 */
final class Images {
    static final String APPLIANCE = "asic-emu:dev";
    static final String HOST = "asic-emu-host:dev";

    /** Build time in seconds, or -1 when the archives were up to date. */
    static long buildSeconds = -1;

    private Images() {}

    static Path repo() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docker/build-image.sh"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("not inside the asic-emu repository");
        }
        return dir;
    }

    static void buildAndLoad(final DockerLab docker) throws IOException {
        final Path repo = repo();
        final Path jar = repo.resolve("switchd/target/asic-emu.jar");
        final Path appliance = repo.resolve("docker/target/asic-emu-image.tar");
        final Path host = repo.resolve("docker/target/asic-emu-host-image.tar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: run the lab tests through the reactor (bin/mvn -B "
                    + "verify), which packages switchd first");
        }
        final Path inputs = repo.resolve("docker/target/asic-emu-image.inputs");
        final String current = Sh.run(
                        Duration.ofSeconds(60),
                        "sh",
                        "-c",
                        "/usr/bin/python3 '"
                                + repo.resolve("docker/image/jar-digest.py") + "' '" + jar + "'; "
                                + "cat '" + repo.resolve("docker/image") + "'/* '"
                                + repo.resolve("docker/build-image.sh") + "' '"
                                + repo.resolve("switchd/jvm.options") + "' | sha256sum | cut -d' ' -f1")
                .ok()
                .out();
        final boolean applianceCurrent = Files.exists(appliance)
                && Files.exists(inputs)
                && Files.readString(inputs).equals(current);
        // the host image holds the same jar (asic-emu host), so the same inputs say whether it is current
        final Path hostInputs = repo.resolve("docker/target/asic-emu-host-image.inputs");
        final boolean hostCurrent = Files.exists(host)
                && Files.exists(hostInputs)
                && Files.readString(hostInputs).equals(current);
        final String what = applianceCurrent ? (hostCurrent ? null : "host") : hostCurrent ? "appliance" : "all";
        if (what != null) {
            final long t0 = System.nanoTime();
            final Sh.Result r = Sh.run(
                    Duration.ofMinutes(15),
                    Map.of("ASICEMU_JAR", jar.toString()),
                    null,
                    java.util.List.of(repo.resolve("docker/build-image.sh").toString(), what));
            System.out.println(r.err());
            r.ok();
            buildSeconds = (System.nanoTime() - t0) / 1_000_000_000L;
            System.out.printf("LAB image build (%s): %d s%n", what, buildSeconds);
        }
        docker.docker(Duration.ofMinutes(5), "load", "-i", appliance.toString()).ok();
        docker.docker(Duration.ofMinutes(5), "load", "-i", host.toString()).ok();
    }
}
