package io.asicemu.pipeline.stage;

import io.asicemu.pipeline.counter.ConsumeReason;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.counter.PuntReason;

/**
 * What the ingress stages decided for the current packet: one reusable object filled per packet by
 * {@link IngressStage} and read by {@link EgressStage} (the per-packet metadata of a one-packet "batch slot").
 * Public fields, reset per packet; not thread safe (data-plane thread).
 */
public final class Verdict {
    /** Drop ({@link #drop} says why). */
    public static final int DROP = 0;
    /** Send to the CPU port only ({@link #punt} says why). */
    public static final int PUNT = 1;
    /** Send to one port ({@link #egressPort}). */
    public static final int UNICAST = 2;
    /** Flood to the members of {@link #vlan} except the ingress port. */
    public static final int FLOOD = 3;
    /** Handled inside the pipeline (a PFC frame, for example); nothing to send. */
    public static final int CONSUMED = 4;

    /** One of the action constants. */
    public int action;
    /** Why it is dropped (action DROP). */
    public DropReason drop;
    /** What consumed it (action CONSUMED). */
    public ConsumeReason consumed;
    /** Why it is punted (action PUNT). */
    public PuntReason punt;
    /** Whether a copy goes to the CPU as well (ACL COPY). */
    public PuntReason copyReason;
    /** Ingress port. */
    public int ingressPort;
    /** Egress port for UNICAST. */
    public int egressPort;
    /** The VLAN the frame is sent in (tagging follows the egress port's membership), or -1 for none. */
    public int vlan;
    /** PCP for a pushed tag. */
    public int pcp;
    /** Destination MAC of the sent frame. */
    public long dstMac;
    /** Source MAC of the sent frame. */
    public long srcMac;
    /** Bytes of the input frame's L2 header before its EtherType (12 + 4 per tag); the rest is copied as is. */
    public int l2Length;
    /** Traffic class. */
    public int tc;
    /** Ingress priority group. */
    public int pg;
    /** ECN bits (for the traffic manager's WRED/ECN decision). */
    public int ecn;
    /** IP version of the packet (0 if not IP), for ECN marking at dequeue. */
    public int ipVersion;
    /** Frame offset of the IP header in the input frame, or -1. */
    public int l3Offset;
    /** Whether the routed packet's TTL / hop limit is to be decremented. */
    public boolean decrementTtl;
    /** DSCP to write (ACL SET_DSCP), or -1. */
    public int setDscp;
    /** IP protocol / next header after extension headers (for the egress ACL), -1 if not IP. */
    public int ipProtocol;
    /** The CPU queue of a punt or copy (its CoPP meter polices it). */
    public int cpuQueue;
    /** The mirror session index (in the tables' {@code AclMirrorSessions}) a copy goes to, or -1. */
    public int mirrorSession;

    /** Clears for a new packet. */
    public void reset(final int port) {
        action = DROP;
        drop = null;
        punt = null;
        consumed = null;
        copyReason = null;
        ingressPort = port;
        egressPort = -1;
        vlan = -1;
        pcp = 0;
        dstMac = 0;
        srcMac = 0;
        l2Length = 12;
        tc = 0;
        pg = 0;
        ecn = 0;
        ipVersion = 0;
        l3Offset = -1;
        decrementTtl = false;
        setDscp = -1;
        ipProtocol = -1;
        cpuQueue = 0;
        mirrorSession = -1;
    }

    /**
     * @param reason why.
     */
    public void drop(final DropReason reason) {
        action = DROP;
        drop = reason;
    }

    /**
     * @param reason what consumed the frame inside the switch (nothing is sent for it).
     */
    public void consume(final ConsumeReason reason) {
        action = CONSUMED;
        consumed = reason;
    }

    /**
     * @param reason why.
     */
    public void punt(final PuntReason reason) {
        action = PUNT;
        punt = reason;
    }
}
