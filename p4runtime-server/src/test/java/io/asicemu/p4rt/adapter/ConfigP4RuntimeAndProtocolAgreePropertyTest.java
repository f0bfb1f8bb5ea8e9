package io.asicemu.p4rt.adapter;

import static io.asicemu.p4rt.adapter.TableWrites.entry;
import static io.asicemu.p4rt.adapter.TableWrites.exact;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ProtocolNextHop;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.NeighborTable;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.pipeline.time.ManualClock;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Three writers of one switch's routes, interleaved at random: config edits (STATIC_ROUTE, reconfigured on the running
 * switch), a P4Runtime controller (ipv4_table entries through the production backend) and a routing protocol (the
 * control model's protocol writer, {@link TableBatch#protocolRoute}, the API the FPM listener uses). After every change
 * the switch must forward exactly as a fresh switch given the final state of each writer — the config loaded, the
 * controller's entries written, the protocol's routes written — and answer the same P4Runtime Read.
 * <p>
 * The precedence the data path must show (pipeline README): a controller's route over the protocol's over the
 * configuration's; a withdrawn protocol route gives the prefix back to the configuration's route under it, a deleted
 * controller route to the protocol's. Config and controller never write the same prefix here: between those two the
 * rule is refusal (the first writer keeps the key; ConfigReloadAndP4RuntimeAgreePropertyTest and the reconfigure tests
 * cover it), so their final states would not compose; the protocol shares prefixes with both.
 */
class ConfigP4RuntimeAndProtocolAgreePropertyTest {
    private static final String PORTS = "\"PORT\": {\"Ethernet0\": {\"speed\": \"10000\", \"admin_status\": \"up\"},"
            + " \"Ethernet4\": {\"speed\": \"10000\", \"admin_status\": \"up\"},"
            + " \"Ethernet8\": {\"speed\": \"10000\", \"admin_status\": \"up\"}}";
    private static final String INTERFACES = "\"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.1/24\": {},"
            + " \"Ethernet4\": {}, \"Ethernet4|10.0.2.1/24\": {}}";
    /** Gateways behind the configuration's interfaces (NEIGH gives their MACs): 10.0.1.2/.3, 10.0.2.2/.3. */
    private static final long[] GATEWAYS = {0x0A00_0102L, 0x0A00_0103L, 0x0A00_0202L, 0x0A00_0203L};

    private static final String[] GATEWAY_PORTS = {"Ethernet0", "Ethernet0", "Ethernet4", "Ethernet4"};
    /** The controller's next hops (P4 ids 10..12) on its router interface on Ethernet8: 10.0.3.2.. */
    private static final int CONTROLLER_HOPS = 3;

    private static final long ROUTER_MAC = 0x0200_0000_0001L;

    /** The prefix pool: 0–2 the configuration's, 3–5 the controller's, all eight the protocol's. Some cover others. */
    private static final long[] PREFIXES = {
        0x1401_0000L, 0x1402_0000L, 0x1402_8000L, 0x1500_0000L, 0x1501_0000L, 0x1600_0000L, 0x1700_0000L, 0x1400_0000L
    };

    private static final int[] LENGTHS = {16, 16, 17, 8, 16, 8, 8, 8};
    private static final int CONFIG_PREFIXES = 3;
    /** Addresses the data path is asked about: one in each prefix, and ones only a covering prefix holds. */
    private static final long[] PROBES = {
        0x1401_0001L,
        0x1402_0001L,
        0x1402_8001L,
        0x1500_0001L,
        0x1501_0001L,
        0x1600_0001L,
        0x1700_0001L,
        0x1403_0001L,
        0x1502_0001L,
        0x1800_0001L
    };

    /**
     * The configuration's choices for a route: a gateway, another, or ECMP over two (STATIC_ROUTE {@code nexthop}).
     */
    private static final String[] CONFIG_NEXT_HOPS = {"10.0.1.2", "10.0.2.2", "10.0.1.3,10.0.2.3"};

    enum Writer {
        CONFIG,
        CONTROLLER,
        PROTOCOL
    }

    /**
     * A change: writer, prefix (index into PREFIXES, within the writer's pool) and what it becomes ({@code -1}:
     * removed; else an index into the writer's choices).
     */
    record Change(Writer writer, int prefix, int choice) {}

    @Provide
    Arbitrary<List<Change>> changes() {
        final Arbitrary<Change> config = Combinators.combine(
                        Arbitraries.integers().between(0, CONFIG_PREFIXES - 1),
                        Arbitraries.integers().between(-1, CONFIG_NEXT_HOPS.length - 1))
                .as((p, c) -> new Change(Writer.CONFIG, p, c));
        final Arbitrary<Change> controller = Combinators.combine(
                        Arbitraries.integers().between(CONFIG_PREFIXES, 2 * CONFIG_PREFIXES - 1),
                        Arbitraries.integers().between(-1, CONTROLLER_HOPS - 1))
                .as((p, c) -> new Change(Writer.CONTROLLER, p, c));
        final Arbitrary<Change> protocol = Combinators.combine(
                        Arbitraries.integers().between(0, PREFIXES.length - 1),
                        Arbitraries.integers().between(-1, protocolChoices().size() - 1))
                .as((p, c) -> new Change(Writer.PROTOCOL, p, c));
        return Arbitraries.oneOf(config, controller, protocol, protocol)
                .list()
                .ofMinSize(1)
                .ofMaxSize(14);
    }

    /** The protocol's choices: single gateways, ECMP (equal and weighted), a blackhole, a connected route. */
    private static List<List<ProtocolNextHop>> protocolChoices() {
        return List.of(
                List.of(gateway(0, 1)),
                List.of(gateway(3, 1)),
                List.of(gateway(0, 1), gateway(3, 1)),
                List.of(gateway(1, 1), gateway(2, 2)),
                List.of(),
                List.of(new ProtocolNextHop(null, "Ethernet4", 1)));
    }

    private static ProtocolNextHop gateway(final int g, final int weight) {
        return new ProtocolNextHop(host(GATEWAYS[g]), GATEWAY_PORTS[g], weight);
    }

    private static IpPrefix host(final long v4) {
        return new IpPrefix(false, 0, v4, 32);
    }

    private static IpPrefix prefix(final int p) {
        return new IpPrefix(false, 0, PREFIXES[p], LENGTHS[p]);
    }

    /** Each writer's state, as the test keeps it: prefix → choice. */
    private static final class Writers {
        final Map<Integer, Integer> config = new TreeMap<>();
        final Map<Integer, Integer> controller = new TreeMap<>();
        final Map<Integer, Integer> protocol = new TreeMap<>();

        Map<Integer, Integer> of(final Writer w) {
            return switch (w) {
                case CONFIG -> config;
                case CONTROLLER -> controller;
                case PROTOCOL -> protocol;
            };
        }
    }

    private static String ip(final long v) {
        return (v >>> 24 & 0xff) + "." + (v >>> 16 & 0xff) + "." + (v >>> 8 & 0xff) + "." + (v & 0xff);
    }

    private static String configJson(final Map<Integer, Integer> routes) {
        final StringJoiner neigh = new StringJoiner(", ");
        for (int g = 0; g < GATEWAYS.length; g++) {
            neigh.add(
                    "\"" + GATEWAY_PORTS[g] + "|" + ip(GATEWAYS[g]) + "\": {\"neigh\": \"02:00:00:00:0b:0" + g + "\"}");
        }
        final StringJoiner statics = new StringJoiner(", ");
        routes.forEach((p, choice) -> statics.add(
                "\"" + ip(PREFIXES[p]) + "/" + LENGTHS[p] + "\": {\"nexthop\": \"" + CONFIG_NEXT_HOPS[choice] + "\"}"));
        return "{" + PORTS + ", " + INTERFACES + ", \"NEIGH\": {" + neigh + "}, \"STATIC_ROUTE\": {" + statics + "}}";
    }

    private static FieldMatchValue exact(final int id, final long v) {
        return FieldMatchValue.exact(id, BigInteger.valueOf(v));
    }

    private static List<FieldMatchValue> routeKey(final int p) {
        return List.of(exact(1, 0), TableWrites.lpm(2, PREFIXES[p], LENGTHS[p]));
    }

    private static long controllerHopIp(final int h) {
        return 0x0A00_0302L + h;
    }

    /** The controller's router interface on Ethernet8, its neighbors and next hops (P4 ids 10..12). */
    private static List<WriteOp> controllerSetup() {
        final List<WriteOp> setup = new ArrayList<>();
        setup.add(entry(UpdateKind.INSERT, 0x02000005, List.of(exact(1, 1)), 0x01000007, 2, ROUTER_MAC));
        for (int h = 0; h < CONTROLLER_HOPS; h++) {
            setup.add(entry(
                    UpdateKind.INSERT,
                    0x02000006,
                    List.of(exact(1, 1), exact(2, controllerHopIp(h))),
                    0x01000008,
                    0x0200_0000_0C00L + h));
            setup.add(
                    entry(UpdateKind.INSERT, 0x02000007, List.of(exact(1, 10 + h)), 0x01000009, 1, controllerHopIp(h)));
        }
        return setup;
    }

    private static WriteOp controllerRoute(final UpdateKind kind, final int p, final int hop) {
        return kind == UpdateKind.DELETE
                ? entry(kind, 0x02000003, routeKey(p), 0)
                : entry(kind, 0x02000003, routeKey(p), 0x01000005, 10 + hop);
    }

    private static void write(final PipelineTableBackend p4, final List<WriteOp> ops, final String what) {
        assertThat(p4.write(ops, true))
                .as(what)
                .extracting(UpdateOutcome::status)
                .containsOnly(UpdateStatus.OK);
    }

    /** A switch as one of its writers leaves it. */
    private static final class Switch implements AutoCloseable {
        final Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
        final SwitchConfig config = SwitchConfig.of(pipeline.control());
        final PipelineTableBackend p4;

        Switch(final Map<Integer, Integer> configRoutes) {
            config.applyConfig(ConfigDb.parse(configJson(configRoutes)));
            p4 = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
            write(p4, controllerSetup(), "the controller's set-up");
            settle();
        }

        void settle() {
            pipeline.agent().doWork();
        }

        void protocol(final int p, final int choice) {
            final TableBatch batch = pipeline.control().batch();
            if (choice < 0) {
                batch.withdrawProtocolRoute(prefix(p));
            } else {
                batch.protocolRoute(prefix(p), protocolChoices().get(choice));
            }
            batch.commit();
        }

        @Override
        public void close() {
            pipeline.close();
        }
    }

    /** The fresh switch: the configuration loaded, then the controller's entries, then the protocol's routes. */
    private static Switch fresh(final Writers w) {
        final Switch s = new Switch(w.config);
        if (!w.controller.isEmpty()) {
            final List<WriteOp> ops = new ArrayList<>();
            w.controller.forEach((p, hop) -> ops.add(controllerRoute(UpdateKind.INSERT, p, hop)));
            write(s.p4, ops, "the controller's routes");
        }
        w.protocol.forEach(s::protocol);
        s.settle();
        return s;
    }

    /** One next hop as the data plane resolves it: egress port, gateway and MAC. */
    private static String hop(final ForwardingTables t, final int nh) {
        final int port = t.routerInterfacePort(t.nextHopRif(nh));
        final int slot = t.neighbors().find(t.nextHopHigh(nh), t.nextHopLow(nh), false);
        final long mac = slot == NeighborTable.MISSING ? -1 : t.neighbors().mac(slot);
        return "port " + port + " via " + ip(t.nextHopLow(nh)) + " mac " + Long.toHexString(mac);
    }

    /** What the data plane does with each probe address: its target, with groups as the hash spreads them. */
    private static List<String> forwarding(final ForwardingTables t) {
        final List<String> out = new ArrayList<>();
        for (final long probe : PROBES) {
            final int target = t.routeTargetFor(false, 0, probe);
            final int id = RouteTarget.id(target);
            out.add(ip(probe) + " → "
                    + switch (RouteTarget.kind(target)) {
                        case RouteTarget.NEXT_HOP -> hop(t, id);
                        case RouteTarget.GROUP -> {
                            final int[] members = t.groupNextHops(id);
                            final List<String> spread = new ArrayList<>();
                            for (int hash = 0; hash < 32; hash++) {
                                spread.add(hop(t, members[t.group(id).members().select(hash * 0x9E3779B1)]));
                            }
                            yield "group " + spread;
                        }
                        case RouteTarget.CONNECTED -> "connected port " + t.routerInterfacePort(id);
                        case RouteTarget.DROP -> "drop";
                        default -> "kind " + RouteTarget.kind(target);
                    });
        }
        return out;
    }

    /** Every table entry a P4Runtime Read returns, in a stable order. */
    private static List<String> read(final PipelineTableBackend p4) {
        final List<String> out = new ArrayList<>();
        for (final P4Entity e : p4.read(new ReadFilter.Tables(0, null, false, false, false))) {
            final P4Entity.TableEntry entry = (P4Entity.TableEntry) e;
            out.add(entry.key() + " " + entry.action());
        }
        out.sort(String::compareTo);
        return out;
    }

    /**
     * What the written precedence predicts for each prefix some writer holds: the controller's route, else the
     * protocol's, else the configuration's — as a route kind and, for a single next hop, its gateway.
     */
    private static List<String> predicted(final Writers w) {
        final List<String> out = new ArrayList<>();
        for (int p = 0; p < PREFIXES.length; p++) {
            if (w.controller.containsKey(p)) {
                out.add(p + ": next hop " + ip(controllerHopIp(w.controller.get(p))));
            } else if (w.protocol.containsKey(p)) {
                final List<ProtocolNextHop> hops = protocolChoices().get(w.protocol.get(p));
                if (hops.isEmpty()) {
                    out.add(p + ": drop");
                } else if (hops.get(0).address() == null) {
                    out.add(p + ": connected");
                } else if (hops.size() == 1) {
                    out.add(p + ": next hop " + ip(hops.get(0).address().low()));
                } else {
                    out.add(p + ": group");
                }
            } else if (w.config.containsKey(p)) {
                final String hops = CONFIG_NEXT_HOPS[w.config.get(p)];
                out.add(p + (hops.contains(",") ? ": group" : ": next hop " + hops));
            }
        }
        return out;
    }

    /** The same read from the data path: the target of the address inside each prefix some writer holds. */
    private static List<String> inForce(final ForwardingTables t, final Writers w) {
        final List<String> out = new ArrayList<>();
        for (int p = 0; p < PREFIXES.length; p++) {
            if (!w.controller.containsKey(p) && !w.protocol.containsKey(p) && !w.config.containsKey(p)) {
                continue;
            }
            final int target = t.routeTargetFor(false, 0, PROBES[p]);
            final int id = RouteTarget.id(target);
            out.add(p
                    + switch (RouteTarget.kind(target)) {
                        case RouteTarget.NEXT_HOP -> ": next hop " + ip(t.nextHopLow(id));
                        case RouteTarget.GROUP -> ": group";
                        case RouteTarget.CONNECTED -> ": connected";
                        case RouteTarget.DROP -> ": drop";
                        default -> ": kind " + RouteTarget.kind(target);
                    });
        }
        return out;
    }

    @Property(tries = 200)
    void shouldForwardAndReadAsAFreshSwitchGivenEachWritersFinalState(@ForAll("changes") final List<Change> changes) {
        final Writers writers = new Writers();
        try (Switch live = new Switch(Map.of())) {
            for (final Change c : changes) {
                final Map<Integer, Integer> state = writers.of(c.writer());
                final boolean present = state.containsKey(c.prefix());
                if (c.choice() < 0 && !present) {
                    continue; // nothing to remove
                }
                switch (c.writer()) {
                    case CONFIG -> {
                        final Map<Integer, Integer> next = new TreeMap<>(state);
                        if (c.choice() < 0) {
                            next.remove(c.prefix());
                        } else {
                            next.put(c.prefix(), c.choice());
                        }
                        live.config.reconfigure(ConfigDb.parse(configJson(next)));
                    }
                    case CONTROLLER -> {
                        final UpdateKind kind =
                                c.choice() < 0 ? UpdateKind.DELETE : present ? UpdateKind.MODIFY : UpdateKind.INSERT;
                        write(live.p4, List.of(controllerRoute(kind, c.prefix(), c.choice())), c.toString());
                    }
                    case PROTOCOL -> live.protocol(c.prefix(), c.choice());
                }
                live.settle();
                if (c.choice() < 0) {
                    state.remove(c.prefix());
                } else {
                    state.put(c.prefix(), c.choice());
                }
                assertThat(inForce(live.pipeline.agent().tables(), writers))
                        .as("the precedence after %s", c)
                        .isEqualTo(predicted(writers));
                try (Switch expected = fresh(writers)) {
                    assertThat(forwarding(live.pipeline.agent().tables()))
                            .as(
                                    "the data path after %s (writers: config %s, controller %s, protocol %s)",
                                    c, writers.config, writers.controller, writers.protocol)
                            .isEqualTo(forwarding(expected.pipeline.agent().tables()));
                    assertThat(read(live.p4))
                            .as("the P4Runtime Read after %s", c)
                            .isEqualTo(read(expected.p4));
                }
            }
        }
    }
}
