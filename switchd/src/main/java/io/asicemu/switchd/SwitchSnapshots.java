package io.asicemu.switchd;

import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.operator.RedisConfigDb;
import io.asicemu.operator.SnapshotSource;
import io.asicemu.operator.SwitchSnapshot;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.tm.TrafficManager;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.veth.LinuxSwitch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Snapshots of the live switch for the operator views (module operator-api), taken the way {@code GET /counters}
 * takes them: the pipeline's counters are read as the P4Runtime counter reads read them (plain reads of counters the
 * data plane alone writes), and the traffic manager copies its counters on the data-plane thread between batches
 * through the control queue, so the data path takes no lock and pays nothing while nobody reads.
 */
final class SwitchSnapshots {
    static final Duration SNAPSHOT_TIMEOUT = Duration.ofSeconds(5);

    private SwitchSnapshots() {}

    /**
     * @param sw the live switch.
     * @param running the CONFIG_DB in force as the switch runs it ({@code SwitchConfig::runningConfig}: the
     *     configuration with what runtime writes changed), read at each snapshot from any thread.
     * @return a source of its snapshots.
     */
    static SnapshotSource source(final LinuxSwitch sw, final Supplier<ConfigDb> running) {
        return source(sw, running, new RedisForms());
    }

    /**
     * @param forms where the running config's Redis form comes from (shared with the CONFIG_DB writes, so that a
     *     change is converted once).
     */
    static SnapshotSource source(final LinuxSwitch sw, final Supplier<ConfigDb> running, final RedisForms forms) {
        final Map<String, String> capabilities = capabilities();
        return () -> {
            final ConfigDb config = running.get();
            return take(sw, config, forms.of(config), capabilities);
        };
    }

    /**
     * The running config's Redis form, converted once per change of the running config (a new object only after a
     * change), and then only in the tables the change did not share with the config before it. Any thread (a race
     * converts twice).
     */
    static final class RedisForms {
        private final AtomicReference<Converted> last = new AtomicReference<>();

        RedisConfigDb of(final ConfigDb db) {
            final Converted c = last.get();
            if (c != null && c.db() == db) {
                return c.redis();
            }
            final RedisConfigDb redis = c == null ? redisForm(db) : redisForm(db, c.db(), c.redis());
            last.set(new Converted(db, redis));
            return redis;
        }

        /** A CONFIG_DB and its Redis form. */
        private record Converted(ConfigDb db, RedisConfigDb redis) {}
    }

    /**
     * The traffic manager's counters, copied on the data-plane thread.
     *
     * @param sw the live switch.
     * @param ports receives the port names (index → SONiC name, null for a gap).
     * @param pools receives pool name → index, for the config's pools.
     * @param poolNames the BUFFER_POOL names to resolve.
     * @return the copy.
     * @throws TimeoutException if the data plane did not run the copy within {@link #SNAPSHOT_TIMEOUT}.
     */
    static TmCountersSnapshot trafficManager(
            final LinuxSwitch sw,
            final AtomicReference<List<String>> ports,
            final Map<String, Integer> pools,
            final Iterable<String> poolNames)
            throws TimeoutException {
        return trafficManager(sw, ports, pools, poolNames, null);
    }

    /**
     * As {@link #trafficManager(LinuxSwitch, AtomicReference, Map, Iterable)}, also copying the flowlet engine's
     * group counters (on the data-plane thread too: the groups are its state).
     *
     * @param groups receives the groups in use, or null to skip them.
     */
    static TmCountersSnapshot trafficManager(
            final LinuxSwitch sw,
            final AtomicReference<List<String>> ports,
            final Map<String, Integer> pools,
            final Iterable<String> poolNames,
            final List<SwitchSnapshot.ArsGroup> groups)
            throws TimeoutException {
        final AtomicReference<TmCountersSnapshot> tmSnapshot = new AtomicReference<>();
        final long sequence = sw.control().call(c -> {
            ports.set(c.portNames());
            return c.submit(agent -> {
                final TrafficManager tm = agent.trafficManager();
                final TmCountersSnapshot snapshot = tm.newSnapshot();
                tm.snapshot(sw.clock().nowNs(), snapshot);
                for (final String pool : poolNames) {
                    pools.put(pool, tm.poolIndex(pool));
                }
                if (groups != null) {
                    copyGroups(agent.tables(), ports.get(), groups);
                }
                tmSnapshot.set(snapshot);
            });
        });
        sw.control().awaitApplied(sequence, SNAPSHOT_TIMEOUT);
        return tmSnapshot.get();
    }

    static void copyGroups(
            final io.asicemu.pipeline.table.ForwardingTables tables,
            final List<String> portNames,
            final List<SwitchSnapshot.ArsGroup> into) {
        final io.asicemu.flowlet.ars.PortQuality quality = tables.portQuality();
        for (int g = 0; g < tables.sizing().maxGroups(); g++) {
            final LoadBalanceGroup group = tables.group(g);
            if (group == null) {
                continue;
            }
            final List<SwitchSnapshot.ArsMember> members = new ArrayList<>();
            for (int m = 0; m < group.memberCount(); m++) {
                final int port = group.memberPort(m);
                final String name = port >= 0 && port < portNames.size() && portNames.get(port) != null
                        ? portNames.get(port)
                        : Integer.toString(port);
                final boolean measured = quality != null
                        && group.settings().mode() == io.asicemu.flowlet.ecmp.LoadBalanceMode.FLOWLET_QUALITY
                        && port >= 0
                        && port < quality.portCount();
                members.add(new SwitchSnapshot.ArsMember(
                        name, group.memberSelections(m), group.memberBytes(m), measured ? quality.band(port) : -1));
            }
            into.add(new SwitchSnapshot.ArsGroup(
                    g,
                    members,
                    group.flowletReassignments(),
                    group.newFlowlets(),
                    group.tableFullFallbacks(),
                    group.noMemberDrops(),
                    group.flowletTableOccupancy(),
                    group.settings().mode().configName(),
                    group.flowletTableCapacity()));
        }
    }

    private static SwitchSnapshot take(
            final LinuxSwitch sw,
            final ConfigDb config,
            final Map<String, Map<String, String>> redisConfig,
            final Map<String, String> capabilities)
            throws TimeoutException {
        final AtomicReference<List<String>> names = new AtomicReference<>();
        final Map<String, Integer> poolIndex = new java.util.concurrent.ConcurrentHashMap<>();
        final List<SwitchSnapshot.ArsGroup> groups = new ArrayList<>();
        final TmCountersSnapshot tm =
                trafficManager(sw, names, poolIndex, config.table("BUFFER_POOL").keySet(), groups);
        final long now = System.nanoTime();
        final CountersSnapshot pipeline = sw.counters();
        final Map<String, String> states = sw.portStates();
        final List<SwitchSnapshot.Port> ports = new ArrayList<>();
        final List<String> portNames = names.get();
        for (int p = 0; p < portNames.size(); p++) {
            final String name = portNames.get(p);
            if (name == null) {
                continue;
            }
            final List<Map<String, String>> queues = new ArrayList<>();
            final List<Map<String, String>> pgs = new ArrayList<>();
            for (int c = 0; c < SwitchSnapshot.CLASSES; c++) {
                queues.add(tm.queueFields(p, c));
                pgs.add(tm.pgFields(p, c));
            }
            ports.add(new SwitchSnapshot.Port(
                    name,
                    states.getOrDefault(name, "").startsWith("up"),
                    pipeline.ports().getOrDefault(name, Map.of()),
                    queues,
                    pgs,
                    tm.portPfcFields(p)));
        }
        final Map<String, Map<String, String>> pools = new LinkedHashMap<>();
        for (final String pool : config.table("BUFFER_POOL").keySet()) {
            final Integer index = poolIndex.get(pool);
            if (index != null && index >= 0) {
                pools.put(pool, tm.poolFields(index));
            }
        }
        return new SwitchSnapshot(now, ports, pools, redisConfig, capabilities, pipeline.aclRules(), groups);
    }

    /**
     * @param config a CONFIG_DB.
     * @return it as Redis holds it: {@code TABLE|key} → fields, list fields (JSON arrays) under {@code field@}.
     */
    static RedisConfigDb redisForm(final ConfigDb config) {
        return redisForm(config, null, null);
    }

    /**
     * As {@link #redisForm(ConfigDb)}, reusing what an earlier conversion made of the tables the two stores share
     * (the same table object, the same list fields): a change costs the tables it changed.
     *
     * @param previousDb a store converted before, or null.
     * @param previous its conversion, or null.
     */
    static RedisConfigDb redisForm(final ConfigDb config, final ConfigDb previousDb, final RedisConfigDb previous) {
        final boolean reuse = previous != null && previousDb.listValues().equals(config.listValues());
        final Map<String, Map<String, Map<String, String>>> out = new LinkedHashMap<>();
        config.tables().forEach((table, keys) -> {
            final Map<String, Map<String, String>> converted =
                    reuse ? previous.tables().get(table) : null;
            if (converted != null && previousDb.tables().get(table) == keys) {
                out.put(table, converted);
                return;
            }
            final Map<String, Map<String, String>> t = new LinkedHashMap<>();
            keys.forEach((key, fields) -> {
                final Map<String, String> hash = new LinkedHashMap<>();
                fields.forEach(
                        (field, value) -> hash.put(config.isList(table, key, field) ? field + "@" : field, value));
                t.put(key, java.util.Collections.unmodifiableMap(hash));
            });
            out.put(table, java.util.Collections.unmodifiableMap(t));
        });
        return new RedisConfigDb(out, reuse ? previous : null);
    }

    /** STATE_DB SWITCH_CAPABILITY|switch: the hash fields (RDMA BTH ones included) and algorithms we implement. */
    static Map<String, String> capabilities() {
        final String fields = Arrays.stream(HashField.values()).map(Enum::name).collect(Collectors.joining(","));
        final String algorithms =
                Arrays.stream(HashAlgorithm.values()).map(Enum::name).collect(Collectors.joining(","));
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("ECMP_HASH_CAPABLE", "true");
        out.put("LAG_HASH_CAPABLE", "false");
        out.put("HASH|NATIVE_HASH_FIELD_LIST", fields);
        out.put("ECMP_HASH_ALGORITHM_CAPABLE", "true");
        out.put("ECMP_HASH_ALGORITHM", algorithms);
        out.put(
                "RDMA_HASH_FIELD_LIST",
                Arrays.stream(HashField.values())
                        .filter(HashField::rdma)
                        .map(Enum::name)
                        .collect(Collectors.joining(",")));
        return out;
    }
}
