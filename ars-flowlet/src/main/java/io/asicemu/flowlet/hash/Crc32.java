package io.asicemu.flowlet.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Table-driven CRC-32 (IEEE 802.3: reflected polynomial 0xEDB88320, init 0xFFFFFFFF, final XOR 0xFFFFFFFF), the same
 * function as {@code java.util.zip.CRC32}, written out so the hash engine owns its arithmetic and can start from a
 * seeded register. Slicing-by-8: eight 256-entry tables consume 8 bytes per step (independent lookups instead of
 * a chain of eight), then single bytes. Stateless; safe on any thread.
 */
public final class Crc32 {
    private static final int POLY_REFLECTED = 0xEDB88320;
    private static final int[] TABLE = new int[8 * 256];
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    static {
        for (int i = 0; i < 256; i++) {
            int c = i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
            }
            TABLE[i] = c;
        }
        for (int t = 1; t < 8; t++) {
            for (int i = 0; i < 256; i++) {
                final int previous = TABLE[(t - 1) * 256 + i];
                TABLE[t * 256 + i] = (previous >>> 8) ^ TABLE[previous & 0xFF];
            }
        }
    }

    private Crc32() {}

    /**
     * The register's start for {@code seed}: feed it through the {@code update} methods, then {@link #finish}. The
     * same CRC as {@link #compute} over the bytes those calls stand for, without writing them out.
     *
     * @param seed value XORed into the initial register (0: the standard CRC-32).
     * @return the register.
     */
    public static int start(final int seed) {
        return ~seed;
    }

    /**
     * @param register the register after the last update.
     * @return the CRC (final XOR applied).
     */
    public static int finish(final int register) {
        return ~register;
    }

    /**
     * One byte.
     *
     * @param register the register.
     * @param value the byte (low 8 bits).
     * @return the register after it.
     */
    public static int update1(final int register, final int value) {
        return TABLE[(register ^ value) & 0xFF] ^ (register >>> 8);
    }

    /**
     * Two bytes in network order (slicing-by-2: two independent lookups).
     *
     * @param register the register.
     * @param value the bytes (low 16 bits, big-endian: bits 15..8 first).
     * @return the register after them.
     */
    public static int update2(final int register, final int value) {
        final int x = register ^ (((value >>> 8) & 0xFF) | ((value & 0xFF) << 8));
        return (register >>> 16) ^ TABLE[256 + (x & 0xFF)] ^ TABLE[(x >>> 8) & 0xFF];
    }

    /**
     * Three bytes in network order.
     *
     * @param register the register.
     * @param value the bytes (low 24 bits, big-endian).
     * @return the register after them.
     */
    public static int update3(final int register, final int value) {
        final int x = register ^ Integer.reverseBytes(value << 8);
        return (register >>> 24)
                ^ TABLE[2 * 256 + (x & 0xFF)]
                ^ TABLE[256 + ((x >>> 8) & 0xFF)]
                ^ TABLE[(x >>> 16) & 0xFF];
    }

    /**
     * Four bytes in network order (slicing-by-4).
     *
     * @param register the register.
     * @param value the bytes (big-endian).
     * @return the register after them.
     */
    public static int update4(final int register, final int value) {
        final int x = register ^ Integer.reverseBytes(value);
        return TABLE[3 * 256 + (x & 0xFF)]
                ^ TABLE[2 * 256 + ((x >>> 8) & 0xFF)]
                ^ TABLE[256 + ((x >>> 16) & 0xFF)]
                ^ TABLE[x >>> 24];
    }

    /**
     * Six bytes in network order (a MAC address).
     *
     * @param register the register.
     * @param value the bytes (low 48 bits, big-endian).
     * @return the register after them.
     */
    public static int update6(final int register, final long value) {
        return update4(update2(register, (int) (value >>> 32)), (int) value);
    }

    /**
     * Eight bytes in network order (slicing-by-8, as {@link #compute}'s main loop).
     *
     * @param register the register.
     * @param value the bytes (big-endian).
     * @return the register after them.
     */
    public static int update8(final int register, final long value) {
        final int one = Integer.reverseBytes((int) (value >>> 32)) ^ register;
        final int two = Integer.reverseBytes((int) value);
        return TABLE[7 * 256 + (one & 0xFF)]
                ^ TABLE[6 * 256 + ((one >>> 8) & 0xFF)]
                ^ TABLE[5 * 256 + ((one >>> 16) & 0xFF)]
                ^ TABLE[4 * 256 + (one >>> 24)]
                ^ TABLE[3 * 256 + (two & 0xFF)]
                ^ TABLE[2 * 256 + ((two >>> 8) & 0xFF)]
                ^ TABLE[256 + ((two >>> 16) & 0xFF)]
                ^ TABLE[two >>> 24];
    }

    /**
     * CRC-32 of bytes with the register preset to {@code 0xFFFFFFFF ^ seed}; seed 0 gives the standard CRC-32.
     *
     * @param bytes  input.
     * @param offset first byte.
     * @param length number of bytes.
     * @param seed   value XORed into the initial register.
     * @return the CRC (final XOR applied).
     */
    public static int compute(final byte[] bytes, final int offset, final int length, final int seed) {
        int crc = ~seed;
        int i = offset;
        final int end = offset + length;
        for (; i + 8 <= end; i += 8) {
            final int one = (int) INT_LE.get(bytes, i) ^ crc;
            final int two = (int) INT_LE.get(bytes, i + 4);
            crc = TABLE[7 * 256 + (one & 0xFF)]
                    ^ TABLE[6 * 256 + ((one >>> 8) & 0xFF)]
                    ^ TABLE[5 * 256 + ((one >>> 16) & 0xFF)]
                    ^ TABLE[4 * 256 + (one >>> 24)]
                    ^ TABLE[3 * 256 + (two & 0xFF)]
                    ^ TABLE[2 * 256 + ((two >>> 8) & 0xFF)]
                    ^ TABLE[256 + ((two >>> 16) & 0xFF)]
                    ^ TABLE[two >>> 24];
        }
        for (; i < end; i++) {
            crc = TABLE[(crc ^ bytes[i]) & 0xFF] ^ (crc >>> 8);
        }
        return ~crc;
    }
}
