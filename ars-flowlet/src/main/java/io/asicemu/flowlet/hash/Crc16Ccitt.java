package io.asicemu.flowlet.hash;

/**
 * Table-driven CRC-16/CCITT-FALSE (polynomial 0x1021, MSB first, init 0xFFFF, no final XOR); check value over ASCII
 * "123456789" is 0x29B1. Stateless; safe on any thread.
 */
public final class Crc16Ccitt {
    private static final int POLY = 0x1021;
    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int c = i << 8;
            for (int k = 0; k < 8; k++) {
                c = (c & 0x8000) != 0 ? (c << 1) ^ POLY : c << 1;
            }
            TABLE[i] = c & 0xFFFF;
        }
    }

    private Crc16Ccitt() {}

    /**
     * CRC-16/CCITT of bytes with the register preset to {@code 0xFFFF ^ (seed & 0xFFFF)}.
     *
     * @param bytes  input.
     * @param offset first byte.
     * @param length number of bytes.
     * @param seed   value XORed into the initial register (low 16 bits).
     * @return the 16-bit CRC in the low bits.
     */
    public static int compute(final byte[] bytes, final int offset, final int length, final int seed) {
        int crc = 0xFFFF ^ (seed & 0xFFFF);
        final int end = offset + length;
        for (int i = offset; i < end; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }
}
