package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** RFC 1071 one's-complement checksum and its RFC 1624 incremental update. Stateless; safe from any thread. */
public final class InternetChecksum {
    private InternetChecksum() {}

    /** One's-complement sum of {@code length} bytes folded to 16 bits (not inverted). */
    public static int sum(final MemorySegment segment, final long offset, final int length) {
        long sum = 0;
        int i = 0;
        // Whole 32-bit words first (an IPv4 header is one: half the loads). Each word adds hi·2^16 + lo, and
        // 2^16 ≡ 1 modulo 0xFFFF, so the folded sum is the same as adding the two 16-bit words.
        for (; i + 3 < length; i += 4) {
            sum += NetworkOrder.u32(segment, offset + i) & 0xFFFF_FFFFL;
        }
        for (; i + 1 < length; i += 2) {
            sum += NetworkOrder.u16(segment, offset + i);
        }
        if (i < length) {
            sum += NetworkOrder.u8(segment, offset + i) << 8;
        }
        return fold(sum);
    }

    /** The checksum of {@code length} bytes, i.e. the inverted one's-complement sum, as stored in a header. */
    public static int checksum(final MemorySegment segment, final long offset, final int length) {
        return ~sum(segment, offset, length) & 0xFFFF;
    }

    /** Folds carries of a wide sum into 16 bits. */
    public static int fold(final long wideSum) {
        long sum = wideSum;
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    /**
     * RFC 1624 eqn. 3: the new header checksum after one 16-bit word of the covered data changes from {@code oldWord}
     * to {@code newWord}: HC' = ~(~HC + ~m + m').
     */
    public static int update(final int oldChecksum, final int oldWord, final int newWord) {
        final long sum = (~oldChecksum & 0xFFFF) + (~oldWord & 0xFFFF) + (newWord & 0xFFFF);
        return ~fold(sum) & 0xFFFF;
    }
}
