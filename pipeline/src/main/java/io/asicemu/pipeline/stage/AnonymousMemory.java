package io.asicemu.pipeline.stage;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Native memory from an anonymous private mapping: the kernel supplies zero pages on first touch, so memory sized
 * for the worst case (the packet store covers the whole configured buffer pool) costs resident memory only as far
 * as it is used. {@link Arena#allocate} zeroes, and so touches, every page up front: a lab switch with a 20 MB pool
 * kept 20 MB resident that a few frames in flight never needed.
 */
final class AnonymousMemory {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("munmap").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));

    private AnonymousMemory() {}

    /**
     * Maps {@code bytes} of zeroed memory (page aligned), unmapped when {@code arena} closes.
     *
     * @param bytes the size.
     * @param arena the arena whose closing unmaps it.
     * @return the memory.
     * @throws OutOfMemoryError if the kernel refuses the mapping.
     */
    static MemorySegment map(final long bytes, final Arena arena) {
        final MemorySegment address;
        try {
            address = (MemorySegment) MMAP.invokeExact(
                    MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0L);
        } catch (final Throwable t) {
            throw new IllegalStateException("mmap failed", t);
        }
        if (address.address() == -1L) {
            throw new OutOfMemoryError("cannot map " + bytes + " B for the packet store");
        }
        return address.reinterpret(bytes, arena, mapped -> unmap(mapped, bytes));
    }

    private static void unmap(final MemorySegment mapped, final long bytes) {
        try {
            final int unused = (int) MUNMAP.invokeExact(mapped, bytes);
        } catch (final Throwable t) {
            throw new IllegalStateException("munmap failed", t);
        }
    }
}
