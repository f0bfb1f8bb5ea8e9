package io.asicemu.operator;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CONFIG_DB keyspace notifications as Redis publishes them with {@code notify-keyspace-events AKE} (what SONiC's
 * daemons subscribe to): for every change of the running config, whatever made it (a Redis write, a register write, a
 * P4Runtime register write), {@code __keyspace@4__:<TABLE|key>} with the event ({@code hset}, {@code hdel},
 * {@code del}) as the message and {@code __keyevent@4__:<event>} with the key as the message. The change is found by
 * comparing the running config before and after (the {@link ConfigAccess}'s change listener only hands the news
 * over), on the Redis front's I/O thread, so the data path and the control thread pay nothing for it.
 * <p>
 * Bounded as Redis' {@code client-output-buffer-limit pubsub}: a subscriber whose unread notifications pass the
 * connection's high water mark is disconnected, with the reason logged (nothing is dropped silently).
 * <p>
 * Threading: {@link #changed()} from any thread; everything else on the I/O thread ({@code loop}).
 */
final class KeyspaceNotifications implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KeyspaceNotifications.class);
    /** Subscriptions one connection may hold. */
    static final int MAX_SUBSCRIPTIONS = 1024;
    /** Events published per turn of the I/O thread (then its clients are served). */
    private static final int EVENTS_PER_TURN = 256;

    static final String KEYSPACE = "__keyspace@" + SonicDatabases.CONFIG_DB + "__:";
    static final String KEYEVENT = "__keyevent@" + SonicDatabases.CONFIG_DB + "__:";

    private final ConfigAccess config;
    private final SnapshotCache cache;
    private final EventLoop loop;
    private final Runnable listener = this::changed;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Set<Subscriber> subscribers = new LinkedHashSet<>();
    /** Events of changes not yet published (a large change goes out over several turns of the I/O thread). */
    private final java.util.ArrayDeque<String[]> backlog = new java.util.ArrayDeque<>();

    private boolean draining;
    private Map<String, Map<String, String>> last;

    /**
     * @param config the running config, told of every change.
     * @param cache the snapshots readers see (made stale by each change, so the next read shows it).
     * @param loop the Redis front's I/O thread.
     */
    KeyspaceNotifications(final ConfigAccess config, final SnapshotCache cache, final EventLoop loop) {
        this.config = config;
        this.cache = cache;
        this.loop = loop;
        config.addChangeListener(listener);
        loop.execute(() -> last = config.running());
    }

    /** The running config may have changed: compare and publish on the I/O thread (coalesced; any thread). */
    void changed() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(this::publishChanges);
            } catch (final RejectedExecutionException e) {
                // the front is closing: nobody is left to tell
            }
        }
    }

    private void publishChanges() {
        scheduled.set(false);
        final Map<String, Map<String, String>> now = config.running();
        if (now == last) {
            return;
        }
        cache.invalidate();
        if (last != null && !subscribers.isEmpty()) {
            backlog.addAll(diff(last, now));
            if (!draining) {
                drainBacklog();
            }
        }
        last = now;
    }

    /**
     * Publishes at most {@link #EVENTS_PER_TURN} events, then lets the I/O thread serve its clients before the next
     * ones (a change of many keys, a config load, must not stall the Redis front), in order.
     */
    private void drainBacklog() {
        int n = 0;
        while (!backlog.isEmpty() && n < EVENTS_PER_TURN && !subscribers.isEmpty()) {
            final String[] event = backlog.poll();
            publish(KEYSPACE + event[0], event[1]);
            publish(KEYEVENT + event[1], event[0]);
            n++;
        }
        flush();
        if (subscribers.isEmpty()) {
            backlog.clear();
        }
        draining = !backlog.isEmpty();
        if (draining) {
            // a scheduled (not an immediate) task runs after the next round of I/O
            loop.schedule(this::drainBacklog, 0, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /**
     * @return the events Redis would have published for the change from {@code before} to {@code after}: per key,
     *     {@code del} when it went, {@code hdel} when fields went, {@code hset} when fields came or changed.
     */
    static List<String[]> diff(
            final Map<String, Map<String, String>> before, final Map<String, Map<String, String>> after) {
        if (before instanceof RedisConfigDb b && after instanceof RedisConfigDb a) {
            // Per table, skipping the tables both versions share: a change costs what it changed.
            final List<String[]> out = new ArrayList<>();
            final java.util.Set<String> tables =
                    new java.util.LinkedHashSet<>(a.tables().keySet());
            tables.addAll(b.tables().keySet());
            for (final String table : tables) {
                final Map<String, Map<String, String>> x = b.tables().getOrDefault(table, Map.of());
                final Map<String, Map<String, String>> y = a.tables().getOrDefault(table, Map.of());
                if (x != y) {
                    for (final String[] event : diffKeys(x, y)) {
                        out.add(new String[] {table + "|" + event[0], event[1]});
                    }
                }
            }
            return out;
        }
        return diffKeys(before, after);
    }

    private static List<String[]> diffKeys(
            final Map<String, Map<String, String>> before, final Map<String, Map<String, String>> after) {
        final List<String[]> out = new ArrayList<>();
        after.forEach((key, fields) -> {
            final Map<String, String> old = before.get(key);
            if (old == null) {
                out.add(new String[] {key, "hset"});
                return;
            }
            if (old.equals(fields)) {
                return;
            }
            if (!fields.keySet().containsAll(old.keySet())) {
                out.add(new String[] {key, "hdel"});
            }
            for (final Map.Entry<String, String> f : fields.entrySet()) {
                if (!Objects.equals(old.get(f.getKey()), f.getValue())) {
                    out.add(new String[] {key, "hset"});
                    break;
                }
            }
        });
        before.keySet().forEach(key -> {
            if (!after.containsKey(key)) {
                out.add(new String[] {key, "del"});
            }
        });
        return out;
    }

    private void flush() {
        for (final Subscriber s : List.copyOf(subscribers)) {
            s.channel.flush();
        }
    }

    private void publish(final String channel, final String message) {
        for (final Subscriber s : List.copyOf(subscribers)) {
            if (!s.channel.isActive()) {
                subscribers.remove(s);
                continue;
            }
            if (!s.channel.isWritable()) {
                LOG.warn(
                        "operator redis subscriber {}: closed, it does not read its keyspace notifications (over {}"
                                + " bytes wait; Redis' client-output-buffer-limit pubsub does the same)",
                        s.channel.remoteAddress(),
                        s.channel.config().getWriteBufferHighWaterMark());
                subscribers.remove(s);
                s.channel.close();
                continue;
            }
            if (s.channels.contains(channel)) {
                s.channel.write(new ArrayRedisMessage(List.of(bulk("message"), bulk(channel), bulk(message))));
            }
            for (final String pattern : s.patterns) {
                if (RedisGlob.matches(pattern, channel)) {
                    s.channel.write(new ArrayRedisMessage(
                            List.of(bulk("pmessage"), bulk(pattern), bulk(channel), bulk(message))));
                }
            }
        }
    }

    /** @return a connection's subscriptions (used on the I/O thread only). */
    Subscriber subscriber(final Channel channel) {
        final Subscriber s = new Subscriber(channel);
        channel.closeFuture().addListener(f -> subscribers.remove(s));
        return s;
    }

    @Override
    public void close() {
        config.removeChangeListener(listener);
    }

    private static RedisMessage bulk(final String value) {
        return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(value.getBytes(StandardCharsets.UTF_8)));
    }

    /** One connection's channels and patterns; in subscribe mode while it has any. */
    final class Subscriber {
        private final Channel channel;
        final Set<String> channels = new LinkedHashSet<>();
        final Set<String> patterns = new LinkedHashSet<>();

        private Subscriber(final Channel channel) {
            this.channel = channel;
        }

        /** @return how many subscriptions it holds (Redis' reply count). */
        int count() {
            return channels.size() + patterns.size();
        }

        /** Joins or leaves the publication list as its count says. */
        void update() {
            if (count() == 0) {
                subscribers.remove(this);
            } else if (subscribers.add(this) && last == null) {
                last = config.running();
            }
        }
    }
}
