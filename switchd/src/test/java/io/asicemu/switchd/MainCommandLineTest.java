package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code main} builds only the subcommand it runs (start-up time); what a user sees must not change: the same help,
 * the same errors, and the whole command list when no subcommand is named.
 */
class MainCommandLineTest {
    private static String run(final CommandLine cli, final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        final int status = cli.execute(args);
        return status + "\n" + out + "\n" + err;
    }

    @Test
    void shouldShowTheSameHelpAndErrorsAsTheWholeCommandLineWhenOnlyTheNamedSubcommandIsBuilt() {
        for (final String[] args : new String[][] {
            {"run", "--help"},
            {"--debug", "run", "--help"},
            {"replay", "--help"},
            {"host", "--help"},
            {"show", "--help"},
            {"clear", "--help"},
            {"config", "register", "--help"},
            {"run", "--no-such-option"},
            {"demo", "--out-dir"}
        }) {
            assertThat(run(Main.commandLine(args), args))
                    .as(String.join(" ", args))
                    .isEqualTo(run(Main.commandLine(), args));
        }
    }

    @Test
    void shouldNameEachSubcommandAsItsAnnotationDoes() {
        Main.SUBCOMMANDS.forEach((name, type) -> assertThat(
                        type.getAnnotation(CommandLine.Command.class).name())
                .as(type.getName())
                .isEqualTo(name));
    }

    @Test
    void shouldBuildOnlyTheNamedSubcommandAndAllOfThemOtherwise() {
        assertThat(Main.commandLine(new String[] {"run", "--config", "x.json"}).getSubcommands())
                .containsOnlyKeys("run");
        assertThat(Main.commandLine(new String[] {"--debug", "host", "--help"}).getSubcommands())
                .containsOnlyKeys("host");
        assertThat(Main.commandLine(new String[] {}).getSubcommands())
                .containsOnlyKeys("demo", "replay", "run", "scenario", "host", "show", "clear", "config");
        assertThat(Main.commandLine(new String[] {"no-such-command"}).getSubcommands())
                .as("an unknown command gets the whole list in its error message")
                .hasSize(8);
        assertThat(run(Main.commandLine(new String[] {"no-such-command"}), "no-such-command"))
                .isEqualTo(run(Main.commandLine(), "no-such-command"));
    }
}
