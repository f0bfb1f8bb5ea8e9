package io.asicemu.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs host commands for the lab tests (bounded in time; output collected). */
final class Sh {
    private Sh() {}

    /** What a command did. */
    record Result(List<String> command, int exit, String out, String err) {
        /** @return this if the command exited 0. */
        Result ok() {
            if (exit != 0) {
                throw new AssertionError(
                        String.join(" ", command) + " exited " + exit + ": " + err.strip() + " " + out.strip());
            }
            return this;
        }
    }

    static Result run(
            final Duration timeout, final Map<String, String> env, final String stdin, final List<String> command) {
        final ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        try {
            final Process p = pb.start();
            final CompletableFuture<String> out = drain(p.getInputStream());
            final CompletableFuture<String> err = drain(p.getErrorStream());
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout);
            }
            return new Result(command, p.exitValue(), out.join(), err.join());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static Result run(final Duration timeout, final String... command) {
        return run(timeout, Map.of(), null, List.of(command));
    }

    private static CompletableFuture<String> drain(final InputStream in) {
        final CompletableFuture<String> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (in) {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (final IOException e) {
                f.complete("");
            }
        });
        return f;
    }
}
