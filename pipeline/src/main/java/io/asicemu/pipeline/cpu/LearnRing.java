package io.asicemu.pipeline.cpu;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The FDB's learn-event outlet: when the data path learns a new (VLAN, MAC, port) or sees a MAC move, it puts one
 * fixed-size record (VLAN, MAC, port, time) into this preallocated single-producer single-consumer ring; the control
 * side drains it (P4Runtime turns the records into {@code l2_learn_digest} DigestLists). A full ring drops the event
 * and counts it: learning itself is unaffected.
 * <p>
 * Threading: {@link #offer} runs on the data-plane thread only (the single producer); {@link #poll} runs on one
 * consumer thread; {@link #dropped()} and {@link #pending()} may be read from any thread. Release/acquire on the
 * indexes, parallel primitive arrays for the records: no locks, no allocation.
 */
public final class LearnRing {
    /** Records the ring holds unless told otherwise. */
    public static final int DEFAULT_CAPACITY = 1024;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle DROPPED;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(LearnRing.class, "head", long.class);
            TAIL = lookup.findVarHandle(LearnRing.class, "tail", long.class);
            DROPPED = lookup.findVarHandle(LearnRing.class, "dropped", long.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int mask;
    private final int[] vlans;
    private final long[] macs;
    private final int[] ports;
    private final long[] timesNs;

    @SuppressWarnings("unused")
    private volatile long head;

    @SuppressWarnings("unused")
    private volatile long tail;

    @SuppressWarnings("unused")
    private volatile long dropped;

    private final ConsumerWakeup wakeup;

    /** Receives drained learn events. */
    @FunctionalInterface
    public interface Handler {
        /**
         * @param vlanId the VLAN.
         * @param mac the learned source MAC (low 48 bits).
         * @param port the port index it was seen on.
         * @param timestampNs when the data path learned it (the cycle's time).
         */
        void onLearn(int vlanId, long mac, int port, long timestampNs);
    }

    /**
     * @param capacity records held; rounded up to a power of two.
     */
    public LearnRing(final int capacity) {
        this(capacity, null);
    }

    /**
     * @param capacity records it holds (rounded up to a power of two).
     * @param wakeup how an offer wakes a blocked consumer (the CPU port's), or null.
     */
    LearnRing(final int capacity, final ConsumerWakeup wakeup) {
        this.wakeup = wakeup;
        if (capacity < 1 || capacity > 1 << 24) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        final int slots = Integer.highestOneBit(capacity * 2 - 1);
        mask = slots - 1;
        vlans = new int[slots];
        macs = new long[slots];
        ports = new int[slots];
        timesNs = new long[slots];
    }

    /** @return records the ring holds. */
    public int capacity() {
        return mask + 1;
    }

    /**
     * Data-plane thread: records a learn event, or counts it as dropped when the ring is full.
     *
     * @param vlanId the VLAN.
     * @param mac the MAC.
     * @param port the port.
     * @param nowNs the time.
     * @return false if the ring was full.
     */
    public boolean offer(final int vlanId, final long mac, final int port, final long nowNs) {
        final long t = (long) TAIL.getOpaque(this);
        final long h = (long) HEAD.getAcquire(this);
        if (t - h > mask) {
            DROPPED.setOpaque(this, (long) DROPPED.getOpaque(this) + 1);
            return false;
        }
        final int slot = (int) t & mask;
        vlans[slot] = vlanId;
        macs[slot] = mac;
        ports[slot] = port;
        timesNs[slot] = nowNs;
        TAIL.setVolatile(this, t + 1); // volatile: ordered before the read of the consumer's waiting flag
        if (wakeup != null) {
            wakeup.wakeIfWaiting();
        }
        return true;
    }

    /**
     * Consumer thread: hands up to {@code limit} events to the handler, oldest first.
     *
     * @param handler receives each event.
     * @param limit the most events.
     * @return how many were handed over.
     */
    public int poll(final Handler handler, final int limit) {
        long h = (long) HEAD.getOpaque(this);
        final long t = (long) TAIL.getAcquire(this);
        int n = 0;
        while (h != t && n < limit) {
            final int slot = (int) h & mask;
            handler.onLearn(vlans[slot], macs[slot], ports[slot], timesNs[slot]);
            h++;
            n++;
            HEAD.setRelease(this, h);
        }
        return n;
    }

    /** @return events waiting for the consumer (any thread). */
    public int pending() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }

    /** @return events dropped because the ring was full (any thread). */
    public long dropped() {
        return (long) DROPPED.getOpaque(this);
    }
}
