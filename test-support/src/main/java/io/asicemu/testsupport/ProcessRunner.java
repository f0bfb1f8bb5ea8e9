package io.asicemu.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs an external program (an oracle such as tshark or scapy, or iproute2) with a time bound and captures its output.
 * Not thread safe per call; each call is independent.
 */
public final class ProcessRunner {
    private ProcessRunner() {}

    /** What a finished process left behind. */
    public record Result(List<String> command, int exitCode, String stdout, String stderr) {
        /** Throws if the process failed, with its output in the message so a failed test explains itself. */
        public Result requireSuccess() {
            if (exitCode != 0) {
                throw new IllegalStateException("command failed (exit " + exitCode + "): " + String.join(" ", command)
                        + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr);
            }
            return this;
        }
    }

    /** Runs {@code command} in {@code workDir} (null: the current one), killing it after {@code timeout}. */
    public static Result run(final Path workDir, final Duration timeout, final List<String> command) {
        final ProcessBuilder builder = new ProcessBuilder(command);
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        try {
            final Process process = builder.start();
            process.getOutputStream().close();
            final CompletableFuture<String> out = drain(process.getInputStream());
            final CompletableFuture<String> err = drain(process.getErrorStream());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException(
                        "command timed out after " + timeout + ": " + String.join(" ", command));
            }
            return new Result(List.copyOf(command), process.exitValue(), out.join(), err.join());
        } catch (final IOException e) {
            throw new IllegalStateException(
                    "cannot start " + command.getFirst() + " (.ci/run installs the test tools): " + e.getMessage(), e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    /** Runs {@code command} with a 60 s bound and fails unless it exits 0. */
    public static Result runOrFail(final String... command) {
        return run(null, Duration.ofSeconds(60), List.of(command)).requireSuccess();
    }

    /** Whether {@code program} is on the PATH. */
    public static boolean onPath(final String program) {
        final String path = System.getenv().getOrDefault("PATH", "");
        for (final String dir : path.split(":")) {
            if (!dir.isEmpty() && Path.of(dir, program).toFile().canExecute()) {
                return true;
            }
        }
        return false;
    }

    private static CompletableFuture<String> drain(final InputStream stream) {
        return Concurrently.drain(stream);
    }
}
