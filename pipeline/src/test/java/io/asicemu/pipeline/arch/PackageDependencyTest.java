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
 * Dependencies inside the pipeline point one way, config → control → table: the data-path packages (tables, stages,
 * counters, CPU port, ports, time) name nothing of {@code control} or {@code config}, so the control model can be
 * reshaped without touching what packets run through; and {@code control} names nothing of {@code config}: the config
 * side compiles CONFIG_DB into the control model's setup and staged changes through control's public API, as the
 * P4Runtime adapter does, never the other way round. Read from the sources (imports and fully qualified names alike),
 * as the README states it. The package {@code io.asicemu.pipeline} itself only wires the parts ({@code Pipeline}):
 * no package below it names it, so there is no cycle through the root (the data plane is {@code pipeline.dataplane}).
 */
class PackageDependencyTest {
    private static final Path MAIN = Path.of("src/main/java/io/asicemu/pipeline");

    @ParameterizedTest
    @ValueSource(strings = {"table", "stage", "counter", "cpu", "port", "time", "dataplane"})
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
    void shouldNameNothingOfConfigInControl() throws IOException {
        assertThat(Files.isDirectory(MAIN.resolve("control"))).isTrue();
        assertThat(naming(MAIN.resolve("control"), "io.asicemu.pipeline.config"))
                .as("files of pipeline.control naming pipeline.config (a cycle: config imports control)")
                .isEmpty();
        assertThat(naming(MAIN.resolve("config"), "io.asicemu.pipeline.control."))
                .as("the check finds references where there are some (config does import control)")
                .isNotEmpty();
    }

    /** Whether a source names a type of the root package io.asicemu.pipeline (not one of its sub-packages). */
    private static boolean namesRootPackage(final String source) {
        return java.util.regex.Pattern.compile("io\\.asicemu\\.pipeline\\.[A-Z]")
                .matcher(source)
                .find();
    }

    @ParameterizedTest
    @ValueSource(strings = {"control", "config", "dataplane", "table", "stage", "counter", "cpu", "port", "time"})
    void shouldNameNothingOfTheRootPackageBelowIt(final String pkg) throws IOException {
        final List<String> offending = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
            for (final Path file :
                    files.filter(f -> f.toString().endsWith(".java")).toList()) {
                if (namesRootPackage(Files.readString(file))) {
                    offending.add(file.getFileName().toString());
                }
            }
        }
        assertThat(offending)
                .as("files of pipeline." + pkg + " naming a type of io.asicemu.pipeline (the wiring: a cycle)")
                .isEmpty();
        assertThat(namesRootPackage("import io.asicemu.pipeline.Pipeline;"))
                .as("the check finds a reference where there is one")
                .isTrue();
    }
}
