package io.asicemu.operator;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The databases of the latest snapshot, refreshed when a reader asks and the last one is older than the maximum age:
 * however many clients poll, the data plane hands its counters over at most once per {@code maxAge}, and nothing
 * runs while nobody reads (no poller thread). RATES are computed between the last two refreshes.
 * <p>
 * Threading: any thread (readers serialize on the refresh; the data path is never involved but through the
 * {@link SnapshotSource}).
 */
public final class SnapshotCache {
    private final SnapshotSource source;
    private final long maxAgeNs;
    private final LongSupplier clock;
    private SonicDatabases current;
    private long takenAt;
    private boolean stale;
    private ListenerRegistry listeners;
    private final Map<Integer, Supplier<Map<String, Map<String, String>>>> published = new HashMap<>();

    /**
     * @param source takes snapshots of the switch.
     * @param maxAge how old a snapshot may be before a reader causes a new one.
     */
    public SnapshotCache(final SnapshotSource source, final Duration maxAge) {
        this(source, maxAge, System::nanoTime);
    }

    SnapshotCache(final SnapshotSource source, final Duration maxAge, final LongSupplier clock) {
        this.source = source;
        this.maxAgeNs = maxAge.toNanos();
        this.clock = clock;
    }

    /**
     * @return the databases of a snapshot at most {@code maxAge} old.
     * @throws TimeoutException if a fresh snapshot was needed and the data plane did not answer.
     */
    public synchronized SonicDatabases databases() throws TimeoutException {
        final long now = clock.getAsLong();
        if (current == null || stale || now - takenAt >= maxAgeNs) {
            stale = false;
            final SwitchSnapshot snapshot = source.take();
            current = SonicDatabases.of(snapshot, current == null ? null : current.snapshot());
            if (listeners != null) {
                current = current.withListeners(listeners);
            }
            for (final Map.Entry<Integer, Supplier<Map<String, Map<String, String>>>> db : published.entrySet()) {
                current = current.withDatabase(db.getKey(), db.getValue().get());
            }
            takenAt = now;
        }
        return current;
    }

    /**
     * @param registry the management listeners whose counters STATE_DB shows ({@code ASICEMU_LISTENER|<name>}), as of
     *     each snapshot.
     */
    public synchronized void listeners(final ListenerRegistry registry) {
        this.listeners = registry;
    }

    /**
     * Publishes a database the switch's daemons keep (APPL_DB's ROUTE_TABLE from the routing stack), as of each
     * snapshot.
     *
     * @param db its number.
     * @param keys its keys → hash, sorted.
     */
    public synchronized void publish(final int db, final Supplier<Map<String, Map<String, String>>> keys) {
        published.put(db, keys);
        stale = true;
    }

    /**
     * Makes the next reader take a fresh snapshot, whatever its age: the running config changed (a CONFIG_DB write is
     * seen by the next read, as Redis does). Costs nothing until someone reads.
     */
    public synchronized void invalidate() {
        stale = true;
    }
}
