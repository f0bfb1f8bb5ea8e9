package io.asicemu.flowlet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Prints a measured number and appends it to {@code target/flowlet-results.txt}, so the figures the issue asks to
 * report survive Surefire's per-engine output files.
 */
public final class TestReport {
    private static final Path FILE = Path.of("target", "flowlet-results.txt");
    private static boolean started;

    private TestReport() {}

    /**
     * @param format printf format.
     * @param args   arguments.
     */
    public static synchronized void line(final String format, final Object... args) {
        final String line = String.format(Locale.ROOT, format, args);
        System.out.println(line);
        try {
            Files.createDirectories(FILE.getParent());
            // The first line of a test JVM starts the file afresh; later lines append.
            Files.writeString(
                    FILE,
                    line + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    started ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
            started = true;
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
