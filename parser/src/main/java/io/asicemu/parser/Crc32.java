package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * Table-driven CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) over segment bytes, with helpers to feed constant
 * (masked) bytes so the ICRC needs no copy of the packet. Running values are the raw register: start with
 * {@link #INITIAL}, finish with {@link #finish(int)}. Stateless; safe from any thread.
 */
public final class Crc32 {
    /** Initial register value. */
    public static final int INITIAL = 0xFFFF_FFFF;

    private static final int[] TABLE = new int[256];
    /** Slicing-by-8 tables: {@code SLICE[k][b]} is byte b's CRC advanced by k more zero bytes. */
    private static final int[][] SLICE = new int[8][256];

    private static final java.lang.foreign.ValueLayout.OfLong U64_LE =
            java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    static {
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
            }
            TABLE[n] = c;
        }
        SLICE[0] = TABLE;
        for (int k = 1; k < 8; k++) {
            for (int n = 0; n < 256; n++) {
                final int prev = SLICE[k - 1][n];
                SLICE[k][n] = TABLE[prev & 0xFF] ^ (prev >>> 8);
            }
        }
    }

    private Crc32() {}

    /** Feeds one byte. */
    public static int update(final int crc, final int b) {
        return TABLE[(crc ^ b) & 0xFF] ^ (crc >>> 8);
    }

    /** Feeds {@code count} copies of byte {@code b}. */
    public static int updateRepeated(final int crc, final int b, final int count) {
        int c = crc;
        for (int i = 0; i < count; i++) {
            c = TABLE[(c ^ b) & 0xFF] ^ (c >>> 8);
        }
        return c;
    }

    /** Feeds {@code length} bytes of {@code segment} from {@code offset}. */
    public static int update(final int crc, final MemorySegment segment, final long offset, final int length) {
        int c = crc;
        int i = 0;
        // Eight bytes per step (slicing-by-8): ICRCs of jumbo RoCE frames cost a few ns per byte less.
        final int[] t0 = SLICE[0], t1 = SLICE[1], t2 = SLICE[2], t3 = SLICE[3];
        final int[] t4 = SLICE[4], t5 = SLICE[5], t6 = SLICE[6], t7 = SLICE[7];
        for (; i + 8 <= length; i += 8) {
            final long v = segment.get(U64_LE, offset + i);
            final int lo = (int) v ^ c;
            final int hi = (int) (v >>> 32);
            c = t7[lo & 0xFF]
                    ^ t6[(lo >>> 8) & 0xFF]
                    ^ t5[(lo >>> 16) & 0xFF]
                    ^ t4[lo >>> 24]
                    ^ t3[hi & 0xFF]
                    ^ t2[(hi >>> 8) & 0xFF]
                    ^ t1[(hi >>> 16) & 0xFF]
                    ^ t0[hi >>> 24];
        }
        for (; i < length; i++) {
            c = TABLE[(c ^ NetworkOrder.u8(segment, offset + i)) & 0xFF] ^ (c >>> 8);
        }
        return c;
    }

    /** The CRC value of a finished register. */
    public static int finish(final int crc) {
        return ~crc;
    }

    /** CRC-32 of {@code length} bytes (same value as java.util.zip.CRC32 and zlib's crc32). */
    public static int compute(final MemorySegment segment, final long offset, final int length) {
        return finish(update(INITIAL, segment, offset, length));
    }

    /** Appends the Ethernet FCS (CRC-32 stored little-endian) after {@code length} bytes; returns length + 4. */
    public static int appendFcs(final MemorySegment segment, final long offset, final int length) {
        segment.set(NetworkOrder.U32_LE, offset + length, compute(segment, offset, length));
        return length + 4;
    }
}
