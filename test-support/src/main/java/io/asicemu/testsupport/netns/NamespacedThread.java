package io.asicemu.testsupport.netns;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.Callable;

/**
 * Runs a piece of test code on the calling thread inside a named network namespace ({@code /run/netns/<name>}) and
 * returns the thread to its own namespace after. setns(2) moves only the calling thread; sockets opened meanwhile
 * (a listening socket: Netty's server channel is created on the caller's thread) stay in that namespace, and threads
 * started meanwhile (Netty's I/O thread, started when the channel registers) are born in it. Needs CAP_SYS_ADMIN.
 */
public final class NamespacedThread {
    private static final int O_RDONLY_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x40000000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN = LINKER.downcallHandle(
            LINKER.defaultLookup().find("open").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle SETNS = LINKER.downcallHandle(
            LINKER.defaultLookup().find("setns").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private NamespacedThread() {}

    /**
     * Runs {@code action} on this thread inside network namespace {@code namespace}, then returns the thread to its
     * own namespace.
     *
     * @return what {@code action} returned.
     */
    public static <T> T callIn(final String namespace, final Callable<T> action) throws Exception {
        final int own = open("/proc/thread-self/ns/net");
        final int target = open("/run/netns/" + namespace);
        try {
            if ((int) SETNS.invokeExact(target, CLONE_NEWNET) != 0) {
                throw new IllegalStateException("setns into " + namespace + " failed (root needed)");
            }
            try {
                return action.call();
            } finally {
                if ((int) SETNS.invokeExact(own, CLONE_NEWNET) != 0) {
                    throw new Error("cannot return the test thread to its own network namespace");
                }
            }
        } catch (final Exception | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw new IllegalStateException(t);
        } finally {
            close(own);
            close(target);
        }
    }

    private static int open(final String path) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final int fd = (int) OPEN.invokeExact(arena.allocateFrom(path), O_RDONLY_CLOEXEC, 0);
            if (fd < 0) {
                throw new IllegalStateException("cannot open " + path);
            }
            return fd;
        } catch (final Exception e) {
            throw e;
        } catch (final Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void close(final int fd) {
        try {
            final int ignored = (int) CLOSE.invokeExact(fd);
        } catch (final Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
