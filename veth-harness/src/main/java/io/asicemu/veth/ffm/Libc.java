package io.asicemu.veth.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The libc calls the Linux ports need, as FFM downcall handles linked once into static finals.
 * <p>
 * Every call that can fail takes an errno capture segment ({@link #newErrnoSegment(Arena)}; one per port, so the
 * data-plane thread and control threads never share one) as its first argument and returns the raw C result; read
 * the errno with {@link #errno(MemorySegment)} right after a failed call. Each method mirrors the C function of the same
 * name (see its man page) with exact Java types, so the data path calls them without boxing or allocation. Thread
 * safe (the handles are stateless).
 */
public final class Libc {
    /** The layout of the captured call state (errno). */
    public static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();

    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");

    private static final MethodHandle SOCKET =
            link("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = link("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SETSOCKOPT =
            link("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle MMAP =
            link("mmap", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle EPOLL_CREATE1 = link("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CTL =
            link("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle EPOLL_WAIT =
            link("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    /** epoll_pwait2(2) (glibc 2.35, Linux 5.11): a timeout in ns; null where the C library lacks it. */
    private static final MethodHandle EPOLL_PWAIT2 = LIBC.find("epoll_pwait2")
            .map(address -> LINKER.downcallHandle(
                    address,
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
                    ERRNO_OPTION))
            .orElse(null);

    private static final MethodHandle EVENTFD = link("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle IOCTL = LINKER.downcallHandle(
            LIBC.find("ioctl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
            ERRNO_OPTION,
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle SENDTO =
            link("sendto", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RECV =
            link("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle READ =
            link("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE =
            link("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = link("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle IF_NAMETOINDEX =
            LINKER.downcallHandle(LIBC.find("if_nametoindex").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /**
     * The downcalls the first forwarded frame does not need (errors' texts, namespaces, CPU pinning, TAP ports, ring
     * unmapping, the kernel's drop counts, poll(2)), linked when first used or by {@link #linkDeferred()}:
     * each link spins a stub class and method handles, CPU that start-up spends better on the data plane.
     */
    private static final class Deferred {
        static final MethodHandle GETSOCKOPT =
                link("getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle MUNMAP = link("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        static final MethodHandle POLL = link("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        static final MethodHandle SETNS = link("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        static final MethodHandle SCHED_SETAFFINITY =
                link("sched_setaffinity", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
        static final MethodHandle SETPRIORITY =
                link("setpriority", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        static final MethodHandle OPEN = LINKER.downcallHandle(
                LIBC.find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                ERRNO_OPTION,
                Linker.Option.firstVariadicArg(2));
        static final MethodHandle STRERROR =
                LINKER.downcallHandle(LIBC.find("strerror").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_INT));

        private Deferred() {}
    }

    /** glibc's {@code malloc_trim}, linked when first used: only an idle switch's periodic trim calls it. */
    private static final class Heap {
        static final MethodHandle MALLOC_TRIM = LINKER.downcallHandle(
                LIBC.find("malloc_trim").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_LONG));

        private Heap() {}
    }

    private Libc() {}

    /**
     * Links every downcall now (this class's initialisation), if not done yet. Linking spins method handles and
     * stub classes the AOT cache cannot keep: a few hundred ms of CPU at start-up, which a caller can overlap with
     * other start-up work by calling this from another thread first.
     */
    public static void link() {
        // the static initialiser has run by the time this body runs
    }

    /**
     * Links the downcalls {@link #link()} leaves out (see {@code Deferred}), if not done yet: for a caller that has
     * its data plane up and wants no first-use pause later.
     */
    public static void linkDeferred() {
        Deferred.STRERROR.type(); // initialises the holder
    }

    private static MethodHandle link(final String name, final FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(), descriptor, ERRNO_OPTION);
    }

    /**
     * @param arena the arena that owns the segment (the port's or the caller's).
     * @return a new errno capture segment.
     */
    public static MemorySegment newErrnoSegment(final Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /**
     * @param errnoSegment a capture segment passed to the last failed call.
     * @return the errno it captured.
     */
    public static int errno(final MemorySegment errnoSegment) {
        return (int) ERRNO.get(errnoSegment, 0L);
    }

    /**
     * @param errno an errno value.
     * @return libc's text for it, e.g. "No such device".
     */
    public static String strerror(final int errno) {
        try {
            final MemorySegment text = (MemorySegment) Deferred.STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /** @return a message "what: errno N (text)" for an exception after a failed call. */
    public static String describe(final String what, final MemorySegment errnoSegment) {
        final int errno = errno(errnoSegment);
        return what + ": errno " + errno + " (" + strerror(errno) + ")";
    }

    public static int socket(final MemorySegment errno, final int domain, final int type, final int protocol) {
        try {
            return (int) SOCKET.invokeExact(errno, domain, type, protocol);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int bind(final MemorySegment errno, final int fd, final MemorySegment addr, final int addrLen) {
        try {
            return (int) BIND.invokeExact(errno, fd, addr, addrLen);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int setsockopt(
            final MemorySegment errno,
            final int fd,
            final int level,
            final int name,
            final MemorySegment value,
            final int valueLen) {
        try {
            return (int) SETSOCKOPT.invokeExact(errno, fd, level, name, value, valueLen);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int getsockopt(
            final MemorySegment errno,
            final int fd,
            final int level,
            final int name,
            final MemorySegment value,
            final MemorySegment valueLen) {
        try {
            return (int) Deferred.GETSOCKOPT.invokeExact(errno, fd, level, name, value, valueLen);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /**
     * Maps a descriptor's memory (a packet socket's rings). Anonymous memory comes from the pipeline's
     * {@link io.asicemu.pipeline.port.AnonymousMemory} instead, the one helper for it.
     *
     * @return the mapped address, or {@link #MAP_FAILED} (address -1).
     */
    public static MemorySegment mmap(
            final MemorySegment errno,
            final long length,
            final int prot,
            final int flags,
            final int fd,
            final long offset) {
        try {
            return (MemorySegment) MMAP.invokeExact(errno, MemorySegment.NULL, length, prot, flags, fd, offset);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int munmap(final MemorySegment errno, final MemorySegment address, final long length) {
        try {
            return (int) Deferred.MUNMAP.invokeExact(errno, address, length);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /** poll(2); blocks up to {@code timeoutMs} (-1: forever). Never linked as critical: it blocks. */
    public static int poll(final MemorySegment errno, final MemorySegment fds, final long nfds, final int timeoutMs) {
        try {
            return (int) Deferred.POLL.invokeExact(errno, fds, nfds, timeoutMs);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int epollCreate1(final MemorySegment errno, final int flags) {
        try {
            return (int) EPOLL_CREATE1.invokeExact(errno, flags);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int epollCtl(
            final MemorySegment errno, final int epfd, final int op, final int fd, final MemorySegment event) {
        try {
            return (int) EPOLL_CTL.invokeExact(errno, epfd, op, fd, event);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /** epoll_wait(2); blocks up to {@code timeoutMs} (-1: forever). Never linked as critical: it blocks. */
    public static int epollWait(
            final MemorySegment errno,
            final int epfd,
            final MemorySegment events,
            final int maxEvents,
            final int timeoutMs) {
        try {
            return (int) EPOLL_WAIT.invokeExact(errno, epfd, events, maxEvents, timeoutMs);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /** @return whether {@link #epollPwait2} can be called (the C library has it; the kernel may still say ENOSYS). */
    public static boolean hasEpollPwait2() {
        return EPOLL_PWAIT2 != null;
    }

    /**
     * epoll_pwait2(2): blocks up to the {@code struct timespec} in {@code timeout} (ns precision; NULL: forever), no
     * signal mask. Never linked as critical: it blocks.
     */
    public static int epollPwait2(
            final MemorySegment errno,
            final int epfd,
            final MemorySegment events,
            final int maxEvents,
            final MemorySegment timeout) {
        try {
            return (int) EPOLL_PWAIT2.invokeExact(errno, epfd, events, maxEvents, timeout, MemorySegment.NULL);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int eventfd(final MemorySegment errno, final int initialValue, final int flags) {
        try {
            return (int) EVENTFD.invokeExact(errno, initialValue, flags);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int setns(final MemorySegment errno, final int fd, final int nsType) {
        try {
            return (int) Deferred.SETNS.invokeExact(errno, fd, nsType);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /**
     * Pins the calling thread (only it) to one CPU, as {@code taskset} pins a process; benchmarks pin the traffic
     * threads and the data-plane thread to different cores so that their numbers can be compared run to run.
     *
     * @param cpu the CPU number (0-based, below 64).
     * @throws IllegalStateException if the kernel refuses (for example the CPU does not exist).
     */
    public static void pinCurrentThread(final int cpu) {
        if (cpu < 0 || cpu >= 64) {
            throw new IllegalArgumentException("cpu must be 0..63: " + cpu);
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = newErrnoSegment(arena);
            final MemorySegment mask = arena.allocateFrom(JAVA_LONG, 1L << cpu);
            final int result = (int) Deferred.SCHED_SETAFFINITY.invokeExact(errno, 0, 8L, mask);
            if (result < 0) {
                throw new IllegalStateException(describe("sched_setaffinity cpu " + cpu, errno));
            }
        } catch (final IllegalStateException e) {
            throw e;
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /**
     * setpriority(2): with {@code which} = PRIO_PROCESS (0) and a thread id as {@code who}, Linux sets that one
     * thread's nice value (not the whole process's). Raising a nice value needs no privilege; lowering it does.
     *
     * @return 0, or -1 with the errno in {@code errno}.
     */
    public static int setpriority(final MemorySegment errno, final int which, final int who, final int nice) {
        try {
            return (int) Deferred.SETPRIORITY.invokeExact(errno, which, who, nice);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /**
     * glibc's {@code malloc_trim(0)}: gives the free memory of every malloc arena back to the system (what
     * {@code jcmd <pid> System.trim_native_heap} does, without the JVM's management beans).
     *
     * @return 1 if memory was given back, 0 if there was none to give.
     * @throws LinkageError where the C library has no {@code malloc_trim} (not glibc): the downcall cannot be linked.
     */
    public static int mallocTrim() {
        try {
            return (int) Heap.MALLOC_TRIM.invokeExact(0L);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /**
     * Moves the calling thread (only it) into the network namespace {@code /var/run/netns/<name>} (as made by
     * {@code ip netns add}); sockets it creates afterwards live there. Benchmarks use it for traffic threads.
     */
    public static void enterNetworkNamespace(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment errno = newErrnoSegment(arena);
            final int fd =
                    open(errno, arena.allocateFrom("/var/run/netns/" + name), 0x80000 /* O_RDONLY|O_CLOEXEC */, 0);
            if (fd < 0) {
                throw new IllegalStateException(describe("open /var/run/netns/" + name, errno));
            }
            try {
                if (setns(errno, fd, 0x40000000 /* CLONE_NEWNET */) < 0) {
                    throw new IllegalStateException(describe("setns " + name, errno));
                }
            } finally {
                close(errno, fd);
            }
        }
    }

    public static int ioctl(final MemorySegment errno, final int fd, final long request, final MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(errno, fd, request, arg);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int open(final MemorySegment errno, final MemorySegment path, final int flags, final int mode) {
        try {
            return (int) Deferred.OPEN.invokeExact(errno, path, flags, mode);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static long sendto(
            final MemorySegment errno,
            final int fd,
            final MemorySegment buf,
            final long len,
            final int flags,
            final MemorySegment addr,
            final int addrLen) {
        try {
            return (long) SENDTO.invokeExact(errno, fd, buf, len, flags, addr, addrLen);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static long recv(
            final MemorySegment errno, final int fd, final MemorySegment buf, final long len, final int flags) {
        try {
            return (long) RECV.invokeExact(errno, fd, buf, len, flags);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static long read(final MemorySegment errno, final int fd, final MemorySegment buf, final long len) {
        try {
            return (long) READ.invokeExact(errno, fd, buf, len);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static long write(final MemorySegment errno, final int fd, final MemorySegment buf, final long len) {
        try {
            return (long) WRITE.invokeExact(errno, fd, buf, len);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    public static int close(final MemorySegment errno, final int fd) {
        try {
            return (int) CLOSE.invokeExact(errno, fd);
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /** @return the interface index of {@code name}, or 0 if there is no such interface. */
    public static int ifNameToIndex(final String name) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) IF_NAMETOINDEX.invokeExact(arena.allocateFrom(name));
        } catch (final Throwable t) {
            throw fail(t);
        }
    }

    /** The value mmap returns on failure. */
    public static final long MAP_FAILED = -1L;

    private static RuntimeException fail(final Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
