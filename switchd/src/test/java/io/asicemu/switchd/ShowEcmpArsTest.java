package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.operator.CountersBaseline;
import io.asicemu.operator.CountersReader;
import io.asicemu.operator.ShowViews;
import io.asicemu.operator.SonicDatabases;
import io.asicemu.operator.SwitchSnapshot;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code show ecmp} / {@code show ars} over the data path's own counters: frames of many flows through a
 * flowlet_quality group of four uplinks (real pipeline, in-memory ports, manual clock); the group counters the
 * snapshot copies (as {@code run} copies them on the data-plane thread) give each member exactly the frames its port
 * sent, and the views print them.
 */
class ShowEcmpArsTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"},
                  "Ethernet12": {"speed": "100000", "admin_status": "up"},
                  "Ethernet16": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}, "Ethernet12": {}, "Ethernet12|10.0.4.1/24": {},
                       "Ethernet16": {}, "Ethernet16|10.0.5.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"},
                   "Ethernet12|10.0.4.2": {"neigh": "02:00:00:00:04:02"},
                   "Ethernet16|10.0.5.2": {"neigh": "02:00:00:00:05:02"}},
         "STATIC_ROUTE": {"172.16.0.0/12": {"nexthop": "10.0.2.2,10.0.3.2,10.0.4.2,10.0.5.2",
                                            "ifname": "Ethernet4,Ethernet8,Ethernet12,Ethernet16"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_lb_mode": "flowlet_quality"}}}
        """;
    private static final List<String> UPLINKS = List.of("Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16");
    private static final int FLOWS = 64;
    private static final int ROUNDS = 5;

    @Test
    void shouldShowEachMembersSpreadAndTheFlowletTable() throws Exception {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
        final Map<String, InMemoryPort> ports = new LinkedHashMap<>();
        final ConfigDb db = ConfigDb.parse(CONFIG);
        for (final String name : db.table("PORT").keySet()) {
            final InMemoryPort port = new InMemoryPort(name);
            ports.put(name, port);
            pipeline.control().attachPort(name, port);
        }
        SwitchConfig.of(pipeline.control()).applyConfig(db);
        pipeline.agent().doWork();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(2048);
            for (int round = 0; round < ROUNDS; round++) {
                for (int flow = 0; flow < FLOWS; flow++) {
                    final int length = new FrameBuilder()
                            .reset()
                            .macs(0x02aabbccddeeL, 0x020000000102L)
                            .ipv4(0x0A000102, 0xAC100001)
                            .udpPorts(1000 + flow, 4791)
                            .buildUdp(s, 0, 200);
                    assertThat(ports.get("Ethernet0")
                                    .inject(s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), clock.nowNs()))
                            .isTrue();
                }
                for (int i = 0; i < 100_000; i++) {
                    pipeline.agent().doWork();
                    if (ports.get("Ethernet0").pendingRx() == 0
                            && !pipeline.agent().hasQueuedPackets()) {
                        break;
                    }
                    final long next = pipeline.agent().nextDeadlineNs();
                    if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                        clock.nowNs(next);
                    }
                }
                clock.nowNs(clock.nowNs() + 1_000_000); // 1 ms idle: longer than the flowlet age time
            }
        }
        final List<String> names = pipeline.control().portNames();
        final List<SwitchSnapshot.ArsGroup> groups = new ArrayList<>();
        SwitchSnapshots.copyGroups(pipeline.agent().tables(), names, groups);
        assertThat(groups).hasSize(1);
        final SwitchSnapshot.ArsGroup group = groups.get(0);
        assertThat(group.mode()).isEqualTo("flowlet_quality");
        long total = 0;
        for (final SwitchSnapshot.ArsMember m : group.members()) {
            assertThat(m.selections())
                    .as("member on " + m.port() + " = the frames its port sent")
                    .isEqualTo(ports.get(m.port()).transmittedCount());
            assertThat(m.qualityBand()).isBetween(0, 7);
            total += m.selections();
        }
        assertThat(total).isEqualTo((long) FLOWS * ROUNDS);
        assertThat(group.members())
                .extracting(SwitchSnapshot.ArsMember::port)
                .containsExactlyInAnyOrderElementsOf(UPLINKS);
        assertThat(group.newFlowlets())
                .as("every round starts new flowlets after the idle gap")
                .isGreaterThanOrEqualTo(FLOWS);
        assertThat(group.flowletTableOccupancy()).isBetween(1, group.flowletTableCapacity());

        final SwitchSnapshot snapshot =
                new SwitchSnapshot(clock.nowNs(), List.of(), Map.of(), Map.of(), Map.of(), Map.of(), groups);
        final ShowViews views =
                new ShowViews(CountersReader.of(SonicDatabases.of(snapshot, null)), CountersBaseline.none());
        final String ecmp = views.ecmp();
        for (final SwitchSnapshot.ArsMember m : group.members()) {
            assertThat(ecmp.lines()
                            .filter(l -> l.contains(" " + m.port() + " "))
                            .findFirst()
                            .orElseThrow())
                    .contains(String.format(java.util.Locale.US, "%,d", m.selections()))
                    .contains(String.format(java.util.Locale.ROOT, "%.2f%%", 100.0 * m.selections() / total));
        }
        final String ars = views.ars();
        assertThat(ars)
                .contains("flowlet_quality")
                .contains(group.flowletTableOccupancy() + "/" + group.flowletTableCapacity());
    }
}
