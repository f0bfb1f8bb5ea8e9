package io.asicemu.pipeline.table;

/**
 * One ternary rule of the egress ACL as the control side builds it (a control value, never used per packet): the
 * egress port, EtherType, IPv4 destination, IP protocol and DSCP, each with a mask (mask 0: any), a priority (higher
 * wins) and the action (drop, or forward to stop lower rules). Fluent setters; not thread safe.
 */
public final class AclEgressRule {
    final String name;
    final int priority;
    long[] outPorts;
    int etherType;
    int etherTypeMask;
    long dstIpv4;
    long dstIpv4Mask;
    int ipProtocol;
    int ipProtocolMask;
    int dscp;
    int dscpMask;
    boolean drop;

    /**
     * @param name the rule's name, {@code TABLE|RULE}.
     * @param priority higher wins.
     */
    public AclEgressRule(final String name, final int priority) {
        this.name = name;
        this.priority = priority;
    }

    /** @return the rule's name. */
    public String name() {
        return name;
    }

    /** @return the priority. */
    public int priority() {
        return priority;
    }

    /**
     * @param ports egress port indexes the rule applies to; empty or null: all.
     * @return this.
     */
    public AclEgressRule outPorts(final int... ports) {
        outPorts = AclRule.portBitmap(ports);
        return this;
    }

    /**
     * @param value EtherType.
     * @param mask its mask.
     * @return this.
     */
    public AclEgressRule etherType(final int value, final int mask) {
        etherType = value & mask & 0xffff;
        etherTypeMask = mask & 0xffff;
        return this;
    }

    /**
     * @param value IPv4 destination (the rule then matches IPv4 packets only, unless the mask is 0).
     * @param mask its mask.
     * @return this.
     */
    public AclEgressRule dstIpv4(final int value, final int mask) {
        dstIpv4Mask = mask & 0xffff_ffffL;
        dstIpv4 = value & dstIpv4Mask;
        return this;
    }

    /**
     * @param value IP protocol / IPv6 next header (the rule then matches IP packets only, unless the mask is 0).
     * @param mask its mask.
     * @return this.
     */
    public AclEgressRule ipProtocol(final int value, final int mask) {
        ipProtocolMask = mask & 0xff;
        ipProtocol = value & ipProtocolMask;
        return this;
    }

    /**
     * @param value DSCP as it leaves (after any ACL rewrite; the rule then matches IP packets only, unless mask 0).
     * @param mask its mask.
     * @return this.
     */
    public AclEgressRule dscp(final int value, final int mask) {
        dscpMask = mask & 0x3f;
        dscp = value & dscpMask;
        return this;
    }

    /**
     * @param dropIt whether a matching packet is dropped (else it goes on and lower rules are not looked at).
     * @return this.
     */
    public AclEgressRule drop(final boolean dropIt) {
        drop = dropIt;
        return this;
    }
}
