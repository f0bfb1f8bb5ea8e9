package io.asicemu.flowlet;

import io.asicemu.flowlet.ars.FlowletTable;
import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.ecmp.EcmpMembers;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashKey;
import io.asicemu.flowlet.hash.SplitMix64;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One ECMP/WCMP next-hop group: picks a member per packet by its mode and counts what it did.
 * <pre>
 *  HashKey ──► HashEngine ──► flow hash ──┬─ STATIC_HASH / ENHANCED_ECMP ─► EcmpMembers buckets
 *                                         ├─ FLOWLET_* ─► FlowletTable ─ same flowlet: same member
 *                                         │                            └ new flowlet: best band (PortQuality)
 *                                         │                                           or random (LetFlow)
 *  PRNG ──────────────────────────────────┴─ PER_PACKET_SPRAY ─► weighted random member
 * </pre>
 * A flow never changes member inside a flowlet unless its member fails. If the flowlet table is full along the
 * probe sequence the packet is hashed instead (counted as a table-full fallback).
 * <p>
 * Counters are longs only the data-plane thread writes, with opaque stores; their getters use opaque loads, so a
 * control thread may read them at any time (each value is untorn and recent; a set of them is not a snapshot).
 * In FLOWLET_QUALITY mode a new flowlet goes to a live member of the best band (ties broken at random); member
 * weights apply to hashing, spraying and FLOWLET_RANDOM placement, not to quality placement.
 * No allocation per packet. Not thread safe: {@link #select}, {@link #memberUp} and {@link #portUp} are called on
 * the data-plane thread only.
 */
public final class LoadBalanceGroup {
    /** Returned when no member is live. */
    public static final int NO_MEMBER = EcmpMembers.NO_MEMBER;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int REASSIGNMENTS = GroupCounter.ARS_NEXT_HOP_REASSIGNMENTS.ordinal();
    private static final int NEW_FLOWLETS = GroupCounter.FLOWLETS.ordinal();
    private static final int TABLE_FULL_FALLBACKS = GroupCounter.FLOWLET_TABLE_FULL_FALLBACKS.ordinal();
    private static final int NO_MEMBER_DROPS = GroupCounter.ARS_PACKET_DROPS.ordinal();

    private GroupSettings settings;
    private final EcmpMembers members;
    private final HashEngine hashEngine;
    private PortQuality quality;
    private FlowletTable flowlets;
    private final SplitMix64 random;
    private final long[] memberSelections;
    private final long[] memberBytes;
    private final int[] tieScratch;
    private final long[] counters = new long[GroupCounter.values().length];

    /**
     * @param settings   mode, resilience, flowlet table.
     * @param ports      port index of each member.
     * @param weights    weight of each member (WCMP), all 1 for ECMP.
     * @param hashEngine the switch's ECMP hash engine (shared by all groups on the data thread).
     * @param quality    the switch's port quality (shared; may be null unless the mode is FLOWLET_QUALITY).
     */
    public LoadBalanceGroup(
            final GroupSettings settings,
            final int[] ports,
            final int[] weights,
            final HashEngine hashEngine,
            final PortQuality quality) {
        if (settings.mode() == LoadBalanceMode.FLOWLET_QUALITY && quality == null) {
            throw new IllegalArgumentException("FLOWLET_QUALITY needs port quality");
        }
        this.settings = settings;
        this.members = new EcmpMembers(ports, weights, settings.resilient(), settings.resilientBuckets());
        this.hashEngine = hashEngine;
        this.quality = quality;
        this.flowlets =
                settings.mode().flowlet() ? new FlowletTable(settings.flowletTableSize(), settings.idleTimeNs()) : null;
        this.random = new SplitMix64(settings.randomSeed());
        this.memberSelections = new long[ports.length];
        this.memberBytes = new long[ports.length];
        this.tieScratch = new int[ports.length];
    }

    /**
     * Pick the member for a packet.
     *
     * @param key   the packet's hash fields.
     * @param bytes the packet's length (counted per member).
     * @param nowNs current time (flowlet gaps and quality sampling).
     * @return member index (see {@link #memberPort}), or {@link #NO_MEMBER} when no member is live.
     */
    public int select(final HashKey key, final int bytes, final long nowNs) {
        final int member = switch (settings.mode()) {
            case STATIC_HASH -> members.select(hashEngine.hashDefaultObject(key));
            case ENHANCED_ECMP -> members.select(hashEngine.hash(key));
            case PER_PACKET_SPRAY -> members.selectRandom(random.nextInt());
            case FLOWLET_QUALITY, FLOWLET_RANDOM -> selectFlowlet(hashEngine.flowHash(key), nowNs);
        };
        if (member == NO_MEMBER) {
            increment(counters, NO_MEMBER_DROPS, 1);
            return NO_MEMBER;
        }
        increment(memberSelections, member, 1);
        increment(memberBytes, member, bytes);
        return member;
    }

    private int selectFlowlet(final int flowHash, final long nowNs) {
        if (members.liveCount() == 0) {
            return NO_MEMBER;
        }
        final int slot = flowlets.lookup(flowHash, nowNs);
        if (slot == FlowletTable.TABLE_FULL) {
            increment(counters, TABLE_FULL_FALLBACKS, 1);
            return members.select(flowHash);
        }
        final int previous = flowlets.member(slot);
        final int member;
        if (previous != FlowletTable.NO_MEMBER && members.isUp(previous) && flowlets.inFlowlet(slot, nowNs)) {
            member = previous;
        } else {
            member = placeNewFlowlet(nowNs);
            increment(counters, NEW_FLOWLETS, 1);
            if (previous != FlowletTable.NO_MEMBER && member != previous) {
                increment(counters, REASSIGNMENTS, 1);
            }
        }
        flowlets.record(slot, member, nowNs);
        return member;
    }

    private static void increment(final long[] array, final int index, final long delta) {
        // the data-plane thread is the only writer: a plain load reads its own last store; readers need the opaque
        // store only
        LONGS.setOpaque(array, index, array[index] + delta);
    }

    private static long read(final long[] array, final int index) {
        return (long) LONGS.getOpaque(array, index);
    }

    private int placeNewFlowlet(final long nowNs) {
        if (settings.mode() == LoadBalanceMode.FLOWLET_RANDOM) {
            return members.selectRandom(random.nextInt());
        }
        quality.advance(nowNs);
        int bestBand = -1;
        int ties = 0;
        for (int m = 0; m < members.memberCount(); m++) {
            if (members.isUp(m)) {
                final int band = quality.band(members.port(m));
                if (band > bestBand) {
                    bestBand = band;
                    ties = 0;
                }
                if (band == bestBand) {
                    tieScratch[ties++] = m;
                }
            }
        }
        return ties == 1 ? tieScratch[0] : tieScratch[random.nextInt(ties)];
    }

    /**
     * Runtime change of the flowlet idle time (P4Runtime register ars.flowlet_idle_time_ns; SAI ARS IDLE_TIME).
     * Data-plane thread, between packet batches. The flowlet table keeps its flows; the next packet of each is
     * judged against the new gap, as a group configured with this idle time would judge it. Outside flowlet modes
     * only the settings change (they apply if the mode becomes a flowlet mode).
     *
     * @param idleTimeNs 16 µs..32 ms ({@link GroupSettings} limits).
     * @throws IllegalArgumentException outside the limits (nothing changes).
     */
    public void idleTimeNs(final long idleTimeNs) {
        final GroupSettings next = settings.withFlowlet(settings.flowletTableSize(), idleTimeNs);
        if (flowlets != null) {
            flowlets.idleTimeNs(idleTimeNs);
        }
        settings = next;
    }

    /**
     * Runtime change of the selection mode (P4Runtime register ars.group_selection_mode). Data-plane thread, between
     * packet batches; entering a flowlet mode allocates a fresh flowlet table (as a newly configured group has) and
     * the group's PRNG restarts from its seed, so the group then behaves as one built with this mode.
     *
     * @param mode        the new mode.
     * @param portQuality the switch's port quality (required for FLOWLET_QUALITY, else may be null).
     * @throws IllegalArgumentException FLOWLET_QUALITY without port quality (nothing changes).
     */
    public void mode(final LoadBalanceMode mode, final PortQuality portQuality) {
        if (mode == LoadBalanceMode.FLOWLET_QUALITY && portQuality == null && quality == null) {
            throw new IllegalArgumentException("FLOWLET_QUALITY needs port quality");
        }
        if (mode == settings.mode()) {
            return;
        }
        if (portQuality != null) {
            quality = portQuality;
        }
        settings = settings.withMode(mode);
        flowlets = mode.flowlet() ? new FlowletTable(settings.flowletTableSize(), settings.idleTimeNs()) : null;
        random.reseed(settings.randomSeed());
    }

    /**
     * Set a member live or failed (its flows move; with resilient hashing only its own).
     *
     * @param member member index.
     * @param isUp   new state.
     */
    public void memberUp(final int member, final boolean isUp) {
        members.memberUp(member, isUp);
    }

    /**
     * Port state change: members on the port leave (or rejoin) the selection.
     *
     * @param port port index.
     * @param isUp new state.
     */
    public void portUp(final int port, final boolean isUp) {
        members.portUp(port, isUp);
    }

    /**
     * @param member member index.
     * @return its port index.
     */
    public int memberPort(final int member) {
        return members.port(member);
    }

    /**
     * @return number of members.
     */
    public int memberCount() {
        return members.memberCount();
    }

    /**
     * @return the member table.
     */
    public EcmpMembers members() {
        return members;
    }

    /**
     * @return the settings.
     */
    public GroupSettings settings() {
        return settings;
    }

    /**
     * @param member member index.
     * @return packets sent to it.
     */
    public long memberSelections(final int member) {
        return read(memberSelections, member);
    }

    /**
     * @param member member index.
     * @return bytes sent to it.
     */
    public long memberBytes(final int member) {
        return read(memberBytes, member);
    }

    /**
     * @param counter which counter.
     * @return its value (opaque read, any thread).
     */
    public long counter(final GroupCounter counter) {
        return read(counters, counter.ordinal());
    }

    /**
     * @return flowlets placed on a member other than the flow's previous one
     *     (SAI NEXT_HOP_GROUP ARS_NEXT_HOP_REASSIGNMENTS).
     */
    public long flowletReassignments() {
        return read(counters, REASSIGNMENTS);
    }

    /**
     * @return flowlets started (new flows and flows back from idle).
     */
    public long newFlowlets() {
        return read(counters, NEW_FLOWLETS);
    }

    /**
     * @return packets hashed because the flowlet table had no slot along the probe sequence.
     */
    public long tableFullFallbacks() {
        return read(counters, TABLE_FULL_FALLBACKS);
    }

    /**
     * @return packets with no live member.
     */
    public long noMemberDrops() {
        return read(counters, NO_MEMBER_DROPS);
    }

    /**
     * @return flowlet table slots holding a flow (0 outside flowlet modes).
     */
    public int flowletTableOccupancy() {
        return flowlets == null ? 0 : flowlets.occupiedSlots();
    }

    /**
     * @param nowNs current time.
     * @return flows inside a flowlet now (a scan of the table: exact on the data thread, approximate elsewhere).
     */
    public int activeFlowlets(final long nowNs) {
        return flowlets == null ? 0 : flowlets.activeFlows(nowNs);
    }

    /**
     * @return flowlet table capacity (0 outside flowlet modes).
     */
    public int flowletTableCapacity() {
        return flowlets == null ? 0 : flowlets.capacity();
    }
}
