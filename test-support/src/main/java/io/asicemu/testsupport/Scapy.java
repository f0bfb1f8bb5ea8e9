package io.asicemu.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * scapy (Debian's python3-scapy) as an independent oracle: runs a Python script that builds or checks packets.
 * Scripts live beside the tests as resources and print their results on stdout.
 */
public final class Scapy {
    /**
     * Debian's interpreter, which has python3-scapy; a {@code python3} earlier on the PATH (a pyenv shim, say) may not.
     */
    public static final String PYTHON =
            Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";

    private Scapy() {}

    /** Runs the Python {@code script} text with {@code args}, bounded to 120 s, and returns its stdout. */
    public static String run(final String script, final String... args) {
        try {
            final Path file = Files.createTempFile("asicemu-scapy-", ".py");
            try {
                Files.writeString(file, script, StandardCharsets.UTF_8);
                final List<String> command = new ArrayList<>(List.of(PYTHON, file.toString()));
                command.addAll(List.of(args));
                return ProcessRunner.run(null, Duration.ofSeconds(120), command)
                        .requireSuccess()
                        .stdout();
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (final IOException e) {
            throw new IllegalStateException("cannot write scapy script: " + e.getMessage(), e);
        }
    }

    /** Runs a script kept as a classpath resource of {@code anchor}'s module. */
    public static String runResource(final Class<?> anchor, final String resource, final String... args) {
        try (var in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource + " beside " + anchor.getName());
            }
            return run(new String(in.readAllBytes(), StandardCharsets.UTF_8), args);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
