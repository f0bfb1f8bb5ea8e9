package io.asicemu.pipeline.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * The cell store keeps every frame's bytes whatever its cells: random interleavings of stores (written as the egress
 * stage writes them, a header then the body at an offset) and releases of frames of 60 B–9.5 KB fragment the free
 * cells; every frame read back (directly when its cells are consecutive, else gathered) equals what was written, a
 * frame takes exactly ceil(length / cell) cells, and releasing everything gives every cell back.
 */
class PacketBufferPropertyTest {
    private record Stored(int handle, int length, int seed) {}

    private static byte pattern(final int seed, final int i) {
        return (byte) (seed * 31 + i * 7 + (i >>> 8));
    }

    @Property(tries = 200)
    void shouldReadBackEveryFrameWhenCellsAreFragmented(
            @ForAll @Size(min = 1, max = 400) final List<@IntRange(min = 0, max = Integer.MAX_VALUE) Integer> ops,
            @ForAll @IntRange(min = 0, max = 3) final int cellChoice) {
        final int cell = new int[] {64, 144, 208, 256}[cellChoice];
        final int maxFrame = 9_728;
        try (Arena arena = Arena.ofConfined();
                PacketBuffer store = new PacketBuffer(600, cell, maxFrame)) {
            final MemorySegment source = arena.allocate(maxFrame);
            final MemorySegment out = arena.allocate(maxFrame);
            final List<Stored> held = new ArrayList<>();
            int heldCells = 0;
            for (final int op : ops) {
                if ((op & 3) != 0 || held.isEmpty()) {
                    final int length = 60 + (op >>> 2) % (maxFrame - 59);
                    final int seed = op >>> 5;
                    final int cells = (length + cell - 1) / cell;
                    final boolean fits = cells <= store.freeCells();
                    final int handle = store.allocate(length);
                    if (!fits) {
                        assertThat(handle).isEqualTo(PacketBuffer.NONE);
                        continue;
                    }
                    assertThat(handle).isNotEqualTo(PacketBuffer.NONE);
                    for (int i = 0; i < length; i++) {
                        source.set(ValueLayout.JAVA_BYTE, i, pattern(seed, i));
                    }
                    final int header = 12 + (op >>> 30) * 2; // header in cell 0, body at an offset, as EgressStage
                    MemorySegment.copy(source, 0, store.memory(), store.offset(handle), header);
                    store.write(handle, header, source, header, length - header);
                    held.add(new Stored(handle, length, seed));
                    heldCells += cells;
                } else {
                    final Stored s = held.remove((op >>> 2) % held.size());
                    store.release(s.handle());
                    heldCells -= (s.length() + cell - 1) / cell;
                }
                assertThat(store.capacity() - store.freeCells()).isEqualTo(heldCells);
            }
            boolean gathered = false;
            for (final Stored s : held) {
                gathered |= !store.isContiguous(s.handle());
                assertThat(store.length(s.handle())).isEqualTo(s.length());
                final MemorySegment from;
                final long at;
                if (store.isContiguous(s.handle())) {
                    from = store.memory();
                    at = store.offset(s.handle());
                } else {
                    store.gather(s.handle(), out, 0);
                    from = out;
                    at = 0;
                }
                for (int i = 0; i < s.length(); i++) {
                    if (from.get(ValueLayout.JAVA_BYTE, at + i) != pattern(s.seed(), i)) {
                        assertThat(from.get(ValueLayout.JAVA_BYTE, at + i))
                                .as("byte %d of a %d B frame", i, s.length())
                                .isEqualTo(pattern(s.seed(), i));
                    }
                }
                store.release(s.handle());
            }
            assertThat(store.freeCells()).isEqualTo(store.capacity());
            Statistics.label("a frame in scattered cells read back").collect(gathered);
            Statistics.label("a frame in scattered cells read back")
                    .coverage(c -> c.check(true).percentage(p -> p > 10));
        }
    }
}
