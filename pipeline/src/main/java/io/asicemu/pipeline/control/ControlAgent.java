package io.asicemu.pipeline.control;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one thread that owns a live switch's control model. Every writer — a P4Runtime Write, a CONFIG_DB write over
 * the Redis port, a register write, port discovery attaching a port, the routing protocol's routes — sends it a
 * request and gets a future with the request's result; requests run one at a time, in the order they came, so no
 * caller holds a lock and none sees another's batch half built. A request made on the control thread itself (one
 * request doing another's work) runs at once. What a request commits reaches the data plane as one command
 * ({@link PipelineControl#awaitApplied} waits for it, outside the control thread).
 * <p>
 * Idle, the thread blocks on its queue. After each request the {@link #afterEachRequest} listeners run on the control
 * thread (the Redis front learns that the running config may have changed). Thread safe.
 */
public final class ControlAgent implements AutoCloseable {
    private final PipelineControl control;
    private final ExecutorService thread;
    private final List<Runnable> afterEachRequest = new CopyOnWriteArrayList<>();
    private volatile Thread controlThread;

    private ControlAgent(final PipelineControl control, final String threadName) {
        this.control = control;
        this.thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.NANOSECONDS, new LinkedBlockingQueue<>(), task -> {
            final Thread t = new Thread(task, threadName);
            t.setDaemon(true);
            controlThread = t;
            return t;
        });
    }

    /**
     * @param control the control model the agent's thread owns from now on.
     * @param threadName the thread's name.
     * @return a running agent.
     */
    public static ControlAgent start(final PipelineControl control, final String threadName) {
        return new ControlAgent(control, threadName);
    }

    /**
     * Queues a request.
     *
     * @param request what to do with the control model; its result completes the future (its exception fails it).
     * @return completes when the request has run.
     */
    public <T> CompletableFuture<T> submit(final Function<PipelineControl, T> request) {
        if (Thread.currentThread() == controlThread) {
            try {
                return CompletableFuture.completedFuture(request.apply(control));
            } catch (final RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return request.apply(control);
                    } finally {
                        for (final Runnable listener : afterEachRequest) {
                            listener.run();
                        }
                    }
                },
                thread);
    }

    /**
     * Runs a request and waits for its result.
     *
     * @return what the request returned.
     * @throws RuntimeException what the request threw, as it threw it.
     */
    public <T> T call(final Function<PipelineControl, T> request) {
        try {
            return submit(request).join();
        } catch (final CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** Runs a request that returns nothing and waits for it (its exception is rethrown as it threw it). */
    public void run(final Consumer<PipelineControl> request) {
        call(c -> {
            request.accept(c);
            return null;
        });
    }

    /**
     * Waits, on the caller's thread, until the data plane applied a committed command.
     *
     * @param sequence what {@link TableBatch#commit()} (or another command) returned.
     * @param timeout how long to wait.
     * @throws TimeoutException if it was not applied in time.
     */
    public void awaitApplied(final long sequence, final Duration timeout) throws TimeoutException {
        control.awaitApplied(sequence, timeout);
    }

    /** Adds a listener the control thread runs after each request (not after one made on the control thread). */
    public void afterEachRequest(final Runnable listener) {
        afterEachRequest.add(listener);
    }

    /** Stops the thread once the queued requests have run. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (final InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
