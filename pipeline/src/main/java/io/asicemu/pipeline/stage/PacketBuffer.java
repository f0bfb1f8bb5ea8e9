package io.asicemu.pipeline.stage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The switch's packet memory: fixed-size slots of native memory holding the frames the traffic manager has admitted,
 * with per-slot metadata in parallel primitive arrays. A slot's index is the packet handle given to the traffic
 * manager. Free slots sit on a stack, so allocate and free are O(1) and allocation-free.
 * <p>
 * Not thread safe: owned by the data-plane thread. Its memory lives in one arena closed with {@link #close()}.
 */
public final class PacketBuffer implements AutoCloseable {
    /** No free slot. */
    public static final int NONE = -1;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final int slotBytes;
    private final int[] free;
    private int freeCount;
    final int[] length;
    final int[] ingressPort;
    final int[] egressPort;
    final int[] ipVersion;
    final int[] l3Offset;
    final boolean[] nonUnicast;

    /**
     * @param slots how many packets.
     * @param slotBytes the largest frame a slot holds.
     */
    public PacketBuffer(final int slots, final int slotBytes) {
        this.slotBytes = slotBytes;
        memory = arena.allocate((long) slots * slotBytes, 64);
        free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        freeCount = slots;
        length = new int[slots];
        ingressPort = new int[slots];
        egressPort = new int[slots];
        ipVersion = new int[slots];
        l3Offset = new int[slots];
        nonUnicast = new boolean[slots];
    }

    /** @return a free slot, or {@link #NONE}. */
    public int allocate() {
        return freeCount == 0 ? NONE : free[--freeCount];
    }

    /**
     * @param handle a slot from {@link #allocate()}.
     */
    public void release(final int handle) {
        free[freeCount++] = handle;
    }

    /** @return the memory all slots live in. */
    public MemorySegment memory() {
        return memory;
    }

    /**
     * @param handle a slot.
     * @return its offset in {@link #memory()}.
     */
    public long offset(final int handle) {
        return (long) handle * slotBytes;
    }

    /** @return bytes per slot. */
    public int slotBytes() {
        return slotBytes;
    }

    /** @return free slots. */
    public int freeSlots() {
        return freeCount;
    }

    /** @return all slots. */
    public int capacity() {
        return free.length;
    }

    /**
     * @param handle a slot.
     * @return the frame length stored in it.
     */
    public int length(final int handle) {
        return length[handle];
    }

    /**
     * @param handle a slot.
     * @return the frame offset of the IP header in the buffered frame, or -1.
     */
    public int l3OffsetOf(final int handle) {
        return l3Offset[handle];
    }

    /**
     * @param handle a slot.
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
