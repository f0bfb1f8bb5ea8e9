package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * Builds 802.1Qbb PFC and 802.3x PAUSE frames (reference/sonic-asic-behaviour.md §6.1): DA 01:80:C2:00:00:01, SA the
 * port MAC, EtherType 0x8808, opcode, fields, zero padding: 60 bytes without FCS, 64 with. Stateless; zero allocation.
 */
public final class MacControlFrames {
    /** Frame length without FCS (as written to AF_PACKET/veth or pcap). */
    public static final int LENGTH_WITHOUT_FCS = 60;
    /** Frame length with FCS. */
    public static final int LENGTH_WITH_FCS = 64;

    private MacControlFrames() {}

    /**
     * Writes a PFC frame. {@code quanta[p]} is the pause time of priority p (0..7; 0 with the class enabled is XON);
     * {@code classEnableVector} bit p says time[p] is valid. Returns 60, or 64 if {@code withFcs}.
     */
    public static int writePfc(
            final MemorySegment segment,
            final long offset,
            final long srcMac,
            final int classEnableVector,
            final int[] quanta,
            final boolean withFcs) {
        final long payload = writeHeader(segment, offset, srcMac);
        NetworkOrder.u16(segment, payload, MacControlFlyweight.OPCODE_PFC);
        NetworkOrder.u16(segment, payload + MacControlFlyweight.PFC_CLASS_ENABLE_OFFSET, classEnableVector & 0xFF);
        for (int p = 0; p < MacControlFlyweight.PRIORITY_COUNT; p++) {
            NetworkOrder.u16(segment, payload + MacControlFlyweight.PFC_QUANTA_OFFSET + 2L * p, quanta[p]);
        }
        return finish(segment, offset, withFcs);
    }

    /** Writes an 802.3x PAUSE frame with {@code pauseQuanta}. Returns 60, or 64 if {@code withFcs}. */
    public static int writePause(
            final MemorySegment segment,
            final long offset,
            final long srcMac,
            final int pauseQuanta,
            final boolean withFcs) {
        final long payload = writeHeader(segment, offset, srcMac);
        NetworkOrder.u16(segment, payload, MacControlFlyweight.OPCODE_PAUSE);
        NetworkOrder.u16(segment, payload + MacControlFlyweight.PAUSE_TIME_OFFSET, pauseQuanta);
        return finish(segment, offset, withFcs);
    }

    private static long writeHeader(final MemorySegment segment, final long offset, final long srcMac) {
        segment.asSlice(offset, LENGTH_WITHOUT_FCS).fill((byte) 0);
        NetworkOrder.u48(segment, offset, MacControlFlyweight.DST_MAC);
        NetworkOrder.u48(segment, offset + EthernetFlyweight.SRC_MAC_OFFSET, srcMac);
        NetworkOrder.u16(segment, offset + EthernetFlyweight.ETHER_TYPE_OFFSET, EtherType.MAC_CONTROL);
        return offset + EthernetFlyweight.HEADER_LENGTH;
    }

    private static int finish(final MemorySegment segment, final long offset, final boolean withFcs) {
        return withFcs ? Crc32.appendFcs(segment, offset, LENGTH_WITHOUT_FCS) : LENGTH_WITHOUT_FCS;
    }
}
