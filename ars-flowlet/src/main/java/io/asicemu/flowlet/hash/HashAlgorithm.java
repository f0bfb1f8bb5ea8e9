package io.asicemu.flowlet.hash;

/**
 * The hash algorithms of SONiC's {@code hash-algorithm} type, with SAI's {@code sai_hash_algorithm_t} values.
 * <ul>
 *   <li>CRC: CRC-32 (IEEE 802.3, reflected, as java.util.zip.CRC32) over the selected fields; 32-bit output.</li>
 *   <li>CRC_32LO / CRC_32HI: the low / high 16 bits of that CRC-32 (Broadcom's CRC32LO/HI); 16-bit output.</li>
 *   <li>CRC_CCITT: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); 16-bit output.</li>
 *   <li>XOR: the XOR of the field bytes folded into 32-bit big-endian words; 32-bit output.</li>
 *   <li>CRC_XOR: CRC-32 XOR the 32-bit XOR fold (SAI names it but does not define it; this definition is ours).</li>
 *   <li>RANDOM: per-packet random spraying from the engine's seeded PRNG; the fields are not read.</li>
 * </ul>
 * Immutable.
 */
public enum HashAlgorithm {
    CRC(0, 32),
    XOR(1, 32),
    RANDOM(2, 32),
    CRC_32LO(3, 16),
    CRC_32HI(4, 16),
    CRC_CCITT(5, 16),
    CRC_XOR(6, 32);

    private static final HashAlgorithm[] VALUES = values();

    private final int saiValue;
    private final int outputBits;

    HashAlgorithm(final int saiValue, final int outputBits) {
        this.saiValue = saiValue;
        this.outputBits = outputBits;
    }

    /**
     * @return the {@code SAI_HASH_ALGORITHM_*} value.
     */
    public int saiValue() {
        return saiValue;
    }

    /**
     * @return width of the hash output in bits (the offset rotates within this width).
     */
    public int outputBits() {
        return outputBits;
    }

    /**
     * @param name the SONiC name, such as {@code "CRC_CCITT"}.
     * @return the algorithm, or null if unknown.
     */
    public static HashAlgorithm fromName(final String name) {
        for (final HashAlgorithm algorithm : VALUES) {
            if (algorithm.name().equals(name)) {
                return algorithm;
            }
        }
        return null;
    }
}
