package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigCompiler;
import io.asicemu.pipeline.config.ConfigDb;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The neighbor slot cached per next hop ({@link ForwardingTables#nextHopNeighbor}) answers as a fresh
 * {@link NeighborTable#find} after every neighbor or next-hop change: MAC updates, deletes that shift other entries
 * along a probe chain, re-adds into another slot, clears, next hops redefined or removed.
 */
class NextHopNeighborCacheTest {
    private static final String CONFIG = "{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:aa:bb:cc:dd:ee\"}}}";
    private static final int NEXT_HOPS = 8;
    /** Few slots for the addresses used, so probe chains form and deletes move entries. */
    private static final int NEIGHBORS = 12;

    private static final int ADDRESSES = 20;

    private static ForwardingTables tables() {
        final PipelineSizing d = PipelineSizing.defaults();
        return ConfigCompiler.compile(
                        ConfigDb.parse(CONFIG),
                        d.withTables(1024, NEXT_HOPS, d.maxGroups(), NEIGHBORS, d.fdbEntries(), d.aclRules()),
                        Map.of())
                .setup()
                .tables();
    }

    @Test
    void shouldFollowMacChangeDeleteAndReAddWhenNextHopSlotIsCached() {
        final ForwardingTables t = tables();
        final NeighborTable n = t.neighbors();
        t.nextHop(3, 0, 0x0a00_0202L, false, 1);
        n.put(0, 0x0a00_0202L, false, 0x0200_0000_0001L, 1, true);
        assertThat(n.mac(t.nextHopNeighbor(3, false))).isEqualTo(0x0200_0000_0001L);
        n.put(0, 0x0a00_0202L, false, 0x0200_0000_0002L, 1, true);
        assertThat(n.mac(t.nextHopNeighbor(3, false)))
                .as("MAC changed in place")
                .isEqualTo(0x0200_0000_0002L);
        n.remove(0, 0x0a00_0202L, false);
        assertThat(t.nextHopNeighbor(3, false)).as("deleted").isEqualTo(NeighborTable.MISSING);
        n.put(0, 0x0a00_0202L, false, 0x0200_0000_0003L, 1, true);
        assertThat(n.mac(t.nextHopNeighbor(3, false))).as("re-added").isEqualTo(0x0200_0000_0003L);
        t.nextHop(3, 0, 0x0a00_0203L, false, 1);
        assertThat(t.nextHopNeighbor(3, false))
                .as("next hop moved to an unknown address")
                .isEqualTo(NeighborTable.MISSING);
        assertThat(t.nextHopNeighbor(3, true)).as("the other family").isEqualTo(NeighborTable.MISSING);
    }

    @Test
    void shouldAnswerAsFindWhenNeighborsAndNextHopsChangeAtRandom() {
        final SplittableRandom random = new SplittableRandom(20261202);
        for (int run = 0; run < 200; run++) {
            final ForwardingTables t = tables();
            final NeighborTable n = t.neighbors();
            for (int step = 0; step < 300; step++) {
                final long address = 0x0a00_0000L + random.nextInt(ADDRESSES);
                final boolean v6 = random.nextInt(4) == 0;
                switch (random.nextInt(10)) {
                    case 0, 1, 2 -> n.put(0, address, v6, random.nextLong(1L << 48), random.nextInt(4), true);
                    case 3, 4 -> n.remove(0, address, v6);
                    case 5 -> {
                        if (random.nextInt(20) == 0) {
                            n.clear();
                        }
                    }
                    case 6 -> t.nextHop(random.nextInt(NEXT_HOPS), 0, address, v6, random.nextInt(4));
                    case 7 -> t.removeNextHop(random.nextInt(NEXT_HOPS));
                    default -> {
                        // a routed packet: reads the cache without changing anything
                    }
                }
                for (int id = 0; id < NEXT_HOPS; id++) {
                    if (!t.nextHopDefined(id)) {
                        continue;
                    }
                    // mostly the next hop's own family, as routed traffic asks; now and then the other one, which
                    // replaces the cached entry (one family cached per next hop)
                    final boolean otherToo = random.nextInt(10) == 0;
                    final boolean own = t.nextHopV6(id);
                    for (final boolean family : otherToo ? new boolean[] {!own, own} : new boolean[] {own}) {
                        final int expected = n.find(t.nextHopHigh(id), t.nextHopLow(id), family);
                        final int cached = t.nextHopNeighbor(id, family);
                        assertThat(cached)
                                .as("run %d step %d next hop %d v6 %b", run, step, id, family)
                                .isEqualTo(expected);
                        if (cached != NeighborTable.MISSING) {
                            assertThat(n.mac(cached)).isEqualTo(n.mac(expected));
                        }
                    }
                }
            }
        }
    }
}
