package io.asicemu.switchd;

import io.asicemu.config.ConfigException;
import io.asicemu.parser.pcap.CaptureFormatException;
import io.asicemu.pipeline.replay.ReplayFailedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * How the command line reports failures: a user error (a refused option, file, configuration or capture) is one line
 * on stderr, {@code <command>: <what, naming the file>}, and exit status 2; anything else is one line and status 1.
 * A stack trace is printed only with {@code --debug}.
 */
final class CliErrors implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {
    /** Exit status of a user error (picocli's and the shell's convention for usage errors). */
    static final int USER_ERROR = 2;
    /** Exit status of an internal failure. */
    static final int INTERNAL_ERROR = 1;

    private final Main main;

    CliErrors(final Main main) {
        this.main = main;
    }

    @Override
    public int handleExecutionException(
            final Exception e, final CommandLine commandLine, final CommandLine.ParseResult parseResult) {
        final PrintWriter err = commandLine.getErr();
        final boolean user = isUserError(e);
        if (e instanceof ReplayFailedException failed) {
            // not a user error, but the run's partial results are worth pointing at
            err.println(commandLine.getCommandName() + ": " + oneLine(e) + "; partial outputs and "
                    + failed.partial().countersFile() + " (marked INCOMPLETE) were written");
        } else {
            err.println(commandLine.getCommandName() + ": " + (user ? "" : "internal error: ") + oneLine(e)
                    + (main.debug() || user ? "" : " (--debug prints the stack trace)"));
        }
        if (main.debug()) {
            e.printStackTrace(err);
        }
        err.flush();
        return user ? USER_ERROR : INTERNAL_ERROR;
    }

    @Override
    public int handleParseException(final CommandLine.ParameterException e, final String[] args) {
        final CommandLine cmd = e.getCommandLine();
        final PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandName() + ": " + oneLine(e) + " (see "
                + cmd.getCommandSpec().qualifiedName() + " --help)");
        if (main.debug()) {
            e.printStackTrace(err);
        }
        err.flush();
        return USER_ERROR;
    }

    /** Errors that the user's input or environment caused, as opposed to bugs. */
    static boolean isUserError(final Throwable e) {
        return e instanceof CliError
                || e instanceof ConfigException
                || e instanceof IllegalArgumentException
                || e instanceof CaptureFormatException
                || e instanceof UncheckedIOException
                || e instanceof IOException;
    }

    /** The message on one line (a multi-line message is joined; a message-less exception is named by its type). */
    static String oneLine(final Throwable e) {
        final String message = e.getMessage() == null || e.getMessage().isBlank()
                ? e.getClass().getSimpleName()
                : e.getMessage();
        return message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
