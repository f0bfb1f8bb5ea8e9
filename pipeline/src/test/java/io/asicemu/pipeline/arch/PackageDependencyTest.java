package io.asicemu.pipeline.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dependencies inside the pipeline point one way, from the control side down to the data path: the data-path
 * packages (tables, stages, counters, CPU port, ports, time) name nothing of {@code control} or {@code config}, so
 * the control model can be reshaped without touching what packets run through; and {@code config} names nothing of
 * {@code control} (the value types both use live in {@code table}), so the order is control → config → table with no
 * cycle. Read from the sources (imports and fully qualified names alike), as the README states it.
 */
class PackageDependencyTest {
    private static final Path MAIN = Path.of("src/main/java/io/asicemu/pipeline");

    @ParameterizedTest
    @ValueSource(strings = {"table", "stage", "counter", "cpu", "port", "time"})
    void shouldNameNothingOfTheControlSideWhenInADataPathPackage(final String pkg) throws IOException {
        final List<String> offending = new ArrayList<>();
        try (Stream<Path> files = Files.list(MAIN.resolve(pkg))) {
            for (final Path file :
                    files.filter(f -> f.toString().endsWith(".java")).toList()) {
                final String source = Files.readString(file);
                if (source.contains("io.asicemu.pipeline.control") || source.contains("io.asicemu.pipeline.config")) {
                    offending.add(file.getFileName().toString());
                }
            }
        }
        assertThat(Files.isDirectory(MAIN.resolve(pkg))).as(pkg + " exists").isTrue();
        assertThat(offending)
                .as("files of pipeline." + pkg + " naming pipeline.control or pipeline.config")
                .isEmpty();
    }

    /** The files under a package that name a package they must not. */
    static List<String> naming(final Path dir, final String forbidden) throws IOException {
        final List<String> offending = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (final Path file :
                    files.filter(f -> f.toString().endsWith(".java")).toList()) {
                if (Files.readString(file).contains(forbidden)) {
                    offending.add(file.getFileName().toString());
                }
            }
        }
        return offending;
    }

    @Test
    void shouldNameNothingOfControlInConfig() throws IOException {
        assertThat(Files.isDirectory(MAIN.resolve("config"))).isTrue();
        assertThat(naming(MAIN.resolve("config"), "io.asicemu.pipeline.control."))
                .as("files of pipeline.config naming pipeline.control (a cycle: control imports config)")
                .isEmpty();
        assertThat(naming(MAIN.resolve("control"), "io.asicemu.pipeline.config."))
                .as("the check finds references where there are some (control does import config)")
                .isNotEmpty();
    }
}
