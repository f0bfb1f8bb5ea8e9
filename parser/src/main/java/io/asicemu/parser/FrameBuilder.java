package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * Writes test and demo frames into a segment: Ethernet with up to two VLAN tags, IPv4 (valid header checksum) or IPv6,
 * UDP, RoCEv2 (BTH with QP/PSN/opcode, RETH/AETH as set (other extended headers zeroed), patterned payload and a correct ICRC), CNP, ARP and
 * ICMP echo. Configure with the fluent setters (they persist between builds), then call a {@code build...} method,
 * which returns the frame length. Frames shorter than 60 bytes are zero-padded to 60 (the minimum without FCS)
 * unless {@link #padToMinimum(boolean)} is off. Builds allocate nothing. Not thread safe.
 */
public final class FrameBuilder {
    /** Minimum Ethernet frame length without FCS. */
    public static final int MIN_FRAME_LENGTH = 60;

    private final ParseResult scratch = new ParseResult();
    private final PacketParser parser = new PacketParser(0, Integer.MAX_VALUE);
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final VlanTagFlyweight vlanTag = new VlanTagFlyweight();
    private final ArpFlyweight arp = new ArpFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final IcmpFlyweight icmp = new IcmpFlyweight();
    private final UdpFlyweight udpHeader = new UdpFlyweight();
    private final BthFlyweight bthHeader = new BthFlyweight();
    private final RethFlyweight rethHeader = new RethFlyweight();
    private final AethFlyweight aethHeader = new AethFlyweight();

    private long dstMac = 0x020000000002L;
    private long srcMac = 0x020000000001L;
    private int vlanCount;
    private int outerTpid = EtherType.VLAN;
    private int outerVlanId;
    private int outerPcp;
    private int innerVlanId;
    private int innerPcp;
    private int ipVersion = 4;
    private int ipv4Src = 0x0A000001;
    private int ipv4Dst = 0x0A000002;
    private long ipv6SrcHigh = 0x2001_0db8_0000_0000L;
    private long ipv6SrcLow = 1;
    private long ipv6DstHigh = 0x2001_0db8_0000_0000L;
    private long ipv6DstLow = 2;
    private int dscp;
    private int ecn;
    private int ttl = 64;
    private int identification = 1;
    private boolean dontFragment = true;
    private int flowLabel;
    private int srcPort = 49152;
    private int dstPort = EtherType.ROCEV2_UDP_PORT;
    private boolean udpChecksum;
    private int bthOpcode = RoceOpcode.RC_SEND_ONLY;
    private int destQp = 0x123;
    private int psn;
    private int pkey = 0xFFFF;
    private boolean ackReq;
    private int fecnBecn;
    private int payloadSeed;
    private boolean padToMinimum = true;
    private long rethVirtualAddress;
    private int rethRkey;
    private int rethDmaLength;
    private int aethSyndrome;
    private int aethMsn;

    /** Restores every setting to its default (02:00:00:00:00:01 → :02, untagged IPv4 10.0.0.1 → 10.0.0.2, TTL 64). */
    public FrameBuilder reset() {
        rethVirtualAddress = 0;
        rethRkey = 0;
        rethDmaLength = 0;
        aethSyndrome = 0;
        aethMsn = 0;
        dstMac = 0x020000000002L;
        srcMac = 0x020000000001L;
        vlanCount = 0;
        outerTpid = EtherType.VLAN;
        outerVlanId = 0;
        outerPcp = 0;
        innerVlanId = 0;
        innerPcp = 0;
        ipVersion = 4;
        ipv4Src = 0x0A000001;
        ipv4Dst = 0x0A000002;
        ipv6SrcHigh = 0x2001_0db8_0000_0000L;
        ipv6SrcLow = 1;
        ipv6DstHigh = 0x2001_0db8_0000_0000L;
        ipv6DstLow = 2;
        dscp = 0;
        ecn = 0;
        ttl = 64;
        identification = 1;
        dontFragment = true;
        flowLabel = 0;
        srcPort = 49152;
        dstPort = EtherType.ROCEV2_UDP_PORT;
        udpChecksum = false;
        bthOpcode = RoceOpcode.RC_SEND_ONLY;
        destQp = 0x123;
        psn = 0;
        pkey = 0xFFFF;
        ackReq = false;
        fecnBecn = 0;
        payloadSeed = 0;
        padToMinimum = true;
        return this;
    }

    /** Destination and source MAC. */
    public FrameBuilder macs(final long dst, final long src) {
        dstMac = dst;
        srcMac = src;
        return this;
    }

    /** No VLAN tag. */
    public FrameBuilder untagged() {
        vlanCount = 0;
        return this;
    }

    /** One 802.1Q tag. */
    public FrameBuilder vlan(final int vlanId, final int pcp) {
        vlanCount = 1;
        outerTpid = EtherType.VLAN;
        outerVlanId = vlanId;
        outerPcp = pcp;
        return this;
    }

    /** Two tags: an outer tag with {@code outerTpid} (0x88A8 or 0x8100) and an inner 802.1Q tag. */
    public FrameBuilder doubleTagged(
            final int outerTpid, final int outerVlanId, final int outerPcp, final int innerVlanId, final int innerPcp) {
        vlanCount = 2;
        this.outerTpid = outerTpid;
        this.outerVlanId = outerVlanId;
        this.outerPcp = outerPcp;
        this.innerVlanId = innerVlanId;
        this.innerPcp = innerPcp;
        return this;
    }

    /** IPv4 with these addresses. */
    public FrameBuilder ipv4(final int src, final int dst) {
        ipVersion = 4;
        ipv4Src = src;
        ipv4Dst = dst;
        return this;
    }

    /** IPv6 with these addresses (high and low 64 bits each). */
    public FrameBuilder ipv6(final long srcHigh, final long srcLow, final long dstHigh, final long dstLow) {
        ipVersion = 6;
        ipv6SrcHigh = srcHigh;
        ipv6SrcLow = srcLow;
        ipv6DstHigh = dstHigh;
        ipv6DstLow = dstLow;
        return this;
    }

    /** DSCP (0..63). */
    public FrameBuilder dscp(final int dscp) {
        this.dscp = dscp & 0x3F;
        return this;
    }

    /** ECN codepoint (0..3). */
    public FrameBuilder ecn(final int ecn) {
        this.ecn = ecn & 0x3;
        return this;
    }

    /** TTL / hop limit. */
    public FrameBuilder ttl(final int ttl) {
        this.ttl = ttl & 0xFF;
        return this;
    }

    /** IPv4 identification. */
    public FrameBuilder identification(final int identification) {
        this.identification = identification & 0xFFFF;
        return this;
    }

    /** IPv4 don't-fragment bit. */
    public FrameBuilder dontFragment(final boolean dontFragment) {
        this.dontFragment = dontFragment;
        return this;
    }

    /** IPv6 flow label. */
    public FrameBuilder flowLabel(final int flowLabel) {
        this.flowLabel = flowLabel & 0xFFFFF;
        return this;
    }

    /** UDP ports (the destination is 4791 for RoCEv2 by default). */
    public FrameBuilder udpPorts(final int src, final int dst) {
        srcPort = src & 0xFFFF;
        dstPort = dst & 0xFFFF;
        return this;
    }

    /** Whether to compute the UDP checksum over IPv4 (IPv6 always gets one). */
    public FrameBuilder udpChecksum(final boolean udpChecksum) {
        this.udpChecksum = udpChecksum;
        return this;
    }

    /** BTH opcode, destination QP and PSN. */
    public FrameBuilder bth(final int opcode, final int destQp, final int psn) {
        bthOpcode = opcode & 0xFF;
        this.destQp = destQp & 0xFFFFFF;
        this.psn = psn & 0xFFFFFF;
        return this;
    }

    /** BTH partition key. */
    public FrameBuilder pkey(final int pkey) {
        this.pkey = pkey & 0xFFFF;
        return this;
    }

    /** BTH AckReq bit. */
    public FrameBuilder ackReq(final boolean ackReq) {
        this.ackReq = ackReq;
        return this;
    }

    /** BTH FECN/BECN/reserved byte (0x80 FECN, 0x40 BECN). */
    public FrameBuilder fecnBecn(final int fecnBecn) {
        this.fecnBecn = fecnBecn & 0xFF;
        return this;
    }

    /** RETH fields, written when the opcode carries a RETH (RDMA WRITE first/only, READ request). */
    public FrameBuilder reth(final long virtualAddress, final int rkey, final int dmaLength) {
        rethVirtualAddress = virtualAddress;
        rethRkey = rkey;
        rethDmaLength = dmaLength;
        return this;
    }

    /** AETH fields, written when the opcode carries an AETH (ACK, READ response first/last/only). */
    public FrameBuilder aeth(final int syndrome, final int msn) {
        aethSyndrome = syndrome & 0xFF;
        aethMsn = msn & 0xFFFFFF;
        return this;
    }

    /** Payload byte i is {@code (seed + i) & 0xFF}. */
    public FrameBuilder payloadSeed(final int seed) {
        payloadSeed = seed;
        return this;
    }

    /** Whether short frames are zero-padded to 60 bytes. */
    public FrameBuilder padToMinimum(final boolean pad) {
        padToMinimum = pad;
        return this;
    }

    /**
     * RoCEv2: Eth[/VLAN]/IP/UDP/BTH/extended headers (zeroed)/payload/ICRC with a valid IPv4 checksum and ICRC.
     * {@code payloadLength} counts the bytes after BTH and extended headers, before the ICRC.
     */
    public int buildRoce(final MemorySegment segment, final long offset, final int payloadLength) {
        final int extLength = RoceOpcode.extendedHeadersLength(bthOpcode);
        final int udpPayload = BthFlyweight.HEADER_LENGTH + extLength + payloadLength + BthFlyweight.ICRC_LENGTH;
        final int udp = writeHeadersToUdp(segment, offset, udpPayload, EtherType.PROTO_UDP);
        final long bth = offset + udp + UdpFlyweight.HEADER_LENGTH;
        bthHeader
                .wrap(segment, bth, udpPayload)
                .opcode(bthOpcode)
                .flags(0)
                .pkey(pkey)
                .fecnBecnByte(fecnBecn)
                .destQp(destQp)
                .ackReq(ackReq)
                .psn(psn);
        final long ext = bth + BthFlyweight.HEADER_LENGTH;
        segment.asSlice(ext, extLength).fill((byte) 0);
        long next = ext;
        if (RoceOpcode.hasReth(bthOpcode)) {
            rethHeader
                    .wrap(segment, next, RethFlyweight.HEADER_LENGTH)
                    .virtualAddress(rethVirtualAddress)
                    .rkey(rethRkey)
                    .dmaLength(rethDmaLength);
            next += RethFlyweight.HEADER_LENGTH;
        }
        if (RoceOpcode.hasAeth(bthOpcode)) {
            aethHeader
                    .wrap(segment, next, AethFlyweight.HEADER_LENGTH)
                    .syndrome(aethSyndrome)
                    .msn(aethMsn);
        }
        fillPayload(segment, ext + extLength, payloadLength);
        final int length = udp + UdpFlyweight.HEADER_LENGTH + udpPayload;
        parser.parse(segment, offset, length, scratch);
        Icrc.write(scratch);
        // The UDP checksum covers the ICRC, and the ICRC masks the UDP checksum: ICRC first.
        finishUdp(segment, offset, udp, udpPayload);
        return pad(segment, offset, length);
    }

    /** RoCEv2 CNP (opcode 0x81, BECN set, 16 reserved bytes, ICRC) to {@code destQp}. */
    public int buildCnp(final MemorySegment segment, final long offset, final int destQp) {
        final int savedOpcode = bthOpcode;
        final int savedQp = this.destQp;
        final int savedFecnBecn = fecnBecn;
        final boolean savedAckReq = ackReq;
        bthOpcode = RoceOpcode.CNP;
        this.destQp = destQp & 0xFFFFFF;
        fecnBecn = BthFlyweight.BECN_BIT;
        ackReq = false;
        try {
            return buildRoce(segment, offset, 0);
        } finally {
            bthOpcode = savedOpcode;
            this.destQp = savedQp;
            fecnBecn = savedFecnBecn;
            ackReq = savedAckReq;
        }
    }

    /** Plain UDP datagram with {@code payloadLength} patterned payload bytes (uses the UDP ports set). */
    public int buildUdp(final MemorySegment segment, final long offset, final int payloadLength) {
        final int udp = writeHeadersToUdp(segment, offset, payloadLength, EtherType.PROTO_UDP);
        fillPayload(segment, offset + udp + UdpFlyweight.HEADER_LENGTH, payloadLength);
        finishUdp(segment, offset, udp, payloadLength);
        return pad(segment, offset, udp + UdpFlyweight.HEADER_LENGTH + payloadLength);
    }

    /** ICMP (IPv4) or ICMPv6 echo request with {@code payloadLength} patterned bytes and a valid checksum. */
    public int buildIcmpEcho(
            final MemorySegment segment,
            final long offset,
            final int identifier,
            final int sequence,
            final int payloadLength) {
        final int protocol = ipVersion == 4 ? EtherType.PROTO_ICMP : EtherType.PROTO_ICMPV6;
        final int icmpLength = IcmpFlyweight.ECHO_HEADER_LENGTH + payloadLength;
        final int l4 = writeIpHeaders(segment, offset, icmpLength, protocol);
        final long at = offset + l4;
        icmp.wrap(segment, at, icmpLength)
                .type(ipVersion == 4 ? IcmpFlyweight.TYPE_ECHO_REQUEST : IcmpFlyweight.TYPE_V6_ECHO_REQUEST)
                .code(0)
                .checksum(0)
                .identifier(identifier)
                .sequence(sequence);
        fillPayload(segment, at + IcmpFlyweight.ECHO_HEADER_LENGTH, payloadLength);
        long sum = InternetChecksum.sum(segment, at, icmpLength);
        if (ipVersion == 6) {
            sum += pseudoHeaderSum(segment, offset + l4 - Ipv6Flyweight.HEADER_LENGTH, protocol, icmpLength);
        }
        icmp.checksum(~InternetChecksum.fold(sum) & 0xFFFF);
        return pad(segment, offset, l4 + icmpLength);
    }

    /** ARP (Ethernet/IPv4) with the configured MACs and VLAN tags in the Ethernet header. */
    public int buildArp(
            final MemorySegment segment,
            final long offset,
            final int operation,
            final long senderMac,
            final int senderIp,
            final long targetMac,
            final int targetIp) {
        final int l3 = writeL2(segment, offset, EtherType.ARP);
        arp.wrap(segment, offset + l3, ArpFlyweight.LENGTH)
                .ethernetIpv4()
                .operation(operation)
                .senderMac(senderMac)
                .senderIp(senderIp)
                .targetMac(targetMac)
                .targetIp(targetIp);
        return pad(segment, offset, l3 + ArpFlyweight.LENGTH);
    }

    /** Writes Ethernet and VLAN tags ending with {@code etherType}; returns the frame offset of the next header. */
    public int writeL2(final MemorySegment segment, final long offset, final int etherType) {
        ethernet.wrap(segment, offset, EthernetFlyweight.HEADER_LENGTH)
                .dstMac(dstMac)
                .srcMac(srcMac);
        int pos = EthernetFlyweight.ETHER_TYPE_OFFSET;
        if (vlanCount >= 1) {
            vlanTag.wrap(segment, offset + pos, VlanTagFlyweight.TAG_LENGTH)
                    .tpid(outerTpid)
                    .tci((outerPcp << 13) | (outerVlanId & 0xFFF));
            pos += VlanTagFlyweight.TAG_LENGTH;
        }
        if (vlanCount == 2) {
            vlanTag.wrap(segment, offset + pos, VlanTagFlyweight.TAG_LENGTH)
                    .tpid(EtherType.VLAN)
                    .tci((innerPcp << 13) | (innerVlanId & 0xFFF));
            pos += VlanTagFlyweight.TAG_LENGTH;
        }
        NetworkOrder.u16(segment, offset + pos, etherType);
        return pos + 2;
    }

    private int writeHeadersToUdp(
            final MemorySegment segment, final long offset, final int udpPayloadLength, final int protocol) {
        final int udp = writeIpHeaders(segment, offset, UdpFlyweight.HEADER_LENGTH + udpPayloadLength, protocol);
        udpHeader
                .wrap(segment, offset + udp, UdpFlyweight.HEADER_LENGTH + udpPayloadLength)
                .srcPort(srcPort)
                .dstPort(dstPort)
                .udpLength(UdpFlyweight.HEADER_LENGTH + udpPayloadLength)
                .checksum(0);
        return udp;
    }

    private int writeIpHeaders(
            final MemorySegment segment, final long offset, final int ipPayloadLength, final int protocol) {
        final int l3 = writeL2(segment, offset, ipVersion == 4 ? EtherType.IPV4 : EtherType.IPV6);
        final long ip = offset + l3;
        final int tos = (dscp << 2) | ecn;
        if (ipVersion == 4) {
            ipv4.wrap(segment, ip, Ipv4Flyweight.MIN_HEADER_LENGTH)
                    .versionAndIhl(Ipv4Flyweight.MIN_HEADER_LENGTH / 4)
                    .tos(tos)
                    .totalLength(Ipv4Flyweight.MIN_HEADER_LENGTH + ipPayloadLength)
                    .identification(identification)
                    .flagsAndFragmentOffset(dontFragment ? 0x4000 : 0)
                    .ttl(ttl)
                    .protocol(protocol)
                    .checksum(0)
                    .srcAddress(ipv4Src)
                    .dstAddress(ipv4Dst)
                    .checksum(InternetChecksum.checksum(segment, ip, Ipv4Flyweight.MIN_HEADER_LENGTH));
            return l3 + Ipv4Flyweight.MIN_HEADER_LENGTH;
        }
        ipv6.wrap(segment, ip, Ipv6Flyweight.HEADER_LENGTH)
                .versionClassFlow(tos, flowLabel)
                .payloadLength(ipPayloadLength)
                .nextHeader(protocol)
                .hopLimit(ttl)
                .srcAddress(ipv6SrcHigh, ipv6SrcLow)
                .dstAddress(ipv6DstHigh, ipv6DstLow);
        return l3 + Ipv6Flyweight.HEADER_LENGTH;
    }

    private void finishUdp(final MemorySegment segment, final long offset, final int udp, final int payloadLength) {
        if (ipVersion == 4 && !udpChecksum) {
            return;
        }
        final int udpLength = UdpFlyweight.HEADER_LENGTH + payloadLength;
        final long at = offset + udp;
        final long ip = ipVersion == 4 ? at - Ipv4Flyweight.MIN_HEADER_LENGTH : at - Ipv6Flyweight.HEADER_LENGTH;
        final long sum = (long) InternetChecksum.sum(segment, at, udpLength)
                + pseudoHeaderSum(segment, ip, EtherType.PROTO_UDP, udpLength);
        int checksum = ~InternetChecksum.fold(sum) & 0xFFFF;
        if (checksum == 0) {
            checksum = 0xFFFF;
        }
        NetworkOrder.u16(segment, at + UdpFlyweight.CHECKSUM_OFFSET, checksum);
    }

    private int pseudoHeaderSum(final MemorySegment segment, final long ip, final int protocol, final int length) {
        if (ipVersion == 4) {
            return InternetChecksum.fold(
                    (long) InternetChecksum.sum(segment, ip + Ipv4Flyweight.SRC_ADDRESS_OFFSET, 8) + protocol + length);
        }
        return InternetChecksum.fold(
                (long) InternetChecksum.sum(segment, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, 32) + protocol + length);
    }

    private void fillPayload(final MemorySegment segment, final long at, final int length) {
        for (int i = 0; i < length; i++) {
            NetworkOrder.u8(segment, at + i, payloadSeed + i);
        }
    }

    private int pad(final MemorySegment segment, final long offset, final int length) {
        if (!padToMinimum || length >= MIN_FRAME_LENGTH) {
            return length;
        }
        segment.asSlice(offset + length, MIN_FRAME_LENGTH - length).fill((byte) 0);
        return MIN_FRAME_LENGTH;
    }
}
