package io.asicemu.pipeline.stage;

import io.asicemu.pipeline.port.AnonymousMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The switch's packet memory, held in cells as the chip holds it: native memory cut into cells of the traffic
 * manager's cell size; a frame takes ceil(length / cell) cells linked in a chain, so a 64 B frame takes one cell and a
 * 9 KB frame 45 (208 B cells), and the store's size follows the configured buffer instead of a count of largest-frame
 * slots. A frame's handle (given to the traffic manager) is its first cell; per-frame metadata sits in parallel
 * primitive arrays indexed by that cell. Free cells sit on a stack: allocate and release are O(cells) and
 * allocation-free, and a frame released whole returns its cells so that the next frame gets them in ascending order,
 * which keeps most frames in consecutive cells (one copy in, one copy out; {@link #isContiguous}).
 * <p>
 * Sized by the caller to the traffic manager's device buffer plus one largest frame (the frame being admitted), so it
 * never runs out before the buffer rules refuse a frame; if it ever does, that is a bug the caller counts under its
 * own reason. The first cell always holds the L2 header, the IP header's ECN bits and the 60 B minimum frame
 * (cells are ≥ 64 B).
 * <p>
 * Not thread safe: owned by the data-plane thread. Its memory is an anonymous mapping (resident only as far as cells
 * are used: the free stack hands out the lowest cells first) unmapped by {@link #close()}.
 */
public final class PacketBuffer implements AutoCloseable {
    /** No free cell. */
    public static final int NONE = -1;
    /** Smallest cell: the whole 60 B minimum frame and the L2/L3 header fields rewritten in place fit one cell. */
    public static final int MIN_CELL_BYTES = 64;

    private static final long METADATA_BYTES_PER_CELL = Integer.BYTES * 2 + Short.BYTES + 2;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final int cellBytes;
    /** ceil(2^32 / cellBytes): n / cellBytes == (n * cellReciprocal) >>> 32 for n &lt; 2^16 (no division per frame). */
    private final long cellReciprocal;

    private final int maxFrameBytes;
    private final int cellCount;
    private final int[] free;
    private final int[] next;
    private final int[] chain;
    private int freeCount;
    final int[] length;
    final short[] l3Offset;
    final byte[] ipVersion;
    private final boolean[] contiguous;

    /**
     * @param cells how many cells.
     * @param cellBytes bytes per cell, ≥ {@link #MIN_CELL_BYTES}.
     * @param maxFrameBytes the largest frame stored (longer ones are refused by the caller).
     */
    public PacketBuffer(final int cells, final int cellBytes, final int maxFrameBytes) {
        if (cells < 1
                || cellBytes < MIN_CELL_BYTES
                || maxFrameBytes < MIN_CELL_BYTES
                || maxFrameBytes + cellBytes >= 1 << 16) {
            throw new IllegalArgumentException("invalid packet buffer: " + cells + " cells of " + cellBytes
                    + " B, largest frame " + maxFrameBytes + " B");
        }
        this.cellBytes = cellBytes;
        this.cellReciprocal = ((1L << 32) + cellBytes - 1) / cellBytes;
        this.maxFrameBytes = maxFrameBytes;
        this.cellCount = cells;
        memory = AnonymousMemory.map((long) cells * cellBytes, arena, "the packet store");
        free = new int[cells];
        for (int i = 0; i < cells; i++) {
            free[i] = cells - 1 - i;
        }
        freeCount = cells;
        next = new int[cells];
        chain = new int[cellsFor(maxFrameBytes)];
        length = new int[cells];
        l3Offset = new short[cells];
        ipVersion = new byte[cells];
        contiguous = new boolean[cells];
    }

    /**
     * @param bufferBytes the traffic manager's device buffer (whole cells).
     * @param cellBytes its cell size.
     * @param maxFrameBytes the largest frame.
     * @return cells for a store that never runs out before the buffer rules refuse: the buffer plus one frame.
     */
    public static int cellsFor(final long bufferBytes, final int cellBytes, final int maxFrameBytes) {
        final long cells = bufferBytes / cellBytes + (maxFrameBytes + cellBytes - 1) / cellBytes;
        if (cells > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(
                    "buffer of " + bufferBytes + " B is too large for " + cellBytes + " B cells");
        }
        return (int) cells;
    }

    private int cellsFor(final int bytes) {
        return Math.max(1, (int) (((bytes + cellBytes - 1) * cellReciprocal) >>> 32));
    }

    /**
     * Takes the cells for one frame.
     *
     * @param frameLength the frame's length (≤ {@link #maxFrameBytes()}).
     * @return the frame's handle (its first cell), or {@link #NONE} when too few cells are free.
     */
    public int allocate(final int frameLength) {
        final int n = cellsFor(frameLength);
        if (n > freeCount) {
            return NONE;
        }
        final int first = free[--freeCount];
        length[first] = frameLength;
        if (n == 1) { // most frames of a 208 B-cell store are small: one cell, no chain
            next[first] = NONE;
            contiguous[first] = true;
            return first;
        }
        int previous = first;
        boolean consecutive = true;
        for (int i = 1; i < n; i++) {
            final int cell = free[--freeCount];
            next[previous] = cell;
            consecutive &= cell == previous + 1;
            previous = cell;
        }
        next[previous] = NONE;
        contiguous[first] = consecutive;
        return first;
    }

    /**
     * Gives a frame's cells back, in an order that hands them out ascending again.
     *
     * @param handle a handle from {@link #allocate}.
     */
    public void release(final int handle) {
        if (next[handle] == NONE) {
            free[freeCount++] = handle;
            return;
        }
        int n = 0;
        for (int cell = handle; cell != NONE; cell = next[cell]) {
            chain[n++] = cell;
        }
        while (n > 0) {
            free[freeCount++] = chain[--n];
        }
    }

    /**
     * Copies bytes into a frame at a frame offset, across its cells.
     *
     * @param handle the frame.
     * @param frameOffset where in the frame.
     * @param source the bytes.
     * @param sourceOffset their offset.
     * @param count how many.
     */
    public void write(
            final int handle,
            final int frameOffset,
            final MemorySegment source,
            final long sourceOffset,
            final int count) {
        if (contiguous[handle]) {
            MemorySegment.copy(source, sourceOffset, memory, (long) handle * cellBytes + frameOffset, count);
            return;
        }
        int cell = handle;
        int cellStart = 0;
        while (cellStart + cellBytes <= frameOffset) {
            cell = next[cell];
            cellStart += cellBytes;
        }
        int done = 0;
        int at = frameOffset - cellStart;
        while (done < count) {
            final int chunk = Math.min(count - done, cellBytes - at);
            MemorySegment.copy(source, sourceOffset + done, memory, (long) cell * cellBytes + at, chunk);
            done += chunk;
            at = 0;
            cell = next[cell];
        }
    }

    /**
     * Copies a whole frame out of its cells into contiguous memory (for a frame that is not {@link #isContiguous}).
     *
     * @param handle the frame.
     * @param target where to.
     * @param targetOffset at which offset.
     */
    public void gather(final int handle, final MemorySegment target, final long targetOffset) {
        final int total = length[handle];
        int done = 0;
        for (int cell = handle; done < total; cell = next[cell]) {
            final int chunk = Math.min(total - done, cellBytes);
            MemorySegment.copy(memory, (long) cell * cellBytes, target, targetOffset + done, chunk);
            done += chunk;
        }
    }

    /**
     * @param handle a frame.
     * @return true when its cells are consecutive, so {@link #offset} addresses the whole frame.
     */
    public boolean isContiguous(final int handle) {
        return contiguous[handle];
    }

    /** @return the memory all cells live in. */
    public MemorySegment memory() {
        return memory;
    }

    /**
     * @param handle a frame.
     * @return the offset of its first cell in {@link #memory()} (the whole frame when {@link #isContiguous}).
     */
    public long offset(final int handle) {
        return (long) handle * cellBytes;
    }

    /** @return bytes per cell. */
    public int cellBytes() {
        return cellBytes;
    }

    /** @return the largest frame the store takes. */
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** @return free cells. */
    public int freeCells() {
        return freeCount;
    }

    /** @return all cells. */
    public int capacity() {
        return cellCount;
    }

    /**
     * @return bytes the store reserves: its cells (native) plus its per-cell bookkeeping (heap: free stack, chain
     *     links, length, L3 offset, IP version, contiguity), i.e. cells × (cell + 16 B).
     */
    public long reservedBytes() {
        return memory.byteSize() + (long) cellCount * (METADATA_BYTES_PER_CELL + Integer.BYTES) + chain.length * 4L;
    }

    /**
     * @param handle a frame.
     * @return the frame length stored in it.
     */
    public int length(final int handle) {
        return length[handle];
    }

    /**
     * @param handle a frame.
     * @return the frame offset of the IP header in the buffered frame, or -1.
     */
    public int l3OffsetOf(final int handle) {
        return l3Offset[handle];
    }

    /**
     * @param handle a frame.
     * @return the IP version of the buffered packet (0 if not IP).
     */
    public int ipVersionOf(final int handle) {
        return ipVersion[handle];
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
