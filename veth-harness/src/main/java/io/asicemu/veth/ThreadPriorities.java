package io.asicemu.veth;

import io.asicemu.veth.ffm.Libc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The nice values of this process's threads, for the low-latency mode: a busy-polling data-plane thread shares its
 * CPU with the JVM's compiler, GC and service threads and the control plane's; lowering their priority (a higher nice
 * value, which needs no privilege, unlike raising the data plane's) makes them take the CPU less often while the data
 * plane spins. Linux threads are tasks: {@code setpriority(PRIO_PROCESS, tid, nice)} changes one thread, and a thread
 * started later inherits its creator's value. Reads /proc and allocates: control threads only, never per packet.
 */
public final class ThreadPriorities {
    /** The lowest priority a thread can take: CFS weight 15 against a nice-0 thread's 1024. */
    public static final int LOWEST = 19;

    private static final int PRIO_PROCESS = 0;
    private static final int ESRCH = 3;
    private static final Path TASKS = Path.of("/proc/self/task");

    private ThreadPriorities() {}

    /** @return the calling thread's Linux thread id (its task under /proc/self/task). */
    public static int currentThreadId() {
        try {
            // "/proc/thread-self" -> "<pid>/task/<tid>"
            final Path link = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            return Integer.parseInt(link.getFileName().toString());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param tid a thread of this process.
     * @return its nice value (-20..19).
     * @throws UncheckedIOException if no such thread exists (any more).
     */
    public static int niceOf(final int tid) {
        try {
            final String stat =
                    Files.readString(TASKS.resolve(Integer.toString(tid)).resolve("stat"));
            // fields after the command name (which may hold spaces): state is field 3, nice field 19 of proc(5)
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[19 - 3]);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return every thread of this process → its nice value (a thread that ends meanwhile is left out). */
    public static Map<Integer, Integer> niceValues() {
        final Map<Integer, Integer> nice = new HashMap<>();
        try (Stream<Path> tasks = Files.list(TASKS)) {
            for (final Path task : (Iterable<Path>) tasks::iterator) {
                final int tid = Integer.parseInt(task.getFileName().toString());
                final int value = niceOrMax(tid);
                if (Files.exists(task)) {
                    nice.put(tid, value);
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return nice;
    }

    /**
     * HotSpot's JIT compiler threads ({@code C1 CompilerThread0}, {@code C2 CompilerThread0}; the kernel keeps the
     * first 15 characters of a thread's name).
     *
     * @param name a thread's name as /proc shows it ({@code comm}).
     * @return whether it is a JIT compiler thread.
     */
    public static boolean isJitCompiler(final String name) {
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    /**
     * Lowers every thread of this process but {@code keepTid} and those whose name ({@code comm}) {@code keepName}
     * accepts to at least {@code nice}; a thread already at that value or lower priority is left as it is, and a thread
     * that ends meanwhile is skipped.
     *
     * @param keepTid the thread left alone (the data-plane thread).
     * @param nice the nice value to lower the others to (0..19).
     * @param keepName the names of other threads left alone.
     * @return how many threads were lowered.
     * @throws IllegalStateException if the kernel refuses to change a thread that exists.
     */
    public static int lowerAllBut(final int keepTid, final int nice, final Predicate<String> keepName) {
        if (nice < 0 || nice > LOWEST) {
            throw new IllegalArgumentException("nice must be 0..19 (lowering only): " + nice);
        }
        int lowered = 0;
        try (Stream<Path> tasks = Files.list(TASKS);
                Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = Libc.newErrnoSegment(arena);
            for (final Path task : (Iterable<Path>) tasks::iterator) {
                final int tid = Integer.parseInt(task.getFileName().toString());
                if (tid == keepTid || niceOrMax(tid) >= nice || keepName.test(nameOf(task))) {
                    continue;
                }
                if (Libc.setpriority(errno, PRIO_PROCESS, tid, nice) == 0) {
                    lowered++;
                } else if (Libc.errno(errno) != ESRCH) {
                    throw new IllegalStateException(
                            Libc.describe("setpriority thread " + tid + " nice " + nice, errno));
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return lowered;
    }

    /** @return the thread's name, or "" if it has ended. */
    private static String nameOf(final Path task) {
        try {
            return Files.readString(task.resolve("comm")).strip();
        } catch (final IOException e) {
            return ""; // ended between the listing and the read: setpriority will find no such thread
        }
    }

    /** @return the thread's nice value, or {@link #LOWEST} if it has ended (nothing to lower). */
    private static int niceOrMax(final int tid) {
        try {
            return niceOf(tid);
        } catch (final UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException || !Files.exists(TASKS.resolve(Integer.toString(tid)))) {
                return LOWEST; // ended between the listing and the read
            }
            throw e;
        }
    }
}
