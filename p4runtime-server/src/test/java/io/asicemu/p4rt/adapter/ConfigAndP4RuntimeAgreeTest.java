package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.info.MatchKind;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.NeighborTable;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.pipeline.time.ManualClock;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The same routes written through config_db.json (INTERFACE, NEIGH, STATIC_ROUTE) and through P4Runtime (router
 * interface, neighbors, next hops, routes) give the same data-path forwarding: for every route, the data plane
 * resolves the same egress port, next-hop address and destination MAC. (Read differs by design: config objects are
 * not P4Runtime entries, see the module README.)
 */
class ConfigAndP4RuntimeAgreeTest {
    private static final String PORTS = "\"PORT\": {\"Ethernet0\": {\"speed\": \"10000\", \"admin_status\": \"up\"},"
            + " \"Ethernet4\": {\"speed\": \"10000\", \"admin_status\": \"up\"}}";
    private static final int HOPS = 3;
    private static final long ROUTER_MAC = 0x0200_0000_0001L;

    record Route(long address, int length, int hop) {
        long prefix() {
            return length == 0 ? 0 : address & (0xFFFF_FFFFL << (32 - length)) & 0xFFFF_FFFFL;
        }
    }

    @Provide
    Arbitrary<List<Route>> routes() {
        final Arbitrary<Route> route = Combinators.combine(
                        Arbitraries.longs().between(0x1400_0000L, 0x14FF_FFFFL),
                        Arbitraries.integers().between(8, 32),
                        Arbitraries.integers().between(0, HOPS - 1))
                .as(Route::new);
        return route.list().ofMinSize(1).ofMaxSize(24).uniqueElements(Route::prefix);
    }

    private static String ip(final long v) {
        return (v >>> 24 & 0xff) + "." + (v >>> 16 & 0xff) + "." + (v >>> 8 & 0xff) + "." + (v & 0xff);
    }

    private static long hopIp(final int hop) {
        return 0x0A00_0102L + hop;
    }

    private static long hopMac(final int hop) {
        return 0x0200_0000_0A00L + hop;
    }

    /** Per route: egress port, next-hop address and destination MAC the data plane resolves, or "none". */
    private static List<String> forwarding(final ForwardingTables t, final List<Route> routes) {
        final List<String> out = new ArrayList<>();
        for (final Route r : routes) {
            final int target = t.routeTargetFor(false, 0, r.prefix());
            if (RouteTarget.kind(target) != RouteTarget.NEXT_HOP) {
                out.add("kind " + RouteTarget.kind(target));
                continue;
            }
            final int nh = RouteTarget.id(target);
            final int port = t.routerInterfacePort(t.nextHopRif(nh));
            final int slot = t.neighbors().find(t.nextHopHigh(nh), t.nextHopLow(nh), false);
            final long mac = slot == NeighborTable.MISSING ? -1 : t.neighbors().mac(slot);
            out.add("port " + port + " via " + ip(t.nextHopLow(nh)) + " mac " + Long.toHexString(mac));
        }
        return out;
    }

    private static List<String> throughConfig(final List<Route> routes) {
        final StringJoiner neigh = new StringJoiner(", ");
        for (int h = 0; h < HOPS; h++) {
            neigh.add("\"Ethernet0|" + ip(hopIp(h)) + "\": {\"neigh\": \"" + mac(hopMac(h)) + "\"}");
        }
        final StringJoiner statics = new StringJoiner(", ");
        routes.forEach(r -> statics.add(
                "\"" + ip(r.prefix()) + "/" + r.length() + "\": {\"nexthop\": \"" + ip(hopIp(r.hop())) + "\"}"));
        final String json = "{" + PORTS + ", \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.1/24\": {}},"
                + " \"NEIGH\": {" + neigh + "}, \"STATIC_ROUTE\": {" + statics + "}}";
        try (Pipeline p = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of())) {
            SwitchConfig.of(p.control()).applyConfig(ConfigDb.parse(json));
            p.agent().doWork();
            return forwarding(p.agent().tables(), routes);
        }
    }

    private static String mac(final long v) {
        final StringJoiner j = new StringJoiner(":");
        for (int shift = 40; shift >= 0; shift -= 8) {
            j.add(String.format("%02x", v >>> shift & 0xff));
        }
        return j.toString();
    }

    private static WriteOp op(
            final int table, final List<FieldMatchValue> key, final int actionId, final long... params) {
        final List<BigInteger> values =
                java.util.Arrays.stream(params).mapToObj(BigInteger::valueOf).toList();
        return new WriteOp(
                UpdateKind.INSERT,
                new P4Entity.TableEntry(
                        new EntryKey(table, key, 0),
                        new EntryAction.Direct(new ActionCall(actionId, values)),
                        false,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    private static FieldMatchValue exact(final int id, final long v) {
        return FieldMatchValue.exact(id, BigInteger.valueOf(v));
    }

    private static List<String> throughP4Runtime(final List<Route> routes) {
        try (Pipeline p = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of())) {
            SwitchConfig.of(p.control()).applyConfig(ConfigDb.parse("{" + PORTS + "}"));
            p.agent().doWork();
            final PipelineTableBackend backend = new PipelineTableBackend(p.control(), FixedPipelineInfo.model());
            final List<WriteOp> ops = new ArrayList<>();
            ops.add(op(0x02000005, List.of(exact(1, 1)), 0x01000007, 0, ROUTER_MAC));
            for (int h = 0; h < HOPS; h++) {
                ops.add(op(0x02000006, List.of(exact(1, 1), exact(2, hopIp(h))), 0x01000008, hopMac(h)));
                ops.add(op(0x02000007, List.of(exact(1, 10 + h)), 0x01000009, 1, hopIp(h)));
            }
            final Map<Long, Route> byPrefix = new LinkedHashMap<>();
            routes.forEach(r -> byPrefix.put(r.prefix() << 6 | r.length(), r));
            for (final Route r : byPrefix.values()) {
                ops.add(op(
                        0x02000003,
                        List.of(
                                exact(1, 0),
                                new FieldMatchValue(
                                        2,
                                        MatchKind.LPM,
                                        BigInteger.valueOf(r.prefix()),
                                        BigInteger.ZERO,
                                        r.length(),
                                        BigInteger.ZERO)),
                        0x01000005,
                        10 + r.hop()));
            }
            assertThat(backend.write(ops, true))
                    .extracting(UpdateOutcome::status)
                    .containsOnly(UpdateStatus.OK);
            p.agent().doWork();
            return forwarding(p.agent().tables(), routes);
        }
    }

    @Property(tries = 40)
    void shouldForwardAlikeWhenTheSameRoutesComeFromConfigOrP4Runtime(@ForAll("routes") final List<Route> routes) {
        final List<String> config = throughConfig(routes);
        assertThat(config).allSatisfy(line -> assertThat(line).startsWith("port 0 via 10.0.1."));
        assertThat(throughP4Runtime(routes)).isEqualTo(config);
    }
}
