package io.asicemu.listener;

import java.util.LinkedHashSet;
import java.util.SequencedSet;

/**
 * A listener's connection cap that connections which never speak cannot hold: a connection is <em>unproven</em> until
 * it completes its first request (or authenticates), and when the cap is reached a new connection takes the slot of
 * the oldest unproven one (which is closed) rather than being refused. Only proven connections can fill the listener
 * so that new ones are refused, and they are bounded by the idle timeout.
 * <p>
 * Threading: thread safe (slots are taken on the accepting thread and proven or released on I/O threads).
 */
public final class ConnectionSlots {
    private final int limit;
    private final SequencedSet<Slot> unproven = new LinkedHashSet<>();
    private int held;

    /** One connection's slot. */
    public final class Slot {
        private final Runnable close;
        private boolean proven;
        private boolean released;

        private Slot(final Runnable close) {
            this.close = close;
        }

        /** The connection completed a request (or authenticated): it can no longer be evicted. */
        public void prove() {
            synchronized (ConnectionSlots.this) {
                if (!released && !proven) {
                    proven = true;
                    unproven.remove(this);
                }
            }
        }

        /** @return whether {@link #prove()} was called. */
        public boolean proven() {
            synchronized (ConnectionSlots.this) {
                return proven;
            }
        }

        /** The connection closed (idempotent). */
        public void release() {
            synchronized (ConnectionSlots.this) {
                if (!released) {
                    released = true;
                    held--;
                    unproven.remove(this);
                }
            }
        }
    }

    /** @param limit the most connections held at once. */
    public ConnectionSlots(final int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a connection limit must be at least 1, not " + limit);
        }
        this.limit = limit;
    }

    /** What {@link #admit} did. */
    public enum Outcome {
        /** a free slot. */
        ADMITTED,
        /** the oldest unproven connection's slot (it was closed). */
        EVICTED_ONE,
        /** none: every slot is held by a proven connection. */
        REFUSED
    }

    /**
     * @param close closes the new connection if it is ever evicted.
     * @param outcome receives what happened (index 0).
     * @return the new connection's slot, or null when refused.
     */
    public Slot admit(final Runnable close, final Outcome[] outcome) {
        final Slot victim;
        final Slot slot = new Slot(close);
        synchronized (this) {
            if (held < limit) {
                held++;
                unproven.add(slot);
                outcome[0] = Outcome.ADMITTED;
                return slot;
            }
            victim = unproven.isEmpty() ? null : unproven.removeFirst();
            if (victim == null) {
                outcome[0] = Outcome.REFUSED;
                return null;
            }
            victim.released = true; // its slot passes to the new connection
            unproven.add(slot);
            outcome[0] = Outcome.EVICTED_ONE;
        }
        victim.close.run();
        return slot;
    }

    /** @return connections held now. */
    public synchronized int held() {
        return held;
    }

    /** @return the cap. */
    public int limit() {
        return limit;
    }
}
