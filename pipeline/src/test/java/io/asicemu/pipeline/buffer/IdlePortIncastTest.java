package io.asicemu.pipeline.buffer;

import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.CompiledConfig;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.config.SonicDefaults;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 13's incast: SONiC's Tomahawk buffer configuration (egress_lossy_pool 9,243,812 B, egress_lossy_profile
 * dynamic_th 3; reference §1.3), one 10G port saturated by 12 Gb/s of 1 KB lossy frames (two senders at 6 Gb/s,
 * DSCP 8 → TC 0 → queue 0), RoCE flowlets (DSCP 3 → lossless TC 3, bursts of 8 frames every 100 µs) out of a second,
 * nearly idle 10G port; 60 ms of virtual time. The model lets the congested queue hold alpha / (1 + alpha) = 8/9 of
 * the free pool and always leaves the other port room, so: the idle port loses nothing, the congested one loses frames
 * as BUFFER_FULL only after its queue passed the old store's 4,193,280 B limit and reached 8/9 of the pool, and no
 * internal resource runs out. The same holds with no BUFFER_* table at all (the documented default buffer).
 */
@Timeout(120)
class IdlePortIncastTest {
    private static final List<String> PORTS =
            List.of("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16");
    private static final int FRAME = 1024;
    private static final long POOL = 9_243_812;
    private static final long RUN_NS = 60_000_000;

    private static ConfigDb config(final boolean bufferTables) {
        final Map<String, Map<String, Map<String, String>>> db =
                new LinkedHashMap<>(SonicDefaults.genericLossless(PORTS, 10_000, 40));
        if (!bufferTables) {
            SonicDefaults.BUFFER_TABLES.forEach(db::remove);
        }
        db.put("DEVICE_METADATA", Map.of("localhost", Map.of("mac", "02:aa:bb:cc:dd:ee")));
        db.put("DSCP_TO_TC_MAP", Map.of("AZURE", Map.of("3", "3", "4", "4", "8", "0")));
        final Map<String, Map<String, String>> qos = new LinkedHashMap<>(db.get("PORT_QOS_MAP"));
        qos.replaceAll((port, fields) -> {
            final Map<String, String> f = new LinkedHashMap<>(fields);
            f.put("dscp_to_tc_map", "AZURE");
            return f;
        });
        db.put("PORT_QOS_MAP", qos);
        final Map<String, Map<String, String>> ports = new LinkedHashMap<>();
        final Map<String, Map<String, String>> interfaces = new LinkedHashMap<>();
        final Map<String, Map<String, String>> neighbors = new LinkedHashMap<>();
        final Map<String, Map<String, String>> routes = new LinkedHashMap<>();
        for (int i = 0; i < PORTS.size(); i++) {
            final String p = PORTS.get(i);
            ports.put(p, Map.of("speed", "10000", "mtu", "9100", "admin_status", "up"));
            interfaces.put(p, Map.of());
            interfaces.put(p + "|10.0." + i + ".1/24", Map.of());
            neighbors.put(p + "|10.0." + i + ".2", Map.of("neigh", "02:00:00:00:0" + i + ":02"));
            routes.put("192.168." + i + ".0/24", Map.of("nexthop", "10.0." + i + ".2"));
        }
        db.put("PORT", ports);
        db.put("INTERFACE", interfaces);
        db.put("NEIGH", neighbors);
        db.put("STATIC_ROUTE", routes);
        return new ConfigDb(db);
    }

    @ParameterizedTest(name = "Tomahawk BUFFER_* tables: {0}")
    @ValueSource(booleans = {true, false})
    void shouldLoseNothingOnTheIdlePortWhenAnotherPortIsCongested(final boolean bufferTables) throws Exception {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final long start = clock.nowNs();
        final Map<String, InMemoryPort> ports = new LinkedHashMap<>();
        final Map<String, Long> sent = new LinkedHashMap<>();
        try (Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of())) {
            for (final String p : PORTS) {
                ports.put(p, new InMemoryPort(p));
                pipeline.control().attachPort(p, ports.get(p));
                sent.put(p, 0L);
            }
            final CompiledConfig compiled = SwitchConfig.of(pipeline.control()).applyConfig(config(bufferTables));
            pipeline.agent().doWork();
            final byte[] lossy = Frames.udp4(
                    Frames.builder()
                            .macs(ROUTER, 0x0200_0000_0002L)
                            .ipv4(ip(10, 0, 0, 2), ip(192, 168, 2, 7))
                            .dscp(8),
                    FRAME - 42);
            final byte[] roce = Frames.roce4(
                    Frames.builder()
                            .macs(ROUTER, 0x0200_0000_0402L)
                            .ipv4(ip(10, 0, 4, 2), ip(192, 168, 3, 9))
                            .dscp(3)
                            .udpPorts(49_152, 4791)
                            .bth(4, 0x11, 0),
                    FRAME - 58);
            assertThat(lossy).hasSize(FRAME);
            long delivered = 0;
            long roceSent = 0;
            long nextLossy = start;
            long nextRoce = start + 5_000;
            int lossyCount = 0;
            int roceInBurst = 0;
            while (Math.min(nextLossy, nextRoce) - start < RUN_NS) {
                final boolean isLossy = nextLossy <= nextRoce;
                clock.nowNs(isLossy ? nextLossy : nextRoce);
                if (isLossy) {
                    assertThat(ports.get((lossyCount & 1) == 0 ? "Ethernet0" : "Ethernet4")
                                    .inject(lossy, clock.nowNs()))
                            .isTrue();
                    lossyCount++;
                    nextLossy = start + lossyCount * 2_048L / 3; // 1024 B every 682.7 ns: 12 Gb/s
                } else {
                    assertThat(ports.get("Ethernet16").inject(roce, clock.nowNs()))
                            .isTrue();
                    roceSent++;
                    roceInBurst = (roceInBurst + 1) % 8;
                    nextRoce += roceInBurst == 0 ? 100_000 - 7 * 843 : 843; // bursts of 8 at line rate per 100 µs
                }
                pipeline.agent().doWork();
                delivered += take(ports.get("Ethernet12"));
                take(ports.get("Ethernet8"));
            }
            for (int i = 0; i < 100_000 && pipeline.agent().hasQueuedPackets(); i++) {
                clock.nowNs(Math.max(clock.nowNs(), pipeline.agent().nextDeadlineNs()));
                pipeline.agent().doWork();
                delivered += take(ports.get("Ethernet12"));
                take(ports.get("Ethernet8"));
            }

            final CountersSnapshot counters = pipeline.control().counters();
            final var tmFuture = pipeline.control().trafficManagerCounters();
            pipeline.agent().doWork();
            final TmCountersSnapshot tm = tmFuture.get();
            final int congested = compiled.setup().portIndex().get("Ethernet8");
            final long watermark = tm.queue(congested, 0, QueueStat.SHARED_WATERMARK_BYTES);
            System.out.printf(
                    "buffer tables %s: congested queue watermark %d B (%.4f of the pool), %d lossy drops;"
                            + " idle port delivered %d of %d RoCE frames, %d drops; store %d B%n",
                    bufferTables,
                    watermark,
                    (double) watermark / POOL,
                    counters.port("Ethernet8", "ASICEMU_OUT_DROP_REASON_BUFFER_FULL"),
                    delivered,
                    roceSent,
                    counters.port("Ethernet12", "SAI_PORT_STAT_IF_OUT_DISCARDS"),
                    storeBytes(pipeline));

            assertThat(delivered).as("every RoCE frame leaves the idle port").isEqualTo(roceSent);
            assertThat(counters.port("Ethernet12", "SAI_PORT_STAT_IF_OUT_DISCARDS"))
                    .isZero();
            assertThat(counters.port("Ethernet12", "ASICEMU_OUT_DROP_REASON_BUFFER_FULL"))
                    .isZero();
            assertThat(counters.port("Ethernet8", "ASICEMU_OUT_DROP_REASON_BUFFER_FULL"))
                    .as("the model, not the store, drops on the congested port")
                    .isPositive()
                    .isEqualTo(tm.queue(congested, 0, QueueStat.DROPPED_PACKETS));
            for (final String p : PORTS) {
                assertThat(counters.port(p, "ASICEMU_OUT_DROP_REASON_PACKET_STORE_EXHAUSTED"))
                        .isZero();
                assertThat(counters.port(p, "ASICEMU_OUT_DROP_REASON_TM_DESCRIPTORS_EXHAUSTED"))
                        .isZero();
            }
            // 1024 B in 208 B cells is 1040 B; alpha = 8: the last admitted frame fit, the first refused did not.
            assertThat((double) watermark)
                    .isGreaterThan(4_193_280.0)
                    .isGreaterThan((8.0 * POOL - 1040) / 9)
                    .isLessThanOrEqualTo(8.0 * (POOL + 1040) / 9);
        } finally {
            ports.values().forEach(InMemoryPort::close);
        }
    }

    private static long storeBytes(final Pipeline pipeline) throws Exception {
        final java.util.concurrent.CompletableFuture<Long> bytes = new java.util.concurrent.CompletableFuture<>();
        pipeline.control().submit(a -> bytes.complete(a.packetBuffer().reservedBytes()));
        pipeline.agent().doWork();
        return bytes.get();
    }

    private static long take(final InMemoryPort port) {
        final long n = port.transmittedCount();
        port.clearTransmitted();
        return n;
    }
}
