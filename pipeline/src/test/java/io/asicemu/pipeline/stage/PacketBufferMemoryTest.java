package io.asicemu.pipeline.stage;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The packet store is sized for the whole buffer pool but costs resident memory only for the cells in use (an
 * anonymous mapping, lowest cells first), so a lab switch with a 20 MB pool and a few frames in flight stays small.
 */
@EnabledOnOs(OS.LINUX)
class PacketBufferMemoryTest {
    private static final MethodHandle MINCORE = Linker.nativeLinker()
            .downcallHandle(
                    Linker.nativeLinker().defaultLookup().find("mincore").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    /** @return the resident kB of {@code memory}, page by page (mincore(2): only these pages, whatever the VMAs). */
    private static long residentKb(final MemorySegment memory) throws Throwable {
        final long pages = (memory.byteSize() + 4095) / 4096;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment vector = arena.allocate(pages);
            assertThat((int) MINCORE.invokeExact(memory, memory.byteSize(), vector))
                    .isZero();
            long resident = 0;
            for (long i = 0; i < pages; i++) {
                resident += vector.get(JAVA_BYTE, i) & 1;
            }
            return resident * 4;
        }
    }

    @Test
    void shouldBecomeResidentOnlyAsFarAsItsCellsAreUsed() throws Throwable {
        final int cellBytes = 256;
        final int cells = 256 * 1024; // 64 MiB of cells
        try (PacketBuffer store = new PacketBuffer(cells, cellBytes, 9216)) {
            final MemorySegment memory = store.memory();
            assertThat(residentKb(memory))
                    .as("resident kB of a 64 MiB store just made")
                    .isZero();
            for (int i = 0; i < 1000; i++) {
                final int handle = store.allocate(1500);
                memory.set(JAVA_BYTE, (long) handle * cellBytes, (byte) 1);
                store.release(handle);
            }
            assertThat(residentKb(memory))
                    .as("resident kB after 1,000 frames of 1,500 B stored and released one at a time: the same lowest"
                            + " cells (a page or two), not 1.5 MB")
                    .isLessThanOrEqualTo(8);
            final int handle = store.allocate(100);
            assertThat(memory.get(JAVA_BYTE, (long) handle * cellBytes + 200))
                    .as("fresh cells read as zero")
                    .isZero();
        }
    }
}
