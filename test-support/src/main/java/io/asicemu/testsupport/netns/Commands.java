package io.asicemu.testsupport.netns;

import io.asicemu.testsupport.Concurrently;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs external programs (iproute2, ethtool, python3/scapy, tshark) with a time bound. Control path only; thread safe.
 */
public final class Commands {
    /** Debian's python3 with scapy (a pyenv shim on PATH may lack it). */
    public static final String PYTHON = "/usr/bin/python3";
    /** The bound used when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private Commands() {}

    /**
     * What a finished process left behind.
     *
     * @param command the command line.
     * @param exitCode its exit code.
     * @param stdout its standard output.
     * @param stderr its standard error.
     */
    public record Result(List<String> command, int exitCode, String stdout, String stderr) {
        /**
         * @return this result.
         * @throws IllegalStateException if the exit code was not 0, with the output in the message.
         */
        public Result requireSuccess() {
            if (exitCode != 0) {
                throw new IllegalStateException("command failed (exit " + exitCode + "): " + String.join(" ", command)
                        + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr);
            }
            return this;
        }
    }

    /** Runs {@code command}, killing it after {@code timeout}; never throws for a non-zero exit. */
    public static Result run(final Duration timeout, final List<String> command) {
        try {
            final Process process = new ProcessBuilder(command).start();
            process.getOutputStream().close();
            final CompletableFuture<String> out = drain(process.getInputStream());
            final CompletableFuture<String> err = drain(process.getErrorStream());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException("command timed out after " + timeout + ": " + String.join(" ", command)
                        + "\n--- stderr ---\n" + err.getNow(""));
            }
            return new Result(List.copyOf(command), process.exitValue(), out.join(), err.join());
        } catch (final IOException e) {
            throw new IllegalStateException("cannot start " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    /** Runs {@code command} with the default bound and fails unless it exits 0. */
    public static Result runOrFail(final String... command) {
        return run(DEFAULT_TIMEOUT, List.of(command)).requireSuccess();
    }

    /** Runs {@code command} with the default bound, ignoring failure (cleanup). */
    public static Result runQuietly(final String... command) {
        try {
            return run(DEFAULT_TIMEOUT, List.of(command));
        } catch (final IllegalStateException e) {
            return new Result(List.of(command), -1, "", e.getMessage());
        }
    }

    static CompletableFuture<String> drain(final InputStream stream) {
        return Concurrently.drain(stream);
    }
}
