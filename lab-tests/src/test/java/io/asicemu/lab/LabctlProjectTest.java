package io.asicemu.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's lab commands run `docker-compose up -d` and then `labctl.py wire -f docker-compose.yml` without `-p`: the two
 * must agree on the compose project, or labctl finds no containers. The oracle is Debian's docker-compose itself
 * (`compose.cli.command.get_project_name`), for the shipped lab's directory and for names it rewrites. No daemon is
 * needed, but Debian's docker-compose is, as for every `lab` test.
 */
@Tag("lab")
class LabctlProjectTest {
    private static final String PROBE = """
        import importlib.machinery, importlib.util, sys
        from compose.cli.command import get_project_name
        loader = importlib.machinery.SourceFileLoader("labctl", sys.argv[1])
        spec = importlib.util.spec_from_loader("labctl", loader)
        labctl = importlib.util.module_from_spec(spec)
        loader.exec_module(labctl)
        for d in sys.argv[2:]:
            print(labctl.default_project(d + "/docker-compose.yml"), get_project_name(d))
        """;

    @Test
    void labctlFindsTheProjectDockerComposeMadeWithoutBeingToldItsName(@TempDir final Path dir) throws Exception {
        final Path odd = Files.createDirectories(dir.resolve("My_Lab-2.x"));
        final Path shipped = Images.repo().resolve("docker/labs/leaf-spine");
        final Sh.Result r = Sh.run(
                        Duration.ofSeconds(30),
                        "/usr/bin/python3",
                        "-c",
                        PROBE,
                        Images.repo().resolve("docker/labs/labctl.py").toString(),
                        shipped.toString(),
                        odd.toString())
                .ok();
        final String[] lines = r.out().strip().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).as("the shipped lab").isEqualTo("leaf-spine leaf-spine");
        for (final String line : lines) {
            final String[] names = line.split(" ");
            assertThat(names[0]).as("labctl's default, docker-compose's").isEqualTo(names[1]);
        }
    }
}
