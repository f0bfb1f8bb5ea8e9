package io.asicemu.pipeline.table;

/**
 * The fields an ACL rule may match, copied out of a parsed packet into one reusable object owned by the data-plane
 * thread (never one per packet), with the scratch arrays of the classifier. IPv4 addresses use the low 32
 * bits of the low words. Fields are public for the stage that fills them; not thread safe.
 */
public final class AclKey {
    /** Ingress port index. */
    public int inPort;
    /** EtherType after VLAN tags. */
    public int etherType;
    /** Source MAC. */
    public long srcMac;
    /** Destination MAC. */
    public long dstMac;
    /** Outer VLAN ID, 0 if untagged. */
    public int vlanId;
    /** 4, 6 or 0. */
    public int ipVersion;
    /** Source address high bits. */
    public long srcHigh;
    /** Source address low bits. */
    public long srcLow;
    /** Destination address high bits. */
    public long dstHigh;
    /** Destination address low bits. */
    public long dstLow;
    /** IP protocol, -1 if not IP. */
    public int ipProtocol = -1;
    /** L4 source port (0 if none). */
    public int l4SrcPort;
    /** L4 destination port (0 if none). */
    public int l4DstPort;
    /** DSCP. */
    public int dscp;
    /** ECN. */
    public int ecn;
    /** TCP flags. */
    public int tcpFlags;
    /** Whether the packet is RoCEv2 with a BTH. */
    public boolean roce;
    /** BTH opcode. */
    public int bthOpcode;
    /** The fields above cut into the classifier's chunks ({@link AclBitVectors}); scratch, refilled per lookup. */
    final long[] packed = new long[AclBitVectors.CHUNKS];
    /** Per searched chunk, where the packet's bit-vector row starts; scratch, refilled per lookup. */
    final int[] rowOffset = new int[AclBitVectors.CHUNKS];
}
