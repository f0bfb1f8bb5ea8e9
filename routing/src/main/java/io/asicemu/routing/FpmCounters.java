package io.asicemu.routing;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The FPM listener's counters. Written by the server's I/O thread only, read by anyone through {@link #snapshot()}
 * (each value is read atomically; a snapshot is not one instant across values).
 */
public final class FpmCounters {
    /** The counted events besides skips. */
    public enum Event {
        /** FPM frames received. */
        FRAMES,
        /** Netlink messages decoded (several may share a frame). */
        MESSAGES,
        /** Routes added or changed (sent to the sink as replaces). */
        ROUTES_REPLACED,
        /** Routes zebra re-sent unchanged (not sent to the sink). */
        ROUTES_UNCHANGED,
        /** Routes withdrawn by zebra (sent to the sink). */
        ROUTES_WITHDRAWN,
        /** Routes withdrawn because zebra did not re-send them within the grace period after a reconnect. */
        ROUTES_WITHDRAWN_STALE,
        /** Messages or frames that did not decode (also counted under {@link SkipReason#MALFORMED} or framing). */
        DECODE_ERRORS,
        /** Connections closed because their framing was broken (a length below the header's). */
        FRAMING_ERRORS,
        /** Connections accepted. */
        CONNECTIONS_ACCEPTED,
        /** Connections refused (closed at once) because zebra's connection was open. */
        CONNECTIONS_REFUSED,
        /** Connections that gave their place to a newer one before sending a frame. */
        CONNECTIONS_EVICTED,
        /** Connections closed. */
        CONNECTIONS_CLOSED,
        /** Grace periods that ended (reconciliations done). */
        RECONCILIATIONS,
        /** Frames whose handling failed in the sink (logged; the connection stays open). */
        SINK_ERRORS
    }

    private static final Event[] EVENTS = Event.values();
    private static final SkipReason[] REASONS = SkipReason.values();

    private final AtomicLongArray events = new AtomicLongArray(EVENTS.length);
    private final AtomicLongArray skipped = new AtomicLongArray(REASONS.length);

    void count(final Event event) {
        events.incrementAndGet(event.ordinal());
    }

    void count(final Event event, final long delta) {
        events.addAndGet(event.ordinal(), delta);
    }

    void skip(final SkipReason reason) {
        skipped.incrementAndGet(reason.ordinal());
    }

    /** @return the value of {@code event}. */
    public long get(final Event event) {
        return events.get(event.ordinal());
    }

    /** @return how many messages were skipped for {@code reason}. */
    public long skipped(final SkipReason reason) {
        return skipped.get(reason.ordinal());
    }

    /**
     * A copy of the counters.
     *
     * @param events every event's value.
     * @param skipped every skip reason's count.
     * @param routesHeld routes held at the time.
     */
    public record Snapshot(Map<Event, Long> events, Map<SkipReason, Long> skipped, long routesHeld) {
        /** Copies, keeping the enums' order. */
        public Snapshot {
            final Map<Event, Long> eventCopy = new EnumMap<>(Event.class);
            eventCopy.putAll(events);
            final Map<SkipReason, Long> skipCopy = new EnumMap<>(SkipReason.class);
            skipCopy.putAll(skipped);
            events = java.util.Collections.unmodifiableMap(eventCopy);
            skipped = java.util.Collections.unmodifiableMap(skipCopy);
        }
    }

    Snapshot snapshot(final long routesHeld) {
        final Map<Event, Long> eventValues = new EnumMap<>(Event.class);
        for (final Event event : EVENTS) {
            eventValues.put(event, get(event));
        }
        final Map<SkipReason, Long> skipValues = new EnumMap<>(SkipReason.class);
        for (final SkipReason reason : REASONS) {
            skipValues.put(reason, skipped(reason));
        }
        return new Snapshot(eventValues, skipValues, routesHeld);
    }
}
