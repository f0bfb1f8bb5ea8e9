package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of the fixed 40-byte IPv6 header. Addresses are two longs each (high and low 64 bits). IPv6 has no header
 * checksum, so rewrites here are plain writes. Not thread safe.
 */
public final class Ipv6Flyweight extends HeaderFlyweight {
    /** Offset of the version/traffic class/flow label word. */
    public static final int VERSION_TC_FLOW_OFFSET = 0;
    /** Offset of the payload length. */
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    /** Offset of the next header. */
    public static final int NEXT_HEADER_OFFSET = 6;
    /** Offset of the hop limit. */
    public static final int HOP_LIMIT_OFFSET = 7;
    /** Offset of the source address. */
    public static final int SRC_ADDRESS_OFFSET = 8;
    /** Offset of the destination address. */
    public static final int DST_ADDRESS_OFFSET = 24;
    /** Length of the fixed header. */
    public static final int HEADER_LENGTH = 40;

    /** Points this view at an IPv6 header. */
    public Ipv6Flyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** IP version (6 for a well-formed header). */
    public int version() {
        return u8(0) >>> 4;
    }

    /** Traffic class (DSCP:6, ECN:2). */
    public int trafficClass() {
        return (u16(0) >>> 4) & 0xFF;
    }

    /** Sets the traffic class, keeping version and flow label. */
    public Ipv6Flyweight trafficClass(final int trafficClass) {
        u16(0, (u16(0) & 0xF00F) | ((trafficClass & 0xFF) << 4));
        return this;
    }

    /** DSCP (upper 6 bits of the traffic class). */
    public int dscp() {
        return trafficClass() >>> 2;
    }

    /** Sets the DSCP, keeping ECN. */
    public Ipv6Flyweight dscp(final int dscp) {
        return trafficClass(((dscp & 0x3F) << 2) | ecn());
    }

    /** ECN (lower 2 bits of the traffic class). */
    public int ecn() {
        return trafficClass() & 0x3;
    }

    /** Sets the ECN bits, keeping DSCP. */
    public Ipv6Flyweight ecn(final int ecn) {
        return trafficClass((trafficClass() & 0xFC) | (ecn & 0x3));
    }

    /** Flow label (20 bits). */
    public int flowLabel() {
        return u32(0) & 0xFFFFF;
    }

    /** Sets the flow label. */
    public Ipv6Flyweight flowLabel(final int flowLabel) {
        u32(0, (u32(0) & 0xFFF00000) | (flowLabel & 0xFFFFF));
        return this;
    }

    /** Writes version 6, the traffic class and flow label in one go. */
    public Ipv6Flyweight versionClassFlow(final int trafficClass, final int flowLabel) {
        u32(0, (6 << 28) | ((trafficClass & 0xFF) << 20) | (flowLabel & 0xFFFFF));
        return this;
    }

    /** Payload length (bytes after the fixed header). */
    public int payloadLength() {
        return u16(PAYLOAD_LENGTH_OFFSET);
    }

    /** Sets the payload length. */
    public Ipv6Flyweight payloadLength(final int payloadLength) {
        u16(PAYLOAD_LENGTH_OFFSET, payloadLength);
        return this;
    }

    /** Next header of the fixed header. */
    public int nextHeader() {
        return u8(NEXT_HEADER_OFFSET);
    }

    /** Sets the next header. */
    public Ipv6Flyweight nextHeader(final int nextHeader) {
        u8(NEXT_HEADER_OFFSET, nextHeader);
        return this;
    }

    /** Hop limit. */
    public int hopLimit() {
        return u8(HOP_LIMIT_OFFSET);
    }

    /** Sets the hop limit. */
    public Ipv6Flyweight hopLimit(final int hopLimit) {
        u8(HOP_LIMIT_OFFSET, hopLimit);
        return this;
    }

    /** High 64 bits of the source address. */
    public long srcAddressHigh() {
        return u64(SRC_ADDRESS_OFFSET);
    }

    /** Low 64 bits of the source address. */
    public long srcAddressLow() {
        return u64(SRC_ADDRESS_OFFSET + 8);
    }

    /** Sets the source address. */
    public Ipv6Flyweight srcAddress(final long high, final long low) {
        u64(SRC_ADDRESS_OFFSET, high);
        u64(SRC_ADDRESS_OFFSET + 8, low);
        return this;
    }

    /** High 64 bits of the destination address. */
    public long dstAddressHigh() {
        return u64(DST_ADDRESS_OFFSET);
    }

    /** Low 64 bits of the destination address. */
    public long dstAddressLow() {
        return u64(DST_ADDRESS_OFFSET + 8);
    }

    /** Sets the destination address. */
    public Ipv6Flyweight dstAddress(final long high, final long low) {
        u64(DST_ADDRESS_OFFSET, high);
        u64(DST_ADDRESS_OFFSET + 8, low);
        return this;
    }
}
