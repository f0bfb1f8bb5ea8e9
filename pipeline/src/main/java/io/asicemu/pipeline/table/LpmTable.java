package io.asicemu.pipeline.table;

import java.util.Arrays;

/**
 * Longest-prefix match over IPv4 or IPv6 addresses as a multibit trie in primitive arrays (DIR-16-8-8 for IPv4, a
 * 16-bit root then 8-bit strides for IPv6), in the manner of DPDK's rte_lpm: every slot holds either a leaf (the
 * value and the depth of the prefix that wrote it) or a pointer to a 256-slot child chunk. A lookup is at most 3
 * array reads for IPv4 (17 for IPv6), without branches on prefix length.
 * <p>
 * Memory: the root is 64 Ki ints (256 KiB); each child chunk is 1 KiB and is created only where a prefix longer than
 * its parent level exists. A full Internet table (about 1M IPv4 prefixes, mostly /24 in at most 64 Ki distinct /16s)
 * therefore needs at most 64 Ki first-level chunks (64 MiB) plus a chunk per prefix longer than /24.
 * <p>
 * Updates follow the rte_lpm rules, so the table needs no list of prefixes: {@link #add} overwrites only slots whose
 * depth is not greater than the new prefix's; {@link #delete} rewrites the slots written by the deleted prefix with the
 * covering prefix's value and depth, which the caller (the control model, which knows every prefix) computes.
 * <p>
 * Values are 1..{@link #MAX_VALUE}; 0 means "no route". Addresses are given as two longs, high and low 64 bits; an IPv4
 * address is the low 32 bits of {@code low} with {@code high} 0 (the parser's convention).
 * <p>
 * Not thread safe: written and read by the data-plane thread (updates arrive as commands between batches).
 */
public final class LpmTable {
    /** The largest value a route can carry. */
    public static final int MAX_VALUE = (1 << 23) - 1;

    private static final int CHILD = 0x8000_0000;
    private static final int DEPTH_SHIFT = 23;
    private static final int ROOT_BITS = 16;
    private static final int STRIDE_BITS = 8;
    private static final int CHUNK = 1 << STRIDE_BITS;

    private final int addressBits;
    private final int[] root = new int[1 << ROOT_BITS];
    private int[] chunks;
    private int chunkCount;

    /**
     * @param addressBits 32 for IPv4, 128 for IPv6.
     */
    public LpmTable(final int addressBits) {
        if (addressBits != 32 && addressBits != 128) {
            throw new IllegalArgumentException("address bits must be 32 or 128: " + addressBits);
        }
        this.addressBits = addressBits;
        this.chunks = new int[CHUNK * 64];
    }

    /** @return 32 or 128. */
    public int addressBits() {
        return addressBits;
    }

    /** @return bytes of the root and the child chunk array (which grows by doubling as prefixes need chunks). */
    public long reservedBytes() {
        return 4L * (root.length + chunks.length);
    }

    /** @return child chunks in use (memory is about 1 KiB each plus 256 KiB root). */
    public int chunkCount() {
        return chunkCount;
    }

    /**
     * Looks up an address.
     *
     * @param high the high 64 bits (0 for IPv4).
     * @param low the low 64 bits (an IPv4 address in its low 32 bits).
     * @return the value of the longest matching prefix, or 0 if none matches.
     */
    public int lookup(final long high, final long low) {
        int entry = root[(int) bits(high, low, 0, ROOT_BITS)];
        int bit = ROOT_BITS;
        while (entry < 0) {
            entry = chunks[((entry & ~CHILD) << STRIDE_BITS) | (int) bits(high, low, bit, STRIDE_BITS)];
            bit += STRIDE_BITS;
        }
        return entry & MAX_VALUE;
    }

    /**
     * Looks up an IPv4 address.
     *
     * @param address the address.
     * @return the value of the longest matching prefix, or 0.
     */
    public int lookupV4(final int address) {
        int entry = root[address >>> 16];
        if (entry < 0) {
            entry = chunks[((entry & ~CHILD) << STRIDE_BITS) | ((address >>> 8) & 0xff)];
            if (entry < 0) {
                entry = chunks[((entry & ~CHILD) << STRIDE_BITS) | (address & 0xff)];
            }
        }
        return entry & MAX_VALUE;
    }

    /**
     * Adds or replaces a prefix.
     *
     * @param high the prefix's high 64 bits.
     * @param low the prefix's low 64 bits (bits beyond {@code length} are ignored).
     * @param length the prefix length, 0..addressBits.
     * @param value 1..{@link #MAX_VALUE}.
     */
    public void add(final long high, final long low, final int length, final int value) {
        checkLength(length);
        if (value < 1 || value > MAX_VALUE) {
            throw new IllegalArgumentException("value out of range: " + value);
        }
        write(high, low, length, leaf(length, value), length, false);
    }

    /**
     * Deletes a prefix, restoring what the covering prefix says in its range.
     *
     * @param high the prefix's high 64 bits.
     * @param low the prefix's low 64 bits.
     * @param length the prefix length.
     * @param coverLength the length of the longest present prefix shorter than {@code length} covering it, or -1.
     * @param coverValue that prefix's value (ignored when {@code coverLength} is -1).
     */
    public void delete(final long high, final long low, final int length, final int coverLength, final int coverValue) {
        checkLength(length);
        final int replacement = coverLength < 0 ? 0 : leaf(coverLength, coverValue);
        write(high, low, length, replacement, length, true);
    }

    private void checkLength(final int length) {
        if (length < 0 || length > addressBits) {
            throw new IllegalArgumentException("prefix length out of range: " + length);
        }
    }

    private static int leaf(final int depth, final int value) {
        return (depth << DEPTH_SHIFT) | value;
    }

    private static int depthOf(final int leaf) {
        return leaf >>> DEPTH_SHIFT;
    }

    /** Writes {@code leaf} into every slot the prefix covers, at the right level, descending into children. */
    private void write(
            final long high,
            final long low,
            final int length,
            final int leaf,
            final int depth,
            final boolean deleting) {
        // Find the level where the prefix ends: root covers bits [0,16), then 8-bit levels.
        int levelStart = 0;
        int levelBits = ROOT_BITS;
        boolean atRoot = true;
        int base = 0;
        while (length > levelStart + levelBits) {
            final int index = base + (int) bits(high, low, levelStart, levelBits);
            int entry = atRoot ? root[index] : chunks[index];
            if (entry >= 0) {
                if (deleting) {
                    return; // nothing more specific was ever written below here
                }
                entry = CHILD | newChunk(entry); // may grow (replace) the chunks array: index it afresh below
                if (atRoot) {
                    root[index] = entry;
                } else {
                    chunks[index] = entry;
                }
            }
            atRoot = false;
            base = (entry & ~CHILD) << STRIDE_BITS;
            levelStart += levelBits;
            levelBits = STRIDE_BITS;
        }
        final int[] table = atRoot ? root : chunks;
        final int freeBits = levelStart + levelBits - length;
        final int first = base + (int) (bits(high, low, levelStart, levelBits) & ~((1L << freeBits) - 1));
        final int count = 1 << freeBits;
        for (int i = first; i < first + count; i++) {
            fill(table, i, leaf, depth, deleting);
        }
    }

    private void fill(final int[] table, final int index, final int leaf, final int depth, final boolean deleting) {
        final int entry = table[index];
        if (entry < 0) {
            final int childBase = (entry & ~CHILD) << STRIDE_BITS;
            for (int j = childBase; j < childBase + CHUNK; j++) {
                fill(chunks, j, leaf, depth, deleting);
            }
        } else if (deleting ? (entry != 0 && depthOf(entry) == depth) : (entry == 0 || depthOf(entry) <= depth)) {
            table[index] = leaf;
        }
    }

    private int newChunk(final int inherited) {
        if ((chunkCount + 1) * CHUNK > chunks.length) {
            chunks = Arrays.copyOf(chunks, chunks.length * 2);
        }
        final int chunk = chunkCount++;
        Arrays.fill(chunks, chunk * CHUNK, (chunk + 1) * CHUNK, inherited);
        return chunk;
    }

    /** Bits [start, start+count) of the address, as an unsigned value; IPv4 addresses occupy bits of {@code low}. */
    private long bits(final long high, final long low, final int start, final int count) {
        if (addressBits == 32) {
            return (low >>> (32 - start - count)) & ((1L << count) - 1);
        }
        final int end = start + count;
        if (end <= 64) {
            return (high >>> (64 - end)) & ((1L << count) - 1);
        }
        if (start >= 64) {
            return (low >>> (128 - end)) & ((1L << count) - 1);
        }
        // A stride never straddles bit 64 with 16+8k strides, but keep the general form for safety.
        final int lowCount = end - 64;
        final long hiPart = high & ((1L << (count - lowCount)) - 1);
        return (hiPart << lowCount) | (low >>> (64 - lowCount));
    }
}
