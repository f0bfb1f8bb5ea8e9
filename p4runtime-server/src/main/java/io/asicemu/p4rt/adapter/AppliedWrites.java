package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.backend.DataPlaneTimeoutException;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.pipeline.control.PipelineControl;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The writes whose pipeline commands are queued to the data plane but not yet applied, and the one thread that
 * answers them: instead of every Write parking its gRPC thread until the data plane applied its command, the write
 * path commits the batch, hands its command's sequence number here and returns. This thread waits (as the data
 * plane's registered waiter, unparked by the duty cycle that applied commands) for the oldest pending command, then
 * completes every write whose command is applied, in commit order: writes that arrive while others are pending are
 * applied by the data plane in the same cycle and answered after one wake-up. A reply still means "applied".
 * <p>
 * A write's own path wakes nobody: the completer stays parked as the data plane's registered waiter (also while no
 * write is pending, so the next one's apply wakes it directly). Idle costs nothing: the thread is started by the first
 * pending write, parks, and ends after {@link #IDLE_LINGER_NS} without writes (the next one starts it again).
 * <p>
 * Threading: {@link #add} from any thread; callers add in commit order (under the backend's monitor) so that the
 * queue's order is the data plane's. Completions (and the callbacks chained on them, e.g. the gRPC reply) run on this
 * object's thread and must not block.
 */
final class AppliedWrites {
    /** How long the completer thread waits for another write before it ends. */
    static final long IDLE_LINGER_NS = 10_000_000_000L;

    private record Pending(
            long sequence,
            long deadlineNs,
            List<UpdateOutcome> outcomes,
            CompletableFuture<List<UpdateOutcome>> reply) {}

    private final PipelineControl control;
    private final Duration timeout;
    /** Guarded by this. */
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** The completer thread, or null when none runs. Guarded by this. */
    private Thread completer;

    /**
     * @param control the pipeline whose data plane applies the commands (on its own thread).
     * @param timeout how long a write waits for its apply before it fails with {@link DataPlaneTimeoutException}.
     */
    AppliedWrites(final PipelineControl control, final Duration timeout) {
        this.control = control;
        this.timeout = timeout;
    }

    /**
     * @param sequence the committed command's sequence number ({@link PipelineControl#submit}).
     * @param outcomes the write's outcomes, its reply once the command is applied.
     * @return completed with {@code outcomes} once the data plane applied command {@code sequence}, or exceptionally
     *     with {@link DataPlaneTimeoutException} if it did not within the timeout.
     */
    CompletableFuture<List<UpdateOutcome>> add(final long sequence, final List<UpdateOutcome> outcomes) {
        final CompletableFuture<List<UpdateOutcome>> reply = new CompletableFuture<>();
        final Thread running;
        synchronized (this) {
            queue.add(new Pending(sequence, System.nanoTime() + timeout.toNanos(), outcomes, reply));
            if (completer == null) {
                completer =
                        Thread.ofPlatform().name("p4rt-write-applied").daemon().start(this::completeApplied);
                return reply;
            }
            running = completer;
        }
        // The completer is parked as the data plane's waiter and wakes when this command is applied: no wake-up of
        // its own. Only if the apply came first (the completer may have looked before this write was queued) is it
        // woken here.
        if (control.appliedCommands() >= sequence) {
            LockSupport.unpark(running);
        }
        return reply;
    }

    /** @return writes waiting for the data plane (for tests and diagnostics). */
    synchronized int pending() {
        return queue.size();
    }

    /** The completer thread's loop. */
    private void completeApplied() {
        long idleSinceNs = System.nanoTime();
        while (true) {
            final long applied = control.appliedCommands();
            if (completeUpTo(applied)) {
                idleSinceNs = System.nanoTime();
                continue;
            }
            final Pending head;
            synchronized (this) {
                head = queue.peek();
                if (head == null && System.nanoTime() - idleSinceNs >= IDLE_LINGER_NS) {
                    completer = null;
                    return;
                }
            }
            if (head == null) {
                // woken by the data plane's next apply (a write committed meanwhile) or by add()
                control.parkUntilApplied(applied + 1, IDLE_LINGER_NS);
                continue;
            }
            final long leftNs = head.deadlineNs() - System.nanoTime();
            if (leftNs > 0) {
                control.parkUntilApplied(head.sequence(), leftNs);
                continue;
            }
            synchronized (this) {
                queue.poll();
            }
            head.reply()
                    .completeExceptionally(new DataPlaneTimeoutException(
                            "the data plane did not apply the write within " + timeout
                                    + "; it stays queued and recorded and will be applied",
                            new TimeoutException("command " + head.sequence() + " not applied within " + timeout)));
            idleSinceNs = System.nanoTime();
        }
    }

    /**
     * Answers, in commit order, every pending write whose command is applied.
     *
     * @return whether it answered any.
     */
    private boolean completeUpTo(final long applied) {
        boolean any = false;
        while (true) {
            final Pending p;
            synchronized (this) {
                p = queue.peek();
                if (p == null || p.sequence() > applied) {
                    return any;
                }
                queue.poll();
            }
            p.reply().complete(p.outcomes());
            any = true;
        }
    }
}
