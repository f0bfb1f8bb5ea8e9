package io.asicemu.pipeline.stage;

import io.asicemu.parser.ArpFlyweight;
import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.IcmpFlyweight;
import io.asicemu.parser.InternetChecksum;
import io.asicemu.parser.Ipv4Flyweight;
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
    private static final int NS_LENGTH = IcmpFlyweight.ND_LENGTH_WITH_LL_OPTION;
    private static final int SOLICITATION_LENGTH =
            EthernetFlyweight.HEADER_LENGTH + Ipv6Flyweight.HEADER_LENGTH + NS_LENGTH;

    private final EgressStage egress;
    private final FrameBuilder builder = new FrameBuilder();
    private final MemorySegment scratch = Arena.ofAuto().allocate(128, 64);
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final ArpFlyweight arp = new ArpFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final IcmpFlyweight icmp = new IcmpFlyweight();
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
        v.l2Length = EthernetFlyweight.ETHER_TYPE_OFFSET;
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
        final long requesterMac = p.arpSenderMac();
        final int requesterIp = p.arpSenderIp();
        final int targetIp = p.arpTargetIp();
        final long myMac = tables.rifMac(rif);
        arp.wrap(p.segment(), p.frameOffset() + p.l3Offset(), ArpFlyweight.LENGTH)
                .operation(ArpFlyweight.OP_REPLY)
                .senderMac(myMac)
                .senderIp(targetIp)
                .targetMac(requesterMac)
                .targetIp(requesterIp);
        v.action = Verdict.UNICAST;
        v.egressPort = v.ingressPort;
        v.dstMac = requesterMac;
        v.srcMac = myMac;
    }

    boolean ndTargetIsLocal(final ParseResult p) {
        if (p.l4Offset() < 0 || p.ipEnd() - p.l4Offset() < IcmpFlyweight.ND_TARGET_OFFSET + 16) {
            return false;
        }
        final long target = p.frameOffset() + p.l4Offset() + IcmpFlyweight.ND_TARGET_OFFSET;
        final long high = NetworkOrder.u64(p.segment(), target);
        final long low = NetworkOrder.u64(p.segment(), target + 8);
        return RouteTarget.kind(tables.routeTargetFor(true, high, low)) == RouteTarget.LOCAL;
    }

    void learnNd(final int rif, final ParseResult p) {
        final MemorySegment s = p.segment();
        final long at = p.frameOffset() + p.l4Offset();
        final int icmpLength = p.ipEnd() - p.l4Offset();
        if (icmpLength < NS_LENGTH) {
            return;
        }
        final int type = NetworkOrder.u8(s, at + IcmpFlyweight.TYPE_OFFSET);
        final int option = NetworkOrder.u8(s, at + IcmpFlyweight.ND_OPTION_TYPE_OFFSET);
        final long mac = NetworkOrder.u48(s, at + IcmpFlyweight.ND_OPTION_ADDRESS_OFFSET);
        long high = NetworkOrder.u64(s, at + IcmpFlyweight.ND_TARGET_OFFSET);
        long low = NetworkOrder.u64(s, at + IcmpFlyweight.ND_TARGET_OFFSET + 8);
        if (type == IcmpFlyweight.TYPE_V6_NEIGHBOR_SOLICITATION) {
            if (option != IcmpFlyweight.ND_OPTION_SOURCE_LL) {
                return;
            }
            high = p.srcAddressHigh();
            low = p.srcAddressLow();
        } else if (option != IcmpFlyweight.ND_OPTION_TARGET_LL) {
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
        final long at = p.frameOffset() + p.l4Offset();
        final int icmpLength = p.ipEnd() - p.l4Offset();
        final long srcHigh = p.srcAddressHigh();
        final long srcLow = p.srcAddressLow();
        if ((srcHigh | srcLow) == 0) {
            v.consume(io.asicemu.pipeline.counter.ConsumeReason.NEIGHBOR_ANSWER); // duplicate address detection
            return;
        }
        final long myMac = tables.rifMac(rif);
        long requesterMac = p.srcMac();
        final boolean hasOption = icmpLength >= NS_LENGTH
                && NetworkOrder.u8(s, at + IcmpFlyweight.ND_OPTION_TYPE_OFFSET) == IcmpFlyweight.ND_OPTION_SOURCE_LL;
        if (hasOption) {
            requesterMac = NetworkOrder.u48(s, at + IcmpFlyweight.ND_OPTION_ADDRESS_OFFSET);
            NetworkOrder.u8(s, at + IcmpFlyweight.ND_OPTION_TYPE_OFFSET, IcmpFlyweight.ND_OPTION_TARGET_LL);
            NetworkOrder.u48(s, at + IcmpFlyweight.ND_OPTION_ADDRESS_OFFSET, myMac);
        }
        final long targetHigh = NetworkOrder.u64(s, at + IcmpFlyweight.ND_TARGET_OFFSET);
        final long targetLow = NetworkOrder.u64(s, at + IcmpFlyweight.ND_TARGET_OFFSET + 8);
        ipv6.wrap(s, ip, Ipv6Flyweight.HEADER_LENGTH)
                .dstAddress(srcHigh, srcLow)
                .srcAddress(targetHigh, targetLow)
                .hopLimit(255);
        icmp.wrap(s, at, icmpLength)
                .type(IcmpFlyweight.TYPE_V6_NEIGHBOR_ADVERTISEMENT)
                .code(0);
        NetworkOrder.u32(s, at + IcmpFlyweight.ND_FLAGS_OFFSET, IcmpFlyweight.ND_FLAGS_ROUTER_SOLICITED_OVERRIDE);
        icmpv6Checksum(s, ip, at, icmpLength);
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
        final int request = v6 ? IcmpFlyweight.TYPE_V6_ECHO_REQUEST : IcmpFlyweight.TYPE_ECHO_REQUEST;
        if (p.l4Offset() < 0
                || p.icmpType() != request
                || p.protocol() != (v6 ? EtherType.PROTO_ICMPV6 : EtherType.PROTO_ICMP)) {
            return false;
        }
        final MemorySegment s = p.segment();
        final long ip = p.frameOffset() + p.l3Offset();
        if (v6) {
            ipv6.wrap(s, ip, Ipv6Flyweight.HEADER_LENGTH);
            final long srcHigh = ipv6.srcAddressHigh();
            final long srcLow = ipv6.srcAddressLow();
            ipv6.srcAddress(ipv6.dstAddressHigh(), ipv6.dstAddressLow())
                    .dstAddress(srcHigh, srcLow)
                    .hopLimit(64);
        } else { // swapping the addresses leaves the header's sum as it was: only the TTL changes the checksum
            ipv4.wrap(s, ip, p.ipHeaderLength());
            final int src = ipv4.srcAddress();
            ipv4.srcAddress(ipv4.dstAddress()).dstAddress(src).ttlRewrite(64);
        }
        icmp.wrap(s, p.frameOffset() + p.l4Offset(), p.ipEnd() - p.l4Offset())
                .typeRewrite(v6 ? IcmpFlyweight.TYPE_V6_ECHO_REPLY : IcmpFlyweight.TYPE_ECHO_REPLY);
        v.action = Verdict.UNICAST;
        v.egressPort = v.ingressPort;
        v.dstMac = p.srcMac();
        v.srcMac = tables.rifMac(rif);
        return true;
    }

    /** Computes the ICMPv6 checksum over the pseudo header (addresses, length, next header) and the message. */
    private static void icmpv6Checksum(final MemorySegment s, final long ip, final long icmp, final int icmpLength) {
        NetworkOrder.u16(s, icmp + IcmpFlyweight.CHECKSUM_OFFSET, 0);
        long sum = InternetChecksum.sum(s, ip + Ipv6Flyweight.SRC_ADDRESS_OFFSET, 32);
        sum += icmpLength + EtherType.PROTO_ICMPV6;
        sum += InternetChecksum.sum(s, icmp, icmpLength);
        NetworkOrder.u16(s, icmp + IcmpFlyweight.CHECKSUM_OFFSET, ~InternetChecksum.fold(sum) & 0xFFFF);
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
        v.l2Length = EthernetFlyweight.ETHER_TYPE_OFFSET;
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
        ethernet.wrap(s, 0, SOLICITATION_LENGTH).dstMac(dstMac).srcMac(myMac).etherType(EtherType.IPV6);
        final long ip = EthernetFlyweight.HEADER_LENGTH;
        ipv6.wrap(s, ip, Ipv6Flyweight.HEADER_LENGTH)
                .versionClassFlow(0, 0)
                .payloadLength(NS_LENGTH)
                .nextHeader(EtherType.PROTO_ICMPV6)
                .hopLimit(255)
                .srcAddress(t.rifIpv6High(rif), t.rifIpv6Low(rif))
                .dstAddress(0xff02_0000_0000_0000L, 0x0000_0001_ff00_0000L | (low & 0xff_ffffL)); // solicited-node
        final long at = ip + Ipv6Flyweight.HEADER_LENGTH;
        icmp.wrap(s, at, NS_LENGTH)
                .type(IcmpFlyweight.TYPE_V6_NEIGHBOR_SOLICITATION)
                .code(0);
        NetworkOrder.u32(s, at + IcmpFlyweight.ND_FLAGS_OFFSET, 0);
        NetworkOrder.u64(s, at + IcmpFlyweight.ND_TARGET_OFFSET, high);
        NetworkOrder.u64(s, at + IcmpFlyweight.ND_TARGET_OFFSET + 8, low);
        NetworkOrder.u8(s, at + IcmpFlyweight.ND_OPTION_TYPE_OFFSET, IcmpFlyweight.ND_OPTION_SOURCE_LL);
        NetworkOrder.u8(s, at + IcmpFlyweight.ND_OPTION_LENGTH_OFFSET, 1);
        NetworkOrder.u48(s, at + IcmpFlyweight.ND_OPTION_ADDRESS_OFFSET, myMac);
        icmpv6Checksum(s, ip, at, NS_LENGTH);
        return SOLICITATION_LENGTH;
    }
}
