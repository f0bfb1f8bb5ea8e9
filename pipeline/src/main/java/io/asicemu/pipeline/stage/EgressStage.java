package io.asicemu.pipeline.stage;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.Ipv4Flyweight;
import io.asicemu.parser.Ipv6Flyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.VlanTagFlyweight;
import io.asicemu.pipeline.counter.Counters;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.counter.PortStat;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.table.AclEgressTable;
import io.asicemu.pipeline.table.AclMirrorSessions;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.tm.TrafficManager;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Carries out a {@link Verdict}: for each egress port (one, or for a flood every member of the VLAN, or the replicas
 * of the VLAN's multicast flood group when it has one) it copies the
 * frame into {@link PacketBuffer} cells while rewriting its L2 header (destination and source MAC, VLAN tag pushed,
 * kept or popped by the egress port's membership, padding to 60 bytes), then asks the traffic manager to admit it
 * to the egress queue chosen by the egress port's TC_TO_QUEUE_MAP, unless the egress ACL (looked up after that queue
 * choice) drops the copy. Mirror copies of ACL mirror rules go the same way ({@link #mirror}). The only frame copy of the data path
 * (RX memory → packet buffer) happens here.
 * <p>
 * Not thread safe: data-plane thread only; allocates nothing.
 */
public final class EgressStage {
    private static final int MIN_FRAME = 60;

    private final Counters counters;
    private final InternalResourceLog internalLog = new InternalResourceLog();
    private PacketBuffer buffer;
    private ForwardingTables tables;
    private TrafficManager tm;
    private Port[] ports;

    /**
     * @param counters the counters.
     */
    public EgressStage(final Counters counters) {
        this.counters = counters;
    }

    /**
     * @param current tables.
     * @param trafficManager the traffic manager built for them.
     * @param store the packet store sized for that traffic manager's buffer.
     * @param attached ports by index (null where none is attached).
     */
    public void use(
            final ForwardingTables current,
            final TrafficManager trafficManager,
            final PacketBuffer store,
            final Port[] attached) {
        this.tables = current;
        this.tm = trafficManager;
        this.buffer = store;
        this.ports = attached;
    }

    /**
     * Sends the frame as the verdict says (UNICAST or FLOOD).
     *
     * @param v the decision.
     * @param segment memory holding the frame.
     * @param offset its offset.
     * @param length its length.
     * @param nowNs the time.
     * @return how many copies were admitted.
     */
    public int send(
            final Verdict v, final MemorySegment segment, final long offset, final int length, final long nowNs) {
        if (v.action == Verdict.UNICAST) {
            return enqueue(v, v.egressPort, segment, offset, length, nowNs) ? 1 : 0;
        }
        final ForwardingTables t = tables;
        int sent = 0;
        int candidates = 0;
        final int[] replicas = v.vlan >= 0 ? t.multicastGroup(t.vlanFloodSlot(v.vlan)) : null;
        if (replicas != null) { // the VLAN floods to its multicast group's replicas (source port pruned)
            for (final int port : replicas) {
                if (port != v.ingressPort) {
                    candidates++;
                    if (enqueue(v, port, segment, offset, length, nowNs)) {
                        sent++;
                    }
                }
            }
            return noCandidates(v, candidates, sent);
        }
        for (int word = 0; word < t.portWords(); word++) {
            long bits = v.vlan >= 0 ? t.vlanMemberWord(v.vlan, word) : 0;
            while (bits != 0) {
                final int port = word * 64 + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (port != v.ingressPort) {
                    candidates++;
                    if (enqueue(v, port, segment, offset, length, nowNs)) {
                        sent++;
                    }
                }
            }
        }
        return noCandidates(v, candidates, sent);
    }

    private int noCandidates(final Verdict v, final int candidates, final int sent) {
        if (candidates == 0 && v.ingressPort >= 0) {
            counters.addDrop(v.ingressPort, DropReason.NO_EGRESS_PORT);
            counters.addPort(v.ingressPort, PortStat.IF_IN_DISCARDS, 1);
        }
        return sent;
    }

    private boolean enqueue(
            final Verdict v,
            final int port,
            final MemorySegment segment,
            final long offset,
            final int length,
            final long nowNs) {
        final ForwardingTables t = tables;
        final Port p = port < ports.length ? ports[port] : null;
        if (p == null || !p.linkUp() || !t.portAdminUp(port) || port >= tm.portCount()) {
            return egressDrop(port, DropReason.EGRESS_LINK_DOWN);
        }
        final boolean tagged = v.vlan >= 0 && t.vlanTagged(v.vlan, port);
        final int body = length - v.l2Length;
        if (body - 2 > Math.min(t.portMtu(port), p.mtu())) { // configured MTU, or the link's if lower
            counters.addPort(port, PortStat.ETHER_TX_OVERSIZE_PKTS, 1);
            return egressDrop(port, DropReason.OUT_EXCEEDS_L2_MTU);
        }
        final int header = EthernetFlyweight.ETHER_TYPE_OFFSET + (tagged ? VlanTagFlyweight.TAG_LENGTH : 0);
        final int outLength = Math.max(MIN_FRAME, header + body);
        if (outLength > buffer.maxFrameBytes()) {
            return egressDrop(port, DropReason.OUT_EXCEEDS_L2_MTU);
        }
        final int queue = t.qos().queue(port, v.tc);
        if (t.egressAcl().size() != 0 && egressAclDrops(t, v, port, segment, offset, outLength)) {
            return egressDrop(port, DropReason.EGRESS_ACL_DROP);
        }
        final int handle = buffer.allocate(outLength);
        if (handle == PacketBuffer.NONE) {
            return storeExhausted(port, nowNs);
        }
        final MemorySegment mem = buffer.memory();
        final long at = buffer.offset(handle); // the first cell (≥ 64 B) holds the L2 header and the padding
        NetworkOrder.u48(mem, at + EthernetFlyweight.DST_MAC_OFFSET, v.dstMac);
        NetworkOrder.u48(mem, at + EthernetFlyweight.SRC_MAC_OFFSET, v.srcMac);
        if (tagged) {
            final long tag = at + EthernetFlyweight.ETHER_TYPE_OFFSET;
            NetworkOrder.u16(mem, tag + VlanTagFlyweight.TPID_OFFSET, EtherType.VLAN);
            NetworkOrder.u16(mem, tag + VlanTagFlyweight.TCI_OFFSET, (v.pcp << 13) | v.vlan);
        }
        buffer.write(handle, header, segment, offset + v.l2Length, body);
        for (long pad = at + header + body; pad < at + MIN_FRAME; pad++) {
            mem.set(ValueLayout.JAVA_BYTE, pad, (byte) 0);
        }
        buffer.ipVersion[handle] = (byte) v.ipVersion;
        buffer.l3Offset[handle] = (short) (v.l3Offset < 0 ? -1 : v.l3Offset - v.l2Length + header);
        final int inPort = v.ingressPort >= 0 && v.ingressPort < tm.portCount() ? v.ingressPort : port;
        final int result = tm.admit(nowNs, inPort, v.pg, port, queue, outLength, v.ipVersion == 0 ? 0 : v.ecn, handle);
        if (result != TrafficManager.ADMITTED) {
            buffer.release(handle);
            return refused(port, result, nowNs);
        }
        return true;
    }

    /**
     * Counts a frame the traffic manager refused under the model's reason: the buffer rules (PG or queue limit, the
     * TM's PG and queue drop counters say which), WRED at enqueue, the PFC watchdog; or, for a TM descriptor that
     * ran out, its own reason (a bug: descriptors are sized to the buffer).
     */
    private boolean refused(final int port, final int result, final long nowNs) {
        return switch (result) {
            case TrafficManager.DROP_WRED -> egressDrop(port, DropReason.WRED);
            case TrafficManager.DROP_PFCWD -> egressDrop(port, DropReason.PFC_WATCHDOG);
            case TrafficManager.DROP_QUEUE_FULL -> {
                internalLog.exhausted("traffic-manager packet descriptors", port, nowNs);
                yield egressDrop(port, DropReason.TM_DESCRIPTORS_EXHAUSTED);
            }
            default -> egressDrop(port, DropReason.BUFFER_FULL);
        };
    }

    /** The cell store ran out before the buffer rules refused the frame: a sizing bug, counted apart and logged. */
    private boolean storeExhausted(final int port, final long nowNs) {
        internalLog.exhausted("packet store cells", port, nowNs);
        return egressDrop(port, DropReason.PACKET_STORE_EXHAUSTED);
    }

    /**
     * The egress ACL for one copy, after the queue choice: matches the egress port and the packet as it leaves (DSCP
     * after any rewrite), counts the hit and says whether the rule drops it.
     */
    private boolean egressAclDrops(
            final ForwardingTables t,
            final Verdict v,
            final int port,
            final MemorySegment segment,
            final long offset,
            final int outLength) {
        final AclEgressTable acl = t.egressAcl();
        final int etherType = NetworkOrder.u16(segment, offset + v.l2Length);
        int dst = 0;
        int dscp = 0;
        if (v.l3Offset >= 0 && v.ipVersion == 4) {
            final long ip = offset + v.l3Offset;
            dscp = NetworkOrder.u8(segment, ip + Ipv4Flyweight.TOS_OFFSET) >>> 2;
            dst = NetworkOrder.u32(segment, ip + Ipv4Flyweight.DST_ADDRESS_OFFSET);
        } else if (v.l3Offset >= 0 && v.ipVersion == 6) {
            final long ip = offset + v.l3Offset + Ipv6Flyweight.VERSION_TC_FLOW_OFFSET;
            dscp = (NetworkOrder.u16(segment, ip) >>> 6) & 0x3f; // traffic class bits 4..11, DSCP its upper six
        }
        final int rule = acl.match(port, etherType, v.l3Offset >= 0 ? v.ipVersion : 0, dst, v.ipProtocol, dscp);
        if (rule == AclEgressTable.NO_MATCH) {
            return false;
        }
        if (rule < counters.aclRuleCapacity()) {
            counters.addEgressAclHit(rule, outLength);
        }
        return acl.drops(rule);
    }

    /**
     * Sends copies of the frame as received (before any rewrite) to a mirror session's ports, cut to the session's
     * length, through each port's queue for the packet's traffic class. The original is not touched.
     *
     * @param v the decision (its {@link Verdict#mirrorSession}, TC and PG).
     * @param segment memory holding the frame.
     * @param offset its offset.
     * @param length its length.
     * @param nowNs the time.
     * @return how many copies were admitted.
     */
    public int mirror(
            final Verdict v, final MemorySegment segment, final long offset, final int length, final long nowNs) {
        final ForwardingTables t = tables;
        final AclMirrorSessions sessions = t.mirrorSessions();
        final int session = v.mirrorSession;
        final int truncate = sessions.truncateBytes(session);
        final int copyLength = truncate > 0 ? Math.min(length, truncate) : length;
        final int outLength = Math.max(MIN_FRAME, copyLength);
        int sent = 0;
        for (int c = 0; c < sessions.portCount(session); c++) {
            final int port = sessions.port(session, c);
            final Port p = port < ports.length ? ports[port] : null;
            if (p == null || !p.linkUp() || !t.portAdminUp(port) || port >= tm.portCount()) {
                egressDrop(port, DropReason.EGRESS_LINK_DOWN);
                continue;
            }
            if (outLength > buffer.maxFrameBytes()) {
                egressDrop(port, DropReason.OUT_EXCEEDS_L2_MTU);
                continue;
            }
            final int handle = buffer.allocate(outLength);
            if (handle == PacketBuffer.NONE) {
                storeExhausted(port, nowNs);
                continue;
            }
            final MemorySegment mem = buffer.memory();
            final long at = buffer.offset(handle);
            buffer.write(handle, 0, segment, offset, copyLength);
            for (long pad = at + copyLength; pad < at + MIN_FRAME; pad++) {
                mem.set(ValueLayout.JAVA_BYTE, pad, (byte) 0);
            }
            buffer.ipVersion[handle] = 0; // a mirror copy is never ECN-marked: it is a copy of what was seen
            buffer.l3Offset[handle] = -1;
            final int inPort = v.ingressPort >= 0 && v.ingressPort < tm.portCount() ? v.ingressPort : port;
            final int result = tm.admit(nowNs, inPort, v.pg, port, t.qos().queue(port, v.tc), outLength, 0, handle);
            if (result != TrafficManager.ADMITTED) {
                buffer.release(handle);
                refused(port, result, nowNs);
                continue;
            }
            sent++;
        }
        return sent;
    }

    private boolean egressDrop(final int port, final DropReason reason) {
        if (port >= 0 && port < counters.portCount()) {
            counters.addDrop(port, reason);
            counters.addPort(port, PortStat.IF_OUT_DISCARDS, 1);
        }
        return false;
    }
}
