package io.asicemu.testsupport.netns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Debian's FRR daemons as tests run them in a namespace: each instance keeps its config, pid files, zserv and vty
 * sockets in a directory of its own that user frr owns (the daemons drop to frr), and has no TCP vty ({@code -P 0}),
 * so instances never meet each other or the host's FRR. The appliance's launcher is switchd's {@code
 * routing.FrrDaemons}; this one also serves the routing module's tests, which cannot depend on switchd. Stateless.
 */
public final class FrrTestDaemons {
    /** zebra, the routing manager (the FPM client with {@code -M dplane_fpm_nl}). */
    public static final Path ZEBRA = Path.of("/usr/lib/frr/zebra");

    /** bgpd. */
    public static final Path BGPD = Path.of("/usr/lib/frr/bgpd");

    /** staticd. */
    public static final Path STATICD = Path.of("/usr/lib/frr/staticd");

    private FrrTestDaemons() {}

    /** @throws IllegalStateException naming the package when {@code binary} is missing. */
    public static void requireInstalled(final Path binary) {
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(binary + " is missing: Debian's frr (.ci/run installs it)");
        }
    }

    /**
     * Creates a directory for an FRR instance, mode 755, owned by frr.
     *
     * @param parent where (null: the system's temporary directory).
     */
    public static Path directory(final Path parent, final String name) throws IOException {
        final var mode = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path dir = parent == null
                ? Files.createTempDirectory(name, mode)
                : Files.createDirectory(parent.resolve(name), mode);
        Commands.runOrFail("chown", "frr:frr", dir.toString());
        return dir;
    }

    /** @return the command line of daemon {@code binary} reading {@code conf}, its files in {@code dir}. */
    public static String[] command(final Path binary, final Path dir, final Path conf, final String... extra) {
        final String name = binary.getFileName().toString();
        final List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "-f",
                conf.toString(),
                "-i",
                dir.resolve(name + ".pid").toString(),
                "-z",
                dir.resolve("zserv.api").toString(),
                "--vty_socket",
                dir.toString(),
                "-P",
                "0"));
        command.addAll(List.of(extra));
        return command.toArray(String[]::new);
    }

    /**
     * Runs vtysh commands against the daemons whose vty sockets are in {@code dir} (Unix sockets: from any namespace).
     *
     * @return its output.
     * @throws IllegalStateException unless it exits 0 within 60 s.
     */
    public static String vtysh(final Path dir, final String... commands) {
        final List<String> command = new ArrayList<>(List.of("vtysh", "--vty_socket", dir.toString()));
        for (final String line : commands) {
            command.add("-c");
            command.add(line);
        }
        return Commands.run(Duration.ofSeconds(60), command).requireSuccess().stdout();
    }
}
