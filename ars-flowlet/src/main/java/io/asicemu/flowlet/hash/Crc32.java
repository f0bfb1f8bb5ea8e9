package io.asicemu.flowlet.hash;

/**
 * Table-driven CRC-32 (IEEE 802.3: reflected polynomial 0xEDB88320, init 0xFFFFFFFF, final XOR 0xFFFFFFFF), the same
 * function as {@code java.util.zip.CRC32}, written out so the hash engine owns its arithmetic and can start from a
 * seeded register. Stateless; safe on any thread.
 */
public final class Crc32
{
    private static final int POLY_REFLECTED = 0xEDB88320;
    private static final int[] TABLE = new int[256];

    static
    {
        for (int i = 0; i < 256; i++)
        {
            int c = i;
            for (int k = 0; k < 8; k++)
            {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
            }
            TABLE[i] = c;
        }
    }

    private Crc32()
    {
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
    public static int compute(final byte[] bytes, final int offset, final int length, final int seed)
    {
        int crc = ~seed;
        final int end = offset + length;
        for (int i = offset; i < end; i++)
        {
            crc = TABLE[(crc ^ bytes[i]) & 0xFF] ^ (crc >>> 8);
        }
        return ~crc;
    }
}
