package io.asicemu.operator;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One management listener's connection counters (STATE_DB {@code ASICEMU_LISTENER|<name>}, Prometheus {@code
 * asicemu_listener_*{listener}}) and its log of misbehaving clients: one line per kind of misbehaviour per
 * {@link #LOG_INTERVAL_NS}, with the count since the last line, never a stack trace.
 * <p>
 * Threading: thread safe (any I/O thread counts, any reader reads).
 */
public final class ListenerStats implements ListenerCounters {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerStats.class);
    /** At most one log line per kind of misbehaviour in this interval (10 s). */
    public static final long LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();
    private final Map<String, Kind> kinds = new ConcurrentHashMap<>();

    /** A kind of misbehaviour: how many were noted since its last line, and when that line was written. */
    private static final class Kind {
        private long unlogged;
        private long lastLogNs;
        private boolean logged;
    }

    /** @param name the listener's name ({@code redis}, {@code metrics}, {@code gnmi}, …). */
    public ListenerStats(final String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int open() {
        return open.get();
    }

    @Override
    public long refused() {
        return refused.get();
    }

    @Override
    public long timedOut() {
        return timedOut.get();
    }

    @Override
    public long evicted() {
        return evicted.get();
    }

    /** A connection was accepted (and {@link #closed()} will follow). */
    public void opened() {
        open.incrementAndGet();
    }

    /** An accepted connection closed. */
    public void closed() {
        open.decrementAndGet();
    }

    /**
     * A connection was closed at accept because the listener was full.
     *
     * @param why the log text (e.g. "the limit of 64 connections (--redis-max-connections) is reached").
     */
    public void refused(final String why) {
        refused.incrementAndGet();
        note("refused", "connection(s) refused: " + why);
    }

    /**
     * A connection was closed by a deadline (first request, authentication, idle).
     *
     * @param kind what kind (one log line per kind per interval).
     * @param why the log text.
     */
    public void timedOut(final String kind, final String why) {
        timedOut.incrementAndGet();
        note(kind, why);
    }

    /** A connection that had not yet sent a complete request was closed to make room for a new one. */
    public void evictedOne() {
        evicted.incrementAndGet();
        note(
                "evicted",
                "connection(s) that had not sent a complete request closed to make room for new ones (the limit"
                        + " was reached)");
    }

    /**
     * Something a client did that the listener refused (oversized request, bad protocol, failed AUTH).
     *
     * @param kind what kind (one log line per kind per interval).
     * @param why the log text.
     */
    public void misbehaved(final String kind, final String why) {
        note(kind, why);
    }

    private void note(final String kind, final String why) {
        final Kind k = kinds.computeIfAbsent(kind, x -> new Kind());
        final long count;
        synchronized (k) {
            k.unlogged++;
            final long now = System.nanoTime();
            if (k.logged && now - k.lastLogNs < LOG_INTERVAL_NS) {
                return;
            }
            count = k.unlogged;
            k.unlogged = 0;
            k.lastLogNs = now;
            k.logged = true;
        }
        LOG.warn("{}: {} x {} (logged at most every 10 s with the count since)", name, count, why);
    }

    /** @return the STATE_DB fields. */
    public static Map<String, String> stateFields(final ListenerCounters c) {
        final Map<String, String> fields = new LinkedHashMap<>();
        fields.put("connections_open", Integer.toString(c.open()));
        fields.put("connections_refused", Long.toString(c.refused()));
        fields.put("connections_timed_out", Long.toString(c.timedOut()));
        fields.put("connections_evicted", Long.toString(c.evicted()));
        return fields;
    }
}
