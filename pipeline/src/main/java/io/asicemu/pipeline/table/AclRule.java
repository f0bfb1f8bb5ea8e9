package io.asicemu.pipeline.table;

/**
 * One ternary ACL rule as the control side builds it (a control value, never used per packet): match fields with
 * masks or ranges, a priority (higher wins, as SONiC's {@code PRIORITY}), and actions. Unset fields match anything.
 * IPv4 addresses are the low 32 bits of the low word, as in the parser. Fluent setters; not thread safe.
 */
public final class AclRule {
    String name = "";
    int priority;
    long[] inPorts;
    int etherType;
    int etherTypeMask;
    long srcMac;
    long srcMacMask;
    long dstMac;
    long dstMacMask;
    int vlanId = -1;
    int ipVersion;
    long srcHigh;
    long srcLow;
    long srcHighMask;
    long srcLowMask;
    long dstHigh;
    long dstLow;
    long dstHighMask;
    long dstLowMask;
    int ipProtocol = -1;
    int l4SrcMin;
    int l4SrcMax = 0xffff;
    int l4DstMin;
    int l4DstMax = 0xffff;
    int dscp = -1;
    int ecn = -1;
    int bthOpcode = -1;
    int tcpFlags;
    int tcpFlagsMask;
    AclAction action = AclAction.FORWARD;
    int setTc = -1;
    int setDscp = -1;
    int cpuQueue;
    int mirrorSession = -1;
    AclMeterConfig meter;

    /**
     * @param name the rule's name, {@code TABLE|RULE}.
     * @param priority higher wins.
     */
    public AclRule(final String name, final int priority) {
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

    /** @return the action. */
    public AclAction action() {
        return action;
    }

    /**
     * @param ports ingress port indexes the rule applies to (the ACL table's binding); empty or null: all.
     * @return this.
     */
    public AclRule inPorts(final int... ports) {
        inPorts = portBitmap(ports);
        return this;
    }

    /**
     * @param ports port indexes; empty or null: all.
     * @return a bitmap of them (bit p of word p / 64), or null for all ports.
     */
    static long[] portBitmap(final int... ports) {
        if (ports == null || ports.length == 0) {
            return null;
        }
        int max = 0;
        for (final int p : ports) {
            max = Math.max(max, p);
        }
        final long[] bitmap = new long[max / 64 + 1];
        for (final int p : ports) {
            bitmap[p >>> 6] |= 1L << (p & 63);
        }
        return bitmap;
    }

    /**
     * @param value EtherType.
     * @param mask mask.
     * @return this.
     */
    public AclRule etherType(final int value, final int mask) {
        etherType = value & mask;
        etherTypeMask = mask;
        return this;
    }

    /**
     * @param value source MAC.
     * @param mask mask.
     * @return this.
     */
    public AclRule srcMac(final long value, final long mask) {
        srcMac = value & mask;
        srcMacMask = mask;
        return this;
    }

    /**
     * @param value destination MAC.
     * @param mask mask.
     * @return this.
     */
    public AclRule dstMac(final long value, final long mask) {
        dstMac = value & mask;
        dstMacMask = mask;
        return this;
    }

    /**
     * @param id the outer VLAN ID.
     * @return this.
     */
    public AclRule vlanId(final int id) {
        vlanId = id;
        return this;
    }

    /**
     * @param address IPv4 source.
     * @param prefixLength prefix length.
     * @return this.
     */
    public AclRule srcIpv4(final int address, final int prefixLength) {
        ipVersion = 4;
        srcLowMask = prefixLength == 0 ? 0 : (0xffff_ffffL << (32 - prefixLength)) & 0xffff_ffffL;
        srcLow = (address & 0xffff_ffffL) & srcLowMask;
        return this;
    }

    /**
     * @param address IPv4 destination.
     * @param prefixLength prefix length.
     * @return this.
     */
    public AclRule dstIpv4(final int address, final int prefixLength) {
        ipVersion = 4;
        dstLowMask = prefixLength == 0 ? 0 : (0xffff_ffffL << (32 - prefixLength)) & 0xffff_ffffL;
        dstLow = (address & 0xffff_ffffL) & dstLowMask;
        return this;
    }

    /**
     * @param high IPv6 source high bits.
     * @param low IPv6 source low bits.
     * @param prefixLength prefix length.
     * @return this.
     */
    public AclRule srcIpv6(final long high, final long low, final int prefixLength) {
        ipVersion = 6;
        srcHighMask = mask(prefixLength);
        srcLowMask = mask(prefixLength - 64);
        srcHigh = high & srcHighMask;
        srcLow = low & srcLowMask;
        return this;
    }

    /**
     * @param high IPv6 destination high bits.
     * @param low IPv6 destination low bits.
     * @param prefixLength prefix length.
     * @return this.
     */
    public AclRule dstIpv6(final long high, final long low, final int prefixLength) {
        ipVersion = 6;
        dstHighMask = mask(prefixLength);
        dstLowMask = mask(prefixLength - 64);
        dstHigh = high & dstHighMask;
        dstLow = low & dstLowMask;
        return this;
    }

    private static long mask(final int bits) {
        if (bits <= 0) {
            return 0;
        }
        return bits >= 64 ? -1L : -1L << (64 - bits);
    }

    /**
     * @param version 4 or 6 (0: any).
     * @return this.
     */
    public AclRule ipVersion(final int version) {
        ipVersion = version;
        return this;
    }

    /**
     * @param protocol IP protocol / next header.
     * @return this.
     */
    public AclRule ipProtocol(final int protocol) {
        ipProtocol = protocol;
        return this;
    }

    /**
     * @param min lowest L4 source port.
     * @param max highest.
     * @return this.
     */
    public AclRule l4SrcPort(final int min, final int max) {
        l4SrcMin = min;
        l4SrcMax = max;
        return this;
    }

    /**
     * @param min lowest L4 destination port.
     * @param max highest.
     * @return this.
     */
    public AclRule l4DstPort(final int min, final int max) {
        l4DstMin = min;
        l4DstMax = max;
        return this;
    }

    /**
     * @param value DSCP 0..63.
     * @return this.
     */
    public AclRule dscp(final int value) {
        dscp = value;
        return this;
    }

    /**
     * @param value ECN 0..3.
     * @return this.
     */
    public AclRule ecn(final int value) {
        ecn = value;
        return this;
    }

    /**
     * @param opcode RoCEv2 BTH opcode (the rule then matches only RoCEv2 packets).
     * @return this.
     */
    public AclRule bthOpcode(final int opcode) {
        bthOpcode = opcode;
        return this;
    }

    /**
     * @param value TCP flags.
     * @param mask mask.
     * @return this.
     */
    public AclRule tcpFlags(final int value, final int mask) {
        tcpFlags = value & mask;
        tcpFlagsMask = mask;
        return this;
    }

    /**
     * @param packetAction what to do.
     * @return this.
     */
    public AclRule action(final AclAction packetAction) {
        action = packetAction;
        return this;
    }

    /**
     * @param tc traffic class to set (-1: keep).
     * @return this.
     */
    public AclRule setTc(final int tc) {
        setTc = tc;
        return this;
    }

    /**
     * @param value DSCP to rewrite (-1: keep).
     * @return this.
     */
    public AclRule setDscp(final int value) {
        setDscp = value;
        return this;
    }

    /**
     * @param queue the CPU queue a trapped or copied packet goes to (its CoPP meter polices it).
     * @return this.
     */
    public AclRule cpuQueue(final int queue) {
        cpuQueue = queue;
        return this;
    }

    /**
     * Makes the rule mirror: a copy goes to the clone session's ports, the original is forwarded.
     *
     * @param sessionId the clone session id.
     * @return this.
     */
    public AclRule mirror(final int sessionId) {
        action = AclAction.MIRROR;
        mirrorSession = sessionId;
        return this;
    }

    /**
     * @param config the rule's direct meter (red packets are dropped), or null for none.
     * @return this.
     */
    public AclRule meter(final AclMeterConfig config) {
        meter = config;
        return this;
    }
}
