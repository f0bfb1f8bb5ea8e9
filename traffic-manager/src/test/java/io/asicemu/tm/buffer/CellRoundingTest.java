package io.asicemu.tm.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.TmCounters;
import org.junit.jupiter.api.Test;

/**
 * Frames are charged in whole cells without a division on the packet path (a reciprocal for cells that are not a
 * power of two): for every cell size 64..1024 and every frame length up to 64 KiB the cell count equals
 * max(1, ceil(bytes / cell)) computed by plain division.
 */
class CellRoundingTest {
    @Test
    void shouldMatchCeilingDivisionWhenCellSizeAndFrameLengthVary() {
        for (int cell = 64; cell <= 1024; cell++) {
            final BufferAccounting b = new BufferAccounting(cell, 1, new long[0], new long[0], new TmCounters(1, 0));
            for (int bytes = 0; bytes <= 65_536; bytes++) {
                final int expected = Math.max(1, (bytes + cell - 1) / cell);
                if (b.cells(bytes) != expected) {
                    assertThat(b.cells(bytes))
                            .as("cells(%d) with %d B cells", bytes, cell)
                            .isEqualTo(expected);
                }
            }
            assertThat(b.chargedBytes(1)).isEqualTo(cell);
        }
    }
}
