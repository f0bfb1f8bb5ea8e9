package io.asicemu.pipeline.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.stage.PacketBuffer;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.TrafficManager;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory follows the configuration: the cell store the pipeline reserves for a configured buffer is that buffer, in
 * 208-byte cells, plus 16 B of bookkeeping per cell and one largest frame, however small or large the buffer (the
 * old store reserved 4,096 × 9,728 B ≈ 40 MB always). The traffic manager's descriptors add 20 B per cell.
 */
@Timeout(60)
class CellStoreSizingTest {
    private static final long OLD_STORE_BYTES = 4_096L * 9_728;

    private static String config(final String buffers) {
        return """
            {"PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}}""" + buffers + "}";
    }

    private static String egressPool(final long bytes) {
        return """
            , "BUFFER_POOL": {"egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "%d"}},
            "BUFFER_PROFILE": {"egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"}},
            "BUFFER_QUEUE": {"Ethernet0|0-7": {"profile": "egress_lossy_profile"},
                             "Ethernet4|0-7": {"profile": "egress_lossy_profile"}}""".formatted(bytes);
    }

    private record Reserved(long storeBytes, long cells, int cellBytes, long descriptorBytes, long bufferBytes) {}

    private static Reserved reserved(final String json) throws Exception {
        try (Pipeline pipeline = Pipeline.create(new ManualClock(0), PipelineSizing.defaults(), Map.of())) {
            SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(json));
            final CompletableFuture<Reserved> result = new CompletableFuture<>();
            pipeline.control().submit(a -> {
                final PacketBuffer store = a.packetBuffer();
                final TrafficManager tm = a.trafficManager();
                result.complete(new Reserved(
                        store.reservedBytes(),
                        store.capacity(),
                        store.cellBytes(),
                        tm.descriptorBytes(),
                        tm.bufferBytes()));
            });
            pipeline.agent().doWork();
            return result.get();
        }
    }

    @Test
    void shouldReserveAboutTheConfiguredPoolPlusBoundedOverheadWhenTheBufferIs9Mb() throws Exception {
        final long pool = 9_000_000;
        final Reserved r = reserved(config(egressPool(pool)));
        System.out.printf(
                "9 MB pool: store %d B (%d cells of %d B), TM descriptors %d B, old store %d B%n",
                r.storeBytes(), r.cells(), r.cellBytes(), r.descriptorBytes(), OLD_STORE_BYTES);
        assertThat(r.cellBytes()).isEqualTo(208);
        assertThat(r.bufferBytes()).isEqualTo(pool / 208 * 208);
        final long oneFrameCells = (9_728 + 207) / 208;
        assertThat(r.cells()).isEqualTo(pool / 208 + oneFrameCells);
        assertThat(r.storeBytes())
                .isEqualTo(r.cells() * (208 + 16) + oneFrameCells * 4)
                .isGreaterThanOrEqualTo(pool)
                .isLessThanOrEqualTo(pool + pool * 16 / 208 + 16 * 1024);
        assertThat(r.storeBytes() + r.descriptorBytes()).isLessThanOrEqualTo(pool + pool * 36 / 208 + 16 * 1024);
    }

    @Test
    void shouldScaleTheStoreWithTheConfiguredBufferWhenPoolsDiffer() throws Exception {
        final Reserved small = reserved(config(egressPool(2_000_000)));
        final Reserved large = reserved(config(egressPool(32_000_000)));
        assertThat(small.storeBytes()).isBetween(2_000_000L, 2_000_000L * 224 / 208 + 16 * 1024);
        assertThat(large.storeBytes()).isBetween(32_000_000L, 32_000_000L * 224 / 208 + 16 * 1024);
    }

    @Test
    void shouldSizeTheStoreFromTheDefaultBufferWhenTheConfigHasNoBufferTables() throws Exception {
        final Reserved r = reserved(config(""));
        System.out.printf("no BUFFER_* tables: device buffer %d B, store %d B%n", r.bufferBytes(), r.storeBytes());
        // Every PG and queue has a default profile, so the rules bound the buffer; the egress side binds first:
        // egress_lossy_pool 9,243,812 B (no pfc_enable here, so every queue is lossy) plus the 16 queues' reserved
        // 1518 B, each in whole 208-byte cells (the ingress side: 10,875,072 B and reserved 0).
        assertThat(r.bufferBytes()).isEqualTo(9_243_812L / 208 * 208 + 16 * (1518 / 208 * 208));
        assertThat(r.storeBytes()).isLessThan(OLD_STORE_BYTES);
    }
}
