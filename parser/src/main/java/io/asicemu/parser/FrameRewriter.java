package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * In-place egress rewrites on a parsed frame: MACs, TTL / hop-limit decrement, DSCP, ECN. IPv4 rewrites keep the
 * header checksum valid by RFC 1624 incremental update; the ICRC is never touched (it masks TTL, TOS and the UDP
 * checksum, so it stays valid). Each rewrite also updates the {@link ParseResult} so it keeps describing the frame.
 * Methods need a result whose IP header was validated ({@code ipVersion() != 0}). Stateless; zero allocation.
 */
public final class FrameRewriter {
    private FrameRewriter() {}

    /** Sets the destination MAC. */
    public static void dstMac(final ParseResult r, final long mac) {
        NetworkOrder.u48(r.segment, r.frameOffset + EthernetFlyweight.DST_MAC_OFFSET, mac);
        r.dstMac = mac;
    }

    /** Sets the source MAC. */
    public static void srcMac(final ParseResult r, final long mac) {
        NetworkOrder.u48(r.segment, r.frameOffset + EthernetFlyweight.SRC_MAC_OFFSET, mac);
        r.srcMac = mac;
    }

    /**
     * Decrements the IPv4 TTL (with checksum update) or the IPv6 hop limit. Returns the new value, or -1 (frame
     * unchanged) if it is not IP or the TTL is already 0.
     */
    public static int decrementTtl(final ParseResult r) {
        if (r.ipVersion == 0 || r.ttl == 0) {
            return -1;
        }
        final MemorySegment segment = r.segment;
        final long ip = r.frameOffset + r.l3Offset;
        final int ttl = r.ttl - 1;
        if (r.ipVersion == 4) {
            final long word = ip + Ipv4Flyweight.TTL_OFFSET;
            final int oldWord = NetworkOrder.u16(segment, word);
            final int newWord = (ttl << 8) | (oldWord & 0xFF);
            NetworkOrder.u16(segment, word, newWord);
            updateChecksum(segment, ip, oldWord, newWord);
        } else {
            NetworkOrder.u8(segment, ip + Ipv6Flyweight.HOP_LIMIT_OFFSET, ttl);
        }
        r.ttl = ttl;
        return ttl;
    }

    /** Sets the DSCP (0..63) keeping ECN. Returns false (frame unchanged) if it is not IP. */
    public static boolean dscp(final ParseResult r, final int dscp) {
        if (r.ipVersion == 0) {
            return false;
        }
        writeTrafficClass(r, ((dscp & 0x3F) << 2) | r.ecn);
        return true;
    }

    /** Sets the ECN codepoint (0..3) keeping DSCP. Returns false (frame unchanged) if it is not IP. */
    public static boolean ecn(final ParseResult r, final int ecn) {
        if (r.ipVersion == 0) {
            return false;
        }
        writeTrafficClass(r, (r.dscp << 2) | (ecn & 0x3));
        return true;
    }

    /**
     * Marks Congestion Experienced if the packet is ECN-capable (RFC 3168: Not-ECT is never marked). Returns true if
     * the packet now carries CE, false if it is Not-ECT or not IP (the caller drops instead).
     */
    public static boolean markCe(final ParseResult r) {
        if (r.ipVersion == 0 || r.ecn == Ipv4Flyweight.ECN_NOT_ECT) {
            return false;
        }
        if (r.ecn != Ipv4Flyweight.ECN_CE) {
            writeTrafficClass(r, (r.dscp << 2) | Ipv4Flyweight.ECN_CE);
        }
        return true;
    }

    /**
     * Sets ECN = CE in the IP header at {@code ip} whatever the codepoint was (the traffic manager decided to mark an
     * ECN-capable packet it had admitted), keeping DSCP, with the IPv4 checksum updated (RFC 1624). For a frame held
     * without its {@link ParseResult}: the caller knows where the IP header is and its version.
     *
     * @param segment   the frame's memory.
     * @param ip        absolute offset of the IP header.
     * @param ipVersion 4 or 6; anything else leaves the frame unchanged.
     */
    public static void markCe(final MemorySegment segment, final long ip, final int ipVersion) {
        if (ipVersion == 4) {
            final int oldWord = NetworkOrder.u16(segment, ip);
            writeIpv4Tos(segment, ip, oldWord, oldWord | Ipv4Flyweight.ECN_CE);
        } else if (ipVersion == 6) {
            final int oldWord = NetworkOrder.u16(segment, ip);
            NetworkOrder.u16(segment, ip, oldWord | (Ipv4Flyweight.ECN_CE << 4));
        }
    }

    private static void writeTrafficClass(final ParseResult r, final int trafficClass) {
        final MemorySegment segment = r.segment;
        final long ip = r.frameOffset + r.l3Offset;
        final int oldWord = NetworkOrder.u16(segment, ip);
        if (r.ipVersion == 4) {
            writeIpv4Tos(segment, ip, oldWord, (oldWord & 0xFF00) | trafficClass);
        } else {
            NetworkOrder.u16(segment, ip, (oldWord & 0xF00F) | (trafficClass << 4));
        }
        r.dscp = trafficClass >>> 2;
        r.ecn = trafficClass & 0x3;
    }

    /** Writes the IPv4 header's first word (version, IHL, TOS) and updates the checksum for the change. */
    private static void writeIpv4Tos(final MemorySegment segment, final long ip, final int oldWord, final int newWord) {
        NetworkOrder.u16(segment, ip + Ipv4Flyweight.VERSION_IHL_OFFSET, newWord);
        updateChecksum(segment, ip, oldWord, newWord);
    }

    private static void updateChecksum(
            final MemorySegment segment, final long ip, final int oldWord, final int newWord) {
        final long at = ip + Ipv4Flyweight.CHECKSUM_OFFSET;
        NetworkOrder.u16(segment, at, InternetChecksum.update(NetworkOrder.u16(segment, at), oldWord, newWord));
    }
}
