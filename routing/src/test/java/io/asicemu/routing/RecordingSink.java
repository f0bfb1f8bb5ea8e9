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
    private final List<Long> callNanos = new ArrayList<>();

    @Override
    public synchronized void replace(final Route route) {
        routes.put(route.prefix(), route);
        record("replace " + route.prefix());
    }

    @Override
    public synchronized void withdraw(final RoutePrefix prefix) {
        routes.remove(prefix);
        record("withdraw " + prefix);
    }

    @Override
    public synchronized void connected() {
        record("connected");
    }

    @Override
    public synchronized void disconnected() {
        record("disconnected");
    }

    @Override
    public synchronized void reconciled() {
        record("reconciled");
    }

    private void record(final String call) {
        calls.add(call);
        callNanos.add(System.nanoTime());
        notifyAll();
    }

    /** @return System.nanoTime() of the call at {@code index} of {@link #calls()}. */
    synchronized long nanosOf(final int index) {
        return callNanos.get(index);
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
