package io.asicemu.pipeline.stage;

import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.hash.HashKey;
import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.FrameKind;
import io.asicemu.parser.FrameRewriter;
import io.asicemu.parser.IcmpFlyweight;
import io.asicemu.parser.PacketParser;
import io.asicemu.parser.ParseReason;
import io.asicemu.parser.ParseResult;
import io.asicemu.parser.VlanTagFlyweight;
import io.asicemu.pipeline.counter.ConsumeReason;
import io.asicemu.pipeline.counter.Counters;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.counter.PortStat;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.table.AclKey;
import io.asicemu.pipeline.table.AclMeters;
import io.asicemu.pipeline.table.AclTable;
import io.asicemu.pipeline.table.FdbTable;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.NeighborTable;
import io.asicemu.pipeline.table.RouteTarget;
import java.lang.foreign.MemorySegment;

/**
 * The ingress half of the pipeline for one received frame:
 * <pre>
 *  parse → port state, L2 MTU → VLAN (tag, PVID, membership) → FDB learn
 *        → ACL (meter: red drops; drop / trap / copy / mirror, set TC / DSCP) → QoS (DSCP or dot1p → TC → PG)
 *        → ARP/ND for the switch (answered in standalone mode, else punted; with host interfaces the replies
 *          and advertisements to the switch are also copied to the CPU port, for the switch's kernel)
 *        → router MAC?  L3: TTL, LPM → next hop | group (ars-flowlet member) | connected → neighbor → L3 MTU
 *                       → in-place TTL/DSCP rewrite
 *          else        L2: FDB → unicast | flood in the VLAN
 * </pre>
 * It writes the decision into a {@link Verdict}; {@link EgressStage} carries it out.
 * <p>
 * A received batch goes through as a vector (VPP's shape): {@link #parseAll} parses every frame into its own
 * {@link ParseResult} and counts the batch in with one counter write per stat, {@link #lookUpAll} finds every IP
 * frame's LPM slot in one tight loop (pure reads: routes change only between batches), then {@link #decide} runs
 * the stateful part (FDB learning, meters, ACL, next hop, neighbor) frame by frame in arrival order, so every
 * decision is the one the frame-at-a-time path made; {@link #countRouteHits} then adds the route hits held for the
 * batch's last run of frames to one route. {@link #process} is that path for a single frame (PacketOut
 * through ingress).
 * <p>
 * Not thread safe: one instance per data-plane thread; allocates nothing per packet.
 */
public final class IngressStage {
    private static final int IP_HEADER_ERRORS_FIRST = ParseReason.TRUNCATED_IPV4.index();
    private static final int IP_HEADER_ERRORS_LAST = ParseReason.IPV6_EXT_HEADER_CHAIN.index();
    private static final long BROADCAST = 0xffff_ffff_ffffL;
    /** {@link #routeSlots} entry of a frame whose LPM slot was not looked up in the vector step. */
    private static final int NOT_LOOKED_UP = -1;

    private final PacketParser parser = new PacketParser(14, PacketParser.MAX_FRAME_LENGTH);
    /** The single-frame path's parse result. */
    private final ParseResult single = new ParseResult();
    /** One parse result per batch slot (the vector's struct of parsed fields). */
    private final ParseResult[] vector;
    /** Per batch slot: the LPM slot of the frame's destination, or {@link #NOT_LOOKED_UP}. */
    private final int[] routeSlots;
    /** The frame being decided (a vector element or {@link #single}). */
    private ParseResult parsed = single;
    /** Its LPM slot from {@link #lookUpAll}, or {@link #NOT_LOOKED_UP}. */
    private int lookedUpSlot = NOT_LOOKED_UP;

    /**
     * The route hits of the current run of routed frames to one route slot (0: none), added to the route's counters
     * when the run ends or the batch does ({@link #countRouteHits}): the frames of a vector mostly share a route, and
     * the counters live in mapped memory whose accesses are checked one by one. Nobody reads them inside a batch.
     */
    private int runRouteSlot;

    private long runRoutePackets;
    private long runRouteBytes;

    private final AclKey aclKey = new AclKey();
    private final HashKey hashKey = new HashKey();
    private final Counters counters;
    private final NeighborResolver resolver;
    private ForwardingTables tables;
    private io.asicemu.pipeline.cpu.LearnRing learnEvents;
    private io.asicemu.pipeline.cpu.CpuPort cpuPort;

    /**
     * @param counters the counters.
     * @param resolver ARP/ND answers and requests.
     * @param batchCapacity the most frames in one received batch (the vector length).
     */
    public IngressStage(final Counters counters, final NeighborResolver resolver, final int batchCapacity) {
        this.counters = counters;
        this.resolver = resolver;
        this.vector = new ParseResult[batchCapacity];
        for (int i = 0; i < batchCapacity; i++) {
            vector[i] = new ParseResult();
        }
        this.routeSlots = new int[batchCapacity];
    }

    /**
     * @param current the tables to use from now on (set by the agent when a new configuration arrives).
     */
    public void tables(final ForwardingTables current) {
        countRouteHits(); // none are pending between batches; the old tables get theirs all the same
        this.tables = current;
        resolver.tables(current);
    }

    /**
     * @param ring where new and moved FDB entries are reported (null: not reported).
     */
    public void learnEvents(final io.asicemu.pipeline.cpu.LearnRing ring) {
        this.learnEvents = ring;
    }

    /**
     * Names the CPU port whose {@link io.asicemu.pipeline.cpu.CpuPort#hostInterfaces()} says whether the switch's
     * kernel takes echo requests and copies of neighbor answers.
     *
     * @param port the CPU port.
     */
    public void cpuPort(final io.asicemu.pipeline.cpu.CpuPort port) {
        this.cpuPort = port;
    }

    private boolean kernelHostsAddresses() {
        final io.asicemu.pipeline.cpu.CpuPort c = cpuPort;
        return c != null && c.hostInterfaces();
    }

    /** @return the parse result of the frame being (or last) decided. */
    public ParseResult parsed() {
        return parsed;
    }

    /**
     * Decides what happens to one frame; may rewrite it in place (TTL, DSCP, ARP/ND answers).
     *
     * @param port the ingress port index.
     * @param segment memory holding the frame.
     * @param offset its offset.
     * @param length its length.
     * @param nowNs the cycle's time.
     * @param v receives the decision.
     */
    public void process(
            final int port,
            final MemorySegment segment,
            final long offset,
            final int length,
            final long nowNs,
            final Verdict v) {
        final ParseResult p = single;
        parser.parse(segment, offset, length, p);
        countIn(port, length, p);
        parsed = p;
        lookedUpSlot = NOT_LOOKED_UP;
        decide(port, p, length, nowNs, v);
        countRouteHits();
    }

    /**
     * Vector step 1: parses frames 0..count-1 of a received batch, each into its own parse result, and counts them
     * in (octets, unicast / non-unicast / broadcast / multicast) with one counter write per stat for the batch.
     *
     * @param port the ingress port index.
     * @param batch the received batch.
     * @param count how many of its frames to parse (at most the vector length).
     */
    public void parseAll(final int port, final io.asicemu.pipeline.port.RxBatch batch, final int count) {
        long octets = 0;
        int unicast = 0;
        int broadcast = 0;
        int multicast = 0;
        for (int i = 0; i < count; i++) {
            final ParseResult p = vector[i];
            final int length = batch.length(i);
            parser.parse(batch.segment(i), batch.offset(i), length, p);
            octets += length;
            final long dst = p.dstMac();
            if ((dst & 0x0100_0000_0000L) == 0) {
                unicast++;
            } else if (dst == BROADCAST) {
                broadcast++;
            } else {
                multicast++;
            }
        }
        counters.addPort(port, PortStat.IF_IN_OCTETS, octets);
        if (unicast != 0) {
            counters.addPort(port, PortStat.IF_IN_UCAST_PKTS, unicast);
        }
        if (broadcast + multicast != 0) {
            counters.addPort(port, PortStat.IF_IN_NON_UCAST_PKTS, broadcast + multicast);
            if (broadcast != 0) {
                counters.addPort(port, PortStat.IF_IN_BROADCAST_PKTS, broadcast);
            }
            if (multicast != 0) {
                counters.addPort(port, PortStat.IF_IN_MULTICAST_PKTS, multicast);
            }
        }
    }

    /**
     * Vector step 2: the LPM slot of every parsed IP frame's destination, in one loop over the vector (the loads
     * of different frames' lookups overlap). Pure reads: the route tables change only between batches, so each
     * result is the one {@link #decide} would have looked up. Frames that will not be routed (non-IP, broken
     * headers) are skipped; a frame decided otherwise (bridged, punted) just leaves its slot unused.
     *
     * @param count how many frames {@link #parseAll} parsed.
     */
    public void lookUpAll(final int count) {
        final ForwardingTables t = tables;
        for (int i = 0; i < count; i++) {
            final ParseResult p = vector[i];
            final int version = p.ipVersion();
            final int r = p.reason().index();
            if (version == 0 || r >= IP_HEADER_ERRORS_FIRST && r <= IP_HEADER_ERRORS_LAST) {
                routeSlots[i] = NOT_LOOKED_UP;
            } else {
                routeSlots[i] = t.routeSlot(version == 6, p.dstAddressHigh(), p.dstAddressLow());
            }
        }
    }

    /**
     * Vector step 3: decides frame {@code i} of the batch parsed by {@link #parseAll} (frames in arrival order: the
     * stateful parts — FDB learning, meters, neighbor resolution — see them one at a time, as before).
     *
     * @param i the frame's slot in the batch.
     * @param port the ingress port index.
     * @param nowNs the cycle's time.
     * @param v receives the decision.
     */
    public void decide(final int i, final int port, final long nowNs, final Verdict v) {
        final ParseResult p = vector[i];
        parsed = p;
        lookedUpSlot = routeSlots[i];
        decide(port, p, p.frameLength(), nowNs, v);
    }

    /**
     * Vector step 4, after the batch's last {@link #decide}: adds the route hits still held for the batch's last run
     * of frames to one route (so the counters are whole whenever a control command reads them, between batches).
     */
    public void countRouteHits() {
        if (runRoutePackets != 0) {
            tables.countRoute(runRouteSlot, runRoutePackets, runRouteBytes);
            runRoutePackets = 0;
            runRouteBytes = 0;
        }
        runRouteSlot = 0;
    }

    /** Counts a routed frame against its route slot: within a run of frames to one slot, in two local sums. */
    private void countRouteHit(final int slot, final int length) {
        if (slot != runRouteSlot) {
            countRouteHits();
            runRouteSlot = slot;
        }
        runRoutePackets++;
        runRouteBytes += length;
    }

    private void decide(final int port, final ParseResult p, final int length, final long nowNs, final Verdict v) {
        final ForwardingTables t = tables;
        v.reset(port);
        if (!t.portAdminUp(port)) {
            v.drop(DropReason.PORT_ADMIN_DOWN);
            return;
        }
        final int reasonIndex = p.reason().index();
        if (reasonIndex >= 1 && reasonIndex <= 5) {
            counters.addPort(port, PortStat.IF_IN_ERRORS, 1);
            v.drop(DropReason.MALFORMED_FRAME);
            return;
        }
        final int l2Length = EthernetFlyweight.ETHER_TYPE_OFFSET + VlanTagFlyweight.TAG_LENGTH * p.vlanCount();
        v.l2Length = l2Length;
        v.dstMac = p.dstMac();
        v.srcMac = p.srcMac();
        v.pcp = p.vlanCount() > 0 ? p.outerPcp() : 0;
        v.l3Offset = p.l3Offset();
        if (length - l2Length - 2 > t.portMtu(port)) {
            counters.addPort(port, PortStat.ETHER_RX_OVERSIZE_PKTS, 1);
            v.drop(DropReason.EXCEEDS_L2_MTU);
            return;
        }
        if ((p.srcMac() & 0x0100_0000_0000L) != 0) {
            v.drop(DropReason.SMAC_MULTICAST);
            return;
        }
        if (p.kind() == FrameKind.MAC_CONTROL) {
            if (p.reason() == ParseReason.OK && p.pfc()) {
                v.consume(ConsumeReason.PFC); // the agent hands it to the traffic manager
            } else if (p.reason() == ParseReason.OK && p.pause()) {
                v.consume(ConsumeReason.PAUSE);
            } else {
                counters.addPort(port, PortStat.IF_IN_UNKNOWN_PROTOS, 1);
                v.drop(DropReason.MAC_CONTROL_UNKNOWN);
            }
            return;
        }
        if (p.kind() == FrameKind.LLDP) {
            v.punt(PuntReason.LLDP);
            return;
        }
        if (!ingressVlan(t, port, p, v)) {
            return;
        }
        if (v.vlan >= 0) {
            if (t.fdb().learn(v.vlan, p.srcMac(), port, nowNs) && learnEvents != null) {
                learnEvents.offer(v.vlan, p.srcMac(), port, nowNs);
            }
        }
        final int rule = acl(t, port, p, length);
        if (rule != AclTable.NO_MATCH && !aclAction(t, rule, length, nowNs, v)) {
            return;
        }
        final boolean isIp = p.ipVersion() != 0;
        v.tc = rule != AclTable.NO_MATCH && t.acl().setTc(rule) >= 0
                ? t.acl().setTc(rule)
                : t.qos().trafficClass(port, p.vlanCount() > 0, p.outerPcp(), isIp, p.dscp());
        v.pg = t.qos().priorityGroup(port, v.tc);
        v.ecn = p.ecn();
        v.ipVersion = p.ipVersion();
        v.ipProtocol = p.protocol();
        final int setDscp = rule != AclTable.NO_MATCH ? t.acl().setDscp(rule) : -1;
        final int rif = v.vlan >= 0 ? t.vlanRouterInterface(v.vlan) : t.portRouterInterface(port);
        // only ARP and ICMPv6 can be for the control plane: other frames skip the (not inlined) call
        if (rif != ForwardingTables.NONE && mayBeControlPlane(p) && controlPlane(t, rif, port, p, v, nowNs)) {
            return;
        }
        v.setDscp = setDscp;
        if (rif != ForwardingTables.NONE && (p.dstMac() == t.rifMac(rif) || t.l3Admitted(p.dstMac(), port))) {
            route(t, p, v, nowNs);
        } else if (v.vlan >= 0) {
            bridge(t, port, p, v, nowNs);
        } else {
            v.drop(DropReason.NO_EGRESS_PORT);
        }
    }

    /**
     * Carries out the matched ACL rule's meter and action; returns false if that decided the packet (drop, trap).
     * A red packet of the rule's meter (RFC 2698) is dropped before its action runs.
     */
    private static boolean aclAction(
            final ForwardingTables t, final int rule, final int length, final long nowNs, final Verdict v) {
        final AclTable acl = t.acl();
        if (acl.meters().color(rule, length, nowNs) == AclMeters.RED) {
            v.drop(DropReason.ACL_METER_RED);
            return false;
        }
        switch (acl.action(rule)) {
            case DROP -> {
                v.drop(DropReason.ACL_DROP);
                return false;
            }
            case TRAP -> {
                v.cpuQueue = acl.cpuQueue(rule);
                v.punt(PuntReason.ACL_TRAP);
                return false;
            }
            case COPY -> {
                v.cpuQueue = acl.cpuQueue(rule);
                v.copyReason = PuntReason.ACL_COPY;
            }
            case MIRROR -> v.mirrorSession = t.mirrorSessions().find(acl.mirrorSession(rule));
            default -> {}
        }
        return true;
    }

    /**
     * Applies the in-place L3 rewrites the verdict asks for (TTL decrement with checksum update, DSCP). The agent
     * calls it after any copy to the CPU was taken, so the copy shows the packet as received.
     *
     * @param v the verdict of the frame last processed.
     */
    public void rewrite(final Verdict v) {
        if (v.decrementTtl) {
            FrameRewriter.decrementTtl(parsed);
        }
        if (v.setDscp >= 0) {
            FrameRewriter.dscp(parsed, v.setDscp);
        }
    }

    private void countIn(final int port, final int length, final ParseResult p) {
        counters.addPort(port, PortStat.IF_IN_OCTETS, length);
        final long dst = p.dstMac();
        if ((dst & 0x0100_0000_0000L) == 0) {
            counters.addPort(port, PortStat.IF_IN_UCAST_PKTS, 1);
        } else {
            counters.addPort(port, PortStat.IF_IN_NON_UCAST_PKTS, 1);
            counters.addPort(port, dst == BROADCAST ? PortStat.IF_IN_BROADCAST_PKTS : PortStat.IF_IN_MULTICAST_PKTS, 1);
        }
    }

    private static boolean ingressVlan(final ForwardingTables t, final int port, final ParseResult p, final Verdict v) {
        final int vid = p.vlanCount() > 0 ? p.outerVlanId() : 0;
        if (vid != 0) {
            if (!t.vlanExists(vid) || !t.vlanMember(vid, port)) {
                v.drop(
                        t.portRouterInterface(port) != ForwardingTables.NONE
                                ? DropReason.VLAN_TAG_NOT_ALLOWED
                                : DropReason.INGRESS_VLAN_FILTER);
                return false;
            }
            return admitVlan(t, vid, v);
        }
        final int pvid = t.portPvid(port);
        if (pvid != ForwardingTables.NONE) {
            return admitVlan(t, pvid, v);
        }
        if (t.portRouterInterface(port) == ForwardingTables.NONE) {
            v.drop(DropReason.VLAN_TAG_NOT_ALLOWED);
            return false;
        }
        v.vlan = -1;
        return true;
    }

    /** The frame is in a VLAN whose vlan_table action may be drop. */
    private static boolean admitVlan(final ForwardingTables t, final int vlan, final Verdict v) {
        if (t.vlanDropped(vlan)) {
            v.drop(DropReason.INGRESS_VLAN_FILTER);
            return false;
        }
        v.vlan = vlan;
        return true;
    }

    private int acl(final ForwardingTables t, final int port, final ParseResult p, final int length) {
        final AclTable acl = t.acl();
        if (acl.size() == 0) {
            return AclTable.NO_MATCH;
        }
        final AclKey k = aclKey;
        k.inPort = port;
        k.etherType = p.etherType();
        k.srcMac = p.srcMac();
        k.dstMac = p.dstMac();
        k.vlanId = p.vlanCount() > 0 ? p.outerVlanId() : 0;
        k.ipVersion = p.ipVersion();
        k.srcHigh = p.srcAddressHigh();
        k.srcLow = p.srcAddressLow();
        k.dstHigh = p.dstAddressHigh();
        k.dstLow = p.dstAddressLow();
        k.ipProtocol = p.protocol();
        k.l4SrcPort = p.srcPort();
        k.l4DstPort = p.dstPort();
        k.dscp = p.dscp();
        k.ecn = p.ecn();
        k.tcpFlags = p.tcpFlags();
        k.roce = p.roce();
        k.bthOpcode = p.bthOpcode();
        final int rule = acl.match(k);
        if (rule != AclTable.NO_MATCH && rule < counters.aclRuleCapacity()) {
            counters.addAclHit(rule, length);
        }
        return rule;
    }

    /** Whether {@link #controlPlane} can handle the frame at all: ARP, or ICMPv6 of the NDP types. */
    private static boolean mayBeControlPlane(final ParseResult p) {
        return p.kind() == FrameKind.ARP || p.ipVersion() == 6 && p.protocol() == EtherType.PROTO_ICMPV6;
    }

    /** ARP and neighbor discovery aimed at the switch; returns true if the packet was fully handled. */
    private boolean controlPlane(
            final ForwardingTables t,
            final int rif,
            final int port,
            final ParseResult p,
            final Verdict v,
            final long nowNs) {
        if (p.kind() == FrameKind.ARP) {
            final boolean forMe = isLocal(t, 0, p.arpTargetIp() & 0xffff_ffffL, false);
            if (!forMe) {
                return false;
            }
            final boolean request = p.arpOperation() == 1;
            if (!t.standalone()) {
                v.punt(request ? PuntReason.ARP_REQUEST : PuntReason.ARP_RESPONSE);
                return true;
            }
            resolver.learnArp(rif, p);
            if (request) {
                resolver.answerArp(rif, p, v);
            } else {
                v.consume(ConsumeReason.NEIGHBOR_ANSWER);
                if (v.copyReason == null && kernelHostsAddresses()) {
                    v.copyReason = PuntReason.ARP_RESPONSE; // the kernel resolves its own peers from the same reply
                }
            }
            return true;
        }
        if (p.ipVersion() == 6
                && p.protocol() == EtherType.PROTO_ICMPV6
                && p.icmpType() >= IcmpFlyweight.TYPE_V6_ROUTER_SOLICITATION
                && p.icmpType() <= IcmpFlyweight.TYPE_V6_REDIRECT) {
            final int type = p.icmpType();
            final boolean solicitation = type == IcmpFlyweight.TYPE_V6_NEIGHBOR_SOLICITATION;
            final boolean advertisement = type == IcmpFlyweight.TYPE_V6_NEIGHBOR_ADVERTISEMENT;
            if (!t.standalone()) {
                if ((solicitation || advertisement) && !resolver.ndTargetIsLocal(p)) {
                    return false;
                }
                v.punt(PuntReason.IPV6_NEIGHBOR_DISCOVERY);
                return true;
            }
            if (solicitation && resolver.ndTargetIsLocal(p)) {
                resolver.learnNd(rif, p);
                resolver.answerNd(rif, p, v);
                return true;
            }
            if (advertisement) {
                resolver.learnNd(rif, p);
                if (resolver.ndTargetIsLocal(p) || p.dstMac() == t.rifMac(rif)) {
                    v.consume(ConsumeReason.NEIGHBOR_ANSWER);
                    if (v.copyReason == null && kernelHostsAddresses()) {
                        v.copyReason = PuntReason.IPV6_NEIGHBOR_DISCOVERY;
                    }
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isLocal(final ForwardingTables t, final long high, final long low, final boolean v6) {
        return RouteTarget.kind(t.routeTargetFor(v6, high, low)) == RouteTarget.LOCAL;
    }

    private void bridge(
            final ForwardingTables t, final int port, final ParseResult p, final Verdict v, final long nowNs) {
        final long dst = p.dstMac();
        if ((dst & 0x0100_0000_0000L) != 0) {
            v.action = Verdict.FLOOD;
            return;
        }
        final int out = t.fdb().lookup(v.vlan, dst, nowNs);
        if (out == FdbTable.MISSING) {
            if (t.dropUnknownUnicast()) {
                v.drop(DropReason.FDB_DROP);
            } else {
                v.action = Verdict.FLOOD;
            }
        } else if (out == FdbTable.DROP_PORT) {
            v.drop(DropReason.FDB_DROP);
        } else if (out == port) {
            v.drop(DropReason.L2_LOOPBACK_FILTER);
        } else {
            v.action = Verdict.UNICAST;
            v.egressPort = out;
        }
    }

    private void route(final ForwardingTables t, final ParseResult p, final Verdict v, final long nowNs) {
        final int version = p.ipVersion();
        final int r = p.reason().index();
        // A broken IPv4/IPv6 header (truncated, bad IHL, lengths beyond the frame, ext-header loops) is never
        // routed, even when the parser got as far as the addresses.
        if (r >= IP_HEADER_ERRORS_FIRST && r <= IP_HEADER_ERRORS_LAST) {
            v.drop(DropReason.IP_HEADER_ERROR);
            return;
        }
        if (version == 0) {
            v.drop(DropReason.NON_ROUTABLE);
            return;
        }
        if (version == 4 && !ipv4HeaderChecksumValid(p)) {
            v.drop(DropReason.IP_HEADER_ERROR);
            return;
        }
        final boolean v6 = version == 6;
        final long dstHigh = p.dstAddressHigh();
        final long dstLow = p.dstAddressLow();
        final int slot = lookedUpSlot != NOT_LOOKED_UP ? lookedUpSlot : t.routeSlot(v6, dstHigh, dstLow);
        final int length = p.frameLength();
        final int value;
        if (slot != 0) {
            countRouteHit(slot, length);
            value = t.routeTarget(slot);
        } else {
            value = t.defaultRoute(v6);
            if (value == 0) {
                v.drop(v6 ? DropReason.LPM6_MISS : DropReason.LPM4_MISS);
                return;
            }
        }
        final int kind = RouteTarget.kind(value);
        if (kind == RouteTarget.LOCAL) {
            if (!t.standalone() || kernelHostsAddresses() || !resolver.answerEcho(routerInterfaceOf(t, v), p, v)) {
                v.punt(PuntReason.IP2ME);
            }
            return;
        }
        if (kind == RouteTarget.DROP) {
            v.drop(DropReason.BLACKHOLE_ROUTE);
            return;
        }
        if (p.ttl() <= 1) {
            v.drop(DropReason.TTL_EXPIRED);
            return;
        }
        int rif;
        long nhHigh = dstHigh;
        long nhLow = dstLow;
        final NeighborTable neighbors = t.neighbors();
        final int neighbor;
        if (kind == RouteTarget.CONNECTED) {
            rif = RouteTarget.id(value);
            neighbor = neighbors.find(nhHigh, nhLow, v6);
        } else {
            int nextHop = RouteTarget.id(value);
            if (kind == RouteTarget.GROUP) {
                final LoadBalanceGroup group = t.group(nextHop);
                final int member = group == null
                        ? LoadBalanceGroup.NO_MEMBER
                        : group.select(hashKey(p, v.ingressPort), p.frameLength(), nowNs);
                if (member == LoadBalanceGroup.NO_MEMBER) {
                    v.drop(DropReason.UNRESOLVED_NEXT_HOP);
                    return;
                }
                nextHop = t.groupNextHops(nextHop)[member];
            }
            t.countNextHop(nextHop, length);
            rif = t.nextHopRif(nextHop);
            nhHigh = t.nextHopHigh(nextHop);
            nhLow = t.nextHopLow(nextHop);
            neighbor = t.nextHopNeighbor(nextHop, v6); // cached per next hop: no hash probe
        }
        if (neighbor == NeighborTable.MISSING) {
            resolver.resolve(rif, nhHigh, nhLow, v6, nowNs);
            v.drop(DropReason.UNRESOLVED_NEXT_HOP);
            return;
        }
        neighbors.countHit(neighbor, length);
        final long mac = neighbors.mac(neighbor);
        final int egressPort = egressPortOf(t, rif, mac, nowNs);
        if (egressPort == FdbTable.DROP_PORT) {
            v.drop(DropReason.FDB_DROP);
            return;
        }
        if (egressPort < 0) {
            resolver.resolve(rif, nhHigh, nhLow, v6, nowNs);
            v.drop(DropReason.UNRESOLVED_NEXT_HOP);
            return;
        }
        if (p.ipEnd() - p.l3Offset() > t.rifMtu(rif)) {
            counters.addPort(egressPort, PortStat.ETHER_TX_OVERSIZE_PKTS, 1);
            v.drop(DropReason.EXCEEDS_L3_MTU);
            return;
        }
        v.decrementTtl = true;
        v.action = Verdict.UNICAST;
        v.egressPort = egressPort;
        v.vlan = t.routerInterfaceVlan(rif);
        v.dstMac = mac;
        v.srcMac = t.rifMac(rif);
    }

    /**
     * A valid IPv4 header sums to 0xffff (RFC 1071), checksum field included; the parser summed it from the words it
     * loaded (no second pass over the header). Routed packets only; bridged frames are not L3 devices' business.
     */
    private static boolean ipv4HeaderChecksumValid(final ParseResult p) {
        return p.ipv4HeaderSum() == 0xFFFF;
    }

    private static int routerInterfaceOf(final ForwardingTables t, final Verdict v) {
        return v.vlan >= 0 ? t.vlanRouterInterface(v.vlan) : t.portRouterInterface(v.ingressPort);
    }

    private static int egressPortOf(final ForwardingTables t, final int rif, final long mac, final long nowNs) {
        final int port = t.routerInterfacePort(rif);
        if (port != ForwardingTables.NONE) {
            return port;
        }
        final int vlan = t.routerInterfaceVlan(rif);
        return vlan == ForwardingTables.NONE ? -1 : t.fdb().lookup(vlan, mac, nowNs); // a hit like bridging's
    }

    private HashKey hashKey(final ParseResult p, final int inPort) {
        final HashKey k = hashKey.clear();
        k.inPort(inPort)
                .srcMac(p.srcMac())
                .dstMac(p.dstMac())
                .etherType(p.etherType())
                .vlanId(p.vlanCount() > 0 ? p.outerVlanId() : 0);
        if (p.ipVersion() == 6) {
            k.srcIpv6(p.srcAddressHigh(), p.srcAddressLow()).dstIpv6(p.dstAddressHigh(), p.dstAddressLow());
        } else {
            k.srcIpv4((int) p.srcAddressLow()).dstIpv4((int) p.dstAddressLow());
        }
        k.ipProtocol(p.protocol()).l4SrcPort(p.srcPort()).l4DstPort(p.dstPort());
        if (p.roce()) {
            k.roce(true).bthDestQp(p.bthDestQp()).bthOpcode(p.bthOpcode());
        }
        return k;
    }
}
