package io.asicemu.flowlet.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One switch's hash function for ECMP (or LAG): an algorithm, a seed, an offset and two hash objects, as SAI models
 * them: the default object (SONiC's {@code ecmp_hash} field list) and an RDMA object
 * ({@code SAI_SWITCH_ATTR_ECMP_HASH_IPV4_RDMA}/{@code _IPV6_RDMA}) used for RoCEv2 packets ({@link HashKey#roce()}).
 * <p>
 * The hash is computed over the selected fields in network byte order, in {@link HashField} order ({@link #keyBytes}
 * writes those bytes out). CRC, CRC_32LO and CRC_32HI feed the fields to the table-driven CRC register directly
 * ({@link #crcOverFields}, the same value); the other algorithms run over the bytes in a preallocated scratch array. The seed presets the CRC
 * register (or is XORed into the XOR fold), and the offset rotates the output right within the algorithm's output
 * width ({@code SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_OFFSET}). RANDOM draws from a seeded {@link SplitMix64}.
 * <p>
 * No allocation per call. Not thread safe: owned by the data-plane thread (the scratch array and PRNG are state).
 */
public final class HashEngine {
    /** Upper bound of {@link #keyBytes} output for any mask. */
    public static final int MAX_KEY_BYTES = 192;

    // Field bits as static finals, which the JIT folds into the mask tests.
    private static final long M_IN_PORT = HashField.IN_PORT.mask();
    private static final long M_DST_MAC = HashField.DST_MAC.mask();
    private static final long M_SRC_MAC = HashField.SRC_MAC.mask();
    private static final long M_ETHERTYPE = HashField.ETHERTYPE.mask();
    private static final long M_VLAN_ID = HashField.VLAN_ID.mask();
    private static final long M_IP_PROTOCOL = HashField.IP_PROTOCOL.mask();
    private static final long M_DST_IP = HashField.DST_IP.mask();
    private static final long M_SRC_IP = HashField.SRC_IP.mask();
    private static final long M_L4_DST_PORT = HashField.L4_DST_PORT.mask();
    private static final long M_L4_SRC_PORT = HashField.L4_SRC_PORT.mask();
    private static final long M_INNER_DST_MAC = HashField.INNER_DST_MAC.mask();
    private static final long M_INNER_SRC_MAC = HashField.INNER_SRC_MAC.mask();
    private static final long M_INNER_ETHERTYPE = HashField.INNER_ETHERTYPE.mask();
    private static final long M_INNER_IP_PROTOCOL = HashField.INNER_IP_PROTOCOL.mask();
    private static final long M_INNER_DST_IP = HashField.INNER_DST_IP.mask();
    private static final long M_INNER_DST_IPV4 = HashField.INNER_DST_IPV4.mask();
    private static final long M_INNER_DST_IPV6 = HashField.INNER_DST_IPV6.mask();
    private static final long M_INNER_SRC_IP = HashField.INNER_SRC_IP.mask();
    private static final long M_INNER_SRC_IPV4 = HashField.INNER_SRC_IPV4.mask();
    private static final long M_INNER_SRC_IPV6 = HashField.INNER_SRC_IPV6.mask();
    private static final long M_INNER_L4_DST_PORT = HashField.INNER_L4_DST_PORT.mask();
    private static final long M_INNER_L4_SRC_PORT = HashField.INNER_L4_SRC_PORT.mask();
    private static final long M_IPV6_FLOW_LABEL = HashField.IPV6_FLOW_LABEL.mask();
    private static final long M_RDMA_BTH_DEST_QP = HashField.RDMA_BTH_DEST_QP.mask();
    private static final long M_RDMA_BTH_OPCODE = HashField.RDMA_BTH_OPCODE.mask();

    private static final long INNER_MASK = HashField.INNER_DST_MAC.mask()
            | HashField.INNER_SRC_MAC.mask()
            | HashField.INNER_ETHERTYPE.mask()
            | HashField.INNER_IP_PROTOCOL.mask()
            | HashField.INNER_DST_IP.mask()
            | HashField.INNER_DST_IPV4.mask()
            | HashField.INNER_DST_IPV6.mask()
            | HashField.INNER_SRC_IP.mask()
            | HashField.INNER_SRC_IPV4.mask()
            | HashField.INNER_SRC_IPV6.mask()
            | HashField.INNER_L4_DST_PORT.mask()
            | HashField.INNER_L4_SRC_PORT.mask();

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private final HashAlgorithm algorithm;
    private final long fieldMask;
    private final long rdmaFieldMask;
    private int seed;
    private final int offset;
    private final SplitMix64 random;
    private final byte[] scratch = new byte[MAX_KEY_BYTES];

    /**
     * @param algorithm     hash algorithm.
     * @param fieldMask     fields of the default hash object ({@link HashField#maskOf}).
     * @param rdmaFieldMask fields of the RDMA hash object, or 0 when none is configured (RoCE then uses the default).
     * @param seed          hash seed (SAI {@code ECMP_DEFAULT_HASH_SEED}, u32).
     * @param offset        rotate-right amount in bits (SAI {@code ECMP_DEFAULT_HASH_OFFSET}, u8).
     * @param randomSeed    seed of the PRNG used by {@link HashAlgorithm#RANDOM}.
     */
    public HashEngine(
            final HashAlgorithm algorithm,
            final long fieldMask,
            final long rdmaFieldMask,
            final int seed,
            final int offset,
            final long randomSeed) {
        if (offset < 0 || offset > 255) {
            throw new IllegalArgumentException("offset must be 0..255: " + offset);
        }
        this.algorithm = algorithm;
        this.fieldMask = fieldMask;
        this.rdmaFieldMask = rdmaFieldMask;
        this.seed = seed;
        this.offset = offset;
        this.random = new SplitMix64(randomSeed);
    }

    /**
     * Hash a packet with the hash object SAI would pick: the RDMA object for RoCEv2 when one is configured,
     * else the default object.
     *
     * @param key the packet's fields.
     * @return the hash, in the low {@link HashAlgorithm#outputBits()} bits.
     */
    public int hash(final HashKey key) {
        return hashWithMask(key, key.roce() && rdmaFieldMask != 0 ? rdmaFieldMask : fieldMask);
    }

    /**
     * Hash with the default object only, ignoring the RDMA object (static 5-tuple mode).
     *
     * @param key the packet's fields.
     * @return the hash.
     */
    public int hashDefaultObject(final HashKey key) {
        return hashWithMask(key, fieldMask);
    }

    /**
     * Hash over an explicit field mask with this engine's algorithm, seed and offset.
     *
     * @param key  the packet's fields.
     * @param mask fields to read.
     * @return the hash.
     */
    public int hashWithMask(final HashKey key, final long mask) {
        return compute(algorithm, key, mask);
    }

    /**
     * A deterministic per-flow hash for flow state (the flowlet table): the same as {@link #hash(HashKey)} except
     * that RANDOM is replaced by CRC, since a flow must find its own entry again.
     *
     * @param key the packet's fields.
     * @return the flow hash.
     */
    public int flowHash(final HashKey key) {
        final long mask = key.roce() && rdmaFieldMask != 0 ? rdmaFieldMask : fieldMask;
        return compute(algorithm == HashAlgorithm.RANDOM ? HashAlgorithm.CRC : algorithm, key, mask);
    }

    private int compute(final HashAlgorithm alg, final HashKey key, final long mask) {
        final int raw;
        switch (alg) {
            case RANDOM -> raw = random.nextInt();
            case CRC -> raw = crcOverFields(key, mask, seed);
            case CRC_32LO -> raw = crcOverFields(key, mask, seed) & 0xFFFF;
            case CRC_32HI -> raw = crcOverFields(key, mask, seed) >>> 16;
            case CRC_CCITT -> raw = Crc16Ccitt.compute(scratch, 0, keyBytes(key, mask, scratch), seed);
            case XOR -> raw = xorFold(scratch, keyBytes(key, mask, scratch)) ^ seed;
            case CRC_XOR -> {
                final int length = keyBytes(key, mask, scratch);
                raw = Crc32.compute(scratch, 0, length, seed) ^ xorFold(scratch, length);
            }
            default -> throw new IllegalStateException(alg.name());
        }
        return rotateRight(raw, offset, alg.outputBits());
    }

    /**
     * @return the algorithm.
     */
    public HashAlgorithm algorithm() {
        return algorithm;
    }

    /**
     * @return mask of the default hash object.
     */
    public long fieldMask() {
        return fieldMask;
    }

    /**
     * @return mask of the RDMA hash object, 0 if none.
     */
    public long rdmaFieldMask() {
        return rdmaFieldMask;
    }

    /**
     * Runtime change of the seed (P4Runtime register ars.hash_seed; SONiC's ECMP hash seed). Data-plane thread,
     * between packet batches; the same as building the engine with this seed.
     *
     * @param newSeed hash seed (u32 as an int).
     */
    public void seed(final int newSeed) {
        this.seed = newSeed;
    }

    /**
     * @return the seed.
     */
    public int seed() {
        return seed;
    }

    /**
     * @return the offset (rotate right, bits).
     */
    public int offset() {
        return offset;
    }

    /**
     * Rotate a value right within a width of 16 or 32 bits.
     *
     * @param value  the hash (only the low {@code width} bits are meaningful).
     * @param amount bits to rotate (taken modulo width).
     * @param width  16 or 32.
     * @return rotated value.
     */
    public static int rotateRight(final int value, final int amount, final int width) {
        if (width == 32) {
            return Integer.rotateRight(value, amount);
        }
        final int r = amount % width;
        final int v = value & 0xFFFF;
        return r == 0 ? v : ((v >>> r) | (v << (width - r))) & 0xFFFF;
    }

    /**
     * XOR of the bytes folded into big-endian 32-bit words (a trailing partial word is zero padded).
     *
     * @param bytes  input.
     * @param length number of bytes from 0.
     * @return the fold.
     */
    public static int xorFold(final byte[] bytes, final int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h ^= (bytes[i] & 0xFF) << (24 - ((i & 3) << 3));
        }
        return h;
    }

    /**
     * Write the selected fields of a key in network byte order, in {@link HashField} declaration order: the exact
     * bytes the CRCs and the XOR fold read. IP addresses take 4 bytes for IPv4 and 16 for IPv6; MACs 6; ports,
     * EtherType and VLAN id 2; IP protocol and BTH opcode 1; IN_PORT 4; flow label and BTH dest QP 3. INNER_* fields
     * are written only when the key has an inner header; INNER_*_IPV4/IPV6 only when the inner header is of that
     * family; RDMA fields only for RoCE keys.
     *
     * @param key  packet fields.
     * @param mask fields to write.
     * @param out  destination of at least {@link #MAX_KEY_BYTES} bytes.
     * @return number of bytes written.
     */
    public static int keyBytes(final HashKey key, final long mask, final byte[] out) {
        int p = 0;
        if ((mask & M_IN_PORT) != 0) {
            p = put(out, p, key.inPort(), 4);
        }
        if ((mask & M_DST_MAC) != 0) {
            p = put(out, p, key.dstMac(), 6);
        }
        if ((mask & M_SRC_MAC) != 0) {
            p = put(out, p, key.srcMac(), 6);
        }
        if ((mask & M_ETHERTYPE) != 0) {
            p = put(out, p, key.etherType(), 2);
        }
        if ((mask & M_VLAN_ID) != 0) {
            p = put(out, p, key.vlanId() & 0xFFF, 2);
        }
        if ((mask & M_IP_PROTOCOL) != 0) {
            p = put(out, p, key.ipProtocol(), 1);
        }
        if ((mask & M_DST_IP) != 0) {
            p = putIp(out, p, key.ipv6(), key.dstIpHi(), key.dstIpLo());
        }
        if ((mask & M_SRC_IP) != 0) {
            p = putIp(out, p, key.ipv6(), key.srcIpHi(), key.srcIpLo());
        }
        if ((mask & M_L4_DST_PORT) != 0) {
            p = put(out, p, key.l4DstPort(), 2);
        }
        if ((mask & M_L4_SRC_PORT) != 0) {
            p = put(out, p, key.l4SrcPort(), 2);
        }
        if ((mask & INNER_MASK) != 0 && key.inner()) {
            p = innerKeyBytes(key, mask, out, p);
        }
        if ((mask & M_IPV6_FLOW_LABEL) != 0) {
            p = put(out, p, key.ipv6FlowLabel() & 0xF_FFFF, 3);
        }
        if (key.roce()) {
            if ((mask & M_RDMA_BTH_DEST_QP) != 0) {
                p = put(out, p, key.bthDestQp() & 0xFF_FFFF, 3);
            }
            if ((mask & M_RDMA_BTH_OPCODE) != 0) {
                p = put(out, p, key.bthOpcode(), 1);
            }
        }
        return p;
    }

    /**
     * CRC-32 of the bytes {@link #keyBytes} would write, fed to the register field by field (no scratch array, no
     * store-to-load round trip through it, and each field's bytes looked up in parallel). Same fields, same order,
     * same widths as {@link #keyBytes}: a property test holds the two equal.
     *
     * @param key  packet fields.
     * @param mask fields to hash.
     * @param seed value XORed into the initial register.
     * @return {@code Crc32.compute(out, 0, keyBytes(key, mask, out), seed)}.
     */
    public static int crcOverFields(final HashKey key, final long mask, final int seed) {
        int c = Crc32.start(seed);
        if ((mask & M_IN_PORT) != 0) {
            c = Crc32.update4(c, key.inPort());
        }
        if ((mask & M_DST_MAC) != 0) {
            c = Crc32.update6(c, key.dstMac());
        }
        if ((mask & M_SRC_MAC) != 0) {
            c = Crc32.update6(c, key.srcMac());
        }
        if ((mask & M_ETHERTYPE) != 0) {
            c = Crc32.update2(c, key.etherType());
        }
        if ((mask & M_VLAN_ID) != 0) {
            c = Crc32.update2(c, key.vlanId() & 0xFFF);
        }
        if ((mask & M_IP_PROTOCOL) != 0) {
            c = Crc32.update1(c, key.ipProtocol());
        }
        if ((mask & M_DST_IP) != 0) {
            c = crcOverIp(c, key.ipv6(), key.dstIpHi(), key.dstIpLo());
        }
        if ((mask & M_SRC_IP) != 0) {
            c = crcOverIp(c, key.ipv6(), key.srcIpHi(), key.srcIpLo());
        }
        if ((mask & M_L4_DST_PORT) != 0) {
            c = Crc32.update2(c, key.l4DstPort());
        }
        if ((mask & M_L4_SRC_PORT) != 0) {
            c = Crc32.update2(c, key.l4SrcPort());
        }
        if ((mask & INNER_MASK) != 0 && key.inner()) {
            c = crcOverInnerFields(key, mask, c);
        }
        if ((mask & M_IPV6_FLOW_LABEL) != 0) {
            c = Crc32.update3(c, key.ipv6FlowLabel() & 0xF_FFFF);
        }
        if (key.roce()) {
            if ((mask & M_RDMA_BTH_DEST_QP) != 0) {
                c = Crc32.update3(c, key.bthDestQp() & 0xFF_FFFF);
            }
            if ((mask & M_RDMA_BTH_OPCODE) != 0) {
                c = Crc32.update1(c, key.bthOpcode());
            }
        }
        return Crc32.finish(c);
    }

    private static int crcOverInnerFields(final HashKey key, final long mask, final int register) {
        int c = register;
        final boolean v6 = key.innerIpv6();
        if ((mask & M_INNER_DST_MAC) != 0) {
            c = Crc32.update6(c, key.innerDstMac());
        }
        if ((mask & M_INNER_SRC_MAC) != 0) {
            c = Crc32.update6(c, key.innerSrcMac());
        }
        if ((mask & M_INNER_ETHERTYPE) != 0) {
            c = Crc32.update2(c, key.innerEtherType());
        }
        if ((mask & M_INNER_IP_PROTOCOL) != 0) {
            c = Crc32.update1(c, key.innerIpProtocol());
        }
        if ((mask & M_INNER_DST_IP) != 0 || (mask & (v6 ? M_INNER_DST_IPV6 : M_INNER_DST_IPV4)) != 0) {
            c = crcOverIp(c, v6, key.innerDstIpHi(), key.innerDstIpLo());
        }
        if ((mask & M_INNER_SRC_IP) != 0 || (mask & (v6 ? M_INNER_SRC_IPV6 : M_INNER_SRC_IPV4)) != 0) {
            c = crcOverIp(c, v6, key.innerSrcIpHi(), key.innerSrcIpLo());
        }
        if ((mask & M_INNER_L4_DST_PORT) != 0) {
            c = Crc32.update2(c, key.innerL4DstPort());
        }
        if ((mask & M_INNER_L4_SRC_PORT) != 0) {
            c = Crc32.update2(c, key.innerL4SrcPort());
        }
        return c;
    }

    private static int crcOverIp(final int register, final boolean v6, final long hi, final long lo) {
        if (v6) {
            return Crc32.update8(Crc32.update8(register, hi), lo);
        }
        return Crc32.update4(register, (int) lo);
    }

    private static int innerKeyBytes(final HashKey key, final long mask, final byte[] out, final int start) {
        int p = start;
        final boolean v6 = key.innerIpv6();
        if ((mask & M_INNER_DST_MAC) != 0) {
            p = put(out, p, key.innerDstMac(), 6);
        }
        if ((mask & M_INNER_SRC_MAC) != 0) {
            p = put(out, p, key.innerSrcMac(), 6);
        }
        if ((mask & M_INNER_ETHERTYPE) != 0) {
            p = put(out, p, key.innerEtherType(), 2);
        }
        if ((mask & M_INNER_IP_PROTOCOL) != 0) {
            p = put(out, p, key.innerIpProtocol(), 1);
        }
        if ((mask & M_INNER_DST_IP) != 0 || (mask & (v6 ? M_INNER_DST_IPV6 : M_INNER_DST_IPV4)) != 0) {
            p = putIp(out, p, v6, key.innerDstIpHi(), key.innerDstIpLo());
        }
        if ((mask & M_INNER_SRC_IP) != 0 || (mask & (v6 ? M_INNER_SRC_IPV6 : M_INNER_SRC_IPV4)) != 0) {
            p = putIp(out, p, v6, key.innerSrcIpHi(), key.innerSrcIpLo());
        }
        if ((mask & M_INNER_L4_DST_PORT) != 0) {
            p = put(out, p, key.innerL4DstPort(), 2);
        }
        if ((mask & M_INNER_L4_SRC_PORT) != 0) {
            p = put(out, p, key.innerL4SrcPort(), 2);
        }
        return p;
    }

    private static int putIp(final byte[] out, final int p, final boolean v6, final long hi, final long lo) {
        if (v6) {
            return put(out, put(out, p, hi, 8), lo, 8);
        }
        return put(out, p, lo, 4);
    }

    private static int put(final byte[] out, final int p, final long value, final int byteCount) {
        switch (byteCount) {
            case 8 -> LONG_BE.set(out, p, value);
            case 6 -> {
                SHORT_BE.set(out, p, (short) (value >>> 32));
                INT_BE.set(out, p + 2, (int) value);
            }
            case 4 -> INT_BE.set(out, p, (int) value);
            case 3 -> {
                SHORT_BE.set(out, p, (short) (value >>> 8));
                out[p + 2] = (byte) value;
            }
            case 2 -> SHORT_BE.set(out, p, (short) value);
            default -> out[p] = (byte) value;
        }
        return p + byteCount;
    }
}
