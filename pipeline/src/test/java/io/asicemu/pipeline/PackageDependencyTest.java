package io.asicemu.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Dependencies inside the pipeline point one way: {@code control} → {@code config} → {@code table}, and the data-path
 * packages ({@code table}, {@code stage}, {@code counter}, {@code cpu}, {@code port}, {@code time}) use neither the
 * control model nor the configuration. Read from the sources (imports and fully qualified names alike), so a
 * back-pointing reference fails here, naming the file and the reference.
 */
class PackageDependencyTest {
    private static final Path SOURCES = Path.of("src/main/java/io/asicemu/pipeline");

    /** Package → the pipeline packages it must not refer to. */
    private static final Map<String, List<String>> FORBIDDEN = Map.of(
            "config", List.of("control"),
            "table", List.of("control", "config", "stage", "replay"),
            "stage", List.of("control", "config", "replay"),
            "counter", List.of("control", "config"),
            "cpu", List.of("control", "config"),
            "port", List.of("control", "config"),
            "time", List.of("control", "config"));

    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.asicemu\\.pipeline\\.([a-z]+)\\.");

    /** The references in one source to the forbidden packages, as {@code file: io.asicemu.pipeline.<package>}. */
    static List<String> violations(final String file, final String source, final List<String> forbidden) {
        final List<String> out = new ArrayList<>();
        final Matcher m = REFERENCE.matcher(source);
        while (m.find()) {
            if (forbidden.contains(m.group(1))) {
                out.add(file + ": io.asicemu.pipeline." + m.group(1));
            }
        }
        return out;
    }

    @Test
    void shouldFindNoReferencePointingBackUpInsideThePipeline() {
        assertThat(SOURCES.resolve("control")).isDirectory();
        final List<String> violations = new ArrayList<>();
        int files = 0;
        for (final Map.Entry<String, List<String>> rule : FORBIDDEN.entrySet()) {
            try (Stream<Path> sources = Files.walk(SOURCES.resolve(rule.getKey()))) {
                for (final Path source :
                        sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                    files++;
                    violations.addAll(violations(
                            SOURCES.relativize(source).toString(), Files.readString(source), rule.getValue()));
                }
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(files).as("sources read").isGreaterThan(30);
        assertThat(violations).isEmpty();
    }

    @Test
    void shouldNameABackPointingImportOrQualifiedName() {
        final String source = "package io.asicemu.pipeline.config;\n"
                + "import io.asicemu.pipeline.control.IpPrefix;\n"
                + "import io.asicemu.pipeline.table.RouteTarget;\n"
                + "class X { io.asicemu.pipeline.control.RouteSlots slots; }\n";
        assertThat(violations("config/X.java", source, FORBIDDEN.get("config")))
                .containsExactly(
                        "config/X.java: io.asicemu.pipeline.control", "config/X.java: io.asicemu.pipeline.control");
    }
}
