package io.asicemu.pipeline.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dependencies inside the pipeline point one way, from the control side down to the data path: the data-path
 * packages (tables, stages, counters, CPU port, ports, time) name nothing of {@code control} or {@code config}, so
 * the control model can be reshaped without touching what packets run through. Read from the sources (imports and
 * fully qualified names alike), as the README states it.
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
}
