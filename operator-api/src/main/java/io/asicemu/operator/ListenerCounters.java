package io.asicemu.operator;

/**
 * What a management listener counts of its connections: STATE_DB {@code ASICEMU_LISTENER|<name>} and Prometheus
 * {@code asicemu_listener_*{listener}} read these ({@link ListenerRegistry}).
 */
public interface ListenerCounters {
    /** @return the listener's name ({@code p4runtime}, {@code gnmi}, {@code redis}, {@code metrics}, {@code counters}). */
    String name();

    /** @return connections open now. */
    int open();

    /** @return connections closed at accept because the listener was full. */
    long refused();

    /** @return connections closed by a deadline (handshake or first request, authentication, idle). */
    long timedOut();

    /** @return connections without a complete request closed to make room for a new one. */
    long evicted();
}
