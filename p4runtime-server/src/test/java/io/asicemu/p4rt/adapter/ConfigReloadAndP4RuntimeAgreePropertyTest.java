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
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.NeighborTable;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteTarget;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.TrafficManager;
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
 * One random sequence of changes — routes inserted, re-pointed and deleted, one colour's WRED/ECN thresholds and
 * Pmax changed, the ECMP hash seed changed — applied two ways: (1) by editing config_db.json (STATIC_ROUTE,
 * WRED_PROFILE, SWITCH_HASH) and reloading it whole after every change, (2) by P4Runtime writes (ipv4_table entries,
 * the tm.ecn_* registers of each colour, ars.hash_seed)
 * through the production backend on a switch loaded once. After every change both switches must have the same data
 * path — every route resolves to the same port, next hop and MAC; the traffic manager decides with the same Kmin,
 * Kmax, Pmax, enable and ECN bits for every colour of the queue; the hash engine has the same seed — and answer the
 * same P4Runtime Read of the nine ECN registers and the hash seed, which is what the test's own model says (config
 * objects are not P4Runtime entries, so routes are compared on the data path only; see the module README).
 */
class ConfigReloadAndP4RuntimeAgreePropertyTest {
    private static final String PORTS = "\"PORT\": {\"Ethernet0\": {\"speed\": \"10000\", \"admin_status\": \"up\"},"
            + " \"Ethernet4\": {\"speed\": \"10000\", \"admin_status\": \"up\"}}";
    private static final int HOPS = 3;
    private static final long ROUTER_MAC = 0x0200_0000_0001L;
    private static final String[] COLOURS = {"green", "yellow", "red"};
    /** tm.ecn_{,yellow_,red_}{min_threshold_bytes,max_threshold_bytes,max_probability_percent}, by colour. */
    private static final int[][] ECN_REGISTERS = {
        {0x16000001, 0x16000002, 0x16000003}, {0x1600000b, 0x1600000c, 0x1600000d}, {0x1600000e, 0x1600000f, 0x16000010}
    };
    /** ars.hash_seed. */
    private static final int HASH_SEED_REGISTER = 0x16000009;
    /** Ethernet0 (port 0), queue 0: where the routed frames of a default-mapped class go. */
    private static final int QUEUE_INDEX = 0;

    private static final long[] PREFIXES = {0x1401_0000L, 0x1402_0000L, 0x1402_8000L, 0x1500_0000L, 0x1400_0000L};
    private static final int[] LENGTHS = {16, 16, 17, 8, 8};

    /** What a change changes. */
    enum Kind {
        ROUTE,
        WRED,
        HASH_SEED
    }

    /**
     * A change: a route (slot into PREFIXES) set to a hop or deleted (hop -1), one colour's WRED values, or the ECMP
     * hash seed.
     */
    record Change(Kind kind, int route, int hop, int colour, long min, long max, int probability, long seed) {}

    @Provide
    Arbitrary<List<Change>> changes() {
        final Arbitrary<Change> route = Combinators.combine(
                        Arbitraries.integers().between(0, PREFIXES.length - 1),
                        Arbitraries.integers().between(-1, HOPS - 1))
                .as((r, h) -> new Change(Kind.ROUTE, r, h, -1, 0, 0, 0, 0));
        final Arbitrary<Change> wred = Combinators.combine(
                        Arbitraries.integers().between(0, 2),
                        Arbitraries.longs().between(0, 20_000),
                        Arbitraries.longs().between(1, 20_000),
                        Arbitraries.integers().between(0, 100))
                .as((c, min, extra, p) -> new Change(Kind.WRED, -1, 0, c, min, min + extra, p, 0));
        final Arbitrary<Change> seed =
                Arbitraries.longs().between(0, 1_000_000).map(v -> new Change(Kind.HASH_SEED, -1, 0, -1, 0, 0, 0, v));
        return Arbitraries.oneOf(route, wred, seed).list().ofMinSize(1).ofMaxSize(10);
    }

    /** What both ways should have made, kept by the test. */
    private static final class Model {
        final Map<Integer, Integer> routes = new LinkedHashMap<>();
        final long[][] wred = {{8_000, 30_000, 20}, {6_000, 20_000, 50}, {2_000, 10_000, 100}};
        long hashSeed = 7;
    }

    private static String ip(final long v) {
        return (v >>> 24 & 0xff) + "." + (v >>> 16 & 0xff) + "." + (v >>> 8 & 0xff) + "." + (v & 0xff);
    }

    private static String mac(final long v) {
        final StringJoiner j = new StringJoiner(":");
        for (int shift = 40; shift >= 0; shift -= 8) {
            j.add(String.format("%02x", v >>> shift & 0xff));
        }
        return j.toString();
    }

    private static long hopIp(final int hop) {
        return 0x0A00_0102L + hop;
    }

    private static long hopMac(final int hop) {
        return 0x0200_0000_0A00L + hop;
    }

    private static String wredTables(final long[][] wred) {
        final StringJoiner fields = new StringJoiner(", ");
        fields.add("\"wred_green_enable\": \"true\", \"wred_yellow_enable\": \"true\", \"wred_red_enable\": \"true\","
                + " \"ecn\": \"ecn_all\"");
        for (int c = 0; c < 3; c++) {
            fields.add("\"" + COLOURS[c] + "_min_threshold\": \"" + wred[c][0] + "\"");
            fields.add("\"" + COLOURS[c] + "_max_threshold\": \"" + wred[c][1] + "\"");
            fields.add("\"" + COLOURS[c] + "_drop_probability\": \"" + wred[c][2] + "\"");
        }
        return "\"WRED_PROFILE\": {\"W\": {" + fields + "}}, \"QUEUE\": {\"Ethernet0|0\": {\"wred_profile\": \"W\"}}";
    }

    private static String switchHash(final long seed) {
        return "\"SWITCH_HASH\": {\"GLOBAL\": {\"ecmp_hash_seed\": \"" + seed + "\"}}";
    }

    private static String configJson(final Model m) {
        final StringJoiner neigh = new StringJoiner(", ");
        for (int h = 0; h < HOPS; h++) {
            neigh.add("\"Ethernet0|" + ip(hopIp(h)) + "\": {\"neigh\": \"" + mac(hopMac(h)) + "\"}");
        }
        final StringJoiner statics = new StringJoiner(", ");
        m.routes.forEach((r, hop) -> statics.add(
                "\"" + ip(PREFIXES[r]) + "/" + LENGTHS[r] + "\": {\"nexthop\": \"" + ip(hopIp(hop)) + "\"}"));
        return "{" + PORTS + ", " + wredTables(m.wred) + ", " + switchHash(m.hashSeed)
                + ", \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.1.1/24\": {}}, \"NEIGH\": {" + neigh + "},"
                + " \"STATIC_ROUTE\": {" + statics + "}}";
    }

    private static List<FieldMatchValue> routeKey(final int r) {
        return List.of(exact(1, 0), TableWrites.lpm(2, PREFIXES[r], LENGTHS[r]));
    }

    private static WriteOp register(final int id, final long value) {
        return new WriteOp(UpdateKind.MODIFY, new P4Entity.RegisterCell(id, QUEUE_INDEX, BigInteger.valueOf(value)));
    }

    /** The P4Runtime writes of one change, given the model before it. */
    private static List<WriteOp> writes(final Change c, final Model before) {
        if (c.kind() == Kind.HASH_SEED) {
            return List.of(new WriteOp(
                    UpdateKind.MODIFY, new P4Entity.RegisterCell(HASH_SEED_REGISTER, 0, BigInteger.valueOf(c.seed()))));
        }
        if (c.kind() == Kind.ROUTE) {
            final boolean present = before.routes.containsKey(c.route());
            if (c.hop() < 0) {
                return present ? List.of(entry(UpdateKind.DELETE, 0x02000003, routeKey(c.route()), 0)) : List.of();
            }
            return List.of(entry(
                    present ? UpdateKind.MODIFY : UpdateKind.INSERT,
                    0x02000003,
                    routeKey(c.route()),
                    0x01000005,
                    10 + c.hop()));
        }
        final int[] ids = ECN_REGISTERS[c.colour()];
        // Kmin <= Kmax holds after every single write: raise Kmax first unless the new Kmax is below the old Kmin.
        final List<WriteOp> ops = new ArrayList<>();
        if (c.max() >= before.wred[c.colour()][0]) {
            ops.add(register(ids[1], c.max()));
            ops.add(register(ids[0], c.min()));
        } else {
            ops.add(register(ids[0], c.min()));
            ops.add(register(ids[1], c.max()));
        }
        ops.add(register(ids[2], c.probability()));
        return ops;
    }

    private static void apply(final Change c, final Model m) {
        if (c.kind() == Kind.HASH_SEED) {
            m.hashSeed = c.seed();
            return;
        }
        if (c.kind() == Kind.ROUTE) {
            if (c.hop() < 0) {
                m.routes.remove(c.route());
            } else {
                m.routes.put(c.route(), c.hop());
            }
            return;
        }
        m.wred[c.colour()] = new long[] {c.min(), c.max(), c.probability()};
    }

    /** Every route of the pool as the data plane resolves it: egress port, next hop and MAC, or the miss kind. */
    private static List<String> forwarding(final ForwardingTables t) {
        final List<String> out = new ArrayList<>();
        for (int r = 0; r < PREFIXES.length; r++) {
            final int target = t.routeTargetFor(false, 0, PREFIXES[r] | 1);
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

    /** The WRED/ECN settings the data path's traffic manager decides with, per colour, on Ethernet0 queue 0. */
    private static List<String> wredInForce(final TrafficManager tm) {
        final List<String> out = new ArrayList<>();
        final long[] settings = new long[5];
        for (int colour = 0; colour < 3; colour++) {
            tm.wredSettings(0, QUEUE_INDEX, colour, settings);
            out.add(COLOURS[colour] + " " + java.util.Arrays.toString(settings));
        }
        return out;
    }

    private static List<String> ecnRead(final PipelineTableBackend backend) {
        final List<String> out = new ArrayList<>();
        for (final int[] colour : ECN_REGISTERS) {
            for (final int id : colour) {
                for (final P4Entity e : backend.read(new ReadFilter.Registers(id, QUEUE_INDEX))) {
                    final P4Entity.RegisterCell cell = (P4Entity.RegisterCell) e;
                    out.add(Integer.toHexString(cell.registerId()) + "[" + cell.index() + "] = " + cell.value());
                }
            }
        }
        for (final P4Entity e : backend.read(new ReadFilter.Registers(HASH_SEED_REGISTER, 0))) {
            out.add("hash_seed = " + ((P4Entity.RegisterCell) e).value());
        }
        return out;
    }

    private static PipelineTableBackend backend(final Pipeline p) {
        return new PipelineTableBackend(p.control(), FixedPipelineInfo.model());
    }

    @Property(tries = 30)
    void shouldGiveTheSameDataPathAndReadWhenChangesComeFromConfigReloadsOrP4Runtime(
            @ForAll("changes") final List<Change> changes) {
        final Model model = new Model();
        try (Pipeline viaConfig = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of());
                Pipeline viaP4 = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of())) {
            SwitchConfig.of(viaP4.control())
                    .applyConfig(ConfigDb.parse(
                            "{" + PORTS + ", " + wredTables(model.wred) + ", " + switchHash(model.hashSeed) + "}"));
            final PipelineTableBackend p4 = backend(viaP4);
            final List<WriteOp> setup = new ArrayList<>();
            setup.add(entry(UpdateKind.INSERT, 0x02000005, List.of(exact(1, 1)), 0x01000007, 0, ROUTER_MAC));
            for (int h = 0; h < HOPS; h++) {
                setup.add(entry(
                        UpdateKind.INSERT,
                        0x02000006,
                        List.of(exact(1, 1), exact(2, hopIp(h))),
                        0x01000008,
                        hopMac(h)));
                setup.add(entry(UpdateKind.INSERT, 0x02000007, List.of(exact(1, 10 + h)), 0x01000009, 1, hopIp(h)));
            }
            assertThat(p4.write(setup, true)).extracting(UpdateOutcome::status).containsOnly(UpdateStatus.OK);
            viaP4.agent().doWork();

            for (final Change change : changes) {
                final List<WriteOp> ops = writes(change, model);
                apply(change, model);
                SwitchConfig.of(viaConfig.control()).applyConfig(ConfigDb.parse(configJson(model)));
                viaConfig.agent().doWork();
                if (!ops.isEmpty()) {
                    assertThat(p4.write(ops, true))
                            .as(change.toString())
                            .extracting(UpdateOutcome::status)
                            .containsOnly(UpdateStatus.OK);
                }
                viaP4.agent().doWork();
                assertThat(forwarding(viaP4.agent().tables()))
                        .as("routes after " + change)
                        .isEqualTo(forwarding(viaConfig.agent().tables()));
                final List<String> expected = new ArrayList<>();
                for (int colour = 0; colour < 3; colour++) {
                    expected.add(COLOURS[colour] + " [" + model.wred[colour][0] + ", " + model.wred[colour][1] + ", "
                            + model.wred[colour][2] + ", 1, 1]");
                }
                assertThat(wredInForce(viaConfig.agent().trafficManager()))
                        .as("reloaded TM after " + change)
                        .isEqualTo(expected);
                assertThat(wredInForce(viaP4.agent().trafficManager()))
                        .as("the TM's WRED after " + change)
                        .isEqualTo(expected);
                final List<String> read = ecnRead(backend(viaConfig));
                assertThat(ecnRead(p4))
                        .as("Read after " + change)
                        .isEqualTo(read)
                        .hasSize(10)
                        .endsWith("hash_seed = " + model.hashSeed);
                assertThat(viaP4.agent().tables().hashEngine().seed())
                        .as("the data path's hash seed after " + change)
                        .isEqualTo(viaConfig.agent().tables().hashEngine().seed())
                        .isEqualTo((int) model.hashSeed);
                for (int colour = 0; colour < 3; colour++) {
                    assertThat(read.get(3 * colour + 2))
                            .as("the Read follows the model")
                            .endsWith("= " + model.wred[colour][2]);
                }
            }
        }
    }
}
