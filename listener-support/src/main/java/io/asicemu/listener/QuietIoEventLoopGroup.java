package io.asicemu.listener;

import io.grpc.netty.shaded.io.netty.channel.IoEventLoop;
import io.grpc.netty.shaded.io.netty.channel.IoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.SingleThreadIoEventLoop;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Netty event loops that sleep until their next scheduled task, or an hour when none is scheduled, instead of at most
 * one second. Netty 4.2's loop ({@code SingleThreadEventExecutor.delayNanos}) waits at most its scheduled-task purge
 * interval (1 s) when nothing is scheduled, so an idle P4Runtime server's acceptor, and every I/O loop once a client
 * connected, woke once a second for nothing: an idle lab switch's largest remaining wake-up (docs/LAB.md, session 10).
 * Nothing depends on that second: a task or a channel event wakes the selector at once, a task scheduled from another
 * thread reaches the loop as a task (which wakes it), and in 4.2 a cancelled scheduled task leaves the queue when it is
 * cancelled or, cancelled from another thread, when the loop next runs — at the latest at that task's own deadline,
 * which the loop still waits for.
 */
public final class QuietIoEventLoopGroup extends MultiThreadIoEventLoopGroup {
    /** How long a loop with nothing scheduled sleeps if nothing wakes it (finite: the selector's timeout in ms). */
    static final long IDLE_WAIT_NANOS = TimeUnit.HOURS.toNanos(1);

    /**
     * @param threads how many loops.
     * @param threadFactory their threads.
     * @param ioHandlerFactory the transport (NIO).
     */
    public QuietIoEventLoopGroup(
            final int threads, final ThreadFactory threadFactory, final IoHandlerFactory ioHandlerFactory) {
        super(threads, threadFactory, ioHandlerFactory);
    }

    @Override
    protected IoEventLoop newChild(
            final Executor executor, final IoHandlerFactory ioHandlerFactory, final Object... args) {
        return new QuietLoop(this, executor, ioHandlerFactory);
    }

    /** One loop: waits for its next scheduled task, or {@link #IDLE_WAIT_NANOS} when none is scheduled. */
    private static final class QuietLoop extends SingleThreadIoEventLoop {
        QuietLoop(final IoEventLoopGroup parent, final Executor executor, final IoHandlerFactory ioHandlerFactory) {
            super(parent, executor, ioHandlerFactory);
        }

        @Override
        protected long delayNanos(final long currentTimeNanos) {
            return nextScheduledTaskDeadlineNanos() == -1 ? IDLE_WAIT_NANOS : super.delayNanos(currentTimeNanos);
        }

        @Override
        protected long deadlineNanos() {
            return nextScheduledTaskDeadlineNanos() == -1
                    ? ticker().nanoTime() + IDLE_WAIT_NANOS
                    : super.deadlineNanos();
        }
    }
}
