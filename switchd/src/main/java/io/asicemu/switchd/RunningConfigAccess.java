package io.asicemu.switchd;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.asicemu.operator.ConfigAccess;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The operator's CONFIG_DB writes bound to the one control model: an edit gets the running config
 * ({@link SwitchConfig#runningConfig()}) in Redis form, and what it makes of it becomes one
 * {@link SwitchConfig#reconfigure} under the switch's control lock — validated exactly as at start-up and applied
 * as one data-plane command, or refused ({@code TABLE|key|field: why}) with nothing changed. There is no second
 * validator and no second copy of the config here: only the conversion between Redis' hashes and {@link ConfigDb}.
 * <p>
 * Redis form: {@code TABLE|key} → field → value; a list field (a JSON array in config_db.json) is {@code field@} with
 * its items comma-joined, as SONiC stores it; SONiC's placeholder field {@code NULL} of a key without fields is
 * dropped.
 * <p>
 * Thread safe: edits run on the switch's control agent; {@link #running()} from any thread.
 */
public final class RunningConfigAccess implements ConfigAccess {
    private static final ObjectMapper JSON =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final ControlAgent control;
    private final java.util.function.Supplier<ConfigDb> runningConfig;
    private final Duration applyTimeout;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    /** The running config's Redis form, converted per change in the tables the change touched. */
    private final SwitchSnapshots.RedisForms redis;

    /**
     * @param control the switch's control agent (edits run on its thread).
     * @param runningConfig the control model's {@code runningConfig} (any thread).
     * @param applyTimeout how long a change waits for the data plane to apply it; null: it returns once queued
     *     (tests that step the data plane themselves).
     */
    public RunningConfigAccess(
            final ControlAgent control,
            final java.util.function.Supplier<ConfigDb> runningConfig,
            final Duration applyTimeout) {
        this(control, runningConfig, new SwitchSnapshots.RedisForms(), applyTimeout);
    }

    /** As above, converting through {@code redis}, which the switch's counters snapshots share. */
    RunningConfigAccess(
            final ControlAgent control,
            final java.util.function.Supplier<ConfigDb> runningConfig,
            final SwitchSnapshots.RedisForms redis,
            final Duration applyTimeout) {
        this.control = control;
        this.runningConfig = runningConfig;
        this.redis = redis;
        this.applyTimeout = applyTimeout;
    }

    @Override
    public Map<String, Map<String, String>> running() {
        return redis.of(runningConfig.get());
    }

    /**
     * The edit works on the running config's keys it touches ({@link ConfigEdit}) and the result shares every other
     * table with the running config, so {@link SwitchConfig#reconfigure} sees which tables changed and a WRED
     * threshold's HSET costs the same with 100k static routes as with none.
     */
    @Override
    public void change(final Consumer<Map<String, Map<String, String>>> edit) {
        final Long sequence = control.call(c -> {
            final ConfigDb current = SwitchConfig.of(c).runningConfig();
            final ConfigEdit working = new ConfigEdit(redis.of(current));
            edit.accept(working);
            final ConfigDb next = working.applyTo(current);
            if (next == null) {
                return null; // nothing differs: nothing to apply (HSET of the value in force, config load of itself)
            }
            try {
                return SwitchConfig.of(c).reconfigure(next);
            } catch (final io.asicemu.config.ConfigException e) {
                throw new ConfigRefusedException(e.getMessage());
            }
        });
        if (sequence != null && applyTimeout != null) {
            try {
                control.awaitApplied(sequence, applyTimeout);
            } catch (final TimeoutException e) {
                throw new ConfigRefusedException("the control model took the change, but the data plane did not apply"
                        + " it within " + applyTimeout.toMillis() + " ms (it will when it runs again)");
            }
        }
    }

    /** Every change of the control model may have changed the running config: tell the listeners (cheap). */
    void changed() {
        for (final Runnable listener : listeners) {
            listener.run();
        }
    }

    @Override
    public void addChangeListener(final Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public void removeChangeListener(final Runnable listener) {
        listeners.remove(listener);
    }

    /**
     * @param db a CONFIG_DB.
     * @return it in Redis form (what {@link #fromRedis} turns back into it).
     */
    public static Map<String, Map<String, String>> toRedis(final ConfigDb db) {
        return SwitchSnapshots.redisForm(db);
    }

    /**
     * @param redis CONFIG_DB in Redis form.
     * @return it as the config loader's {@link ConfigDb} (list-ness from the {@code @} suffixes).
     * @throws ConfigRefusedException for a key that is not {@code TABLE|key}, or a field set both as a list and not.
     */
    public static ConfigDb fromRedis(final Map<String, Map<String, String>> redis) {
        final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>();
        final Set<String> lists = new HashSet<>();
        redis.forEach((redisKey, hash) -> {
            final int bar = redisKey.indexOf('|');
            if (bar <= 0 || bar == redisKey.length() - 1) {
                throw new ConfigRefusedException(redisKey + ": CONFIG_DB keys are TABLE|key");
            }
            final String table = redisKey.substring(0, bar);
            final String key = redisKey.substring(bar + 1);
            final Set<String> listFields = new HashSet<>();
            final Map<String, String> fields = ConfigEdit.fields(table, key, hash, listFields);
            listFields.forEach(field -> lists.add(table + "|" + key + "|" + field));
            tables.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key, fields);
        });
        return new ConfigDb(tables, lists, true);
    }

    /**
     * @param redis CONFIG_DB in Redis form.
     * @return it as config_db.json (tables, keys and fields sorted, as SONiC's {@code config save} writes them; list
     *     fields as JSON arrays), which {@code run --config} and {@code config load} take.
     */
    static String toJson(final Map<String, Map<String, String>> redis) {
        final ConfigDb db = fromRedis(redis);
        final ObjectNode root = JSON.createObjectNode();
        new TreeMap<>(db.tables()).forEach((table, keys) -> {
            final ObjectNode t = root.putObject(table);
            new TreeMap<>(keys).forEach((key, fields) -> {
                final ObjectNode k = t.putObject(key);
                new TreeMap<>(fields).forEach((field, value) -> {
                    if (db.isList(table, key, field)) {
                        final ArrayNode items = k.putArray(field);
                        if (!value.isEmpty()) {
                            for (final String item : value.split(",", -1)) {
                                items.add(item);
                            }
                        }
                    } else {
                        k.put(field, value);
                    }
                });
            });
        });
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (final com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("config_db.json of strings cannot fail to serialize", e);
        }
    }
}
