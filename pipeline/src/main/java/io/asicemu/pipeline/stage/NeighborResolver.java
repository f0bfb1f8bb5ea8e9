package io.asicemu.pipeline.stage;

import io.asicemu.parser.ArpFlyweight;
import io.asicemu.parser.EtherType;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.InternetChecksum;
import io.asicemu.parser.Ipv6Flyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.ParseResult;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.RouteTarget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Standalone mode's neighbor handling, on the data-plane thread: answers ARP requests and IPv6 neighbor solicitations
 * for the switch's own addresses by rewriting the received frame in place into the reply; learns neighbors from ARP
 * and NA/NS it receives (only addresses inside a connected subnet of the receiving interface); and sends ARP requests
 * or neighbor solicitations for unresolved next hops, at most one per address per {@link #RETRY_NS}.
 * <p>
 * Not thread safe; allocates nothing per packet (requests are built in a preallocated scratch frame).
 */
public final class NeighborResolver {
    /** Minimum gap between two requests for the same address. */
    public static final long RETRY_NS = 1_000_000_000L;

    private static final int PENDING = 256;
    private static final long BROADCAST = 0xffff_ffff_ffffL;
    private static final int ICMPV6 = 58;
    private static final int ND_OPTION_SOURCE_LL = 1;
    private static final int ND_OPTION_TARGET_LL = 2;
    private static final int NS_LENGTH = 32;

    private final EgressStage egress;
    private final FrameBuilder builder = new FrameBuilder();
    private final MemorySegment scratch = Arena.ofAuto().allocate(128, 64);
    private final Verdict requestVerdict = new Verdict();
    private final long[] pendingHigh = new long[PENDING];
    private final long[] pendingLow = new long[PENDING];
    private final long[] pendingNs = new long[PENDING];
    private final boolean[] pendingUsed = new boolean[PENDING];
    private ForwardingTables tables;
    private long requestsSent;
    private long announcementsSent;

    /**
     * @param egress where requests are sent.
     */
    public NeighborResolver(final EgressStage egress) {
        this.egress = egress;
    }

    void tables(final ForwardingTables current) {
        tables = current;
    }

    /**
     * A port came up (or was attached): requests sent while it was down were lost, so the next packet for any
     * unresolved next hop asks again at once instead of up to {@link #RETRY_NS} later. At a switch's start, or when a
     * lab link is plugged in, that second was most of the time from the link appearing to the first forwarded frame.
     */
    public void portUp() {
        java.util.Arrays.fill(pendingUsed, false);
    }

    /**
     * Announces the IPv4 address of the port's router interface with a gratuitous ARP request (sender and target
     * address both the interface's), as SONiC does by setting {@code arp_notify=1} on its interfaces: hosts that
     * were resolving their gateway while the link was down (Linux retries once a second) learn it at once, so a
     * switch that starts after its lab hosts forwards their traffic as soon as its port is up.
     *
     * @param port the port that came up.
     * @param nowNs the time.
     */
    public void announce(final int port, final long nowNs) {
        final ForwardingTables t = tables;
        final int rif = t.portRouterInterface(port);
        if (!t.standalone() || rif < 0 || !t.rifHasIpv4(rif)) {
            return;
        }
        final long myMac = t.rifMac(rif);
        final int ip = t.rifIpv4(rif);
        final int length = builder.reset()
                .macs(BROADCAST, myMac)
                .untagged()
                .buildArp(scratch, 0, ArpFlyweight.OP_REQUEST, myMac, ip, 0, ip);
        final Verdict v = requestVerdict;
        v.reset(-1);
        v.l2Length = 12;
        v.dstMac = BROADCAST;
        v.srcMac = myMac;
        v.vlan = t.routerInterfaceVlan(rif);
        v.action = Verdict.UNICAST;
        v.egressPort = port;
        egress.send(v, scratch, 0, length, nowNs);
        announcementsSent++;
    }

    /** @return gratuitous ARP requests sent when ports came up. */
    public long announcementsSent() {
        return announcementsSent;
    }

    /** @return ARP requests and neighbor solicitations sent. */
    public long requestsSent() {
        return requestsSent;
    }

    private boolean connected(final int rif, final long high, final long low, final boolean v6) {
        final int value = tables.routeTargetFor(v6, high, low);
        return RouteTarget.kind(value) == RouteTarget.CONNECTED && RouteTarget.id(value) == rif;
    }

    void learnArp(final int rif, final ParseResult p) {
        final long sender = p.arpSenderIp() & 0xffff_ffffL;
        if (sender != 0 && connected(rif, 0, sender, false)) {
            tables.neighbors().put(0, sender, false, p.arpSenderMac(), rif, false);
        }
    }

    /** Turns the ARP request in place into the reply and points the verdict back out of the ingress port. */
    void answerArp(final int rif, final ParseResult p, final Verdict v) {
        final MemorySegment s = p.segment();
        final long arp = p.frameOffset() + p.l3Offset();
        final long requesterMac = p.arpSenderMac();
        final int requesterIp = p.arpSenderIp();
        final int targetIp = p.arpTargetIp();
        final long myMac = tables.rifMac(rif);
        NetworkOrder.u16(s, arp + ArpFlyweight.OPERATION_OFFSET, ArpFlyweight.OP_REPLY);
        NetworkOrder.u48(s, arp + ArpFlyweight.SENDER_MAC_OFFSET, myMac);
        NetworkOrder.u32(s, arp + ArpFlyweight.SENDER_IP_OFFSET, targetIp);
        NetworkOrder.u48(s, arp + ArpFlyweight.TARGET_MAC_OFFSET, requesterMac);
        NetworkOrder.u32(s, arp + ArpFlyweight.TARGET_IP_OFFSET, requesterIp);
        v.action = Verdict.UNICAST;
        v.egressPort = v.ingressPort;
        v.dstMac = requesterMac;
        v.srcMac = myMac;
    }

    boolean ndTargetIsLocal(final ParseResult p) {
        if (p.l4Offset() < 0 || p.ipEnd() - p.l4Offset() < 24) {
            return false;
        }
        final long target = p.frameOffset() + p.l4Offset() + 8;
        final long high = NetworkOrder.u64(p.segment(), target);
        final long low = NetworkOrder.u64(p.segment(), target + 8);
        return RouteTarget.kind(tables.routeTargetFor(true, high, low)) == RouteTarget.LOCAL;
    }

    void learnNd(final int rif, final ParseResult p) {
        final MemorySegment s = p.segment();
        final long icmp = p.frameOffset() + p.l4Offset();
        final int icmpLength = p.ipEnd() - p.l4Offset();
        if (icmpLength < 32) {
            return;
        }
        final int type = NetworkOrder.u8(s, icmp);
        final int option = NetworkOrder.u8(s, icmp + 24);
        final long mac = NetworkOrder.u48(s, icmp + 26);
        long high = NetworkOrder.u64(s, icmp + 8);
        long low = NetworkOrder.u64(s, icmp + 16);
        if (type == 135) {
            if (option != ND_OPTION_SOURCE_LL) {
                return;
            }
            high = p.srcAddressHigh();
            low = p.srcAddressLow();
        } else if (option != ND_OPTION_TARGET_LL) {
            return;
        }
        if ((high | low) != 0 && connected(rif, high, low, true)) {
            tables.neighbors().put(high, low, true, mac, rif, false);
        }
    }

    /** Turns a neighbor solicitation in place into the advertisement (R, S, O set) back to the solicitor. */
    void answerNd(final int rif, final ParseResult p, final Verdict v) {
        final MemorySegment s = p.segment();
        final long ip = p.frameOffset() + p.l3Offset();
        final long icmp = p.frameOffset() + p.l4Offset();
        final int icmpLength = p.ipEnd() - p.l4Offset();
        final long srcHigh = p.srcAddressHigh();
        final long srcLow = p.srcAddressLow();
        if ((srcHigh | srcLow) == 0) {
            v.consume(io.asicemu.pipeline.counter.ConsumeReason.NEIGHBOR_ANSWER); // duplicate address detection
            return;
        }
        final long myMac = tables.rifMac(rif);
        long requesterMac = p.srcMac();
        final boolean hasOption = icmpLength >= NS_LENGTH && NetworkOrder.u8(s, icmp + 24) == ND_OPTION_SOURCE_LL;
        if (hasOption) {
            requesterMac = NetworkOrder.u48(s, icmp + 26);
            NetworkOrder.u8(s, icmp + 24, ND_OPTION_TARGET_LL);
            NetworkOrder.u48(s, icmp + 26, myMac);
        }
        final long targetHigh = NetworkOrder.u64(s, icmp + 8);
        final long targetLow = NetworkOrder.u64(s, icmp + 16);
        NetworkOrder.u64(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET, srcHigh);
        NetworkOrder.u64(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET + 8, srcLow);
        NetworkOrder.u64(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, targetHigh);
        NetworkOrder.u64(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET + 8, targetLow);
        NetworkOrder.u8(s, ip + Ipv6Flyweight.HOP_LIMIT_OFFSET, 255);
        NetworkOrder.u8(s, icmp, 136);
        NetworkOrder.u8(s, icmp + 1, 0);
        NetworkOrder.u32(s, icmp + 4, 0xE000_0000);
        icmpv6Checksum(s, ip, icmp, icmpLength);
        v.action = Verdict.UNICAST;
        v.egressPort = v.ingressPort;
        v.dstMac = requesterMac;
        v.srcMac = myMac;
    }

    /**
     * Turns an ICMP / ICMPv6 echo request to one of the switch's addresses in place into the echo reply (addresses
     * swapped, TTL 64, type 0 / 129, checksums updated incrementally), back out of the ingress port, so lab hosts
     * can ping their gateway.
     *
     * @return true if it was an echo request and the verdict now sends the reply.
     */
    boolean answerEcho(final int rif, final ParseResult p, final Verdict v) {
        final boolean v6 = p.ipVersion() == 6;
        if (p.l4Offset() < 0 || p.icmpType() != (v6 ? 128 : 8) || p.protocol() != (v6 ? ICMPV6 : 1)) {
            return false;
        }
        final MemorySegment s = p.segment();
        final long ip = p.frameOffset() + p.l3Offset();
        final long icmp = p.frameOffset() + p.l4Offset();
        if (v6) {
            final long srcHigh = NetworkOrder.u64(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET);
            final long srcLow = NetworkOrder.u64(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET + 8);
            MemorySegment.copy(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET, s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, 16);
            NetworkOrder.u64(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET, srcHigh);
            NetworkOrder.u64(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET + 8, srcLow);
            NetworkOrder.u8(s, ip + Ipv6Flyweight.HOP_LIMIT_OFFSET, 64);
        } else {
            final int src = NetworkOrder.u32(s, ip + 12);
            NetworkOrder.u32(s, ip + 12, NetworkOrder.u32(s, ip + 16));
            NetworkOrder.u32(s, ip + 16, src);
            final int oldTtlWord = NetworkOrder.u16(s, ip + 8);
            final int newTtlWord = (64 << 8) | (oldTtlWord & 0xff);
            NetworkOrder.u16(s, ip + 8, newTtlWord);
            NetworkOrder.u16(s, ip + 10, InternetChecksum.update(NetworkOrder.u16(s, ip + 10), oldTtlWord, newTtlWord));
        }
        final int oldTypeWord = NetworkOrder.u16(s, icmp);
        final int newTypeWord = ((v6 ? 129 : 0) << 8) | (oldTypeWord & 0xff);
        NetworkOrder.u16(s, icmp, newTypeWord);
        NetworkOrder.u16(s, icmp + 2, InternetChecksum.update(NetworkOrder.u16(s, icmp + 2), oldTypeWord, newTypeWord));
        v.action = Verdict.UNICAST;
        v.egressPort = v.ingressPort;
        v.dstMac = p.srcMac();
        v.srcMac = tables.rifMac(rif);
        return true;
    }

    private static void icmpv6Checksum(final MemorySegment s, final long ip, final long icmp, final int icmpLength) {
        NetworkOrder.u16(s, icmp + 2, 0);
        long sum = InternetChecksum.sum(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, 32);
        sum += icmpLength + ICMPV6;
        sum += InternetChecksum.sum(s, icmp, icmpLength);
        NetworkOrder.u16(s, icmp + 2, ~InternetChecksum.fold(sum) & 0xFFFF);
    }

    /**
     * Sends an ARP request or neighbor solicitation for an unresolved address, unless one went out recently.
     *
     * @param rif the interface the address sits behind.
     * @param high address high bits.
     * @param low address low bits.
     * @param v6 whether IPv6.
     * @param nowNs the time.
     */
    void resolve(final int rif, final long high, final long low, final boolean v6, final long nowNs) {
        final ForwardingTables t = tables;
        if (!t.standalone() || rif < 0 || (v6 ? !t.rifHasIpv6(rif) : !t.rifHasIpv4(rif))) {
            return;
        }
        final int slot = (int) ((high * 31 + low) ^ ((high * 31 + low) >>> 17)) & (PENDING - 1);
        if (pendingUsed[slot]
                && pendingHigh[slot] == high
                && pendingLow[slot] == low
                && nowNs - pendingNs[slot] < RETRY_NS) {
            return;
        }
        pendingUsed[slot] = true;
        pendingHigh[slot] = high;
        pendingLow[slot] = low;
        pendingNs[slot] = nowNs;
        final long myMac = t.rifMac(rif);
        final int length;
        final long dstMac;
        if (v6) {
            dstMac = 0x3333_ff00_0000L | (low & 0xff_ffffL);
            length = writeSolicitation(t, rif, high, low, dstMac, myMac);
        } else {
            dstMac = BROADCAST;
            length = builder.reset()
                    .macs(dstMac, myMac)
                    .untagged()
                    .buildArp(scratch, 0, ArpFlyweight.OP_REQUEST, myMac, t.rifIpv4(rif), 0, (int) low);
        }
        final Verdict v = requestVerdict;
        v.reset(-1);
        v.l2Length = 12;
        v.dstMac = dstMac;
        v.srcMac = myMac;
        v.vlan = t.routerInterfaceVlan(rif);
        final int port = t.routerInterfacePort(rif);
        if (port != ForwardingTables.NONE) {
            v.action = Verdict.UNICAST;
            v.egressPort = port;
        } else {
            v.action = Verdict.FLOOD;
        }
        egress.send(v, scratch, 0, length, nowNs);
        requestsSent++;
    }

    private int writeSolicitation(
            final ForwardingTables t,
            final int rif,
            final long high,
            final long low,
            final long dstMac,
            final long myMac) {
        final MemorySegment s = scratch;
        NetworkOrder.u48(s, 0, dstMac);
        NetworkOrder.u48(s, 6, myMac);
        NetworkOrder.u16(s, 12, EtherType.IPV6);
        final long ip = 14;
        NetworkOrder.u32(s, ip, 0x6000_0000);
        NetworkOrder.u16(s, ip + Ipv6Flyweight.PAYLOAD_LENGTH_OFFSET, NS_LENGTH);
        NetworkOrder.u8(s, ip + Ipv6Flyweight.NEXT_HEADER_OFFSET, ICMPV6);
        NetworkOrder.u8(s, ip + Ipv6Flyweight.HOP_LIMIT_OFFSET, 255);
        NetworkOrder.u64(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, t.rifIpv6High(rif));
        NetworkOrder.u64(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET + 8, t.rifIpv6Low(rif));
        NetworkOrder.u64(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET, 0xff02_0000_0000_0000L);
        NetworkOrder.u64(s, ip + Ipv6Flyweight.DST_ADDRESS_OFFSET + 8, 0x0000_0001_ff00_0000L | (low & 0xff_ffffL));
        final long icmp = ip + Ipv6Flyweight.HEADER_LENGTH;
        NetworkOrder.u8(s, icmp, 135);
        NetworkOrder.u8(s, icmp + 1, 0);
        NetworkOrder.u32(s, icmp + 4, 0);
        NetworkOrder.u64(s, icmp + 8, high);
        NetworkOrder.u64(s, icmp + 16, low);
        NetworkOrder.u8(s, icmp + 24, ND_OPTION_SOURCE_LL);
        NetworkOrder.u8(s, icmp + 25, 1);
        NetworkOrder.u48(s, icmp + 26, myMac);
        icmpv6Checksum(s, ip, icmp, NS_LENGTH);
        return 14 + 40 + NS_LENGTH;
    }
}
