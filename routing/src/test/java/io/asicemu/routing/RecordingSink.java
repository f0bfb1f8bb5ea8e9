package io.asicemu.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sink that keeps what it was told, as a consumer would (routes by prefix), and the calls in order as text.
 * Synchronized: the FPM server calls it on its I/O thread while tests read.
 */
final class RecordingSink implements RouteSink {
    private final Map<RoutePrefix, Route> routes = new LinkedHashMap<>();
    private final List<String> calls = new ArrayList<>();

    @Override
    public synchronized void replace(final Route route) {
        routes.put(route.prefix(), route);
        calls.add("replace " + route.prefix());
        notifyAll();
    }

    @Override
    public synchronized void withdraw(final RoutePrefix prefix) {
        routes.remove(prefix);
        calls.add("withdraw " + prefix);
        notifyAll();
    }

    @Override
    public synchronized void connected() {
        calls.add("connected");
        notifyAll();
    }

    @Override
    public synchronized void disconnected() {
        calls.add("disconnected");
        notifyAll();
    }

    @Override
    public synchronized void reconciled() {
        calls.add("reconciled");
        notifyAll();
    }

    synchronized Map<RoutePrefix, Route> routes() {
        return Map.copyOf(routes);
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    synchronized Route route(final String prefix) {
        return routes.get(RoutePrefix.parse(prefix));
    }

    /** Waits (at most {@code timeoutMs}) until {@code condition} holds over this sink; false if it never did. */
    synchronized boolean await(final long timeoutMs, final java.util.function.Predicate<RecordingSink> condition)
            throws InterruptedException {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!condition.test(this)) {
            final long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                return false;
            }
            wait(leftMs);
        }
        return true;
    }
}
