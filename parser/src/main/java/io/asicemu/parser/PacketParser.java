package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * Walks one Ethernet frame once and fills a reusable {@link ParseResult}: L2 (up to two VLAN tags), ARP, IPv4 (with
 * options), IPv6 (extension headers walked with a bound), UDP, TCP, ICMP/ICMPv6, RoCEv2 BTH and its extended headers,
 * MAC control (PAUSE, PFC) and LLDP. Malformed input is classified with a {@link ParseReason}; no byte sequence makes
 * it throw, and it allocates nothing. Frame lengths exclude the FCS (as AF_PACKET and pcap deliver them).
 * Not thread safe (stateless apart from its limits, but meant to be owned by the data-plane thread).
 */
public final class PacketParser {
    /** Default runt threshold: 64-byte minimum Ethernet frame less the 4-byte FCS. */
    public static final int DEFAULT_MIN_FRAME_LENGTH = 60;
    /** Largest accepted frame (jumbo). */
    public static final int MAX_FRAME_LENGTH = 9216;
    /** Most IPv6 extension headers walked before the chain is declared abusive. */
    public static final int MAX_IPV6_EXTENSION_HEADERS = 8;

    private static final int IPV6_HOP_BY_HOP = 0;
    private static final int IPV6_ROUTING = 43;
    private static final int IPV6_FRAGMENT = 44;
    private static final int IPV6_AH = 51;
    private static final int IPV6_DEST_OPTIONS = 60;
    private static final int IPV6_MOBILITY = 135;
    private static final int IPV6_HIP = 139;
    private static final int IPV6_SHIM6 = 140;

    private final int minFrameLength;
    private final int maxFrameLength;
    private final LldpFlyweight lldp = new LldpFlyweight();

    /** A parser with the default runt threshold (60) and maximum (9216). */
    public PacketParser() {
        this(DEFAULT_MIN_FRAME_LENGTH, MAX_FRAME_LENGTH);
    }

    /**
     * A parser with explicit limits. Ports fed by Linux veth/TAP see unpadded frames (a 42-byte ARP), so they may use a
     * runt threshold of 14 (an Ethernet header) instead of 60.
     */
    public PacketParser(final int minFrameLength, final int maxFrameLength) {
        if (minFrameLength < 0 || maxFrameLength < minFrameLength) {
            throw new IllegalArgumentException("bad frame length limits: " + minFrameLength + ".." + maxFrameLength);
        }
        this.minFrameLength = minFrameLength;
        this.maxFrameLength = maxFrameLength;
    }

    /** Runt threshold in bytes. */
    public int minFrameLength() {
        return minFrameLength;
    }

    /** Largest accepted frame in bytes. */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /**
     * Parses the frame of {@code frameLength} bytes at {@code frameOffset} of {@code segment} into {@code result} and
     * returns the reason (also stored in the result).
     */
    public ParseReason parse(
            final MemorySegment segment, final long frameOffset, final int frameLength, final ParseResult result) {
        result.reset(segment, frameOffset, frameLength);
        final ParseReason reason = parseFrame(segment, frameOffset, frameLength, result);
        result.reason = reason;
        result.finish();
        return reason;
    }

    private ParseReason parseFrame(
            final MemorySegment segment, final long base, final int length, final ParseResult r) {
        if (base < 0 || length < 0 || base > segment.byteSize() - length) {
            return ParseReason.BAD_BUFFER;
        }
        if (length > maxFrameLength) {
            return ParseReason.OVERSIZE;
        }
        if (length < minFrameLength) {
            return ParseReason.RUNT;
        }
        if (length < EthernetFlyweight.HEADER_LENGTH) {
            return ParseReason.TRUNCATED_L2;
        }
        final long first = NetworkOrder.u64(segment, base);
        final int last = NetworkOrder.u32(segment, base + 8);
        r.dstMac = first >>> 16;
        r.srcMac = ((first & 0xFFFF) << 32) | (last & 0xFFFF_FFFFL);
        int etherType = NetworkOrder.u16(segment, base + EthernetFlyweight.ETHER_TYPE_OFFSET);
        int pos = EthernetFlyweight.HEADER_LENGTH;
        if (etherType == EtherType.VLAN || etherType == EtherType.QINQ) {
            // the tag loop lives apart so that this method stays small enough for the JIT to inline per frame
            final ParseReason tagProblem = parseVlanTags(segment, base, length, etherType, r);
            if (tagProblem != null) {
                return tagProblem;
            }
            etherType = r.etherType;
            pos = r.l3Offset;
        } else {
            r.etherType = etherType;
            r.l3Offset = pos;
        }
        if (etherType == EtherType.IPV4) {
            return parseIpv4(segment, base, pos, length, r);
        }
        return parseNonIpv4(segment, base, pos, length, etherType, r);
    }

    /** The EtherTypes after IPv4 (apart, so that {@link #parseFrame} stays small enough to inline). */
    private ParseReason parseNonIpv4(
            final MemorySegment segment,
            final long base,
            final int pos,
            final int length,
            final int etherType,
            final ParseResult r) {
        return switch (etherType) {
            case EtherType.IPV6 -> parseIpv6(segment, base, pos, length, r);
            case EtherType.ARP -> parseArp(segment, base, pos, length, r);
            case EtherType.MAC_CONTROL -> parseMacControl(segment, base, pos, length, r);
            case EtherType.LLDP -> parseLldp(segment, base, pos, length, r);
            default -> ParseReason.UNKNOWN_ETHER_TYPE;
        };
    }

    /**
     * The 802.1Q / 802.1ad tags of a tagged frame: writes the VLAN group, then the inner EtherType and L3 offset;
     * returns the problem (nothing more written) or null.
     */
    private static ParseReason parseVlanTags(
            final MemorySegment segment, final long base, final int length, final int outerType, final ParseResult r) {
        int etherType = outerType;
        int pos = EthernetFlyweight.HEADER_LENGTH;
        r.open(ParseResult.VLAN);
        while (etherType == EtherType.VLAN || etherType == EtherType.QINQ) {
            if (r.vlanCount == 2) {
                return ParseReason.TOO_MANY_VLAN_TAGS;
            }
            if (pos + VlanTagFlyweight.TAG_LENGTH > length) {
                return ParseReason.TRUNCATED_L2;
            }
            final int tci = NetworkOrder.u16(segment, base + pos);
            if (r.vlanCount == 0) {
                r.outerTpid = etherType;
                r.outerPcp = tci >>> 13;
                r.outerDei = (tci >>> 12) & 1;
                r.outerVlanId = tci & 0xFFF;
            } else {
                r.innerPcp = tci >>> 13;
                r.innerDei = (tci >>> 12) & 1;
                r.innerVlanId = tci & 0xFFF;
            }
            r.vlanCount++;
            etherType = NetworkOrder.u16(segment, base + pos + 2);
            pos += VlanTagFlyweight.TAG_LENGTH;
        }
        r.etherType = etherType;
        r.l3Offset = pos;
        return null;
    }

    private static ParseReason parseIpv4(
            final MemorySegment segment, final long base, final int pos, final int length, final ParseResult r) {
        r.kind = FrameKind.IPV4;
        if (pos + Ipv4Flyweight.MIN_HEADER_LENGTH > length) {
            return ParseReason.TRUNCATED_IPV4;
        }
        final long ip = base + pos;
        // Three 32-bit loads cover version..checksum; fewer bounds checks than byte-wise reads.
        final int word0 = NetworkOrder.u32(segment, ip);
        if ((word0 >>> 28) != 4) {
            return ParseReason.IPV4_BAD_VERSION;
        }
        final int headerLength = (word0 >>> 22) & 0x3C;
        if (headerLength < Ipv4Flyweight.MIN_HEADER_LENGTH) {
            return ParseReason.IPV4_BAD_IHL;
        }
        if (pos + headerLength > length) {
            return ParseReason.TRUNCATED_IPV4;
        }
        final int word1 = NetworkOrder.u32(segment, ip + Ipv4Flyweight.IDENTIFICATION_OFFSET);
        final int word2 = NetworkOrder.u32(segment, ip + Ipv4Flyweight.TTL_OFFSET);
        final long addresses = NetworkOrder.u64(segment, ip + Ipv4Flyweight.SRC_ADDRESS_OFFSET);
        final int totalLength = word0 & 0xFFFF;
        final ParseReason lengthProblem = totalLength < headerLength
                ? ParseReason.IPV4_TOTAL_LENGTH_TOO_SMALL
                : pos + totalLength > length ? ParseReason.IPV4_TOTAL_LENGTH_BEYOND_FRAME : null;
        writeIpv4(r, headerLength, word0, word1, word2, addresses);
        r.ipv4HeaderSum = ipv4HeaderSum(segment, ip, headerLength, word0, word1, word2, addresses);
        if (lengthProblem != null) {
            r.ipEnd = 0;
            return lengthProblem;
        }
        r.ipEnd = pos + totalLength;
        if (r.laterFragment) {
            return ParseReason.OK;
        }
        return parseTransport(segment, base, pos + headerLength, pos + totalLength, r);
    }

    /**
     * The IP group of an IPv4 header, written whole, each field once (the caller writes the header sum and ipEnd,
     * which stays absent when the total length is bad). Apart from {@link #parseIpv4} so that each stays small
     * enough for the JIT to inline per frame.
     */
    private static void writeIpv4(
            final ParseResult r,
            final int headerLength,
            final int word0,
            final int word1,
            final int word2,
            final long addresses) {
        final int tos = (word0 >>> 16) & 0xFF;
        final int flagsFragment = word1 & 0xFFFF;
        r.groups |= ParseResult.IP;
        r.ipVersion = 4;
        r.ipHeaderLength = headerLength;
        r.dscp = tos >>> 2;
        r.ecn = tos & 0x3;
        r.ttl = word2 >>> 24;
        r.protocol = (word2 >>> 16) & 0xFF;
        r.srcAddressHigh = 0;
        r.srcAddressLow = addresses >>> 32;
        r.dstAddressHigh = 0;
        r.dstAddressLow = addresses & 0xFFFF_FFFFL;
        r.fragment = (flagsFragment & 0x3FFF) != 0;
        r.laterFragment = (flagsFragment & 0x1FFF) != 0;
    }

    /**
     * The IPv4 header's RFC 1071 sum (folded, not inverted) from the loads {@link #parseIpv4} made: each 32-bit word
     * adds as its two 16-bit halves, since 2^16 ≡ 1 modulo 0xFFFF; options, if any, are read from the frame.
     */
    private static int ipv4HeaderSum(
            final MemorySegment segment,
            final long ip,
            final int headerLength,
            final int word0,
            final int word1,
            final int word2,
            final long addresses) {
        long sum = (word0 & 0xFFFF_FFFFL)
                + (word1 & 0xFFFF_FFFFL)
                + (word2 & 0xFFFF_FFFFL)
                + (addresses >>> 32)
                + (addresses & 0xFFFF_FFFFL);
        if (headerLength > Ipv4Flyweight.MIN_HEADER_LENGTH) {
            sum += InternetChecksum.sum(
                    segment, ip + Ipv4Flyweight.MIN_HEADER_LENGTH, headerLength - Ipv4Flyweight.MIN_HEADER_LENGTH);
        }
        // below 2^36: four folds without a loop leave the same value in 1..0xFFFF (or 0) as InternetChecksum.fold
        sum = (sum & 0xFFFF_FFFFL) + (sum >>> 32);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        return (int) ((sum & 0xFFFF) + (sum >>> 16));
    }

    private static ParseReason parseIpv6(
            final MemorySegment segment, final long base, final int pos, final int length, final ParseResult r) {
        r.kind = FrameKind.IPV6;
        if (pos + Ipv6Flyweight.HEADER_LENGTH > length) {
            return ParseReason.TRUNCATED_IPV6;
        }
        final long ip = base + pos;
        final int word0 = NetworkOrder.u32(segment, ip);
        if ((word0 >>> 28) != 6) {
            return ParseReason.IPV6_BAD_VERSION;
        }
        final int trafficClass = (word0 >>> 20) & 0xFF;
        r.open(ParseResult.IP);
        r.ipVersion = 6;
        r.ipHeaderLength = Ipv6Flyweight.HEADER_LENGTH;
        r.dscp = trafficClass >>> 2;
        r.ecn = trafficClass & 0x3;
        r.ttl = NetworkOrder.u8(segment, ip + Ipv6Flyweight.HOP_LIMIT_OFFSET);
        r.srcAddressHigh = NetworkOrder.u64(segment, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET);
        r.srcAddressLow = NetworkOrder.u64(segment, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET + 8);
        r.dstAddressHigh = NetworkOrder.u64(segment, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET);
        r.dstAddressLow = NetworkOrder.u64(segment, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET + 8);
        int nextHeader = NetworkOrder.u8(segment, ip + Ipv6Flyweight.NEXT_HEADER_OFFSET);
        r.protocol = nextHeader;
        final int end =
                pos + Ipv6Flyweight.HEADER_LENGTH + NetworkOrder.u16(segment, ip + Ipv6Flyweight.PAYLOAD_LENGTH_OFFSET);
        if (end > length) {
            return ParseReason.IPV6_PAYLOAD_BEYOND_FRAME;
        }
        r.ipEnd = end;
        int p = pos + Ipv6Flyweight.HEADER_LENGTH;
        for (int count = 0; ; count++) {
            final int extLength;
            switch (nextHeader) {
                case IPV6_HOP_BY_HOP, IPV6_ROUTING, IPV6_DEST_OPTIONS, IPV6_MOBILITY, IPV6_HIP, IPV6_SHIM6 -> {
                    if (nextHeader == IPV6_HOP_BY_HOP && count != 0) {
                        return ParseReason.IPV6_EXT_HEADER_CHAIN;
                    }
                    if (p + 2 > end) {
                        return ParseReason.IPV6_EXT_HEADER_OVERRUN;
                    }
                    extLength = (NetworkOrder.u8(segment, base + p + 1) + 1) << 3;
                }
                case IPV6_AH -> {
                    if (p + 2 > end) {
                        return ParseReason.IPV6_EXT_HEADER_OVERRUN;
                    }
                    extLength = (NetworkOrder.u8(segment, base + p + 1) + 2) << 2;
                }
                case IPV6_FRAGMENT -> {
                    if (p + 8 > end) {
                        return ParseReason.IPV6_EXT_HEADER_OVERRUN;
                    }
                    final int offsetFlags = NetworkOrder.u16(segment, base + p + 2);
                    r.fragment = true;
                    r.laterFragment = (offsetFlags & 0xFFF8) != 0;
                    extLength = 8;
                }
                default -> {
                    r.protocol = nextHeader;
                    r.ipHeaderLength = p - pos;
                    if (nextHeader == EtherType.PROTO_IPV6_NONXT) {
                        return ParseReason.OK;
                    }
                    return parseTransport(segment, base, p, end, r);
                }
            }
            if (count + 1 > MAX_IPV6_EXTENSION_HEADERS) {
                return ParseReason.IPV6_EXT_HEADER_CHAIN;
            }
            if (p + extLength > end) {
                return ParseReason.IPV6_EXT_HEADER_OVERRUN;
            }
            nextHeader = NetworkOrder.u8(segment, base + p);
            p += extLength;
            if (r.laterFragment) {
                r.protocol = nextHeader;
                r.ipHeaderLength = p - pos;
                return ParseReason.OK;
            }
        }
    }

    private static ParseReason parseTransport(
            final MemorySegment segment, final long base, final int l4, final int end, final ParseResult r) {
        final long at = base + l4;
        final int protocol = r.protocol;
        if (protocol == EtherType.PROTO_UDP && l4 + UdpFlyweight.HEADER_LENGTH <= end) {
            return parseUdp(segment, base, l4, end, r);
        }
        r.open(ParseResult.L4);
        r.l4Offset = l4;
        switch (protocol) {
            case EtherType.PROTO_UDP -> {
                return ParseReason.TRUNCATED_UDP;
            }
            case EtherType.PROTO_TCP -> {
                if (l4 + TcpFlyweight.MIN_HEADER_LENGTH > end) {
                    return ParseReason.TRUNCATED_TCP;
                }
                r.srcPort = NetworkOrder.u16(segment, at);
                r.dstPort = NetworkOrder.u16(segment, at + TcpFlyweight.DST_PORT_OFFSET);
                r.tcpFlags = NetworkOrder.u8(segment, at + TcpFlyweight.FLAGS_OFFSET);
                final int dataOffset = (NetworkOrder.u8(segment, at + TcpFlyweight.DATA_OFFSET_OFFSET) >>> 4) << 2;
                if (dataOffset < TcpFlyweight.MIN_HEADER_LENGTH || l4 + dataOffset > end) {
                    return ParseReason.TCP_BAD_DATA_OFFSET;
                }
                return ParseReason.OK;
            }
            case EtherType.PROTO_ICMP, EtherType.PROTO_ICMPV6 -> {
                if (l4 + IcmpFlyweight.HEADER_LENGTH > end) {
                    return ParseReason.TRUNCATED_ICMP;
                }
                r.icmpType = NetworkOrder.u8(segment, at);
                r.icmpCode = NetworkOrder.u8(segment, at + 1);
                return ParseReason.OK;
            }
            default -> {
                return ParseReason.OK;
            }
        }
    }

    /** A UDP header that fits: the L4 group written whole, each field once. */
    private static ParseReason parseUdp(
            final MemorySegment segment, final long base, final int l4, final int end, final ParseResult r) {
        final long header = NetworkOrder.u64(segment, base + l4);
        final int dstPort = (int) (header >>> 32) & 0xFFFF;
        final int udpLength = (int) (header >>> 16) & 0xFFFF;
        r.groups |= ParseResult.L4;
        r.l4Offset = l4;
        r.srcPort = (int) (header >>> 48);
        r.dstPort = dstPort;
        r.udpLength = udpLength;
        r.tcpFlags = 0;
        r.icmpType = 0;
        r.icmpCode = 0;
        if (udpLength < UdpFlyweight.HEADER_LENGTH) {
            return ParseReason.UDP_BAD_LENGTH;
        }
        if (r.fragment) {
            // A first fragment carries the ports, but the datagram (and any ICRC) continues elsewhere.
            return ParseReason.OK;
        }
        if (l4 + udpLength > end) {
            return ParseReason.UDP_BAD_LENGTH;
        }
        if (dstPort == EtherType.ROCEV2_UDP_PORT) {
            return parseBth(segment, base, l4 + UdpFlyweight.HEADER_LENGTH, l4 + udpLength, r);
        }
        return ParseReason.OK;
    }

    private static ParseReason parseBth(
            final MemorySegment segment, final long base, final int bth, final int udpEnd, final ParseResult r) {
        if (bth + BthFlyweight.HEADER_LENGTH + BthFlyweight.ICRC_LENGTH > udpEnd) {
            return ParseReason.TRUNCATED_BTH;
        }
        final long at = base + bth;
        final long word0 = NetworkOrder.u64(segment, at);
        final int word2 = NetworkOrder.u32(segment, at + BthFlyweight.ACK_REQ_OFFSET);
        final int opcode = (int) (word0 >>> 56);
        final int extLength = RoceOpcode.extendedHeadersLength(opcode);
        final int payload = bth + BthFlyweight.HEADER_LENGTH + extLength;
        final boolean fits = payload + BthFlyweight.ICRC_LENGTH <= udpEnd;
        // The BTH group written whole, each field once (the extended-header offsets absent when they do not fit).
        r.groups |= ParseResult.BTH;
        r.bthOffset = bth;
        r.bthOpcode = opcode;
        r.bthFlags = (int) (word0 >>> 48) & 0xFF;
        r.bthPkey = (int) (word0 >>> 32) & 0xFFFF;
        r.bthFecnBecn = (int) (word0 >>> 24) & 0xFF;
        r.bthDestQp = (int) word0 & 0xFFFFFF;
        r.bthAckReq = word2 < 0;
        r.bthPsn = word2 & 0xFFFFFF;
        r.icrcOffset = udpEnd - BthFlyweight.ICRC_LENGTH;
        r.roceExtOffset = fits && extLength > 0 ? bth + BthFlyweight.HEADER_LENGTH : -1;
        r.rocePayloadOffset = fits ? payload : -1;
        return fits ? ParseReason.OK : ParseReason.TRUNCATED_BTH;
    }

    private static ParseReason parseArp(
            final MemorySegment segment, final long base, final int pos, final int length, final ParseResult r) {
        r.kind = FrameKind.ARP;
        if (pos + ArpFlyweight.LENGTH > length) {
            return ParseReason.BAD_ARP;
        }
        final long at = base + pos;
        if (NetworkOrder.u16(segment, at + ArpFlyweight.HARDWARE_TYPE_OFFSET) != ArpFlyweight.HARDWARE_ETHERNET
                || NetworkOrder.u16(segment, at + ArpFlyweight.PROTOCOL_TYPE_OFFSET) != EtherType.IPV4
                || NetworkOrder.u8(segment, at + ArpFlyweight.HARDWARE_LENGTH_OFFSET) != 6
                || NetworkOrder.u8(segment, at + ArpFlyweight.PROTOCOL_LENGTH_OFFSET) != 4) {
            return ParseReason.BAD_ARP;
        }
        r.open(ParseResult.ARP);
        r.arpOperation = NetworkOrder.u16(segment, at + ArpFlyweight.OPERATION_OFFSET);
        r.arpSenderMac = NetworkOrder.u48(segment, at + ArpFlyweight.SENDER_MAC_OFFSET);
        r.arpSenderIp = NetworkOrder.u32(segment, at + ArpFlyweight.SENDER_IP_OFFSET);
        r.arpTargetMac = NetworkOrder.u48(segment, at + ArpFlyweight.TARGET_MAC_OFFSET);
        r.arpTargetIp = NetworkOrder.u32(segment, at + ArpFlyweight.TARGET_IP_OFFSET);
        return ParseReason.OK;
    }

    private static ParseReason parseMacControl(
            final MemorySegment segment, final long base, final int pos, final int length, final ParseResult r) {
        r.kind = FrameKind.MAC_CONTROL;
        if (pos + 2 > length) {
            return ParseReason.TRUNCATED_MAC_CONTROL;
        }
        final long at = base + pos;
        final int opcode = NetworkOrder.u16(segment, at);
        r.open(ParseResult.MAC_CONTROL);
        r.macControlOpcode = opcode;
        if (opcode == MacControlFlyweight.OPCODE_PAUSE) {
            if (pos + MacControlFlyweight.PAUSE_LENGTH > length) {
                return ParseReason.TRUNCATED_MAC_CONTROL;
            }
            r.pauseQuanta = NetworkOrder.u16(segment, at + MacControlFlyweight.PAUSE_TIME_OFFSET);
        } else if (opcode == MacControlFlyweight.OPCODE_PFC) {
            if (pos + MacControlFlyweight.PFC_LENGTH > length) {
                return ParseReason.TRUNCATED_MAC_CONTROL;
            }
            r.pfcClassEnableVector = NetworkOrder.u16(segment, at + MacControlFlyweight.PFC_CLASS_ENABLE_OFFSET);
        }
        return ParseReason.OK;
    }

    /** Walks the LLDPDU's TLVs: well formed when an End of LLDPDU TLV comes before the frame ends. */
    private ParseReason parseLldp(
            final MemorySegment segment, final long base, final int pos, final int length, final ParseResult r) {
        r.kind = FrameKind.LLDP;
        final int lldpduLength = length - pos;
        lldp.wrap(segment, base + pos, lldpduLength);
        int tlv = 0;
        while (tlv + LldpFlyweight.TLV_HEADER_LENGTH <= lldpduLength) {
            final int tlvLength = lldp.tlvLength(tlv);
            if (tlv + LldpFlyweight.TLV_HEADER_LENGTH + tlvLength > lldpduLength) {
                return ParseReason.BAD_LLDP;
            }
            if (lldp.tlvType(tlv) == LldpFlyweight.TLV_END) {
                return ParseReason.OK;
            }
            tlv = lldp.tlvValueOffset(tlv) + tlvLength;
        }
        return ParseReason.BAD_LLDP;
    }
}
