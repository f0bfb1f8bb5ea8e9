package io.asicemu.switchd.routing;

import io.asicemu.routing.Route;
import io.asicemu.routing.RoutePrefix;
import io.asicemu.routing.RouteSink;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes the listener's routes on to another sink and notes when they passed (System.nanoTime()): the first route, the
 * last route or withdrawal; and how many routes. For timing the way from zebra to the data path. Thread safe.
 */
final class TimedRouteSink implements RouteSink {
    private final RouteSink next;
    private final AtomicLong firstRouteNs = new AtomicLong();
    private final AtomicLong lastChangeNs = new AtomicLong();
    private final AtomicLong routes = new AtomicLong();

    TimedRouteSink(final RouteSink next) {
        this.next = next;
    }

    @Override
    public void replace(final Route route) {
        firstRouteNs.compareAndSet(0, System.nanoTime());
        routes.incrementAndGet();
        next.replace(route);
        lastChangeNs.set(System.nanoTime());
    }

    @Override
    public void withdraw(final RoutePrefix prefix) {
        next.withdraw(prefix);
        lastChangeNs.set(System.nanoTime());
    }

    /** @return when the first route passed since the start or the last {@link #restartClock()}, 0 before. */
    long firstRouteNs() {
        return firstRouteNs.get();
    }

    /** Forgets the first route's time: the next route sets it again. */
    void restartClock() {
        firstRouteNs.set(0);
    }

    /** @return when the last route or withdrawal passed. */
    long lastChangeNs() {
        return lastChangeNs.get();
    }

    /** @return routes passed (replacements). */
    long routes() {
        return routes.get();
    }
}
