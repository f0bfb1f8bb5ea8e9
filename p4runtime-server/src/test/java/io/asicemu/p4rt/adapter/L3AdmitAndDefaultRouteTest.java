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
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code l3_admit_table} programs the pipeline: extra destination MACs (masked, per port or any) are routed; the
 * default entry of {@code ipv4_table} is what a packet matching no route does.
 */
@Timeout(30)
class L3AdmitAndDefaultRouteTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}}}
        """;
    private static final int L3_ADMIT = 0x02000001;
    private static final int ADMIT_TO_L3 = 0x01000004;
    private static final int IPV4 = 0x02000003;
    private static final int RIF = 0x02000005;
    private static final int NEIGHBOR = 0x02000006;
    private static final int NEXTHOP = 0x02000007;
    private static final long RIF0_MAC = 0x02_00_00_00_aa_00L;
    private static final long ANYCAST_GATEWAY = 0x00_00_5e_00_01_0aL; // VRRP-style virtual MAC

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
    private final InMemoryPort eth0 = new InMemoryPort("Ethernet0");
    private final InMemoryPort eth4 = new InMemoryPort("Ethernet4");
    private final PipelineTableBackend backend;

    L3AdmitAndDefaultRouteTest() {
        pipeline.control().attachPort("Ethernet0", eth0);
        pipeline.control().attachPort("Ethernet4", eth4);
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        backend = new PipelineTableBackend(pipeline.control(), FixedPipelineInfo.model());
        final int e0 = pipeline.control().portIndex("Ethernet0");
        final int e4 = pipeline.control().portIndex("Ethernet4");
        assertThat(statuses(backend.write(
                        List.of(
                                op(UpdateKind.INSERT, RIF, List.of(exact(1, 1)), 0, 0x01000007, e0, RIF0_MAC),
                                op(
                                        UpdateKind.INSERT,
                                        RIF,
                                        List.of(exact(1, 2)),
                                        0,
                                        0x01000007,
                                        e4,
                                        0x02_00_00_00_aa_04L),
                                op(
                                        UpdateKind.INSERT,
                                        NEIGHBOR,
                                        List.of(exact(1, 2), exact(2, 0x0A000202L)),
                                        0,
                                        0x01000008,
                                        0x02_00_00_00_02_02L),
                                op(UpdateKind.INSERT, NEXTHOP, List.of(exact(1, 10)), 0, 0x01000009, 2, 0x0A000202L),
                                op(
                                        UpdateKind.INSERT,
                                        IPV4,
                                        List.of(
                                                exact(1, 0),
                                                new FieldMatchValue(
                                                        2,
                                                        MatchKind.LPM,
                                                        BigInteger.valueOf(0xC0A80000L),
                                                        BigInteger.ZERO,
                                                        16,
                                                        BigInteger.ZERO)),
                                        0,
                                        0x01000005,
                                        10)),
                        true)))
                .containsOnly(UpdateStatus.OK);
    }

    @AfterEach
    void close() {
        pipeline.close();
        eth0.close();
        eth4.close();
    }

    private static FieldMatchValue exact(final int id, final long value) {
        return FieldMatchValue.exact(id, BigInteger.valueOf(value));
    }

    private static WriteOp op(
            final UpdateKind kind,
            final int table,
            final List<FieldMatchValue> key,
            final int priority,
            final int actionId,
            final long... params) {
        final List<BigInteger> values = new ArrayList<>();
        for (final long p : params) {
            values.add(BigInteger.valueOf(p));
        }
        return new WriteOp(
                kind,
                new P4Entity.TableEntry(
                        new EntryKey(table, key, priority),
                        new EntryAction.Direct(new ActionCall(actionId, values)),
                        false,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    /** An admit entry: dst_mac ternary, and in_port (optional) when {@code port} >= 0. */
    private static WriteOp admit(
            final UpdateKind kind, final long mac, final long mask, final int port, final int priority) {
        final List<FieldMatchValue> key = new ArrayList<>();
        key.add(new FieldMatchValue(
                1, MatchKind.TERNARY, BigInteger.valueOf(mac), BigInteger.valueOf(mask), 0, BigInteger.ZERO));
        if (port >= 0) {
            key.add(new FieldMatchValue(
                    2, MatchKind.OPTIONAL, BigInteger.valueOf(port), BigInteger.ZERO, 0, BigInteger.ZERO));
        }
        return op(kind, L3_ADMIT, key, priority, ADMIT_TO_L3);
    }

    private static List<UpdateStatus> statuses(final List<UpdateOutcome> outcomes) {
        return outcomes.stream().map(UpdateOutcome::status).toList();
    }

    /** Sends one UDP frame to 192.168.1.1 with the given destination MAC into Ethernet0; true if it was routed. */
    private boolean routed(final long dstMac) {
        return routed(dstMac, 0xC0A80101);
    }

    /** Sends one UDP frame to an address, to the interface's MAC, into Ethernet0; true if it left Ethernet4. */
    private boolean routed(final long dstMac, final int dstIp) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(256);
            final int length = new FrameBuilder()
                    .reset()
                    .macs(dstMac, 0x02_00_00_00_01_02L)
                    .ipv4(0x0A000102, dstIp)
                    .ttl(64)
                    .udpPorts(1000, 2000)
                    .buildUdp(s, 0, 32);
            assertThat(eth0.inject(s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), clock.nowNs()))
                    .isTrue();
        }
        for (int i = 0; i < 100; i++) {
            pipeline.agent().doWork();
            clock.advanceNs(10_000);
        }
        final int sent = eth4.transmittedCount();
        eth4.clearTransmitted();
        return sent == 1;
    }

    @Test
    void shouldRouteFramesToAdmittedMacsOnlyOnTheirPortsAndStopWhenTheEntryIsDeleted() {
        assertThat(routed(RIF0_MAC)).as("the interface's own MAC").isTrue();
        assertThat(routed(ANYCAST_GATEWAY)).as("not admitted yet").isFalse();
        final int e0 = pipeline.control().portIndex("Ethernet0");
        final int e4 = pipeline.control().portIndex("Ethernet4");
        assertThat(statuses(backend.write(
                        List.of(admit(UpdateKind.INSERT, ANYCAST_GATEWAY, 0xffff_ffff_ffffL, e4, 10)), true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(routed(ANYCAST_GATEWAY)).as("admitted on Ethernet4 only").isFalse();
        assertThat(statuses(backend.write(
                        List.of(admit(UpdateKind.INSERT, 0x00_00_5e_00_01_00L, 0xffff_ffff_ff00L, e0, 20)), true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(routed(ANYCAST_GATEWAY)).as("00:00:5e:00:01:xx on Ethernet0").isTrue();
        assertThat(routed(0x00_00_5e_00_02_0aL)).as("outside the mask").isFalse();
        assertThat(statuses(backend.write(
                        List.of(admit(UpdateKind.DELETE, 0x00_00_5e_00_01_00L, 0xffff_ffff_ff00L, e0, 20)), true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(routed(ANYCAST_GATEWAY)).as("deleted").isFalse();
        assertThat(routed(RIF0_MAC)).isTrue();
    }

    @Test
    void shouldRefuseAnAdmitEntryForAnUnknownPortAndChangeNothing() {
        assertThat(statuses(backend.write(
                        List.of(
                                admit(UpdateKind.INSERT, ANYCAST_GATEWAY, 0xffff_ffff_ffffL, -1, 10),
                                admit(UpdateKind.INSERT, 0x00_00_5e_00_01_0bL, 0xffff_ffff_ffffL, 77, 10)),
                        true)))
                .containsExactly(UpdateStatus.ABORTED, UpdateStatus.INVALID_ARGUMENT);
        assertThat(routed(ANYCAST_GATEWAY))
                .as("the good entry of the refused batch is not in force")
                .isFalse();
        assertThat(statuses(backend.write(
                        List.of(admit(UpdateKind.INSERT, ANYCAST_GATEWAY, 0xffff_ffff_ffffL, -1, 10)), true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(routed(ANYCAST_GATEWAY)).as("any port").isTrue();
    }

    private static WriteOp defaultRoute(final int actionId, final long... params) {
        final List<BigInteger> values = new ArrayList<>();
        for (final long p : params) {
            values.add(BigInteger.valueOf(p));
        }
        return new WriteOp(
                UpdateKind.MODIFY,
                new P4Entity.TableEntry(
                        new EntryKey(IPV4, List.of(), 0),
                        new EntryAction.Direct(new ActionCall(actionId, values)),
                        true,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    @Test
    void shouldForwardPacketsMatchingNoRouteByTheDefaultEntryAndProtectItsNextHop() {
        assertThat(routed(RIF0_MAC, 0x08080808)).as("no route, default drop").isFalse();
        assertThat(statuses(backend.write(List.of(defaultRoute(0x01000005, 99)), true)))
                .as("unknown next hop")
                .containsExactly(UpdateStatus.NOT_FOUND);
        assertThat(statuses(backend.write(List.of(defaultRoute(0x01000005, 10)), true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(routed(RIF0_MAC, 0x08080808))
                .as("default route to next hop 10")
                .isTrue();
        assertThat(routed(RIF0_MAC, 0xC0A80101)).as("the /16 still routes").isTrue();
        assertThat(statuses(backend.write(
                        List.of(op(UpdateKind.DELETE, NEXTHOP, List.of(exact(1, 10)), 0, 0x01000009, 2, 0x0A000202L)),
                        true)))
                .as("still used by the /16 and the default")
                .containsExactly(UpdateStatus.FAILED_PRECONDITION);
        assertThat(statuses(backend.write(
                        List.of(op(
                                UpdateKind.DELETE,
                                IPV4,
                                List.of(
                                        exact(1, 0),
                                        new FieldMatchValue(
                                                2,
                                                MatchKind.LPM,
                                                BigInteger.valueOf(0xC0A80000L),
                                                BigInteger.ZERO,
                                                16,
                                                BigInteger.ZERO)),
                                0,
                                0x01000005,
                                10)),
                        true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(statuses(backend.write(
                        List.of(op(UpdateKind.DELETE, NEXTHOP, List.of(exact(1, 10)), 0, 0x01000009, 2, 0x0A000202L)),
                        true)))
                .as("the default entry still uses it")
                .containsExactly(UpdateStatus.FAILED_PRECONDITION);
        assertThat(routed(RIF0_MAC, 0xC0A80101))
                .as("192.168.1.1 now takes the default")
                .isTrue();
        assertThat(statuses(backend.write(List.of(defaultRoute(0x01000002)), true)))
                .containsExactly(UpdateStatus.OK);
        assertThat(routed(RIF0_MAC, 0x08080808)).as("default drop again").isFalse();
        assertThat(pipeline.control().counters().port("Ethernet0", "SAI_IN_DROP_REASON_LPM4_MISS"))
                .isEqualTo(2);
    }
}
