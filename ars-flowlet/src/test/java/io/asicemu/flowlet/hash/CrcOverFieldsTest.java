package io.asicemu.flowlet.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** The CRC fed field by field equals the CRC over the bytes {@link HashEngine#keyBytes} writes, for every mask. */
class CrcOverFieldsTest {
    /** A bit per {@link HashField} (25 of them) and a few beyond, which both paths ignore. */
    private static final long ALL_FIELDS = (1L << 28) - 1;

    @Property(tries = 2000)
    void shouldEqualTheCrcOverTheKeyBytesWhenAnyFieldsAreSelected(
            @ForAll @LongRange(min = 0, max = ALL_FIELDS) final long mask,
            @ForAll final int seed,
            @ForAll final long fields) {
        final HashKey key = randomKey(new SplittableRandom(fields));
        final byte[] bytes = new byte[HashEngine.MAX_KEY_BYTES];
        final int length = HashEngine.keyBytes(key, mask, bytes);

        assertThat(HashEngine.crcOverFields(key, mask, seed)).isEqualTo(Crc32.compute(bytes, 0, length, seed));
    }

    @Property(tries = 500)
    void shouldHashAsTheByteCrcWhenTheEngineUsesACrcAlgorithm(
            @ForAll @LongRange(min = 0, max = ALL_FIELDS) final long mask,
            @ForAll @LongRange(min = 0, max = ALL_FIELDS) final long rdmaMask,
            @ForAll final int seed,
            @ForAll final long fields) {
        final HashKey key = randomKey(new SplittableRandom(fields));
        final long used = key.roce() && rdmaMask != 0 ? rdmaMask : mask;
        final byte[] bytes = new byte[HashEngine.MAX_KEY_BYTES];
        final int crc = Crc32.compute(bytes, 0, HashEngine.keyBytes(key, used, bytes), seed);

        assertThat(new HashEngine(HashAlgorithm.CRC, mask, rdmaMask, seed, 0, 1).hash(key))
                .isEqualTo(crc);
        assertThat(new HashEngine(HashAlgorithm.CRC_32LO, mask, rdmaMask, seed, 0, 1).hash(key))
                .isEqualTo(crc & 0xFFFF);
        assertThat(new HashEngine(HashAlgorithm.CRC_32HI, mask, rdmaMask, seed, 0, 1).hash(key))
                .isEqualTo(crc >>> 16);
    }

    /** Every field random over its whole Java type (wider than the hashed width, which both paths truncate). */
    private static HashKey randomKey(final SplittableRandom r) {
        final HashKey key = new HashKey()
                .inPort(r.nextInt())
                .dstMac(r.nextLong())
                .srcMac(r.nextLong())
                .etherType(r.nextInt())
                .vlanId(r.nextInt())
                .ipProtocol(r.nextInt())
                .l4SrcPort(r.nextInt())
                .l4DstPort(r.nextInt())
                .ipv6FlowLabel(r.nextInt())
                .inner(r.nextBoolean())
                .innerDstMac(r.nextLong())
                .innerSrcMac(r.nextLong())
                .innerEtherType(r.nextInt())
                .innerIpv6(r.nextBoolean())
                .innerSrcIpHi(r.nextLong())
                .innerSrcIpLo(r.nextLong())
                .innerDstIpHi(r.nextLong())
                .innerDstIpLo(r.nextLong())
                .innerIpProtocol(r.nextInt())
                .innerL4SrcPort(r.nextInt())
                .innerL4DstPort(r.nextInt())
                .roce(r.nextBoolean())
                .bthDestQp(r.nextInt())
                .bthOpcode(r.nextInt());
        if (r.nextBoolean()) {
            key.srcIpv6(r.nextLong(), r.nextLong()).dstIpv6(r.nextLong(), r.nextLong());
        } else {
            key.srcIpv4(r.nextInt()).dstIpv4(r.nextInt());
        }
        return key;
    }
}
