package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** View of the 16-byte RDMA extended transport header (virtual address, R_Key, DMA length). Not thread safe. */
final class RethFlyweight extends HeaderFlyweight {
    /** Offset of the virtual address. */
    public static final int VIRTUAL_ADDRESS_OFFSET = 0;
    /** Offset of the remote key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the DMA length. */
    public static final int DMA_LENGTH_OFFSET = 12;
    /** Length of the RETH. */
    public static final int HEADER_LENGTH = 16;

    /** Points this view at a RETH. */
    public RethFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Virtual address. */
    public long virtualAddress() {
        return u64(VIRTUAL_ADDRESS_OFFSET);
    }

    /** Sets the virtual address. */
    public RethFlyweight virtualAddress(final long address) {
        u64(VIRTUAL_ADDRESS_OFFSET, address);
        return this;
    }

    /** Remote key. */
    public int rkey() {
        return u32(RKEY_OFFSET);
    }

    /** Sets the remote key. */
    public RethFlyweight rkey(final int rkey) {
        u32(RKEY_OFFSET, rkey);
        return this;
    }

    /** DMA length in bytes. */
    public int dmaLength() {
        return u32(DMA_LENGTH_OFFSET);
    }

    /** Sets the DMA length. */
    public RethFlyweight dmaLength(final int dmaLength) {
        u32(DMA_LENGTH_OFFSET, dmaLength);
        return this;
    }
}
