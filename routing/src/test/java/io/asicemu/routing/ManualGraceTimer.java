package io.asicemu.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A grace timer the test steps: tasks run when the test advances past their deadline. Not thread safe. */
final class ManualGraceTimer implements GraceTimer {
    private final List<Task> tasks = new ArrayList<>();
    private long nowNs;

    private static final class Task implements Scheduled {
        final long deadlineNs;
        final Runnable action;
        boolean cancelled;

        Task(final long deadlineNs, final Runnable action) {
            this.deadlineNs = deadlineNs;
            this.action = action;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    @Override
    public Scheduled schedule(final Duration delay, final Runnable task) {
        final Task scheduled = new Task(nowNs + delay.toNanos(), task);
        tasks.add(scheduled);
        return scheduled;
    }

    /** Advances the clock and runs what fell due. */
    void advance(final Duration by) {
        nowNs += by.toNanos();
        for (final Task task : List.copyOf(tasks)) {
            if (!task.cancelled && task.deadlineNs - nowNs <= 0) {
                tasks.remove(task);
                task.action.run();
            }
        }
    }

    /** @return tasks still waiting. */
    long pending() {
        return tasks.stream().filter(task -> !task.cancelled).count();
    }
}
