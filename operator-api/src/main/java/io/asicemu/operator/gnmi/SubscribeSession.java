package io.asicemu.operator.gnmi;

import io.asicemu.operator.SonicDatabases;
import io.asicemu.operator.gnmi.proto.Encoding;
import io.asicemu.operator.gnmi.proto.Notification;
import io.asicemu.operator.gnmi.proto.Path;
import io.asicemu.operator.gnmi.proto.SubscribeRequest;
import io.asicemu.operator.gnmi.proto.SubscribeResponse;
import io.asicemu.operator.gnmi.proto.Subscription;
import io.asicemu.operator.gnmi.proto.SubscriptionList;
import io.asicemu.operator.gnmi.proto.SubscriptionMode;
import io.asicemu.operator.gnmi.proto.Update;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One Subscribe RPC (spec 3.5): its subscription list, and the responses waiting for the client.
 * <p>
 * Bounded: at most one response per subscribed path waits (plus the sync marker). A newer value of a path replaces
 * the waiting one and counts in its {@code duplicates} (spec 2.1) and in the service's coalesced count, so a client
 * that does not read (gRPC {@code isReady} false) holds memory proportional to its paths, never to time, and the
 * sampler never blocks on it. Sends happen when the transport is ready ({@code onReady} drains).
 * <p>
 * Threading: requests arrive on a gRPC executor thread, ticks on the sampler thread, readiness on an executor thread;
 * every method that touches the state or the stream is {@code synchronized}.
 */
final class SubscribeSession implements StreamObserver<SubscribeRequest> {
    /** The pending key of the sync_response marker (paths use their index). */
    private static final int SYNC = -1;

    private final GnmiService service;
    private final ServerCallStreamObserver<SubscribeResponse> out;
    private final LinkedHashMap<Integer, SubscribeResponse> pending = new LinkedHashMap<>();
    private final List<Entry> entries = new ArrayList<>();
    private SubscriptionList list;
    private int db;
    private boolean counted;
    private boolean completeWhenDrained;
    private boolean closed;
    private ScheduledFuture<?> ticks;

    /** One subscribed path: how and when it is sent, and what was sent last. */
    private static final class Entry {
        final Path path;
        final List<String> elems;
        final boolean onChange;
        final boolean suppressRedundant;
        final long intervalNs;
        final long heartbeatNs;
        long nextDueNs;
        long lastSentNs;
        SonicPathResolver.Resolved last;

        Entry(
                final Path path,
                final List<String> elems,
                final boolean onChange,
                final boolean suppressRedundant,
                final long intervalNs,
                final long heartbeatNs) {
            this.path = path;
            this.elems = elems;
            this.onChange = onChange;
            this.suppressRedundant = suppressRedundant;
            this.intervalNs = intervalNs;
            this.heartbeatNs = heartbeatNs;
        }
    }

    SubscribeSession(final GnmiService service, final ServerCallStreamObserver<SubscribeResponse> out) {
        this.service = service;
        this.out = out;
    }

    @Override
    public synchronized void onNext(final SubscribeRequest request) {
        if (closed) {
            return;
        }
        try {
            GnmiRequests.checkExtensions(request.getExtensionList());
            switch (request.getRequestCase()) {
                case SUBSCRIBE -> {
                    if (list != null) {
                        throw GnmiRequests.invalid("this Subscribe RPC already has its subscription list; open "
                                + "another RPC for more paths (spec 3.5.1.1)");
                    }
                    start(request.getSubscribe());
                }
                case POLL -> {
                    if (list == null || list.getMode() != SubscriptionList.Mode.POLL) {
                        throw GnmiRequests.invalid("a poll needs a POLL subscription list on this RPC first");
                    }
                    offerAll(service.databases(), service.epochNs());
                    pending.put(SYNC, sync());
                }
                case ALIASES -> throw GnmiRequests.invalid("aliases are not supported by this target");
                default ->
                    throw GnmiRequests.invalid(
                            "a SubscribeRequest must carry subscribe, poll or aliases (spec 3.5.1.1)");
            }
            drain();
        } catch (final StatusException e) {
            fail(e);
        }
    }

    private void start(final SubscriptionList subscriptions) throws StatusException {
        if (!service.openSubscription()) {
            throw Status.RESOURCE_EXHAUSTED
                    .withDescription(service.limits().maxSubscriptions() + " subscriptions are open, the limit")
                    .asException();
        }
        counted = true;
        GnmiValues.checkEncoding(subscriptions.getEncoding());
        GnmiRequests.checkModels(subscriptions.getUseModelsList());
        final int count = subscriptions.getSubscriptionCount();
        if (count == 0 || count > service.limits().maxPaths()) {
            throw GnmiRequests.invalid(
                    "a subscription list has 1.." + service.limits().maxPaths() + " subscriptions, not " + count);
        }
        db = SonicPathResolver.database(subscriptions.getPrefix().getTarget());
        final SonicDatabases dbs = service.databases();
        final long minNs = service.limits().minSampleInterval().toNanos();
        for (final Subscription s : subscriptions.getSubscriptionList()) {
            final List<String> elems = GnmiRequests.elements(subscriptions.getPrefix(), s.getPath());
            SonicPathResolver.resolve(dbs, db, elems); // names something now, or NOT_FOUND (as SONiC's telemetry)
            final SubscriptionMode mode = s.getMode() == SubscriptionMode.TARGET_DEFINED
                    // counters change all the time: sampled; state and configuration are events: on change
                    ? (db == SonicDatabases.COUNTERS_DB ? SubscriptionMode.SAMPLE : SubscriptionMode.ON_CHANGE)
                    : s.getMode();
            if (mode != SubscriptionMode.SAMPLE && mode != SubscriptionMode.ON_CHANGE) {
                throw GnmiRequests.invalid("unknown subscription mode " + s.getModeValue());
            }
            final long interval =
                    mode == SubscriptionMode.SAMPLE && s.getSampleInterval() != 0 ? s.getSampleInterval() : minNs;
            if (interval < minNs) {
                throw GnmiRequests.invalid("sample_interval " + interval + " ns is below this target's minimum " + minNs
                        + " ns (how often the switch hands its counters over)");
            }
            if (s.getHeartbeatInterval() != 0 && s.getHeartbeatInterval() < minNs) {
                throw GnmiRequests.invalid(
                        "heartbeat_interval " + s.getHeartbeatInterval() + " ns is below the minimum " + minNs + " ns");
            }
            entries.add(new Entry(
                    s.getPath(),
                    elems,
                    mode == SubscriptionMode.ON_CHANGE,
                    s.getSuppressRedundant(),
                    interval,
                    s.getHeartbeatInterval()));
        }
        list = subscriptions;
        final long nowNs = System.nanoTime();
        final long stamp = service.epochNs();
        if (subscriptions.getUpdatesOnly()) {
            remember(dbs, nowNs);
        } else {
            offerAll(dbs, stamp);
            for (final Entry e : entries) {
                e.lastSentNs = nowNs;
            }
        }
        pending.put(SYNC, sync());
        switch (subscriptions.getMode()) {
            case ONCE -> completeWhenDrained = true;
            case POLL -> {}
            default -> {
                long period = Long.MAX_VALUE;
                for (final Entry e : entries) {
                    e.nextDueNs = nowNs + e.intervalNs;
                    period = Math.min(period, e.intervalNs);
                }
                // fixed delay, not fixed rate: a late tick is not followed by a catch-up one that would read the
                // same snapshot (the cache refreshes once per max age, the shortest interval)
                ticks = service.sampler().scheduleWithFixedDelay(this::tick, period, period, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** updates_only: the current values are the baseline, not sent. */
    private void remember(final SonicDatabases dbs, final long nowNs) {
        for (final Entry e : entries) {
            e.last = resolveOrNull(dbs, e);
            e.lastSentNs = nowNs;
        }
    }

    /** Offers every path's current value (ONCE, POLL, the initial STREAM sync). */
    private void offerAll(final SonicDatabases dbs, final long stamp) throws StatusException {
        for (int i = 0; i < entries.size(); i++) {
            final Entry e = entries.get(i);
            final SonicPathResolver.Resolved value = SonicPathResolver.resolve(dbs, db, e.elems);
            e.last = value;
            offer(i, update(e, value, stamp));
        }
    }

    /** Sampler thread: the STREAM paths that are due. */
    private synchronized void tick() {
        if (closed) {
            return;
        }
        final SonicDatabases dbs;
        try {
            dbs = service.databases();
        } catch (final StatusException e) {
            service.countMissedSample();
            return;
        }
        final long nowNs = System.nanoTime();
        final long stamp = service.epochNs();
        for (int i = 0; i < entries.size(); i++) {
            final Entry e = entries.get(i);
            // a tick a little early still counts (fixed-rate ticks at the shortest interval jitter)
            if (nowNs - e.nextDueNs < -e.intervalNs / 10) {
                continue;
            }
            e.nextDueNs = nowNs - e.nextDueNs > e.intervalNs ? nowNs + e.intervalNs : e.nextDueNs + e.intervalNs;
            sample(i, e, resolveOrNull(dbs, e), nowNs, stamp);
        }
        drain();
    }

    private void sample(
            final int index,
            final Entry e,
            final SonicPathResolver.Resolved value,
            final long nowNs,
            final long stamp) {
        final boolean heartbeat = e.heartbeatNs != 0 && nowNs - e.lastSentNs >= e.heartbeatNs;
        final boolean changed = !Objects.equals(value, e.last);
        final boolean filtered = e.onChange || e.suppressRedundant;
        if (filtered && !changed && !heartbeat) {
            return;
        }
        if (value == null) {
            // the path named something before and names nothing now: a delete (spec 3.5.2.3)
            if (e.last != null) {
                offer(
                        index,
                        SubscribeResponse.newBuilder()
                                .setUpdate(notification(stamp).addDelete(e.path))
                                .build());
            }
        } else if (filtered && !heartbeat && value.keyed() && e.last != null && e.last.keyed()) {
            offer(index, update(e, changedKeys(e.last, value), stamp));
        } else {
            offer(index, update(e, value, stamp));
        }
        e.last = value;
        e.lastSentNs = nowNs;
    }

    /** The keys whose objects changed or appeared, and the vanished ones as empty objects (as SONiC sends). */
    private static SonicPathResolver.Resolved changedKeys(
            final SonicPathResolver.Resolved before, final SonicPathResolver.Resolved now) {
        final SortedMap<String, Object> out = new TreeMap<>();
        now.object().forEach((key, value) -> {
            if (!value.equals(before.object().get(key))) {
                out.put(key, value);
            }
        });
        before.object().keySet().forEach(key -> {
            if (!now.object().containsKey(key)) {
                out.put(key, new TreeMap<String, String>());
            }
        });
        return new SonicPathResolver.Resolved(null, out, true);
    }

    private SonicPathResolver.Resolved resolveOrNull(final SonicDatabases dbs, final Entry e) {
        try {
            return SonicPathResolver.resolve(dbs, db, e.elems);
        } catch (final StatusException gone) {
            return null;
        }
    }

    private Notification.Builder notification(final long stamp) {
        final Notification.Builder n = Notification.newBuilder().setTimestamp(stamp);
        if (list.hasPrefix()) {
            n.setPrefix(list.getPrefix());
        }
        return n;
    }

    private SubscribeResponse update(final Entry e, final SonicPathResolver.Resolved value, final long stamp) {
        final Encoding encoding = list == null ? Encoding.JSON : list.getEncoding();
        return SubscribeResponse.newBuilder()
                .setUpdate(notification(stamp)
                        .addUpdate(Update.newBuilder().setPath(e.path).setVal(GnmiValues.typed(value, encoding))))
                .build();
    }

    private static SubscribeResponse sync() {
        return SubscribeResponse.newBuilder().setSyncResponse(true).build();
    }

    /** Queues a response; a waiting one for the same path is replaced and counted in the new one's duplicates. */
    private void offer(final int index, final SubscribeResponse response) {
        final SubscribeResponse waiting = pending.get(index);
        if (waiting == null || !waiting.hasUpdate() || !response.hasUpdate()) {
            pending.put(index, response);
            return;
        }
        service.countCoalesced();
        final int before = waiting.getUpdate().getUpdateCount() == 0
                ? 0
                : waiting.getUpdate().getUpdate(0).getDuplicates();
        if (response.getUpdate().getUpdateCount() == 0) {
            pending.put(index, response); // a delete replaces what waited
            return;
        }
        final SubscribeResponse.Builder merged = response.toBuilder();
        merged.getUpdateBuilder().getUpdateBuilder(0).setDuplicates(before + 1);
        pending.put(index, merged.build());
    }

    /** Sends what waits while the transport is ready; any thread. */
    synchronized void drain() {
        if (closed) {
            return;
        }
        final Iterator<Map.Entry<Integer, SubscribeResponse>> it =
                pending.entrySet().iterator();
        while (it.hasNext() && out.isReady()) {
            final SubscribeResponse response = it.next().getValue();
            it.remove();
            out.onNext(response);
        }
        if (pending.isEmpty() && completeWhenDrained) {
            out.onCompleted();
            close();
        }
    }

    private void fail(final StatusException e) {
        if (!closed) {
            out.onError(e);
            close();
        }
    }

    /** Ends the session (client cancelled, error, or done); idempotent. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        pending.clear();
        if (ticks != null) {
            ticks.cancel(false);
        }
        if (counted) {
            service.closeSubscription();
        }
    }

    @Override
    public synchronized void onError(final Throwable t) {
        close();
    }

    @Override
    public synchronized void onCompleted() {
        // the client sends no more requests: a POLL subscription is over once its last answer is out
        if (list == null) {
            fail(GnmiRequests.invalid("the RPC ended without a subscription list"));
        } else if (list.getMode() == SubscriptionList.Mode.POLL) {
            completeWhenDrained = true;
            drain();
        }
    }
}
