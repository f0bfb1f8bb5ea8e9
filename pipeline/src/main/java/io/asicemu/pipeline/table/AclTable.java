package io.asicemu.pipeline.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The ingress ACL stage's table: rules compiled into parallel primitive arrays, sorted by priority (highest first;
 * equal priorities keep insertion order); a lookup returns the first rule in that order that matches, which is what
 * a TCAM's priority encoder returns. It is found by the bit-vector scheme ({@link AclBitVectors}, built with the
 * table): an interval lookup per field and an AND of 64-rule words instead of a test per rule; the linear scan stays
 * as the reference.
 * Rules are immutable once built: a change builds a new table (and its classifier, on the control side) that replaces
 * this one between batches. The rules' direct meters ({@link #meters()}, cell = rule index) start full with each new
 * table.
 * <p>
 * Rules are thread safe to read (immutable); matched, and its meters' buckets written, on the data-plane thread only.
 */
public final class AclTable {
    /** No rule matched. */
    public static final int NO_MATCH = -1;

    private static final AclTable EMPTY = new AclTable(List.of());

    private final int count;
    private final String[] names;
    private final long[][] inPorts;
    private final int[] etherType;
    private final int[] etherTypeMask;
    private final long[] srcMac;
    private final long[] srcMacMask;
    private final long[] dstMac;
    private final long[] dstMacMask;
    private final int[] vlanId;
    private final int[] ipVersion;
    private final long[] srcHigh;
    private final long[] srcLow;
    private final long[] srcHighMask;
    private final long[] srcLowMask;
    private final long[] dstHigh;
    private final long[] dstLow;
    private final long[] dstHighMask;
    private final long[] dstLowMask;
    private final int[] ipProtocol;
    private final int[] l4SrcMin;
    private final int[] l4SrcMax;
    private final int[] l4DstMin;
    private final int[] l4DstMax;
    private final int[] dscp;
    private final int[] ecn;
    private final int[] bthOpcode;
    private final int[] tcpFlags;
    private final int[] tcpFlagsMask;
    private final AclAction[] actions;
    private final int[] setTc;
    private final int[] setDscp;
    private final int[] cpuQueue;
    private final int[] mirrorSession;
    private final AclMeters meters;
    private final AclBitVectors classifier;

    /** @return a table without rules. */
    public static AclTable empty() {
        return EMPTY;
    }

    /**
     * Compiles rules; the rule at index i of the sorted order gets counter index i.
     *
     * @param rules the rules, any order.
     */
    public AclTable(final List<AclRule> rules) {
        this(rules, false);
    }

    /**
     * Compiles rules with their direct meters; the rule at index i of the sorted order gets counter and meter cell i.
     *
     * @param rules the rules, any order.
     * @param meterPackets whether the rules' meters count packets (else bytes).
     */
    public AclTable(final List<AclRule> rules, final boolean meterPackets) {
        final List<AclRule> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt(AclRule::priority).reversed());
        count = sorted.size();
        names = new String[count];
        inPorts = new long[count][];
        etherType = new int[count];
        etherTypeMask = new int[count];
        srcMac = new long[count];
        srcMacMask = new long[count];
        dstMac = new long[count];
        dstMacMask = new long[count];
        vlanId = new int[count];
        ipVersion = new int[count];
        srcHigh = new long[count];
        srcLow = new long[count];
        srcHighMask = new long[count];
        srcLowMask = new long[count];
        dstHigh = new long[count];
        dstLow = new long[count];
        dstHighMask = new long[count];
        dstLowMask = new long[count];
        ipProtocol = new int[count];
        l4SrcMin = new int[count];
        l4SrcMax = new int[count];
        l4DstMin = new int[count];
        l4DstMax = new int[count];
        dscp = new int[count];
        ecn = new int[count];
        bthOpcode = new int[count];
        tcpFlags = new int[count];
        tcpFlagsMask = new int[count];
        actions = new AclAction[count];
        setTc = new int[count];
        setDscp = new int[count];
        cpuQueue = new int[count];
        mirrorSession = new int[count];
        final AclMeterConfig[] meterConfigs = new AclMeterConfig[count];
        for (int i = 0; i < count; i++) {
            final AclRule r = sorted.get(i);
            names[i] = r.name;
            inPorts[i] = r.inPorts;
            etherType[i] = r.etherType;
            etherTypeMask[i] = r.etherTypeMask;
            srcMac[i] = r.srcMac;
            srcMacMask[i] = r.srcMacMask;
            dstMac[i] = r.dstMac;
            dstMacMask[i] = r.dstMacMask;
            vlanId[i] = r.vlanId;
            ipVersion[i] = r.ipVersion;
            srcHigh[i] = r.srcHigh;
            srcLow[i] = r.srcLow;
            srcHighMask[i] = r.srcHighMask;
            srcLowMask[i] = r.srcLowMask;
            dstHigh[i] = r.dstHigh;
            dstLow[i] = r.dstLow;
            dstHighMask[i] = r.dstHighMask;
            dstLowMask[i] = r.dstLowMask;
            ipProtocol[i] = r.ipProtocol;
            l4SrcMin[i] = r.l4SrcMin;
            l4SrcMax[i] = r.l4SrcMax;
            l4DstMin[i] = r.l4DstMin;
            l4DstMax[i] = r.l4DstMax;
            dscp[i] = r.dscp;
            ecn[i] = r.ecn;
            bthOpcode[i] = r.bthOpcode;
            tcpFlags[i] = r.tcpFlags;
            tcpFlagsMask[i] = r.tcpFlagsMask;
            actions[i] = r.action;
            setTc[i] = r.setTc;
            setDscp[i] = r.setDscp;
            cpuQueue[i] = r.cpuQueue;
            mirrorSession[i] = r.mirrorSession;
            meterConfigs[i] = r.meter;
        }
        meters = new AclMeters(meterConfigs, meterPackets);
        classifier = new AclBitVectors(sorted);
    }

    /** @return the number of rules. */
    public int size() {
        return count;
    }

    /**
     * @param rule a rule index (= its counter index).
     * @return its name.
     */
    public String name(final int rule) {
        return names[rule];
    }

    /** @return rule names by counter index. */
    public String[] names() {
        return names.clone();
    }

    /**
     * @param rule a rule index.
     * @return its action.
     */
    public AclAction action(final int rule) {
        return actions[rule];
    }

    /**
     * @param rule a rule index.
     * @return the TC it sets, or -1.
     */
    public int setTc(final int rule) {
        return setTc[rule];
    }

    /**
     * @param rule a rule index.
     * @return the DSCP it sets, or -1.
     */
    public int setDscp(final int rule) {
        return setDscp[rule];
    }

    /**
     * @param rule a rule index.
     * @return the CPU queue of its trap or copy.
     */
    public int cpuQueue(final int rule) {
        return cpuQueue[rule];
    }

    /**
     * @param rule a rule index.
     * @return the clone session id it mirrors to, or -1.
     */
    public int mirrorSession(final int rule) {
        return mirrorSession[rule];
    }

    /** @return the rules' direct meters (cell = rule index; data-plane thread marks packets). */
    public AclMeters meters() {
        return meters;
    }

    /**
     * Finds the highest-priority rule matching the packet's fields (the first in rule order, as a TCAM's priority
     * encoder answers) through the bit-vector classifier, without allocation; the same rule as {@link #matchLinear}.
     *
     * @param f the packet's fields (its packed scratch is overwritten).
     * @return the rule index, or {@link #NO_MATCH}.
     */
    public int match(final AclKey f) {
        return classifier.match(f, this);
    }

    /** @return bytes the classifier's interval bounds and bit vectors take (they grow with the rule count). */
    public long classifierBytes() {
        return classifier.reservedBytes();
    }

    /**
     * The reference semantics: scans every rule in order and returns the first that matches.
     *
     * @param f the packet's fields.
     * @return the rule index, or {@link #NO_MATCH}.
     */
    int matchLinear(final AclKey f) {
        for (int i = 0; i < count; i++) {
            if (matches(i, f)) {
                return i;
            }
        }
        return NO_MATCH;
    }

    /** Whether rule i matches the packet on every field: the scan's test and the classifier's confirmation. */
    boolean matches(final int i, final AclKey f) {
        final long[] ports = inPorts[i];
        if (ports != null) {
            final int word = f.inPort >>> 6;
            if (word >= ports.length || (ports[word] & (1L << (f.inPort & 63))) == 0) {
                return false;
            }
        }
        if ((f.etherType & etherTypeMask[i]) != etherType[i]
                || (f.srcMac & srcMacMask[i]) != srcMac[i]
                || (f.dstMac & dstMacMask[i]) != dstMac[i]
                || (vlanId[i] >= 0 && f.vlanId != vlanId[i])) {
            return false;
        }
        if (ipVersion[i] != 0) {
            if (f.ipVersion != ipVersion[i]
                    || (f.srcHigh & srcHighMask[i]) != srcHigh[i]
                    || (f.srcLow & srcLowMask[i]) != srcLow[i]
                    || (f.dstHigh & dstHighMask[i]) != dstHigh[i]
                    || (f.dstLow & dstLowMask[i]) != dstLow[i]) {
                return false;
            }
        }
        if (ipProtocol[i] >= 0 && f.ipProtocol != ipProtocol[i]) {
            return false;
        }
        if (f.l4SrcPort < l4SrcMin[i]
                || f.l4SrcPort > l4SrcMax[i]
                || f.l4DstPort < l4DstMin[i]
                || f.l4DstPort > l4DstMax[i]) {
            return false;
        }
        if ((dscp[i] >= 0 && f.dscp != dscp[i])
                || (ecn[i] >= 0 && f.ecn != ecn[i])
                || (f.tcpFlags & tcpFlagsMask[i]) != tcpFlags[i]) {
            return false;
        }
        return bthOpcode[i] < 0 || (f.roce && f.bthOpcode == bthOpcode[i]);
    }
}
