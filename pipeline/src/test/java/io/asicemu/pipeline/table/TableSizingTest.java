package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigCompiler;
import io.asicemu.pipeline.config.ConfigDb;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Table memory follows the configured sizes (bytes of the arrays the tables really hold), not a fixed reservation. */
class TableSizingTest {
    private static final String CONFIG = "{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:aa:bb:cc:dd:ee\"}}}";
    /** A route slot: its target (int) and its packet and byte counters (longs). */
    private static final long ROUTE_SLOT_BYTES = 4 + 8 + 8;
    /** A neighbor hash slot: address (2 longs), family, used, MAC, interface, static, hit packets and bytes. */
    private static final long NEIGHBOR_SLOT_BYTES = 8 + 8 + 1 + 1 + 8 + 4 + 1 + 8 + 8;

    private static long reserved(final PipelineSizing sizing) {
        return ConfigCompiler.compile(ConfigDb.parse(CONFIG), sizing, Map.of())
                .setup()
                .tables()
                .reservedBytes();
    }

    @Test
    void shouldReserveRouteMemoryInProportionToMaxRoutesWhenRoutesAreResized() {
        final PipelineSizing d = PipelineSizing.defaults();
        final long base = reserved(d);
        final long million = reserved(
                d.withTables(1 << 20, d.maxNextHops(), d.maxGroups(), d.neighbors(), d.fdbEntries(), d.aclRules()));
        final long small = reserved(
                d.withTables(1024, d.maxNextHops(), d.maxGroups(), d.neighbors(), d.fdbEntries(), d.aclRules()));
        assertThat(million - base).isEqualTo(ROUTE_SLOT_BYTES * ((1 << 20) - d.maxRoutes()));
        assertThat(base - small).isEqualTo(ROUTE_SLOT_BYTES * (d.maxRoutes() - 1024));
    }

    @Test
    void shouldReserveNeighborSlotsInProportionToNeighborsWhenNeighborsAreResized() {
        final PipelineSizing d = PipelineSizing.defaults();
        final long doubled = reserved(d.withTables(
                d.maxRoutes(), d.maxNextHops(), d.maxGroups(), 2 * d.neighbors(), d.fdbEntries(), d.aclRules()));
        // open addressing at load <= 1/2: 16k neighbors take 32k slots, 32k take 64k
        assertThat(doubled - reserved(d)).isEqualTo(NEIGHBOR_SLOT_BYTES * 2 * d.neighbors());
    }

    @Test
    void shouldKeepTheDefaultTablesUnderEightMebibytesWhenNothingIsWritten() {
        assertThat(PipelineSizing.defaults().maxRoutes()).isEqualTo(131_072 + 17_000);
        assertThat(reserved(PipelineSizing.defaults())).isLessThan(8L << 20);
    }
}
