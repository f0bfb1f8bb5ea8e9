package io.asicemu.parser;

import io.asicemu.testsupport.ProcessRunner;
import io.asicemu.testsupport.Scapy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the scapy scripts kept as test resources in a working folder (they write captures beside themselves), with
 * test-support's interpreter choice ({@link Scapy#PYTHON}). A missing scapy fails the test (it never skips).
 */
final class Oracles {
    private Oracles() {}

    /** Copies resource {@code name} (beside this class) into {@code dir} and runs it with {@code args}. */
    static String scapy(final Path dir, final String name, final String... args) {
        final Path script = dir.resolve(name);
        try (InputStream in = Oracles.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        final List<String> command = new ArrayList<>(List.of(Scapy.PYTHON, script.toString()));
        command.addAll(List.of(args));
        return ProcessRunner.run(dir, Duration.ofSeconds(120), command)
                .requireSuccess()
                .stdout();
    }

    /** Parses lines {@code name|k=v,k=v} into name → (k → v), in order. */
    static Map<String, Map<String, String>> records(final String output) {
        final Map<String, Map<String, String>> records = new LinkedHashMap<>();
        for (final String line : output.split("\n")) {
            final int bar = line.indexOf('|');
            if (bar < 0) {
                continue;
            }
            final Map<String, String> fields = new LinkedHashMap<>();
            for (final String kv : line.substring(bar + 1).split(",")) {
                final int eq = kv.indexOf('=');
                fields.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            records.put(line.substring(0, bar), fields);
        }
        return records;
    }
}
