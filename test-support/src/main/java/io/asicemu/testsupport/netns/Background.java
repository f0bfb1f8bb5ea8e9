package io.asicemu.testsupport.netns;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A process a lab started in the background (a TCP sink, a traffic generator); killed when its lab closes. */
public final class Background implements AutoCloseable {
    private final Process process;
    private final CompletableFuture<String> stdout;
    private final CompletableFuture<String> stderr;

    Background(final List<String> command) {
        try {
            process = new ProcessBuilder(command).start();
            process.getOutputStream().close();
        } catch (final IOException e) {
            throw new IllegalStateException("cannot start " + command, e);
        }
        stdout = Commands.drain(process.getInputStream());
        stderr = Commands.drain(process.getErrorStream());
    }

    /**
     * Waits for the process to end.
     *
     * @param timeoutMs the longest wait.
     * @return its stdout.
     * @throws IllegalStateException if it did not end in time or failed.
     */
    public String await(final long timeoutMs) {
        try {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                close();
                throw new IllegalStateException("background process did not finish: "
                        + process.info().commandLine().orElse("?"));
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(
                    "background process failed (exit " + process.exitValue() + "): " + stderr.join());
        }
        return stdout.join();
    }

    /** @return whether it still runs. */
    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
