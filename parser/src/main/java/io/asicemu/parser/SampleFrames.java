package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * A deterministic mix of prebuilt frame shapes (RoCEv2 over IPv4, IPv6, VLAN and QinQ; CNP; plain UDP; ICMP; ARP;
 * PFC) written into fixed-size slots of a ring, for benchmarks, demos and tests that should see production's
 * variety rather than one shape. Not thread safe (uses one {@link FrameBuilder}); not for the data path.
 */
public final class SampleFrames {
    /** Number of distinct shapes in the mix (slot i gets shape i % SHAPE_COUNT). */
    public static final int SHAPE_COUNT = 10;

    private SampleFrames() {}

    /**
     * Fills {@code slotCount} slots of {@code slotLength} bytes (at least 256) from offset 0 of {@code ring} and
     * returns the frame length of each slot.
     */
    public static int[] fillMixedRing(final MemorySegment ring, final int slotCount, final int slotLength) {
        if (slotLength < 256 || (long) slotCount * slotLength > ring.byteSize()) {
            throw new IllegalArgumentException("ring too small for " + slotCount + " slots of " + slotLength);
        }
        final FrameBuilder builder = new FrameBuilder();
        final int[] lengths = new int[slotCount];
        for (int slot = 0; slot < slotCount; slot++) {
            lengths[slot] = write(builder, ring, (long) slot * slotLength, slot);
        }
        return lengths;
    }

    /** Writes shape {@code index % SHAPE_COUNT}, varied by {@code index}, at {@code offset}; returns its length. */
    public static int write(
            final FrameBuilder builder, final MemorySegment segment, final long offset, final int index) {
        final int qp = 0x100 + index * 7;
        builder.reset()
                .macs(0x020000000002L, 0x020000000001L + (index & 0xF))
                .ipv4(0x0A000001 + (index << 8), 0x0A640001 + index)
                .udpPorts(49152 + index, EtherType.ROCEV2_UDP_PORT)
                .dscp(26)
                .ecn(Ipv4Flyweight.ECN_ECT0)
                .ackReq(true)
                .bth(RoceOpcode.RC_SEND_ONLY, qp, index);
        return switch (index % SHAPE_COUNT) {
            case 0, 5 -> builder.buildRoce(segment, offset, 0);
            case 1 ->
                builder.ipv6(0x20010db8L << 32, index, 0x20010db8L << 32, 0x100 + index)
                        .buildRoce(segment, offset, 64);
            case 2 -> builder.vlan(100 + index, 3).buildRoce(segment, offset, 16);
            case 3 ->
                builder.doubleTagged(EtherType.QINQ, 200, 5, 100 + index, 3)
                        .bth(RoceOpcode.RC_RDMA_WRITE_ONLY, qp, index)
                        .buildRoce(segment, offset, 32);
            case 4 -> builder.dscp(48).ecn(Ipv4Flyweight.ECN_ECT1).buildCnp(segment, offset, qp);
            case 6 -> builder.udpPorts(1024 + index, 53).buildUdp(segment, offset, 40);
            case 7 -> builder.buildIcmpEcho(segment, offset, index, 1, 32);
            case 8 ->
                builder.macs(0xFFFFFFFFFFFFL, 0x020000000001L)
                        .buildArp(
                                segment,
                                offset,
                                ArpFlyweight.OP_REQUEST,
                                0x020000000001L,
                                0x0A000001,
                                0,
                                0x0A000002 + index);
            default -> MacControlFrames.writePfc(segment, offset, 0x020000000001L, 1 << 3, PFC_XOFF_3, false);
        };
    }

    private static final int[] PFC_XOFF_3 = {0, 0, 0, 0xFFFF, 0, 0, 0, 0};
}
