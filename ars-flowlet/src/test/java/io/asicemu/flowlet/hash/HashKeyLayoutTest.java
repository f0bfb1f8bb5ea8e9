package io.asicemu.flowlet.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class HashKeyLayoutTest {
    private final byte[] out = new byte[HashEngine.MAX_KEY_BYTES];

    @Test
    void shouldWriteL2FieldsInNetworkOrderWhenSelected() {
        final HashKey key = new HashKey()
                .inPort(7)
                .dstMac(0x0102_0304_0506L)
                .srcMac(0x0A0B_0C0D_0E0FL)
                .etherType(0x86DD)
                .vlanId(0x1064)
                .ipv6FlowLabel(0xABCDE);
        final long mask = HashField.IN_PORT.mask()
                | HashField.DST_MAC.mask()
                | HashField.SRC_MAC.mask()
                | HashField.ETHERTYPE.mask()
                | HashField.VLAN_ID.mask()
                | HashField.IPV6_FLOW_LABEL.mask();

        final int length = HashEngine.keyBytes(key, mask, out);

        // VLAN id keeps its 12 bits (0x064), the flow label its 20 bits, in 3 bytes.
        final byte[] expected = ByteBuffer.allocate(23)
                .putInt(7)
                .put(new byte[] {1, 2, 3, 4, 5, 6})
                .put(new byte[] {0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F})
                .putShort((short) 0x86DD)
                .putShort((short) 0x064)
                .put(new byte[] {0x0A, (byte) 0xBC, (byte) 0xDE})
                .array();
        assertThat(Arrays.copyOf(out, length)).isEqualTo(expected);
    }

    @Test
    void shouldReadInnerFieldsOnlyWhenAnInnerHeaderOfThatFamilyWasParsed() {
        final HashKey key = new HashKey()
                .innerDstIpLo(0xC0A8_0001L)
                .innerSrcIpLo(0xC0A8_0002L)
                .innerL4DstPort(80);
        final long v4Only = HashField.INNER_DST_IPV4.mask() | HashField.INNER_SRC_IPV4.mask();
        final long v6Only = HashField.INNER_DST_IPV6.mask() | HashField.INNER_SRC_IPV6.mask();
        final long any = HashField.INNER_DST_IP.mask() | HashField.INNER_L4_DST_PORT.mask();

        assertThat(HashEngine.keyBytes(key, any | v4Only, out)).isZero();
        key.inner(true);
        assertThat(HashEngine.keyBytes(key, v4Only, out)).isEqualTo(8);
        assertThat(HashEngine.keyBytes(key, v6Only, out)).isZero();
        assertThat(HashEngine.keyBytes(key, any, out)).isEqualTo(6);
        key.innerIpv6(true);
        assertThat(HashEngine.keyBytes(key, v6Only, out)).isEqualTo(32);
        assertThat(HashEngine.keyBytes(key, v4Only, out)).isZero();
    }

    @Test
    void shouldIgnoreRdmaFieldsWhenThePacketIsNotRoce() {
        final HashKey key = new HashKey().bthDestQp(0xABCDEF).bthOpcode(0x0A);
        final long mask = HashField.RDMA_BTH_DEST_QP.mask() | HashField.RDMA_BTH_OPCODE.mask();

        assertThat(HashEngine.keyBytes(key, mask, out)).isZero();
        key.roce(true);
        assertThat(HashEngine.keyBytes(key, mask, out)).isEqualTo(4);
        assertThat(Arrays.copyOf(out, 4)).containsExactly(0xAB, 0xCD, 0xEF, 0x0A);
    }
}
