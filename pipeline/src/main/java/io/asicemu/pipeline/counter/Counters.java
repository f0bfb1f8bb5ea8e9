package io.asicemu.pipeline.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The one source of every pipeline counter: per-port SAI stats, per-port and total drop and punt reasons, and
 * per-entry hit counters (ACL rules). Plain {@code long} slots in primitive arrays, written only by the data-plane
 * thread with opaque stores so that other threads reading with {@link #snapshot} see whole, recent values without any
 * lock or CAS.
 * <p>
 * Threading: {@code add…} methods on the data-plane thread only; {@link #snapshot} from any thread.
 */
public final class Counters {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int portCount;
    private final int aclRuleCapacity;
    private final long[] portStats;
    private final long[] portDrops;
    private final long[] portPunts;
    private final long[] portConsumed;
    private final long[] aclPackets;
    private final long[] aclBytes;
    private final long[] egressAclPackets;
    private final long[] egressAclBytes;

    /**
     * @param portCount the most ports.
     * @param aclRuleCapacity the most ACL rules with counters.
     */
    public Counters(final int portCount, final int aclRuleCapacity) {
        this.portCount = portCount;
        this.aclRuleCapacity = aclRuleCapacity;
        portStats = new long[portCount * PortStat.count()];
        portDrops = new long[portCount * DropReason.count()];
        portPunts = new long[portCount * PuntReason.count()];
        portConsumed = new long[portCount * ConsumeReason.count()];
        aclPackets = new long[aclRuleCapacity];
        aclBytes = new long[aclRuleCapacity];
        egressAclPackets = new long[aclRuleCapacity];
        egressAclBytes = new long[aclRuleCapacity];
    }

    /** @return the most ports. */
    public int portCount() {
        return portCount;
    }

    /** @return the most ACL rules. */
    public int aclRuleCapacity() {
        return aclRuleCapacity;
    }

    private static void add(final long[] array, final int index, final long delta) {
        LONGS.setOpaque(array, index, (long) LONGS.getOpaque(array, index) + delta);
    }

    private static long get(final long[] array, final int index) {
        return (long) LONGS.getOpaque(array, index);
    }

    /**
     * @param port a port index.
     * @param stat the stat.
     * @param delta the increment.
     */
    public void addPort(final int port, final PortStat stat, final long delta) {
        add(portStats, port * PortStat.count() + stat.ordinal(), delta);
    }

    /**
     * Counts a drop against the port it happened on (ingress or egress port, per the reason).
     *
     * @param port a port index.
     * @param reason why.
     */
    public void addDrop(final int port, final DropReason reason) {
        add(portDrops, port * DropReason.count() + reason.ordinal(), 1);
    }

    /**
     * Counts {@code frames} drops of one reason at once (frames a port lost before the pipeline saw them).
     *
     * @param port a port index.
     * @param reason why.
     * @param frames how many.
     */
    public void addDrops(final int port, final DropReason reason, final long frames) {
        add(portDrops, port * DropReason.count() + reason.ordinal(), frames);
    }

    /**
     * @param port the ingress port of the consumed frame.
     * @param reason what consumed it.
     */
    public void addConsumed(final int port, final ConsumeReason reason) {
        add(portConsumed, port * ConsumeReason.count() + reason.ordinal(), 1);
    }

    /**
     * @param port a port.
     * @param reason a reason.
     * @return frames of that port consumed for that reason.
     */
    public long consumed(final int port, final ConsumeReason reason) {
        return get(portConsumed, port * ConsumeReason.count() + reason.ordinal());
    }

    /**
     * @param port the ingress port of the punted packet.
     * @param reason why.
     */
    public void addPunt(final int port, final PuntReason reason) {
        add(portPunts, port * PuntReason.count() + reason.ordinal(), 1);
    }

    /**
     * @param rule an ACL rule's counter index.
     * @param bytes the packet's length.
     */
    public void addAclHit(final int rule, final int bytes) {
        add(aclPackets, rule, 1);
        add(aclBytes, rule, bytes);
    }

    /**
     * @param rule an egress ACL rule's counter index.
     * @param bytes the packet's length as it leaves.
     */
    public void addEgressAclHit(final int rule, final int bytes) {
        add(egressAclPackets, rule, 1);
        add(egressAclBytes, rule, bytes);
    }

    /** Zeroes the egress ACL rule counters (data-plane thread, when a new egress ACL replaces the old one). */
    public void resetEgressAcl() {
        for (int i = 0; i < aclRuleCapacity; i++) {
            LONGS.setOpaque(egressAclPackets, i, 0L);
            LONGS.setOpaque(egressAclBytes, i, 0L);
        }
    }

    /**
     * @param rule an egress ACL rule counter index.
     * @return packets that hit it.
     */
    public long egressAclPackets(final int rule) {
        return get(egressAclPackets, rule);
    }

    /**
     * @param rule an egress ACL rule counter index.
     * @return bytes that hit it.
     */
    public long egressAclBytes(final int rule) {
        return get(egressAclBytes, rule);
    }

    /**
     * @param port a port.
     * @param stat a stat.
     * @return its current value (opaque read; any thread).
     */
    public long port(final int port, final PortStat stat) {
        return get(portStats, port * PortStat.count() + stat.ordinal());
    }

    /**
     * @param port a port.
     * @param reason a reason.
     * @return drops of that reason on that port.
     */
    public long drops(final int port, final DropReason reason) {
        return get(portDrops, port * DropReason.count() + reason.ordinal());
    }

    /**
     * @param reason a reason.
     * @return drops of that reason on all ports.
     */
    public long drops(final DropReason reason) {
        long total = 0;
        for (int p = 0; p < portCount; p++) {
            total += drops(p, reason);
        }
        return total;
    }

    /**
     * @param port a port.
     * @param reason a reason.
     * @return punts of that reason from that port.
     */
    public long punts(final int port, final PuntReason reason) {
        return get(portPunts, port * PuntReason.count() + reason.ordinal());
    }

    /**
     * @param reason a reason.
     * @return punts of that reason from all ports.
     */
    public long punts(final PuntReason reason) {
        long total = 0;
        for (int p = 0; p < portCount; p++) {
            total += punts(p, reason);
        }
        return total;
    }

    /**
     * @param rule an ACL rule counter index.
     * @return packets that hit it.
     */
    public long aclPackets(final int rule) {
        return get(aclPackets, rule);
    }

    /**
     * @param rule an ACL rule counter index.
     * @return bytes that hit it.
     */
    public long aclBytes(final int rule) {
        return get(aclBytes, rule);
    }

    /**
     * Copies every counter (any thread; allocates, so not for the data path).
     *
     * @param portNames the names of ports 0..n-1 (null entries are skipped).
     * @param aclRuleNames the names ({@code TABLE|RULE}) of ACL counter indexes 0..m-1 (null entries are skipped).
     * @return the snapshot.
     */
    public CountersSnapshot snapshot(final String[] portNames, final String[] aclRuleNames) {
        return CountersSnapshot.of(this, portNames, aclRuleNames, new String[0]);
    }

    /**
     * Copies every counter, the egress ACL's rules among the ACL rules (any thread; allocates).
     *
     * @param portNames the names of ports 0..n-1 (null entries are skipped).
     * @param aclRuleNames the names of ingress ACL counter indexes.
     * @param egressAclRuleNames the names of egress ACL counter indexes.
     * @return the snapshot.
     */
    public CountersSnapshot snapshot(
            final String[] portNames, final String[] aclRuleNames, final String[] egressAclRuleNames) {
        return CountersSnapshot.of(this, portNames, aclRuleNames, egressAclRuleNames);
    }
}
