package io.asicemu.operator;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The management listeners of one switch, whose counters STATE_DB and Prometheus show.
 * <p>
 * Threading: thread safe.
 */
public final class ListenerRegistry {
    private final List<ListenerCounters> listeners = new CopyOnWriteArrayList<>();

    /** @param counters a listener's counters (shown from now on). */
    public void add(final ListenerCounters counters) {
        listeners.add(counters);
    }

    /** @return the listeners, in the order added. */
    public List<ListenerCounters> listeners() {
        return List.copyOf(listeners);
    }
}
