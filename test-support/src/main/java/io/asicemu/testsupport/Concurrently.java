package io.asicemu.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Work a test runs beside its own thread, each task on a thread of its own. Not the common fork-join pool: it has one
 * thread on a 2-CPU machine, so its tasks run one after another — the two senders of an incast took turns, and a
 * background process's output reader held up every task after it until the process ended.
 */
public final class Concurrently {
    private static final Executor THREADS = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("test-task-", 0).factory());

    private Concurrently() {}

    /** Starts {@code task} on a thread of its own. */
    public static <T> CompletableFuture<T> supply(final Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, THREADS);
    }

    /** Reads {@code stream} to its end on a thread of its own (a process's stdout or stderr). */
    public static CompletableFuture<String> drain(final InputStream stream) {
        return supply(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (final IOException e) {
                return "<unreadable: " + e.getMessage() + ">";
            }
        });
    }
}
