package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * The reusable result of one {@link PacketParser#parse} call: primitive fields and header offsets of one frame. One
 * instance is reused for every packet (or kept per slot of a batch). Offsets are relative to the frame start
 * ({@link #frameOffset()} in the segment); an absent header has offset -1. Fields are valid up to the layer where
 * parsing stopped ({@link #reason()}). IPv4 addresses are the low 32 bits of {@code ...AddressLow} with
 * {@code ...AddressHigh} zero. Not thread safe.
 */
public final class ParseResult {
    MemorySegment segment = MemorySegment.NULL;
    long frameOffset;
    int frameLength;
    ParseReason reason = ParseReason.OK;
    FrameKind kind = FrameKind.UNKNOWN;

    long dstMac;
    long srcMac;
    int vlanCount;
    int outerTpid;
    int outerVlanId;
    int outerPcp;
    int outerDei;
    int innerVlanId;
    int innerPcp;
    int innerDei;
    int etherType;
    int l3Offset = -1;

    int ipVersion;
    int ipHeaderLength;
    int ipv4HeaderSum;
    int ipEnd;
    int dscp;
    int ecn;
    int ttl;
    int protocol;
    boolean fragment;
    boolean laterFragment;
    long srcAddressHigh;
    long srcAddressLow;
    long dstAddressHigh;
    long dstAddressLow;

    int l4Offset = -1;
    int srcPort;
    int dstPort;
    int tcpFlags;
    int icmpType;
    int icmpCode;
    int udpLength;

    int bthOffset = -1;
    int bthOpcode;
    int bthFlags;
    int bthPkey;
    int bthFecnBecn;
    int bthDestQp;
    boolean bthAckReq;
    int bthPsn;
    int roceExtOffset = -1;
    int rocePayloadOffset = -1;
    int icrcOffset = -1;

    int arpOperation;
    int arpSenderIp;
    int arpTargetIp;
    long arpSenderMac;
    long arpTargetMac;

    int macControlOpcode;
    int pfcClassEnableVector;
    int pauseQuanta;

    // Field groups. A frame's parse writes only the groups of the headers it reaches; the others must read as absent,
    // yet clearing all ~60 fields before every frame cost about a third of a RoCE frame's parse. So a group is
    // cleared only when the previous frame wrote it and this one does not write it whole.
    static final int VLAN = 1;
    static final int IP = 1 << 1;
    static final int L4 = 1 << 2;
    static final int BTH = 1 << 3;
    static final int ARP = 1 << 4;
    static final int MAC_CONTROL = 1 << 5;
    private static final int ALL_GROUPS = (1 << 6) - 1;

    /** Groups the current (or last) parse wrote; a fresh result counts as all written, so its first parse clears. */
    int groups = ALL_GROUPS;
    /** Groups the previous parse wrote (during a parse): they hold its values until cleared or overwritten. */
    private int stale;

    /**
     * Starts a frame: sets the always-written fields and remembers which groups hold the previous frame's values.
     * The parser then writes each group it reaches either whole ({@code groups |= g}) or after {@link #open};
     * {@link #finish} clears what is left over.
     */
    void reset(final MemorySegment segment, final long frameOffset, final int frameLength) {
        this.segment = segment;
        this.frameOffset = frameOffset;
        this.frameLength = frameLength;
        reason = ParseReason.OK;
        kind = FrameKind.UNKNOWN;
        dstMac = 0;
        srcMac = 0;
        etherType = 0;
        l3Offset = -1;
        stale = groups;
        groups = 0;
    }

    /** The parser is about to write some of group {@code g}'s fields: the previous frame's values go first. */
    void open(final int g) {
        if ((stale & g) != 0) {
            clear(g);
        }
        groups |= g;
    }

    /** Ends a frame: groups the previous frame wrote and this one did not read as absent again. */
    void finish() {
        final int left = stale & ~groups;
        if (left != 0) {
            clear(left);
        }
    }

    private void clear(final int g) {
        if ((g & VLAN) != 0) {
            vlanCount = 0;
            outerTpid = 0;
            outerVlanId = 0;
            outerPcp = 0;
            outerDei = 0;
            innerVlanId = 0;
            innerPcp = 0;
            innerDei = 0;
        }
        if ((g & IP) != 0) {
            ipVersion = 0;
            ipHeaderLength = 0;
            ipv4HeaderSum = 0;
            ipEnd = 0;
            dscp = 0;
            ecn = 0;
            ttl = 0;
            protocol = -1;
            fragment = false;
            laterFragment = false;
            srcAddressHigh = 0;
            srcAddressLow = 0;
            dstAddressHigh = 0;
            dstAddressLow = 0;
        }
        if ((g & L4) != 0) {
            l4Offset = -1;
            srcPort = 0;
            dstPort = 0;
            tcpFlags = 0;
            icmpType = 0;
            icmpCode = 0;
            udpLength = 0;
        }
        if ((g & BTH) != 0) {
            bthOffset = -1;
            bthOpcode = 0;
            bthFlags = 0;
            bthPkey = 0;
            bthFecnBecn = 0;
            bthDestQp = 0;
            bthAckReq = false;
            bthPsn = 0;
            roceExtOffset = -1;
            rocePayloadOffset = -1;
            icrcOffset = -1;
        }
        if ((g & ARP) != 0) {
            arpOperation = 0;
            arpSenderIp = 0;
            arpTargetIp = 0;
            arpSenderMac = 0;
            arpTargetMac = 0;
        }
        if ((g & MAC_CONTROL) != 0) {
            macControlOpcode = 0;
            pfcClassEnableVector = 0;
            pauseQuanta = 0;
        }
    }

    /** The segment holding the frame. */
    public MemorySegment segment() {
        return segment;
    }

    /** Absolute offset of the frame in {@link #segment()}. */
    public long frameOffset() {
        return frameOffset;
    }

    /** Frame length in bytes (without FCS). */
    public int frameLength() {
        return frameLength;
    }

    /** {@link ParseReason#OK} or the first problem found. */
    public ParseReason reason() {
        return reason;
    }

    /** Whether the frame parsed without a problem. */
    public boolean ok() {
        return reason == ParseReason.OK;
    }

    /** What the EtherType says the frame carries. */
    public FrameKind kind() {
        return kind;
    }

    /** Destination MAC (low 48 bits). */
    public long dstMac() {
        return dstMac;
    }

    /** Source MAC (low 48 bits). */
    public long srcMac() {
        return srcMac;
    }

    /** Number of VLAN tags (0..2). */
    public int vlanCount() {
        return vlanCount;
    }

    /** TPID of the outer tag (0x8100 or 0x88A8), 0 if untagged. */
    public int outerTpid() {
        return outerTpid;
    }

    /** VID of the outer tag, 0 if untagged. */
    public int outerVlanId() {
        return outerVlanId;
    }

    /** PCP of the outer tag, 0 if untagged. */
    public int outerPcp() {
        return outerPcp;
    }

    /** DEI of the outer tag. */
    public int outerDei() {
        return outerDei;
    }

    /** VID of the inner tag (second tag), 0 if fewer than two tags. */
    public int innerVlanId() {
        return innerVlanId;
    }

    /** PCP of the inner tag. */
    public int innerPcp() {
        return innerPcp;
    }

    /** DEI of the inner tag. */
    public int innerDei() {
        return innerDei;
    }

    /** Offset of the outer VLAN tag (12) or -1 if untagged. */
    public int outerVlanOffset() {
        return vlanCount > 0 ? EthernetFlyweight.ETHER_TYPE_OFFSET : -1;
    }

    /** EtherType after the VLAN tags. */
    public int etherType() {
        return etherType;
    }

    /** Offset of the header after the EtherType (IP, ARP, MAC control, LLDP), -1 if not reached. */
    public int l3Offset() {
        return l3Offset;
    }

    /** 4, 6, or 0 for non-IP. */
    public int ipVersion() {
        return ipVersion;
    }

    /** IPv4 header length (with options) or 40 plus the IPv6 extension headers walked. */
    public int ipHeaderLength() {
        return ipHeaderLength;
    }

    /**
     * The RFC 1071 one's-complement sum (folded, not inverted) of the IPv4 header as parsed, options and checksum
     * field included: {@code 0xFFFF} when the header checksum is valid. 0 when the frame is not IPv4. Summed from
     * the words the parser loads anyway, so a router's checksum check reads no header byte again.
     */
    public int ipv4HeaderSum() {
        return ipv4HeaderSum;
    }

    /** Frame offset one past the IP datagram (l3Offset + total length); padding after it is ignored. */
    public int ipEnd() {
        return ipEnd;
    }

    /** DSCP of IPv4 TOS or IPv6 traffic class. */
    public int dscp() {
        return dscp;
    }

    /** ECN codepoint (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
    public int ecn() {
        return ecn;
    }

    /** IPv4 TTL or IPv6 hop limit. */
    public int ttl() {
        return ttl;
    }

    /** IPv4 protocol or the IPv6 upper-layer next header after extension headers; -1 if not IP. */
    public int protocol() {
        return protocol;
    }

    /** Whether the datagram is a fragment (IPv4 MF or offset, IPv6 fragment header). */
    public boolean fragment() {
        return fragment;
    }

    /** Whether it is a non-first fragment (no transport header). */
    public boolean laterFragment() {
        return laterFragment;
    }

    /** High 64 bits of the IPv6 source address (0 for IPv4). */
    public long srcAddressHigh() {
        return srcAddressHigh;
    }

    /** Low 64 bits of the IPv6 source address, or the IPv4 source address as an unsigned value. */
    public long srcAddressLow() {
        return srcAddressLow;
    }

    /** High 64 bits of the IPv6 destination address (0 for IPv4). */
    public long dstAddressHigh() {
        return dstAddressHigh;
    }

    /** Low 64 bits of the IPv6 destination address, or the IPv4 destination address as an unsigned value. */
    public long dstAddressLow() {
        return dstAddressLow;
    }

    /** IPv4 source address. */
    public int ipv4Src() {
        return (int) srcAddressLow;
    }

    /** IPv4 destination address. */
    public int ipv4Dst() {
        return (int) dstAddressLow;
    }

    /** Offset of the transport header, -1 if none (non-IP, later fragment, no next header). */
    public int l4Offset() {
        return l4Offset;
    }

    /** UDP/TCP source port. */
    public int srcPort() {
        return srcPort;
    }

    /** UDP/TCP destination port. */
    public int dstPort() {
        return dstPort;
    }

    /** TCP flags (low 8 bits of the flags word). */
    public int tcpFlags() {
        return tcpFlags;
    }

    /** ICMP/ICMPv6 type. */
    public int icmpType() {
        return icmpType;
    }

    /** ICMP/ICMPv6 code. */
    public int icmpCode() {
        return icmpCode;
    }

    /** UDP length field. */
    public int udpLength() {
        return udpLength;
    }

    /** Whether this is RoCEv2 (UDP destination port 4791 with a BTH). */
    public boolean roce() {
        return bthOffset >= 0;
    }

    /** Whether this is a RoCEv2 CNP (opcode 0x81). */
    public boolean cnp() {
        return bthOffset >= 0 && bthOpcode == RoceOpcode.CNP;
    }

    /** Offset of the BTH, -1 if not RoCEv2. */
    public int bthOffset() {
        return bthOffset;
    }

    /** BTH opcode. */
    public int bthOpcode() {
        return bthOpcode;
    }

    /** BTH SE/MigReq/PadCnt/TVer byte. */
    public int bthFlags() {
        return bthFlags;
    }

    /** BTH partition key. */
    public int bthPkey() {
        return bthPkey;
    }

    /** BTH FECN/BECN/reserved byte. */
    public int bthFecnBecn() {
        return bthFecnBecn;
    }

    /** Whether BECN is set. */
    public boolean bthBecn() {
        return (bthFecnBecn & BthFlyweight.BECN_BIT) != 0;
    }

    /** Whether FECN is set. */
    public boolean bthFecn() {
        return (bthFecnBecn & BthFlyweight.FECN_BIT) != 0;
    }

    /** BTH destination QP (24 bits). */
    public int bthDestQp() {
        return bthDestQp;
    }

    /** BTH AckReq bit. */
    public boolean bthAckReq() {
        return bthAckReq;
    }

    /** BTH PSN (24 bits). */
    public int bthPsn() {
        return bthPsn;
    }

    /** Offset of the first extended transport header (RETH/AETH/DETH/ImmDt, CNP body) or -1 if none. */
    public int roceExtOffset() {
        return roceExtOffset;
    }

    /** Offset of the RETH, or -1. */
    public int rethOffset() {
        return bthOffset >= 0 && RoceOpcode.hasReth(bthOpcode) ? roceExtOffset : -1;
    }

    /** Offset of the AETH, or -1. */
    public int aethOffset() {
        return bthOffset >= 0 && RoceOpcode.hasAeth(bthOpcode) ? roceExtOffset : -1;
    }

    /** Offset of the DETH, or -1. */
    public int dethOffset() {
        return bthOffset >= 0 && RoceOpcode.hasDeth(bthOpcode) ? roceExtOffset : -1;
    }

    /** Offset of the RoCE payload (after BTH and extended headers), -1 if not RoCEv2. */
    public int rocePayloadOffset() {
        return rocePayloadOffset;
    }

    /** Offset of the 4-byte ICRC (the last 4 bytes of the UDP payload), -1 if not RoCEv2. */
    public int icrcOffset() {
        return icrcOffset;
    }

    /** ARP operation (1 request, 2 reply). */
    public int arpOperation() {
        return arpOperation;
    }

    /** ARP sender protocol address. */
    public int arpSenderIp() {
        return arpSenderIp;
    }

    /** ARP target protocol address. */
    public int arpTargetIp() {
        return arpTargetIp;
    }

    /** ARP sender hardware address. */
    public long arpSenderMac() {
        return arpSenderMac;
    }

    /** ARP target hardware address. */
    public long arpTargetMac() {
        return arpTargetMac;
    }

    /** MAC control opcode (0x0001 PAUSE, 0x0101 PFC), 0 if not MAC control. */
    public int macControlOpcode() {
        return macControlOpcode;
    }

    /** Whether this is an 802.1Qbb PFC frame. */
    public boolean pfc() {
        return kind == FrameKind.MAC_CONTROL && macControlOpcode == MacControlFlyweight.OPCODE_PFC;
    }

    /** Whether this is an 802.3x PAUSE frame. */
    public boolean pause() {
        return kind == FrameKind.MAC_CONTROL && macControlOpcode == MacControlFlyweight.OPCODE_PAUSE;
    }

    /** PFC class-enable vector (bit n: quanta of priority n valid). */
    public int pfcClassEnableVector() {
        return pfcClassEnableVector;
    }

    /** PFC quanta of {@code priority} (0..7), read from the frame. Only valid when {@link #pfc()}. */
    public int pfcQuanta(final int priority) {
        return NetworkOrder.u16(
                segment, frameOffset + l3Offset + MacControlFlyweight.PFC_QUANTA_OFFSET + 2L * (priority & 0x7));
    }

    /** 802.3x pause time in quanta. Only valid when {@link #pause()}. */
    public int pauseQuanta() {
        return pauseQuanta;
    }
}
