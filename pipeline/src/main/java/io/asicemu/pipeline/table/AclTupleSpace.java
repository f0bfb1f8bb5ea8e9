package io.asicemu.pipeline.table;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tuple-space search with tuple merging and priority pruning over the ingress ACL's rules (Srinivasan et al. 1999;
 * TupleMerge, Daly and Torng 2017): the classifier that finds the same rule as {@link AclTable}'s linear priority scan
 * without looking at every rule.
 * <p>
 * Each rule is reduced to a hashable pattern: per packed field a (value, mask) that every packet the rule matches
 * satisfies — EtherType and TCP flags with the rule's masks, MAC and IP masks cut to their whole bytes, exact fields
 * (VLAN, IP version and protocol, DSCP, ECN, BTH opcode) whole, ingress-port sets by the whole bytes their lowest and
 * highest ports share, L4 port ranges exactly when one port, by high byte when they span at most
 * {@link #RANGE_FANOUT} high bytes (one entry per high byte), else not at all. A tuple is one mask vector and a hash
 * table from masked packed keys to the rules of that key, in rule order. A rule joins the tuple of its own masks, or
 * else the most specific tuple with shorter masks on the same fields while that key holds fewer than
 * {@link #CHAIN_LIMIT} rules, so near prefix lengths share a tuple; otherwise it opens a tuple of its own. Hashing is
 * only a filter: every candidate is confirmed by the table's full match (ranges, port sets, the bits a reduced mask
 * dropped, hash collisions), so the result is exactly the scan's.
 * <p>
 * Lookup probes the tuples in order of the best rule each holds and stops as soon as no tuple left can beat the rule
 * found (priority pruning); its cost follows the number of distinct mask shapes, not the number of rules. Built on
 * the control side with the table (allocation there is fine); immutable after, looked up on the data-plane thread
 * with no allocation (the packed key lives in the caller's {@link AclKey}).
 */
final class AclTupleSpace {
    /** Packed fields: port, EtherType, MACs, VLAN, IP version, addresses, protocol, L4 ports, DSCP, ECN, flags, BTH. */
    static final int FIELDS = 17;
    /** Rules one masked key of a merged tuple may hold before a rule must open a more specific tuple. */
    static final int CHAIN_LIMIT = 8;
    /** High-byte values an L4 port range may span and still be hashed (one bucket entry each). */
    static final int RANGE_FANOUT = 4;
    private static final int IN_PORT = 0;
    private static final int ETHER_TYPE = 1;
    private static final int SRC_MAC = 2;
    private static final int DST_MAC = 3;
    private static final int VLAN = 4;
    private static final int IP_VERSION = 5;
    private static final int SRC_HIGH = 6;
    private static final int SRC_LOW = 7;
    private static final int DST_HIGH = 8;
    private static final int DST_LOW = 9;
    private static final int PROTOCOL = 10;
    private static final int L4_SRC = 11;
    private static final int L4_DST = 12;
    private static final int DSCP = 13;
    private static final int ECN = 14;
    private static final int TCP_FLAGS = 15;
    private static final int BTH = 16;
    private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

    private final int tupleCount;
    /** Per tuple (in probe order): the lowest rule index it holds, the best it can answer. */
    private final int[] tupleBestRule;
    /** Per tuple: its used fields are fieldIndex/fieldMask[tupleFieldStart[t], tupleFieldStart[t + 1]). */
    private final int[] tupleFieldStart;
    private final int[] fieldIndex;
    private final long[] fieldMask;
    /** Per tuple: its open-addressing hash table is slot[tableStart[t], tableStart[t] + tableMask[t] + 1). */
    private final int[] tableStart;
    private final int[] tableMask;
    private final long[] slotHash;
    /** Per slot: its rules are candidates[slotFirst, slotFirst + slotCount), ascending; count 0 = empty slot. */
    private final int[] slotFirst;
    private final int[] slotCount;
    private final int[] candidates;

    /** A tuple while it is built: the mask vector and its keys' rules. */
    private static final class Tuple {
        final long[] mask;
        final int bits;
        final Map<Long, List<Integer>> chains = new HashMap<>();

        Tuple(final long[] mask) {
            this.mask = mask;
            int b = 0;
            for (final long m : mask) {
                b += Long.bitCount(m);
            }
            bits = b;
        }

        int best() {
            int best = Integer.MAX_VALUE;
            for (final List<Integer> chain : chains.values()) {
                best = Math.min(best, chain.get(0));
            }
            return best;
        }
    }

    /**
     * Builds the classifier.
     *
     * @param rules the rules in the table's order (rule index = position, highest priority first).
     */
    AclTupleSpace(final List<AclRule> rules) {
        final int count = rules.size();
        final long[][] masks = new long[count][];
        final List<List<long[]>> values = new ArrayList<>();
        final Integer[] byBits = new Integer[count];
        final int[] bits = new int[count];
        for (int r = 0; r < count; r++) {
            masks[r] = new long[FIELDS];
            final long[] value = new long[FIELDS];
            pattern(rules.get(r), value, masks[r]);
            values.add(expandRanges(rules.get(r), value, masks[r]));
            for (final long m : masks[r]) {
                bits[r] += Long.bitCount(m);
            }
            byBits[r] = r;
        }
        // Least specific first, so general tuples exist when specific rules look for one to join.
        Arrays.sort(byBits, (a, b) -> bits[a] != bits[b] ? Integer.compare(bits[a], bits[b]) : Integer.compare(a, b));
        final List<Tuple> tuples = new ArrayList<>();
        int placements = 0;
        for (final int r : byBits) {
            for (final long[] value : values.get(r)) {
                place(tuples, r, value, masks[r]);
                placements++;
            }
        }
        for (final Tuple t : tuples) {
            for (final List<Integer> chain : t.chains.values()) {
                chain.sort(null);
            }
        }
        tuples.sort((a, b) -> Integer.compare(a.best(), b.best()));
        tupleCount = tuples.size();
        tupleBestRule = new int[tupleCount];
        tupleFieldStart = new int[tupleCount + 1];
        tableStart = new int[tupleCount];
        tableMask = new int[tupleCount];
        int fields = 0;
        int slots = 0;
        for (int t = 0; t < tupleCount; t++) {
            final Tuple tuple = tuples.get(t);
            tupleBestRule[t] = tuple.best();
            tupleFieldStart[t] = fields;
            for (final long m : tuple.mask) {
                fields += m != 0 ? 1 : 0;
            }
            final int capacity = Integer.highestOneBit(Math.max(1, tuple.chains.size()) * 2 - 1) * 2;
            tableStart[t] = slots;
            tableMask[t] = capacity - 1;
            slots += capacity;
        }
        tupleFieldStart[tupleCount] = fields;
        fieldIndex = new int[fields];
        fieldMask = new long[fields];
        slotHash = new long[slots];
        slotFirst = new int[slots];
        slotCount = new int[slots];
        candidates = new int[placements];
        int field = 0;
        int candidate = 0;
        for (int t = 0; t < tupleCount; t++) {
            final Tuple tuple = tuples.get(t);
            for (int f = 0; f < FIELDS; f++) {
                if (tuple.mask[f] != 0) {
                    fieldIndex[field] = f;
                    fieldMask[field++] = tuple.mask[f];
                }
            }
            for (final Map.Entry<Long, List<Integer>> e : tuple.chains.entrySet()) {
                final long h = e.getKey();
                int slot = (int) (h ^ (h >>> 32)) & tableMask[t];
                while (slotCount[tableStart[t] + slot] != 0) {
                    slot = (slot + 1) & tableMask[t];
                }
                slotHash[tableStart[t] + slot] = h;
                slotFirst[tableStart[t] + slot] = candidate;
                slotCount[tableStart[t] + slot] = e.getValue().size();
                for (final int r : e.getValue()) {
                    candidates[candidate++] = r;
                }
            }
        }
    }

    /** @return how many tuples a lookup may probe (a measure of the rule set's mask diversity). */
    int tupleCount() {
        return tupleCount;
    }

    private static void place(final List<Tuple> tuples, final int rule, final long[] value, final long[] mask) {
        Tuple best = null;
        long bestHash = 0;
        for (final Tuple t : tuples) {
            if (Arrays.equals(t.mask, mask)) {
                best = t;
                bestHash = hash(value, mask);
                break;
            }
            if ((best == null || t.bits > best.bits) && coarser(t.mask, mask)) {
                final long h = hash(value, t.mask);
                final List<Integer> chain = t.chains.get(h);
                if (chain == null || chain.size() < CHAIN_LIMIT) {
                    best = t;
                    bestHash = h;
                }
            }
        }
        if (best == null) {
            best = new Tuple(mask);
            bestHash = hash(value, mask);
            tuples.add(best);
        }
        best.chains.computeIfAbsent(bestHash, k -> new ArrayList<>()).add(rule);
    }

    /**
     * Whether a tuple's masks can serve a rule's: a subset of its bits (so every packet the rule matches lands in the
     * rule's bucket) on the same fields (so the field that tells the rule apart stays hashed, if shorter).
     */
    private static boolean coarser(final long[] inner, final long[] outer) {
        for (int f = 0; f < FIELDS; f++) {
            if ((inner[f] & ~outer[f]) != 0 || ((inner[f] == 0) != (outer[f] == 0))) {
                return false;
            }
        }
        return true;
    }

    private static long hash(final long[] value, final long[] mask) {
        long h = 0;
        for (int f = 0; f < FIELDS; f++) {
            if (mask[f] != 0) {
                h = mix(h, value[f] & mask[f]);
            }
        }
        return finish(h);
    }

    private static long mix(final long h, final long v) {
        return Long.rotateLeft((h ^ v) * GOLDEN, 29);
    }

    private static long finish(final long h) {
        final long x = (h ^ (h >>> 33)) * 0xff51_afd7_ed55_8ccdL;
        return x ^ (x >>> 33);
    }

    /** Fills the rule's pattern: for every packet the rule matches, (packed[f] & mask[f]) == (value[f] & mask[f]). */
    private static void pattern(final AclRule r, final long[] value, final long[] mask) {
        if (r.inPorts != null) {
            int low = -1;
            int high = -1;
            for (int p = 0; p < r.inPorts.length * 64; p++) {
                if ((r.inPorts[p >>> 6] & (1L << (p & 63))) != 0) {
                    low = low < 0 ? p : low;
                    high = p;
                }
            }
            if (low >= 0) {
                set(value, mask, IN_PORT, low, wholeBytes(sharedPrefix(low, high) & 0xffff));
            }
        }
        set(value, mask, ETHER_TYPE, r.etherType, r.etherTypeMask);
        set(value, mask, SRC_MAC, r.srcMac, wholeBytes(r.srcMacMask));
        set(value, mask, DST_MAC, r.dstMac, wholeBytes(r.dstMacMask));
        set(value, mask, VLAN, r.vlanId, r.vlanId >= 0 ? -1L : 0);
        if (r.ipVersion != 0) {
            set(value, mask, IP_VERSION, r.ipVersion, -1L);
            set(value, mask, SRC_HIGH, r.srcHigh, wholeBytes(r.srcHighMask));
            set(value, mask, SRC_LOW, r.srcLow, wholeBytes(r.srcLowMask));
            set(value, mask, DST_HIGH, r.dstHigh, wholeBytes(r.dstHighMask));
            set(value, mask, DST_LOW, r.dstLow, wholeBytes(r.dstLowMask));
        }
        set(value, mask, PROTOCOL, r.ipProtocol, r.ipProtocol >= 0 ? -1L : 0);
        set(value, mask, L4_SRC, r.l4SrcMin, rangeMask(r.l4SrcMin, r.l4SrcMax));
        set(value, mask, L4_DST, r.l4DstMin, rangeMask(r.l4DstMin, r.l4DstMax));
        set(value, mask, DSCP, r.dscp, r.dscp >= 0 ? -1L : 0);
        set(value, mask, ECN, r.ecn, r.ecn >= 0 ? -1L : 0);
        set(value, mask, TCP_FLAGS, r.tcpFlags, r.tcpFlagsMask);
        set(value, mask, BTH, r.bthOpcode, r.bthOpcode >= 0 ? -1L : 0);
    }

    private static void set(final long[] value, final long[] mask, final int field, final long v, final long m) {
        value[field] = v & m;
        mask[field] = m;
    }

    /** The mask's bytes that are all ones (a prefix rounded down to whole bytes, so near lengths share a tuple). */
    private static long wholeBytes(final long mask) {
        long kept = 0;
        for (int b = 0; b < 64; b += 8) {
            if (((mask >>> b) & 0xff) == 0xff) {
                kept |= 0xffL << b;
            }
        }
        return kept;
    }

    /**
     * How an L4 port range is hashed: exactly when it is one port, by its high byte when it spans at most
     * {@link #RANGE_FANOUT} high-byte values (the rule then sits in one bucket per high byte), else not at all.
     */
    private static long rangeMask(final int low, final int high) {
        if (low == high) {
            return 0xffff;
        }
        if (low < 0 || high > 0xffff || low > high || (high >>> 8) - (low >>> 8) >= RANGE_FANOUT) {
            return 0;
        }
        return 0xff00;
    }

    /** The rule's pattern values, one per high byte its L4 ranges span when those are hashed by high byte. */
    private static List<long[]> expandRanges(final AclRule r, final long[] value, final long[] mask) {
        final List<long[]> values = new ArrayList<>();
        values.add(value);
        if (mask[L4_SRC] == 0xff00) {
            expand(values, L4_SRC, r.l4SrcMin >>> 8, r.l4SrcMax >>> 8);
        }
        if (mask[L4_DST] == 0xff00) {
            expand(values, L4_DST, r.l4DstMin >>> 8, r.l4DstMax >>> 8);
        }
        return values;
    }

    private static void expand(final List<long[]> values, final int field, final int lowByte, final int highByte) {
        final List<long[]> base = new ArrayList<>(values);
        values.clear();
        for (final long[] v : base) {
            for (int b = lowByte; b <= highByte; b++) {
                final long[] copy = v.clone();
                copy[field] = (long) b << 8;
                values.add(copy);
            }
        }
    }

    /** The high bits every value in [low, high] shares (all bits when equal, none when the range spans the sign). */
    private static long sharedPrefix(final long low, final long high) {
        if (low == high) {
            return -1L;
        }
        if (low > high) {
            return 0;
        }
        return ~((Long.highestOneBit(low ^ high) << 1) - 1);
    }

    /**
     * Finds the lowest-index rule the table confirms, as the linear scan would.
     *
     * @param f the packet's fields (its packed scratch is overwritten).
     * @param table the table whose full match confirms each candidate.
     * @return the rule index, or {@link AclTable#NO_MATCH}.
     */
    int match(final AclKey f, final AclTable table) {
        final long[] key = f.packed;
        key[IN_PORT] = f.inPort;
        key[ETHER_TYPE] = f.etherType;
        key[SRC_MAC] = f.srcMac;
        key[DST_MAC] = f.dstMac;
        key[VLAN] = f.vlanId;
        key[IP_VERSION] = f.ipVersion;
        key[SRC_HIGH] = f.srcHigh;
        key[SRC_LOW] = f.srcLow;
        key[DST_HIGH] = f.dstHigh;
        key[DST_LOW] = f.dstLow;
        key[PROTOCOL] = f.ipProtocol;
        key[L4_SRC] = f.l4SrcPort;
        key[L4_DST] = f.l4DstPort;
        key[DSCP] = f.dscp;
        key[ECN] = f.ecn;
        key[TCP_FLAGS] = f.tcpFlags;
        key[BTH] = f.roce ? f.bthOpcode : -1;
        int best = Integer.MAX_VALUE;
        for (int t = 0; t < tupleCount && tupleBestRule[t] < best; t++) {
            long h = 0;
            for (int i = tupleFieldStart[t], end = tupleFieldStart[t + 1]; i < end; i++) {
                h = mix(h, key[fieldIndex[i]] & fieldMask[i]);
            }
            h = finish(h);
            final int start = tableStart[t];
            final int m = tableMask[t];
            int slot = (int) (h ^ (h >>> 32)) & m;
            while (slotCount[start + slot] != 0 && slotHash[start + slot] != h) {
                slot = (slot + 1) & m;
            }
            final int first = slotFirst[start + slot];
            for (int c = first, end = first + slotCount[start + slot]; c < end; c++) {
                final int rule = candidates[c];
                if (rule >= best) {
                    break;
                }
                if (table.matches(rule, f)) {
                    best = rule;
                    break;
                }
            }
        }
        return best == Integer.MAX_VALUE ? AclTable.NO_MATCH : best;
    }
}
