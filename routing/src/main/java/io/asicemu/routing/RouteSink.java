package io.asicemu.routing;

/**
 * Where decoded routes go: the control model's protocol writer, an APPL_DB writer, a test. The FPM server calls every
 * method on its one I/O thread, in order; a method must not block for long (zebra's stream waits meanwhile: TCP
 * pushes back on zebra, nothing is queued here). A replace is only sent when the route differs from the one the sink
 * already holds for that prefix; a withdraw only for a prefix the sink holds.
 * <p>
 * Lifecycle: {@link #connected()} when zebra connects; routes are kept while it is away ({@link #disconnected()}),
 * so forwarding continues; after a reconnect, prefixes zebra has not re-sent within the grace period are withdrawn,
 * then {@link #reconciled()} is called (at once on a first connection, when nothing was held).
 */
public interface RouteSink {
    /** Adds the route or replaces the one held for its prefix. */
    void replace(Route route);

    /** Removes the route held for {@code prefix}. */
    void withdraw(RoutePrefix prefix);

    /** zebra connected; if routes are held from an earlier connection, reconciliation has begun. */
    default void connected() {}

    /** zebra's connection closed; the routes held stay in place. */
    default void disconnected() {}

    /** Every held route is one zebra sent on the current connection (stale ones were withdrawn). */
    default void reconciled() {}
}
