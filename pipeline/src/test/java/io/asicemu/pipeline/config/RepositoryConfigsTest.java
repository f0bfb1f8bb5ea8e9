package io.asicemu.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.table.PipelineSizing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every config_db.json this repository ships (labs, demo, replay fixtures) passes the strict validation. */
class RepositoryConfigsTest {
    static Stream<Path> configs() throws IOException {
        final Path root = Path.of("..").toAbsolutePath().normalize();
        final List<Path> dirs = List.of(
                root.resolve("docker/labs"),
                root.resolve("switchd/src/main/resources"),
                root.resolve("pipeline/src/test/resources"));
        Stream<Path> all = Stream.empty();
        for (final Path dir : dirs) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    final List<Path> found = files.filter(p -> p.toString().endsWith(".json"))
                            .filter(p -> p.getFileName().toString().contains("config")
                                    || p.getParent().getFileName().toString().equals("configs"))
                            .toList();
                    all = Stream.concat(all, found.stream());
                }
            }
        }
        return all;
    }

    @ParameterizedTest
    @MethodSource("configs")
    void shouldLoadStrictlyEveryShippedConfig(final Path config) {
        assertThat(ConfigCompiler.compile(ConfigDb.load(config), PipelineSizing.defaults(), Map.of())
                        .setup()
                        .portNames())
                .isNotEmpty();
    }
}
