package io.asicemu.pipeline.port;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Native memory from an anonymous private mapping: the kernel supplies zero pages on first touch, so memory sized
 * for the worst case (the packet store covers the whole configured buffer pool, the CPU port's punt ring 1,024
 * largest frames, a live port's GSO segment scratch 64 largest frames) costs resident memory only as far as it is
 * used. {@link Arena#allocate} zeroes, and so touches, every page up front, on the thread that builds the switch: the
 * punt ring alone was 9.5 MiB resident and zero-filled at every start. The one helper for such memory in the
 * project (packet store, punt ring, veth-harness ports' copy-path scratch); veth-harness's {@code Libc.mmap} maps the
 * packet socket's rings, which are kernel memory behind a descriptor, not anonymous memory.
 */
public final class AnonymousMemory {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000;
    private static final long PAGE_BYTES = 4096;
    private static final int MADV_NOHUGEPAGE = 15;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("munmap").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MADVISE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("madvise").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));

    private AnonymousMemory() {}

    /**
     * Links the downcalls (this class's initialisation) now, if not done yet: stub classes the AOT cache cannot keep,
     * which a caller can link on another thread while it does other start-up work.
     */
    public static void link() {
        // the static initialiser has run by the time this body runs
    }

    /** mincore(2), linked on first use (diagnostics only: no start-up cost). */
    private static final class Mincore {
        static final MethodHandle HANDLE = LINKER.downcallHandle(
                LINKER.defaultLookup().find("mincore").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    }

    /**
     * Maps {@code bytes} of zeroed memory (page aligned), unmapped when {@code arena} closes.
     *
     * @param bytes the size.
     * @param arena the arena whose closing unmaps it.
     * @param what what the memory is for (named if the mapping is refused).
     * @return the memory.
     * @throws OutOfMemoryError if the kernel refuses the mapping.
     */
    public static MemorySegment map(final long bytes, final Arena arena, final String what) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("cannot map " + bytes + " B for " + what);
        }
        final MemorySegment address;
        try {
            address = (MemorySegment) MMAP.invokeExact(
                    MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0L);
        } catch (final Throwable t) {
            throw new IllegalStateException("mmap failed", t);
        }
        if (address.address() == -1L) {
            throw new OutOfMemoryError("cannot map " + bytes + " B for " + what);
        }
        // small pages even where transparent huge pages are "always": a first touch must not make 2 MiB resident
        try {
            final int ignored = (int) MADVISE.invokeExact(address, bytes, MADV_NOHUGEPAGE);
        } catch (final Throwable t) {
            throw new IllegalStateException("madvise failed", t);
        }
        return address.reinterpret(bytes, arena, mapped -> unmap(mapped, bytes));
    }

    /**
     * The resident part of a mapping, page by page (mincore(2)): for tests and diagnostics, not the data path.
     *
     * @param memory memory from {@link #map} (page aligned).
     * @return resident bytes (whole pages).
     */
    public static long residentBytes(final MemorySegment memory) {
        final long pages = (memory.byteSize() + PAGE_BYTES - 1) / PAGE_BYTES;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment vector = arena.allocate(pages);
            final int result;
            try {
                result = (int) Mincore.HANDLE.invokeExact(memory, memory.byteSize(), vector);
            } catch (final Throwable t) {
                throw new IllegalStateException("mincore failed", t);
            }
            if (result != 0) {
                throw new IllegalStateException("mincore failed on " + memory);
            }
            long resident = 0;
            for (long i = 0; i < pages; i++) {
                resident += vector.get(JAVA_BYTE, i) & 1;
            }
            return resident * PAGE_BYTES;
        }
    }

    private static void unmap(final MemorySegment mapped, final long bytes) {
        try {
            final int unused = (int) MUNMAP.invokeExact(mapped, bytes);
        } catch (final Throwable t) {
            throw new IllegalStateException("munmap failed", t);
        }
    }
}
