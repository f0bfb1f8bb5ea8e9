package io.asicemu.flowlet.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class CrcOracleTest {
    private static final byte[] CHECK = "123456789".getBytes(StandardCharsets.US_ASCII);

    @Property(tries = 500)
    void shouldEqualJavaUtilZipCrc32WhenSeedIsZero(@ForAll @Size(max = 200) final byte[] bytes) {
        final CRC32 oracle = new CRC32();
        oracle.update(bytes);

        assertThat(Crc32.compute(bytes, 0, bytes.length, 0) & 0xFFFF_FFFFL).isEqualTo(oracle.getValue());
    }

    @Test
    void shouldGiveCatalogueCheckValuesWhenHashingTheStandardVector() {
        // Check values of the CRC catalogue (reveng.sourceforge.net): CRC-32 0xCBF43926, CRC-16/CCITT-FALSE 0x29B1.
        assertThat(Crc32.compute(CHECK, 0, CHECK.length, 0)).isEqualTo(0xCBF43926);
        assertThat(Crc16Ccitt.compute(CHECK, 0, CHECK.length, 0)).isEqualTo(0x29B1);
    }

    @Property(tries = 200)
    void shouldHashTheKeyBytesWithCrc32WhenAlgorithmIsCrc(
            @ForAll final int srcIp,
            @ForAll final int dstIp,
            @ForAll @IntRange(max = 65535) final int srcPort,
            @ForAll @IntRange(max = 65535) final int dstPort,
            @ForAll @IntRange(max = 255) final int protocol) {
        final HashKey key = new HashKey().ipv4FiveTuple(srcIp, dstIp, protocol, srcPort, dstPort);
        // Independent layout: fields in HashField order (IP_PROTOCOL, DST_IP, SRC_IP, L4_DST_PORT, L4_SRC_PORT).
        final byte[] expected = ByteBuffer.allocate(13)
                .put((byte) protocol)
                .putInt(dstIp)
                .putInt(srcIp)
                .putShort((short) dstPort)
                .putShort((short) srcPort)
                .array();
        final CRC32 oracle = new CRC32();
        oracle.update(expected);
        final HashEngine engine = new HashEngine(HashAlgorithm.CRC, HashField.fiveTupleMask(), 0, 0, 0, 1);
        final HashEngine lo = new HashEngine(HashAlgorithm.CRC_32LO, HashField.fiveTupleMask(), 0, 0, 0, 1);
        final HashEngine hi = new HashEngine(HashAlgorithm.CRC_32HI, HashField.fiveTupleMask(), 0, 0, 0, 1);
        final byte[] out = new byte[HashEngine.MAX_KEY_BYTES];

        assertThat(HashEngine.keyBytes(key, HashField.fiveTupleMask(), out)).isEqualTo(13);
        assertThat(java.util.Arrays.copyOf(out, 13)).isEqualTo(expected);
        assertThat(engine.hash(key) & 0xFFFF_FFFFL).isEqualTo(oracle.getValue());
        assertThat(lo.hash(key)).isEqualTo((int) (oracle.getValue() & 0xFFFF));
        assertThat(hi.hash(key)).isEqualTo((int) (oracle.getValue() >>> 16));
    }

    @Property(tries = 200)
    void shouldRotateRightByTheOffsetWhenOffsetIsSet(
            @ForAll final int srcIp, @ForAll final int dstIp, @ForAll @IntRange(max = 255) final int offset) {
        final HashKey key = new HashKey().ipv4FiveTuple(srcIp, dstIp, 17, 1000, 4791);
        final long mask = HashField.fiveTupleMask();
        final int crc = new HashEngine(HashAlgorithm.CRC, mask, 0, 7, 0, 1).hash(key);
        final int ccitt = new HashEngine(HashAlgorithm.CRC_CCITT, mask, 0, 7, 0, 1).hash(key);

        assertThat(new HashEngine(HashAlgorithm.CRC, mask, 0, 7, offset, 1).hash(key))
                .isEqualTo(Integer.rotateRight(crc, offset));
        final int r = offset % 16;
        assertThat(new HashEngine(HashAlgorithm.CRC_CCITT, mask, 0, 7, offset, 1).hash(key))
                .isEqualTo(((ccitt >>> r) | (ccitt << (16 - r))) & 0xFFFF);
    }

    @Test
    void shouldIncludeDestQpOnlyForRoceKeysWhenTheRdmaObjectIsConfigured() {
        final long rdmaMask = HashField.fiveTupleMask() | HashField.RDMA_BTH_DEST_QP.mask();
        final HashEngine engine = new HashEngine(HashAlgorithm.CRC, HashField.fiveTupleMask(), rdmaMask, 0, 0, 1);
        final HashKey a = new HashKey()
                .ipv4FiveTuple(0x0A000001, 0x0A000002, 17, 49152, 4791)
                .bthDestQp(0x11);
        final HashKey b = new HashKey().copyFrom(a).bthDestQp(0x12);

        assertThat(engine.hash(a)).isEqualTo(engine.hash(b));
        a.roce(true);
        b.roce(true);
        assertThat(engine.hash(a)).isNotEqualTo(engine.hash(b));
        assertThat(engine.hashDefaultObject(a)).isEqualTo(engine.hashDefaultObject(b));
        final byte[] out = new byte[HashEngine.MAX_KEY_BYTES];
        final int length = HashEngine.keyBytes(a, rdmaMask, out);
        assertThat(length).isEqualTo(16);
        assertThat(new byte[] {out[13], out[14], out[15]}).containsExactly(0, 0, 0x11);
    }

    @Test
    void shouldWriteSixteenBytesPerAddressWhenKeyIsIpv6() {
        final HashKey key = new HashKey().srcIpv6(0x2001_0db8_0000_0000L, 1).dstIpv6(0x2001_0db8_0000_0000L, 2);
        final byte[] out = new byte[HashEngine.MAX_KEY_BYTES];

        assertThat(HashEngine.keyBytes(key, HashField.SRC_IP.mask() | HashField.DST_IP.mask(), out))
                .isEqualTo(32);
        assertThat(out[0]).isEqualTo((byte) 0x20);
        assertThat(out[15]).isEqualTo((byte) 2);
        assertThat(out[31]).isEqualTo((byte) 1);
    }
}
