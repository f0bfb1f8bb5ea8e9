package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The commands the user documents name (README.md, docs/OPERATING.md) exist: every {@code asic-emu SUBCOMMAND …} or
 * {@code bin/asic-emu …} in a shell block or an inline code span names a subcommand of {@link Main#commandLine()}
 * (or one the container entrypoint adds, docker/image/entrypoint), each {@code --flag} / {@code -f} on it is an option
 * of that subcommand, and its leading words ({@code show queue wredcounters}, {@code config save}) are words its help
 * lists; an inline span that starts with a subcommand and a flag ({@code run --redis-port 6379}) is checked the same
 * way. An inline span that is only a flag ({@code --take-addressed-ports}, {@code --p4runtime-tls-cert/-key}) must
 * be an option of some subcommand. A document that names a command or flag the CLI does not have fails here.
 */
class ReadmeCommandsTest {
    private static final List<Path> DOCS = List.of(Path.of("..", "README.md"), Path.of("..", "docs", "OPERATING.md"));
    private static final Path ENTRYPOINT = Path.of("..", "docker", "image", "entrypoint");

    /** A command line that runs asic-emu: optionally under sudo or docker exec, optionally as bin/asic-emu. */
    private static final Pattern INVOCATION = Pattern.compile(
            "^(?:sudo\\s+)?(?:docker\\s+exec\\s+(?:-\\S+\\s+)*\\S+\\s+)?(?:\\./)?(?:bin/)?asic-emu\\s+(.*)$");

    /** Other tools' flags the documents name for comparison (BMv2's simple_switch --use-files). */
    private static final Set<String> OTHER_TOOLS_FLAGS = Set.of("--use-files");

    private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern WORD = Pattern.compile("[a-z][a-z-]*");

    @Test
    void shouldNameOnlyCommandsAndFlagsTheCommandLineHas() throws IOException {
        final List<String> problems = new ArrayList<>();
        int checked = 0;
        for (final Path doc : DOCS) {
            for (final String snippet : snippets(Files.readString(doc, StandardCharsets.UTF_8))) {
                final List<String> found = problems(snippet);
                if (found != null) {
                    checked++;
                    found.forEach(p -> problems.add(doc.getFileName() + ": `" + snippet + "`: " + p));
                }
            }
        }
        assertThat(checked).as("commands found in the documents").isGreaterThan(20);
        assertThat(problems)
                .as("commands or flags the documents name that asic-emu does not have")
                .isEmpty();
    }

    @Test
    void shouldFailOnACommandOrFlagThatDoesNotExist() {
        assertThat(problems("bin/asic-emu rn --config config_db.json")).isNotEmpty();
        assertThat(problems("sudo bin/asic-emu run --config x.json --p4runtime-prot 9559"))
                .singleElement()
                .asString()
                .contains("--p4runtime-prot");
        assertThat(problems("asic-emu show queue wredcountres")).isNotEmpty();
        assertThat(problems("asic-emu config reload running.json")).isNotEmpty();
        assertThat(problems("asic-emu config register ECN_KMIN 1 -z Ethernet8")).isNotEmpty();
        assertThat(problems("--p4runtime-tls-cert/-key/-client-crt")).isNotEmpty();
        assertThat(problems("docker exec leaf1 asic-emu healthz")).isNotEmpty();
        assertThat(problems("run --redis-port 6379 --gnmi-prot 8080")).isNotEmpty();
        // and the true ones pass
        assertThat(problems("sudo bin/asic-emu run --config x.json --p4runtime-port 9559 --gnmi-port 8080"))
                .isEmpty();
        assertThat(problems("asic-emu show queue wredcounters")).isEmpty();
        assertThat(problems("asic-emu config register ECN_KMIN 20000 -i Ethernet8 --queue 3"))
                .isEmpty();
        assertThat(problems("--p4runtime-tls-cert/-key/-client-ca")).isEmpty();
        assertThat(problems("docker exec leaf1 asic-emu health")).isEmpty();
        assertThat(problems("run --redis-port 6379 --metrics-port 9100 --gnmi-port 8080"))
                .isEmpty();
        assertThat(problems("redis-cli -n 4 hgetall 'WRED_PROFILE|AZURE_LOSSLESS'"))
                .as("not a command of ours: not checked")
                .isNull();
    }

    /**
     * Lines of shell blocks (comments dropped, {@code \} continuations joined) and inline code spans.
     */
    static List<String> snippets(final String markdown) {
        final List<String> out = new ArrayList<>();
        boolean inBlock = false;
        final StringBuilder pending = new StringBuilder();
        for (final String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                inBlock = !inBlock;
                continue;
            }
            if (inBlock) {
                String code = line.replaceFirst("(^|\\s)#.*$", "").strip();
                if (code.endsWith("\\")) {
                    pending.append(code, 0, code.length() - 1).append(' ');
                    continue;
                }
                out.add(pending + code);
                pending.setLength(0);
            } else {
                final Matcher m = INLINE_CODE.matcher(line);
                while (m.find()) {
                    out.add(m.group(1).strip());
                }
            }
        }
        return out;
    }

    /**
     * @return null when the snippet is not an asic-emu command or a flag, else what is wrong with it (empty: nothing).
     */
    static List<String> problems(final String snippet) {
        final CommandLine root = Main.commandLine();
        final Set<String> extra = entrypointCommands();
        final List<String> problems = new ArrayList<>();
        if (snippet.startsWith("--")) {
            final Set<String> all = new LinkedHashSet<>(options(root.getCommandSpec()));
            root.getSubcommands().values().forEach(c -> all.addAll(options(c.getCommandSpec())));
            for (final String flag : expand(snippet.split("\\s+")[0].split("=")[0])) {
                if (!all.contains(flag) && !OTHER_TOOLS_FLAGS.contains(flag)) {
                    problems.add("no command has the option " + flag);
                }
            }
            return problems;
        }
        Matcher m = INVOCATION.matcher(snippet);
        if (!m.matches()) {
            // a span such as `run --redis-port 6379 --gnmi-port 8080`: a subcommand and its flags, asic-emu implied
            final String first = snippet.split("\\s+")[0];
            if (!root.getSubcommands().containsKey(first) || !snippet.matches("\\S+\\s+-.*")) {
                return null;
            }
            m = INVOCATION.matcher("asic-emu " + snippet);
            if (!m.matches()) {
                return null;
            }
        }
        final List<String> tokens = new ArrayList<>(List.of(m.group(1).strip().split("\\s+")));
        tokens.removeIf(t -> t.equals("…") || t.equals("|"));
        while (!tokens.isEmpty() && tokens.getFirst().startsWith("-")) {
            final String flag = tokens.removeFirst().split("=")[0];
            if (!options(root.getCommandSpec()).contains(flag)) {
                problems.add("asic-emu has no option " + flag);
            }
        }
        if (tokens.isEmpty()) {
            return problems;
        }
        final String name = tokens.removeFirst();
        final CommandLine sub = root.getSubcommands().get(name);
        if (sub == null) {
            if (!extra.contains(name)) {
                problems.add("asic-emu has no command " + name);
            }
            return problems;
        }
        final CommandSpec spec = sub.getCommandSpec();
        final Set<String> options = options(spec);
        options.addAll(options(root.getCommandSpec()));
        final List<String> words = new ArrayList<>();
        boolean leading = true;
        for (final String raw : tokens) {
            final String token = raw.replaceAll("^\\[|]$", "");
            if (token.startsWith("-") && token.length() > 1 && !token.matches("-\\d.*")) {
                leading = false;
                for (final String flag : expand(token.split("=")[0])) {
                    if (!options.contains(flag)) {
                        problems.add(name + " has no option " + flag);
                    }
                }
            } else if (leading && WORD.matcher(token).matches()) {
                words.add(token);
            } else {
                leading = false;
            }
        }
        if (!words.isEmpty() && !spec.positionalParameters().isEmpty()) {
            final String phrase = String.join(" ", words);
            final String help = help(spec);
            if (!Pattern.compile("(^|[^a-z-])" + Pattern.quote(phrase) + "($|[^a-z-])")
                    .matcher(help)
                    .find()) {
                problems.add(name + "'s help lists no `" + phrase + "`");
            }
        }
        return problems;
    }

    /** {@code --p4runtime-tls-cert/-key/-client-ca} → the three flags it abbreviates. */
    private static List<String> expand(final String token) {
        final String[] parts = token.split("/");
        final List<String> flags = new ArrayList<>(List.of(parts[0]));
        if (parts.length > 1) {
            final String stem = parts[0].substring(0, parts[0].lastIndexOf('-'));
            for (int i = 1; i < parts.length; i++) {
                flags.add(parts[i].startsWith("--") ? parts[i] : stem + parts[i]);
            }
        }
        return flags;
    }

    private static Set<String> options(final CommandSpec spec) {
        final Set<String> names = new LinkedHashSet<>();
        for (final OptionSpec option : spec.options()) {
            names.addAll(List.of(option.names()));
        }
        return names;
    }

    /** The words a user reads in a command's help: its description and its positional parameters' labels. */
    private static String help(final CommandSpec spec) {
        final StringBuilder help =
                new StringBuilder(String.join(" ", spec.usageMessage().description()));
        for (final PositionalParamSpec p : spec.positionalParameters()) {
            help.append(' ').append(p.paramLabel().replace('|', ' '));
            help.append(' ').append(String.join(" ", p.description()));
        }
        return help.toString();
    }

    /** The commands the container's entrypoint handles itself ({@code health}), from its {@code case} labels. */
    private static Set<String> entrypointCommands() {
        try {
            final Set<String> names = new LinkedHashSet<>();
            final Matcher m = Pattern.compile("(?m)^\\s+([a-z][a-z-]*)\\)\\s*$")
                    .matcher(Files.readString(ENTRYPOINT, StandardCharsets.UTF_8));
            while (m.find()) {
                names.add(m.group(1));
            }
            return names;
        } catch (final IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
