package io.asicemu.operator;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prometheus metrics of the running switch with the official Java client ({@code io.prometheus:prometheus-metrics-*}),
 * served over HTTP on the management address, from the same {@link SnapshotCache} as the Redis front (so they agree
 * with COUNTERS_DB), plus the client's JVM metrics. Names follow the SAI stat names they come from:
 * <ul>
 * <li>{@code asicemu_port_<stat>_total{port}} for {@code SAI_PORT_STAT_<STAT>} (e.g. {@code
 * asicemu_port_if_in_ucast_pkts_total}); {@code asicemu_port_drops_total{port,reason}} for every drop reason
 * (SAI and ours); {@code asicemu_port_events_total{port,counter}} for punts and frames consumed by the switch;</li>
 * <li>{@code asicemu_port_pfc_<stat>_total{port,priority}} for {@code SAI_PORT_STAT_PFC_n_<STAT>};</li>
 * <li>{@code asicemu_queue_<stat>{port,queue}} for {@code SAI_QUEUE_STAT_<STAT>} (counters with {@code _total},
 * occupancy and watermarks as gauges), ECN marks included; {@code asicemu_queue_paused};</li>
 * <li>{@code asicemu_pfcwd_<stat>_total{port,queue}} and the gauge {@code asicemu_pfcwd_stormed};</li>
 * <li>{@code asicemu_pg_<stat>{port,pg}}, {@code asicemu_buffer_pool_<stat>{pool}}, {@code
 * asicemu_port_oper_up{port}};</li>
 * <li>{@code asicemu_acl_rule_packets_total{table,rule}} / {@code _bytes_total} (the ACL tables' P4Runtime direct
 * counters; P4Runtime's port_in/port_out/drop_reason counters are the port and drop metrics above);</li>
 * <li>ARS: {@code asicemu_ars_flowlet_reassignments_total{group}}, {@code asicemu_ars_new_flowlets_total}, {@code
 * asicemu_ars_table_full_fallbacks_total}, {@code asicemu_ars_no_member_drops_total}, {@code
 * asicemu_ars_flowlet_table_occupancy}, {@code asicemu_ars_member_selections_total{group,member,port}} and {@code
 * asicemu_ars_member_bytes_total}.</li>
 * </ul>
 * A scrape costs one snapshot at most (the cache's max age bounds how often the data plane is asked).
 */
public final class PrometheusMetrics implements AutoCloseable {
    private static final Pattern PFC = Pattern.compile("SAI_PORT_STAT_PFC_(\\d)_(.+)");
    /** The Content-Type of the text format. */
    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private final ManagementHttpServer server;

    private PrometheusMetrics(final ManagementHttpServer server) {
        this.server = server;
    }

    /**
     * Starts serving {@code /metrics} with {@link ManagementHttpServer.Options#defaults()}.
     *
     * @param address where (the management address; port 0 = any free port).
     * @param cache the switch's snapshots.
     * @return the running exporter.
     * @throws IOException if the address cannot be bound.
     */
    public static PrometheusMetrics start(final InetSocketAddress address, final SnapshotCache cache)
            throws IOException {
        return start(address, cache, ManagementHttpServer.Options.defaults(), new ListenerStats("metrics"), null);
    }

    /**
     * Starts serving {@code /metrics} (GET and HEAD; 404 for other paths, 405 for other methods) on a bounded
     * listener ({@link ManagementHttpServer}).
     *
     * @param address where (the management address; port 0 = any free port).
     * @param cache the switch's snapshots.
     * @param options the listener's bounds.
     * @param stats the listener's counters.
     * @param listeners the management listeners whose counters to export ({@code asicemu_listener_*}), or null.
     * @return the running exporter.
     * @throws IOException if the address cannot be bound.
     */
    public static PrometheusMetrics start(
            final InetSocketAddress address,
            final SnapshotCache cache,
            final ManagementHttpServer.Options options,
            final ListenerStats stats,
            final ListenerRegistry listeners)
            throws IOException {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(collector(cache));
        if (listeners != null) {
            registry.register(listenerCollector(listeners));
        }
        JvmMetrics.builder().register(registry);
        final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        return new PrometheusMetrics(ManagementHttpServer.start(
                address,
                "/metrics",
                CONTENT_TYPE,
                () -> {
                    final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(64 << 10);
                    writer.write(out, registry.scrape());
                    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
                },
                options,
                stats));
    }

    /** @return the bound port. */
    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }

    /**
     * @param listeners the management listeners.
     * @return {@code asicemu_listener_connections_open}, {@code _refused_total}, {@code _timed_out_total} and {@code
     *     _evicted_total}, labelled {@code listener}.
     */
    static MultiCollector listenerCollector(final ListenerRegistry listeners) {
        return () -> {
            final Families f = new Families();
            for (final ListenerCounters c : listeners.listeners()) {
                final Labels labels = Labels.of("listener", c.name());
                f.gauge("asicemu_listener_connections_open", "connections open now", labels, c.open());
                f.counter(
                        "asicemu_listener_connections_refused",
                        "connections closed at accept because the listener was full",
                        labels,
                        c.refused());
                f.counter(
                        "asicemu_listener_connections_timed_out",
                        "connections closed by a deadline (handshake or first request, authentication, idle)",
                        labels,
                        c.timedOut());
                f.counter(
                        "asicemu_listener_connections_evicted",
                        "connections without a complete request closed to make room for new ones",
                        labels,
                        c.evicted());
            }
            return f.build();
        };
    }

    /**
     * @param cache the switch's snapshots.
     * @return the collector of the switch's metrics.
     */
    static MultiCollector collector(final SnapshotCache cache) {
        return () -> {
            try {
                return metrics(cache.databases().snapshot());
            } catch (final TimeoutException e) {
                // a scrape without the switch's series says the switch did not answer; JVM metrics still come
                return new MetricSnapshots();
            }
        };
    }

    /**
     * @param s a snapshot.
     * @return its metrics.
     */
    static MetricSnapshots metrics(final SwitchSnapshot s) {
        final Families f = new Families();
        for (final SwitchSnapshot.Port port : s.ports()) {
            final String name = port.name();
            f.gauge(
                    "asicemu_port_oper_up",
                    "1 when the port's link is up",
                    Labels.of("port", name),
                    port.operUp() ? 1 : 0);
            port.stats().forEach((stat, value) -> {
                if (stat.startsWith("SAI_PORT_STAT_")) {
                    f.counter(
                            "asicemu_port_" + metricPart(stat.substring("SAI_PORT_STAT_".length())),
                            "SAI " + stat,
                            Labels.of("port", name),
                            value);
                } else if (stat.contains("_DROP_REASON_")) {
                    f.counter(
                            "asicemu_port_drops",
                            "frames dropped, by reason (SAI drop reason or ours)",
                            Labels.of("port", name, "reason", stat),
                            value);
                } else {
                    f.counter(
                            "asicemu_port_events",
                            "frames punted to the CPU or consumed by the switch, by reason",
                            Labels.of("port", name, "counter", stat),
                            value);
                }
            });
            port.pfc().forEach((stat, value) -> {
                final Matcher m = PFC.matcher(stat);
                if (m.matches()) {
                    f.counter(
                            "asicemu_port_pfc_" + metricPart(m.group(2)),
                            "SAI SAI_PORT_STAT_PFC_n_" + m.group(2),
                            Labels.of("port", name, "priority", m.group(1)),
                            parse(value));
                }
            });
            for (int q = 0; q < SwitchSnapshot.CLASSES; q++) {
                final Labels labels = Labels.of("port", name, "queue", Integer.toString(q));
                port.queues().get(q).forEach((stat, value) -> {
                    if (stat.equals("PFC_WD_STATUS")) {
                        f.gauge(
                                "asicemu_pfcwd_stormed",
                                "1 while the PFC watchdog holds the queue in a storm",
                                labels,
                                value.equals("stormed") ? 1 : 0);
                    } else if (stat.equals("SAI_QUEUE_ATTR_PAUSE_STATUS")) {
                        f.gauge(
                                "asicemu_queue_paused",
                                "1 while PFC pauses the queue",
                                labels,
                                value.equals("true") ? 1 : 0);
                    } else if (stat.startsWith("PFC_WD_QUEUE_STATS_")) {
                        f.counter(
                                "asicemu_pfcwd_" + metricPart(stat.substring("PFC_WD_QUEUE_STATS_".length())),
                                stat,
                                labels,
                                parse(value));
                    } else if (stat.startsWith("SAI_QUEUE_STAT_")) {
                        f.number(
                                "asicemu_queue_" + metricPart(stat.substring("SAI_QUEUE_STAT_".length())),
                                "SAI " + stat,
                                labels,
                                parse(value));
                    }
                });
            }
            for (int g = 0; g < SwitchSnapshot.CLASSES; g++) {
                final Labels labels = Labels.of("port", name, "pg", Integer.toString(g));
                port.priorityGroups().get(g).forEach((stat, value) -> {
                    final String prefix = "SAI_INGRESS_PRIORITY_GROUP_STAT_";
                    if (stat.startsWith(prefix)) {
                        f.number(
                                "asicemu_pg_" + metricPart(stat.substring(prefix.length())),
                                "SAI " + stat,
                                labels,
                                parse(value));
                    }
                });
            }
        }
        s.aclRules().forEach((rule, stats) -> {
            final int bar = rule.indexOf('|');
            final Labels labels =
                    Labels.of("table", bar < 0 ? "" : rule.substring(0, bar), "rule", rule.substring(bar + 1));
            f.counter(
                    "asicemu_acl_rule_packets",
                    "packets that hit the ACL rule (P4Runtime: the table's direct " + "counter)",
                    labels,
                    stats.getOrDefault("Packets", 0L));
            f.counter("asicemu_acl_rule_bytes", "bytes that hit the ACL rule", labels, stats.getOrDefault("Bytes", 0L));
        });
        for (final SwitchSnapshot.ArsGroup g : s.arsGroups()) {
            final String group = Integer.toString(g.group());
            final Labels labels = Labels.of("group", group);
            f.counter(
                    "asicemu_ars_flowlet_reassignments",
                    "flowlets moved to another member after an idle gap",
                    labels,
                    g.flowletReassignments());
            f.counter("asicemu_ars_new_flowlets", "flowlets started", labels, g.newFlowlets());
            f.counter(
                    "asicemu_ars_table_full_fallbacks",
                    "packets hashed statically: the flowlet table was full",
                    labels,
                    g.tableFullFallbacks());
            f.counter(
                    "asicemu_ars_no_member_drops",
                    "packets dropped: no member of the group was up",
                    labels,
                    g.noMemberDrops());
            f.gauge(
                    "asicemu_ars_flowlet_table_occupancy",
                    "flowlet table entries in use",
                    labels,
                    g.flowletTableOccupancy());
            for (int m = 0; m < g.members().size(); m++) {
                final SwitchSnapshot.ArsMember member = g.members().get(m);
                final Labels ml = Labels.of("group", group, "member", Integer.toString(m), "port", member.port());
                f.counter("asicemu_ars_member_selections", "packets sent through the member", ml, member.selections());
                f.counter("asicemu_ars_member_bytes", "bytes sent through the member", ml, member.bytes());
            }
        }
        s.pools()
                .forEach((pool, stats) -> stats.forEach((stat, value) -> {
                    if (stat.startsWith("SAI_BUFFER_POOL_STAT_")) {
                        f.gauge(
                                "asicemu_buffer_pool_" + metricPart(stat.substring("SAI_BUFFER_POOL_STAT_".length())),
                                "SAI " + stat,
                                Labels.of("pool", pool),
                                parse(value));
                    }
                }));
        return f.build();
    }

    private static String metricPart(final String sai) {
        return sai.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    }

    private static double parse(final String value) {
        try {
            return Double.parseDouble(value);
        } catch (final NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** Data points grouped by metric name. */
    private static final class Families {
        private final Map<String, CounterSnapshot.Builder> counters = new TreeMap<>();
        private final Map<String, GaugeSnapshot.Builder> gauges = new TreeMap<>();

        void counter(final String name, final String help, final Labels labels, final double value) {
            counters.computeIfAbsent(
                            name, n -> CounterSnapshot.builder().name(n).help(help))
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(labels)
                            .value(value)
                            .build());
        }

        void gauge(final String name, final String help, final Labels labels, final double value) {
            gauges.computeIfAbsent(name, n -> GaugeSnapshot.builder().name(n).help(help))
                    .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                            .labels(labels)
                            .value(value)
                            .build());
        }

        /** Levels (occupancy, watermarks) are gauges; everything else counts events. */
        void number(final String name, final String help, final Labels labels, final double value) {
            if (name.contains("occupancy") || name.contains("watermark")) {
                gauge(name, help, labels, value);
            } else {
                counter(name, help, labels, value);
            }
        }

        MetricSnapshots build() {
            final List<MetricSnapshot> out = new ArrayList<>();
            counters.values().forEach(b -> out.add(b.build()));
            gauges.values().forEach(b -> out.add(b.build()));
            return new MetricSnapshots(out);
        }
    }
}
