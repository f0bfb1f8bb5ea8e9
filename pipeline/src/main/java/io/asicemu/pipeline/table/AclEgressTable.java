package io.asicemu.pipeline.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The egress ACL stage's table, looked up per egress copy after the traffic manager's queue choice: rules in
 * parallel primitive arrays sorted by priority (highest first, equal priorities in insertion order), a linear ternary
 * scan that stops at the first hit (a TCAM's priority encoder). Rule i of that order has egress-ACL counter index i.
 * Immutable once built: a change builds a new table that replaces this one between batches.
 * <p>
 * Thread safe to read (immutable); matched on the data-plane thread without allocation.
 */
public final class AclEgressTable {
    /** No rule matched. */
    public static final int NO_MATCH = -1;

    private static final AclEgressTable EMPTY = new AclEgressTable(List.of());

    private final int count;
    private final String[] names;
    private final long[][] outPorts;
    private final int[] etherType;
    private final int[] etherTypeMask;
    private final long[] dstIpv4;
    private final long[] dstIpv4Mask;
    private final int[] ipProtocol;
    private final int[] ipProtocolMask;
    private final int[] dscp;
    private final int[] dscpMask;
    private final boolean[] drop;

    /** @return a table without rules. */
    public static AclEgressTable empty() {
        return EMPTY;
    }

    /**
     * @param rules the rules, any order.
     */
    public AclEgressTable(final List<AclEgressRule> rules) {
        final List<AclEgressRule> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt(AclEgressRule::priority).reversed());
        count = sorted.size();
        names = new String[count];
        outPorts = new long[count][];
        etherType = new int[count];
        etherTypeMask = new int[count];
        dstIpv4 = new long[count];
        dstIpv4Mask = new long[count];
        ipProtocol = new int[count];
        ipProtocolMask = new int[count];
        dscp = new int[count];
        dscpMask = new int[count];
        drop = new boolean[count];
        for (int i = 0; i < count; i++) {
            final AclEgressRule r = sorted.get(i);
            names[i] = r.name;
            outPorts[i] = r.outPorts;
            etherType[i] = r.etherType;
            etherTypeMask[i] = r.etherTypeMask;
            dstIpv4[i] = r.dstIpv4;
            dstIpv4Mask[i] = r.dstIpv4Mask;
            ipProtocol[i] = r.ipProtocol;
            ipProtocolMask[i] = r.ipProtocolMask;
            dscp[i] = r.dscp;
            dscpMask[i] = r.dscpMask;
            drop[i] = r.drop;
        }
    }

    /** @return the number of rules. */
    public int size() {
        return count;
    }

    /** @return rule names by counter index. */
    public String[] names() {
        return names.clone();
    }

    /**
     * @param rule a rule index.
     * @return whether it drops.
     */
    public boolean drops(final int rule) {
        return drop[rule];
    }

    /**
     * Finds the highest-priority rule matching a packet leaving a port.
     *
     * @param outPort the egress port.
     * @param type the EtherType (after VLAN tags).
     * @param ipVersion 4, 6 or 0.
     * @param dstIpv4Address the IPv4 destination (ignored unless IPv4).
     * @param protocol the IP protocol / next header (ignored unless IP).
     * @param dscpValue the DSCP (ignored unless IP).
     * @return the rule index, or {@link #NO_MATCH}.
     */
    public int match(
            final int outPort,
            final int type,
            final int ipVersion,
            final int dstIpv4Address,
            final int protocol,
            final int dscpValue) {
        final long dst = dstIpv4Address & 0xffff_ffffL;
        for (int i = 0; i < count; i++) {
            final long[] ports = outPorts[i];
            if (ports != null) {
                final int word = outPort >>> 6;
                if (word >= ports.length || (ports[word] & (1L << (outPort & 63))) == 0) {
                    continue;
                }
            }
            if ((type & etherTypeMask[i]) != etherType[i]) {
                continue;
            }
            if (dstIpv4Mask[i] != 0 && (ipVersion != 4 || (dst & dstIpv4Mask[i]) != dstIpv4[i])) {
                continue;
            }
            if ((ipProtocolMask[i] | dscpMask[i]) != 0
                    && (ipVersion == 0
                            || (protocol & ipProtocolMask[i]) != ipProtocol[i]
                            || (dscpValue & dscpMask[i]) != dscp[i])) {
                continue;
            }
            return i;
        }
        return NO_MATCH;
    }
}
