package io.asicemu.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes zebra gave us, one per prefix, and their reconciliation across reconnects (SONiC's warm-restart idea,
 * fpmsyncd's {@code WarmStartHelper}): routes stay while zebra is away; on a reconnect every held prefix is marked
 * stale, each route zebra sends clears its mark (an unchanged one reaches no sink), and when the grace period ends
 * the prefixes still marked are withdrawn. The sink sees only real changes.
 * <p>
 * Memory is the routes themselves: at most {@code maxRoutes} prefixes (a new prefix beyond is refused and counted,
 * {@link SkipReason#TABLE_FULL}) and a stale set no larger than the held map.
 * <p>
 * Threading: not thread safe; the FPM server's I/O thread calls everything, the grace timer included.
 */
final class HeldRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(HeldRoutes.class);

    private final RouteSink sink;
    private final FpmCounters counters;
    private final GraceTimer timer;
    private final Duration gracePeriod;
    private final int maxRoutes;
    /** Replaced when it empties: a HashMap's table never shrinks, and a withdrawn full table is 100k slots. */
    private Map<RoutePrefix, Route> held = new HashMap<>();

    private final Set<RoutePrefix> stale = new HashSet<>();
    private GraceTimer.Scheduled pendingGrace;
    private volatile int heldCount;
    private boolean fullLogged;

    HeldRoutes(
            final RouteSink sink,
            final FpmCounters counters,
            final GraceTimer timer,
            final Duration gracePeriod,
            final int maxRoutes) {
        this.sink = sink;
        this.counters = counters;
        this.timer = timer;
        this.gracePeriod = gracePeriod;
        this.maxRoutes = maxRoutes;
    }

    /** zebra connected: begins a reconciliation when routes are held. */
    void connected() {
        cancelGrace();
        sink.connected();
        if (held.isEmpty()) {
            sink.reconciled();
            return;
        }
        stale.addAll(held.keySet());
        LOG.info(
                "FPM: zebra reconnected; {} routes held, withdrawn unless re-sent within {}", held.size(), gracePeriod);
        final GraceTimer.Scheduled[] self = new GraceTimer.Scheduled[1];
        self[0] = timer.schedule(gracePeriod, () -> {
            if (pendingGrace == self[0]) {
                endGrace();
            }
        });
        pendingGrace = self[0];
    }

    /** zebra's connection closed: routes stay; a reconciliation under way waits for the next connection. */
    void disconnected() {
        cancelGrace();
        sink.disconnected();
    }

    void replace(final Route route) {
        final RoutePrefix prefix = route.prefix();
        stale.remove(prefix);
        final Route existing = held.get(prefix);
        if (route.equals(existing)) {
            counters.count(FpmCounters.Event.ROUTES_UNCHANGED);
            return;
        }
        if (existing == null && held.size() >= maxRoutes) {
            counters.skip(SkipReason.TABLE_FULL);
            if (!fullLogged) {
                fullLogged = true;
                LOG.warn("FPM: {} routes held, the limit; further new prefixes are refused and counted", maxRoutes);
            }
            return;
        }
        sink.replace(route); // first: if the sink throws, the route is not held and a re-send tries again
        held.put(prefix, route);
        heldCount = held.size();
        counters.count(FpmCounters.Event.ROUTES_REPLACED);
    }

    void withdraw(final RoutePrefix prefix) {
        stale.remove(prefix);
        if (!held.containsKey(prefix)) {
            counters.skip(SkipReason.UNKNOWN_PREFIX);
            return;
        }
        sink.withdraw(prefix);
        held.remove(prefix);
        if (held.isEmpty()) {
            held = new HashMap<>();
        }
        heldCount = held.size();
        fullLogged = false;
        counters.count(FpmCounters.Event.ROUTES_WITHDRAWN);
    }

    /** @return routes held (readable from any thread). */
    int size() {
        return heldCount;
    }

    /** @return whether a reconciliation is waiting for its grace period. */
    boolean reconciling() {
        return pendingGrace != null;
    }

    private void endGrace() {
        pendingGrace = null;
        final List<RoutePrefix> withdrawn = new ArrayList<>(stale);
        stale.clear();
        for (final RoutePrefix prefix : withdrawn) {
            try {
                sink.withdraw(prefix);
            } catch (final RuntimeException e) {
                counters.count(FpmCounters.Event.SINK_ERRORS); // stays held: zebra's next word on it decides
                LOG.error("FPM: the route sink failed to withdraw stale {}", prefix, e);
                continue;
            }
            held.remove(prefix);
            if (held.isEmpty()) {
                held = new HashMap<>();
            }
            counters.count(FpmCounters.Event.ROUTES_WITHDRAWN_STALE);
        }
        heldCount = held.size();
        counters.count(FpmCounters.Event.RECONCILIATIONS);
        LOG.info("FPM: reconciled; {} stale routes withdrawn, {} held", withdrawn.size(), held.size());
        sink.reconciled();
    }

    private void cancelGrace() {
        if (pendingGrace != null) {
            pendingGrace.cancel();
            pendingGrace = null;
        }
        stale.clear();
    }
}
