package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44: docker/build-image.sh checks every tool it needs before its first step, naming the Debian package, and
 * the README's lab install line installs every package it names. The image is never built here.
 */
class BuildImagePrerequisitesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path SCRIPT = ROOT.resolve("docker/build-image.sh");

    /** @return the packages of the script's {@code PREREQUISITES=(tool=package …)} line. */
    private static Set<String> scriptPackages() throws Exception {
        final Matcher m = Pattern.compile("(?m)^PREREQUISITES=\\(([^)]*)\\)").matcher(Files.readString(SCRIPT));
        assertThat(m.find()).as("PREREQUISITES in " + SCRIPT).isTrue();
        final Set<String> packages = new TreeSet<>();
        for (final String pair : m.group(1).trim().split("\\s+")) {
            packages.add(pair.substring(pair.indexOf('=') + 1));
        }
        return packages;
    }

    @Test
    void shouldInstallEveryPrerequisiteOfTheImageBuildWithTheReadmesLabInstallLine() throws Exception {
        final String readme = Files.readString(ROOT.resolve("README.md"));
        final String lab = readme.substring(readme.indexOf("## Lab"), readme.indexOf("## Usage"));
        final Matcher m = Pattern.compile("`apt-get install ([^`]*)`").matcher(lab);
        assertThat(m.find()).as("an install line in README.md's Lab section").isTrue();
        final Set<String> installed = new TreeSet<>(List.of(m.group(1).trim().split("\\s+")));
        assertThat(scriptPackages()).isNotEmpty().contains("ethtool", "mmdebstrap");
        // the build's tools, then docker and compose for the lab itself
        final Set<String> expected = new TreeSet<>(scriptPackages());
        expected.addAll(List.of("docker.io", "docker-compose"));
        assertThat(installed).isEqualTo(expected);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldFailAtOnceNamingThePackageWhenEthtoolIsNotOnThePath(@TempDir final Path dir) throws Exception {
        // a PATH with every command of this machine but ethtool (mmdebstrap may be missing too: both are named)
        final Path bin = Files.createDirectories(dir.resolve("bin"));
        for (final String d : List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")) {
            final Path from = Path.of(d);
            if (!Files.isDirectory(from)) {
                continue;
            }
            try (var files = Files.list(from)) {
                for (final Path tool : (Iterable<Path>) files::iterator) {
                    final Path link = bin.resolve(tool.getFileName().toString());
                    if (!tool.getFileName().toString().equals("ethtool")
                            && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        Files.createSymbolicLink(link, tool);
                    }
                }
            }
        }
        final Path out = dir.resolve("out");
        final List<String> command = new ArrayList<>(List.of("/bin/bash", SCRIPT.toString(), "--out", out.toString()));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PATH", bin.toString());
        final long startNs = System.nanoTime();
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertThat(process.exitValue()).as(output).isEqualTo(2);
        assertThat(output.strip())
                .doesNotContain("\n")
                .startsWith("build-image: missing tools; install them first: apt-get install ");
        // ethtool is named as one of the packages, whatever else this machine lacks besides it
        assertThat(output.strip()
                        .substring("build-image: missing tools; install them first: apt-get install ".length())
                        .split(" "))
                .contains("ethtool");
        assertThat(elapsedMs).as("failed at once").isLessThan(1000);
        assertThat(out).as("no build step started").doesNotExist();
    }
}
