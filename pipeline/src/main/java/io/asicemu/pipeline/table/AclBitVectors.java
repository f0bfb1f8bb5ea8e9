package io.asicemu.pipeline.table;

import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * The ingress ACL's classifier: the bit-vector scheme of Lakshman and Stiliadis (SIGCOMM 1998). Every match field is
 * cut into 32-bit chunks (MACs and IPv6 words in two, IPv4 addresses in one) or taken whole (exact fields, L4 port
 * ranges, the ingress port); a rule's condition on a chunk is an interval of values (a prefix mask is a block, an
 * exact value a point, a range itself) or nothing. Per chunk the intervals' ends cut the value line into elementary
 * intervals, and each elementary interval holds a bit vector of the rules it satisfies, in rule order. A lookup
 * finds the packet's interval per chunk (indexed directly when the chunk's cuts span at most 64 Ki values, as exact
 * fields and L4 ports do, else by binary search, narrowed first to the value's 2^16 block where a chunk has many
 * cuts) and ANDs those vectors eight 64-rule words (512 rules) at a time in registers; the lowest set bit is the
 * first rule in priority order that every chunk allows, and a block with a confirmed rule ends the lookup.
 * <p>
 * Where a rule's condition is not an interval (a non-prefix mask: only its leading ones count; a port set: its span)
 * the vector holds a superset, so each candidate bit is confirmed by the table's full match and the next one is tried
 * when it fails: the answer is exactly the linear scan's. Cost per packet: one index or branch-free binary search per
 * chunk some rule uses plus chunks × rules / 64 ANDs (16 words for 1,000 rules), whatever the priorities and masks;
 * memory per chunk is at most (2 × rules + 1) × rules / 8 bytes, rules rounded up to 512 (256 KiB at 1,024 rules),
 * plus 128 KiB where indexed directly or 256 KiB where block-indexed.
 * <p>
 * Built on the control side with the table (allocation there is fine); immutable after, looked up on the data-plane
 * thread with no allocation (the packed key and row offsets live in the caller's {@link AclKey}).
 */
final class AclBitVectors {
    /** Key chunks: port, EtherType, MACs (2 each), VLAN, IP version, addresses (4 each), protocol, L4, DSCP, ECN,
     *  TCP flags, BTH. */
    static final int CHUNKS = 23;

    private static final int IN_PORT = 0;
    private static final int ETHER_TYPE = 1;
    private static final int SRC_MAC = 2;
    private static final int DST_MAC = 4;
    private static final int VLAN = 6;
    private static final int IP_VERSION = 7;
    private static final int SRC_IP = 8;
    private static final int DST_IP = 12;
    private static final int PROTOCOL = 16;
    private static final int L4_SRC = 17;
    private static final int L4_DST = 18;
    private static final int DSCP = 19;
    private static final int ECN = 20;
    private static final int TCP_FLAGS = 21;
    private static final int BTH = 22;
    private static final long LOW32 = 0xffff_ffffL;
    /** Widest value span (e.g. all L4 ports) a chunk indexes directly: 128 KiB of chars at most. */
    private static final long DIRECT_SPAN = 1 << 16;
    /**
     * Words ANDed at a time (512 rules), held in locals across the chunks, before the candidates among them are
     * confirmed: a match in an earlier block (higher priorities) ends the lookup without touching later blocks.
     */
    private static final int BLOCK_WORDS = 8;
    /** Cuts above which a chunk not indexed directly gets the 16-bit {@link #coarse} index. */
    private static final int COARSE_MIN_CUTS = 16;

    private static final int COARSE_BLOCKS = 1 << 16;

    private final int words;
    /** Chunks some rule constrains; per such chunk its interval cuts and rows (interval i: words from i * words). */
    private final int[] activeChunk;

    private final long[][] bounds;
    private final long[][] rows;
    /**
     * Per searched chunk whose cuts span at most {@link #DIRECT_SPAN} values: the interval of every value from the
     * first cut on, indexed directly (value - first cut) instead of searched; null where the span is wider.
     */
    private final char[][] direct;
    /**
     * Per searched chunk of 32-bit values that is not indexed directly and has more than {@link #COARSE_MIN_CUTS}
     * cuts: entry t is the interval of value t × 2^16 (the cuts at or below it), so a value's search runs only over
     * the cuts inside its own 2^16-value block, often none (256 KiB per such chunk); null elsewhere.
     */
    private final int[][] coarse;

    /**
     * Builds the vectors.
     *
     * @param rules the rules in the table's order (rule index = position, highest priority first).
     */
    AclBitVectors(final List<AclRule> rules) {
        final int count = rules.size();
        // rows padded with zero words to whole blocks, so the AND runs over a block without a tail
        words = (((count + 63) >>> 6) + BLOCK_WORDS - 1) / BLOCK_WORDS * BLOCK_WORDS;
        final long[][] low = new long[CHUNKS][count];
        final long[][] high = new long[CHUNKS][count];
        final boolean[][] any = new boolean[CHUNKS][count];
        for (int r = 0; r < count; r++) {
            intervals(rules.get(r), r, low, high, any);
        }
        int active = 0;
        final Integer[] chunks = new Integer[CHUNKS];
        final int[] wildcards = new int[CHUNKS];
        for (int c = 0; c < CHUNKS; c++) {
            for (int r = 0; r < count; r++) {
                wildcards[c] += any[c][r] ? 1 : 0;
            }
            if (wildcards[c] < count) {
                chunks[active++] = c;
            }
        }
        // Fewest wildcard rules first: the AND of a word usually reaches 0 after the first chunks, ending it early.
        Arrays.sort(chunks, 0, active, (x, y) -> Integer.compare(wildcards[x], wildcards[y]));
        activeChunk = new int[active];
        for (int a = 0; a < active; a++) {
            activeChunk[a] = chunks[a];
        }
        bounds = new long[active][];
        rows = new long[active][];
        direct = new char[active][];
        coarse = new int[active][];
        for (int a = 0; a < active; a++) {
            build(a, low[activeChunk[a]], high[activeChunk[a]], any[activeChunk[a]], count);
        }
    }

    /** @return the chunks a lookup searches (0: every rule is a candidate on every field). */
    int activeChunks() {
        return activeChunk.length;
    }

    /** @return bytes of the bounds and bit vectors (what the configured rule count costs). */
    long reservedBytes() {
        long bytes = 0;
        for (int a = 0; a < activeChunk.length; a++) {
            bytes += 8L * (bounds[a].length + rows[a].length)
                    + (direct[a] == null ? 0 : 2L * direct[a].length)
                    + (coarse[a] == null ? 0 : 4L * coarse[a].length);
        }
        return bytes;
    }

    private void build(final int a, final long[] low, final long[] high, final boolean[] any, final int count) {
        final TreeSet<Long> cuts = new TreeSet<>();
        for (int r = 0; r < count; r++) {
            if (!any[r] && low[r] <= high[r]) {
                cuts.add(low[r]);
                cuts.add(high[r] + 1);
            }
        }
        final long[] b = new long[cuts.size()];
        int i = 0;
        for (final long cut : cuts) {
            b[i++] = cut;
        }
        final long[] v = new long[(b.length + 1) * words];
        for (int r = 0; r < count; r++) {
            final long bit = 1L << (r & 63);
            final int word = r >>> 6;
            if (any[r]) {
                for (int interval = 0; interval <= b.length; interval++) {
                    v[interval * words + word] |= bit;
                }
            } else if (low[r] <= high[r]) {
                // interval k covers [b[k - 1], b[k]): the rule covers those from its low cut to just below high + 1
                final int first = Arrays.binarySearch(b, low[r]) + 1;
                final int last = Arrays.binarySearch(b, high[r] + 1);
                for (int interval = first; interval <= last; interval++) {
                    v[interval * words + word] |= bit;
                }
            }
        }
        bounds[a] = b;
        rows[a] = v;
        if (b.length > 0 && b[b.length - 1] - b[0] <= DIRECT_SPAN && b.length < Character.MAX_VALUE) {
            final char[] index = new char[(int) (b[b.length - 1] - b[0]) + 1];
            for (int k = 0; k < index.length; k++) {
                index[k] = (char) interval(b, 0, b.length, b[0] + k);
            }
            direct[a] = index;
        } else if (b.length > COARSE_MIN_CUTS && b[0] >= 0 && b[b.length - 1] <= LOW32 + 1) {
            final int[] blocks = new int[COARSE_BLOCKS + 1];
            for (int t = 0; t <= COARSE_BLOCKS; t++) {
                blocks[t] = interval(b, 0, b.length, (long) t << 16);
            }
            coarse[a] = blocks;
        }
    }

    /** Each chunk's condition of rule r as [low, high], or any. */
    private static void intervals(
            final AclRule r, final int i, final long[][] low, final long[][] high, final boolean[][] any) {
        for (int c = 0; c < CHUNKS; c++) {
            any[c][i] = true;
        }
        if (r.inPorts != null) {
            int first = -1;
            int last = -1;
            for (int p = 0; p < r.inPorts.length * 64; p++) {
                if ((r.inPorts[p >>> 6] & (1L << (p & 63))) != 0) {
                    first = first < 0 ? p : first;
                    last = p;
                }
            }
            range(low, high, any, IN_PORT, i, first, last);
        }
        masked(low, high, any, ETHER_TYPE, i, r.etherType & LOW32, r.etherTypeMask & LOW32);
        masked64(low, high, any, SRC_MAC, i, r.srcMac, r.srcMacMask);
        masked64(low, high, any, DST_MAC, i, r.dstMac, r.dstMacMask);
        if (r.vlanId >= 0) {
            range(low, high, any, VLAN, i, r.vlanId, r.vlanId);
        }
        if (r.ipVersion != 0) {
            range(low, high, any, IP_VERSION, i, r.ipVersion, r.ipVersion);
            masked64(low, high, any, SRC_IP, i, r.srcHigh, r.srcHighMask);
            masked64(low, high, any, SRC_IP + 2, i, r.srcLow, r.srcLowMask);
            masked64(low, high, any, DST_IP, i, r.dstHigh, r.dstHighMask);
            masked64(low, high, any, DST_IP + 2, i, r.dstLow, r.dstLowMask);
        }
        if (r.ipProtocol >= 0) {
            range(low, high, any, PROTOCOL, i, r.ipProtocol, r.ipProtocol);
        }
        if (r.l4SrcMin > 0 || r.l4SrcMax < 0xffff) {
            range(low, high, any, L4_SRC, i, r.l4SrcMin, r.l4SrcMax);
        }
        if (r.l4DstMin > 0 || r.l4DstMax < 0xffff) {
            range(low, high, any, L4_DST, i, r.l4DstMin, r.l4DstMax);
        }
        if (r.dscp >= 0) {
            range(low, high, any, DSCP, i, r.dscp, r.dscp);
        }
        if (r.ecn >= 0) {
            range(low, high, any, ECN, i, r.ecn, r.ecn);
        }
        masked(low, high, any, TCP_FLAGS, i, r.tcpFlags & LOW32, r.tcpFlagsMask & LOW32);
        if (r.bthOpcode >= 0) {
            range(low, high, any, BTH, i, r.bthOpcode, r.bthOpcode);
        }
    }

    private static void range(
            final long[][] low,
            final long[][] high,
            final boolean[][] any,
            final int chunk,
            final int rule,
            final long from,
            final long to) {
        any[chunk][rule] = false;
        low[chunk][rule] = from;
        high[chunk][rule] = to;
    }

    private static void masked64(
            final long[][] low,
            final long[][] high,
            final boolean[][] any,
            final int chunk,
            final int rule,
            final long value,
            final long mask) {
        masked(low, high, any, chunk, rule, value >>> 32, mask >>> 32);
        masked(low, high, any, chunk + 1, rule, value & LOW32, mask & LOW32);
    }

    /** A 32-bit (value, mask) as the block its mask's leading ones fix (exact for a prefix mask, wider otherwise). */
    private static void masked(
            final long[][] low,
            final long[][] high,
            final boolean[][] any,
            final int chunk,
            final int rule,
            final long value,
            final long mask) {
        final int ones = Integer.numberOfLeadingZeros(~(int) mask);
        if (ones == 0) {
            return;
        }
        final long prefix = (LOW32 << (32 - ones)) & LOW32;
        range(low, high, any, chunk, rule, value & prefix, (value & prefix) | (~prefix & LOW32));
    }

    /**
     * Finds the lowest-index rule the table confirms, as the linear scan would.
     *
     * @param f the packet's fields (its packed scratch is overwritten).
     * @param table the table whose full match confirms each candidate.
     * @return the rule index, or {@link AclTable#NO_MATCH}.
     */
    int match(final AclKey f, final AclTable table) {
        final int active = activeChunk.length;
        if (active == 0) {
            return table.matchLinear(f);
        }
        final long[] key = pack(f);
        final int[] offset = f.rowOffset;
        for (int a = 0; a < active; a++) {
            final long value = key[activeChunk[a]];
            final long[] b = bounds[a];
            final char[] index = direct[a];
            final int interval;
            if (index == null) {
                interval = search(a, b, value);
            } else if (value < b[0]) {
                interval = 0;
            } else {
                interval = value - b[0] < index.length ? index[(int) (value - b[0])] : b.length;
            }
            offset[a] = interval * words;
        }
        for (int from = 0; from < words; from += BLOCK_WORDS) {
            final int rule = firstInBlock(from, offset, active, f, table);
            if (rule != AclTable.NO_MATCH) {
                return rule;
            }
        }
        return AclTable.NO_MATCH;
    }

    /**
     * The first confirmed rule among words from..from+7: the AND of every searched chunk's row over those words, kept
     * in eight locals while the chunks are visited (one bounds check per row and block, no stores), then each
     * candidate bit in rule order.
     */
    private int firstInBlock(
            final int from, final int[] offset, final int active, final AclKey f, final AclTable table) {
        long w0 = -1L;
        long w1 = -1L;
        long w2 = -1L;
        long w3 = -1L;
        long w4 = -1L;
        long w5 = -1L;
        long w6 = -1L;
        long w7 = -1L;
        for (int a = 0; a < active; a++) {
            final long[] row = rows[a];
            final int o = offset[a] + from;
            w7 &= row[o + 7];
            w0 &= row[o];
            w1 &= row[o + 1];
            w2 &= row[o + 2];
            w3 &= row[o + 3];
            w4 &= row[o + 4];
            w5 &= row[o + 5];
            w6 &= row[o + 6];
        }
        if ((w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7) == 0) {
            return AclTable.NO_MATCH;
        }
        int rule = firstConfirmed(w0, from, f, table);
        rule = rule != AclTable.NO_MATCH ? rule : firstConfirmed(w1, from + 1, f, table);
        rule = rule != AclTable.NO_MATCH ? rule : firstConfirmed(w2, from + 2, f, table);
        rule = rule != AclTable.NO_MATCH ? rule : firstConfirmed(w3, from + 3, f, table);
        rule = rule != AclTable.NO_MATCH ? rule : firstConfirmed(w4, from + 4, f, table);
        rule = rule != AclTable.NO_MATCH ? rule : firstConfirmed(w5, from + 5, f, table);
        rule = rule != AclTable.NO_MATCH ? rule : firstConfirmed(w6, from + 6, f, table);
        return rule != AclTable.NO_MATCH ? rule : firstConfirmed(w7, from + 7, f, table);
    }

    /** The first rule of a word's candidate bits that the table's full match confirms, lowest bit first. */
    private static int firstConfirmed(final long word, final int w, final AclKey f, final AclTable table) {
        long candidates = word;
        while (candidates != 0) {
            final int rule = (w << 6) + Long.numberOfTrailingZeros(candidates);
            if (table.matches(rule, f)) {
                return rule;
            }
            candidates &= candidates - 1;
        }
        return AclTable.NO_MATCH;
    }

    /** The interval of a value in a chunk without a direct index: within its 2^16 block where coarse-indexed. */
    private int search(final int a, final long[] b, final long value) {
        final int[] blocks = coarse[a];
        final long block = value >>> 16;
        if (blocks == null || block >= COARSE_BLOCKS) {
            return interval(b, 0, b.length, value);
        }
        final int from = blocks[(int) block];
        final int cuts = blocks[(int) block + 1] - from;
        return cuts == 0 ? from : interval(b, from, cuts, value);
    }

    /**
     * The index of the elementary interval holding the value, given that the cuts below {@code from} are all at or
     * below it and those from {@code from + n} on all above it: {@code from} plus how many of the n cuts between are
     * at or below it. Written without a data-dependent branch (the halving steps depend only on the length), so the
     * JIT can use conditional moves and a packet's address does not cost branch mispredictions.
     */
    private static int interval(final long[] b, final int from, final int n, final long value) {
        if (n == 0) {
            return from;
        }
        int base = from;
        int length = n;
        while (length > 1) {
            final int half = length >>> 1;
            base = b[base + half] <= value ? base + half : base;
            length -= half;
        }
        return base + (b[base] <= value ? 1 : 0);
    }

    private static long[] pack(final AclKey f) {
        final long[] key = f.packed;
        key[IN_PORT] = f.inPort;
        key[ETHER_TYPE] = f.etherType & LOW32;
        key[SRC_MAC] = f.srcMac >>> 32;
        key[SRC_MAC + 1] = f.srcMac & LOW32;
        key[DST_MAC] = f.dstMac >>> 32;
        key[DST_MAC + 1] = f.dstMac & LOW32;
        key[VLAN] = f.vlanId;
        key[IP_VERSION] = f.ipVersion;
        key[SRC_IP] = f.srcHigh >>> 32;
        key[SRC_IP + 1] = f.srcHigh & LOW32;
        key[SRC_IP + 2] = f.srcLow >>> 32;
        key[SRC_IP + 3] = f.srcLow & LOW32;
        key[DST_IP] = f.dstHigh >>> 32;
        key[DST_IP + 1] = f.dstHigh & LOW32;
        key[DST_IP + 2] = f.dstLow >>> 32;
        key[DST_IP + 3] = f.dstLow & LOW32;
        key[PROTOCOL] = f.ipProtocol;
        key[L4_SRC] = f.l4SrcPort;
        key[L4_DST] = f.l4DstPort;
        key[DSCP] = f.dscp;
        key[ECN] = f.ecn;
        key[TCP_FLAGS] = f.tcpFlags & LOW32;
        key[BTH] = f.roce ? f.bthOpcode : -1;
        return key;
    }
}
