package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FdbAndNeighborTableTest {
    @Test
    void shouldKeepStaticEntryAgainstLearningAndAgingWhenSamePairIsSeenElsewhere() {
        final FdbTable fdb = new FdbTable(16);
        assertThat(fdb.putStatic(100, 0xaaL, 3)).isTrue();
        assertThat(fdb.learn(100, 0xaaL, 5, 0)).isFalse();
        assertThat(fdb.lookup(100, 0xaaL)).isEqualTo(3);
        fdb.learn(100, 0xbbL, 5, 0);
        assertThat(fdb.age(1_000, 500, fdb.slotCount())).isEqualTo(1);
        assertThat(fdb.lookup(100, 0xbbL)).isEqualTo(FdbTable.MISSING);
        assertThat(fdb.lookup(100, 0xaaL)).isEqualTo(3);
        assertThat(fdb.lookup(200, 0xaaL)).as("VLANs are separate").isEqualTo(FdbTable.MISSING);
    }

    @Test
    void shouldMoveLearnedEntryAndStopLearningWhenFull() {
        final FdbTable fdb = new FdbTable(2);
        assertThat(fdb.learn(1, 1, 1, 0)).isTrue();
        assertThat(fdb.learn(1, 1, 2, 0)).as("station move").isTrue();
        assertThat(fdb.lookup(1, 1)).isEqualTo(2);
        assertThat(fdb.learn(1, 2, 1, 0)).isTrue();
        assertThat(fdb.learn(1, 3, 1, 0)).as("table full").isFalse();
        assertThat(fdb.flushDynamic(1)).isEqualTo(1);
        assertThat(fdb.size()).isEqualTo(1);
    }

    @Test
    void shouldCountLearnedEntriesUnderRandomLearnStaticRemoveFlushAndAging() {
        final FdbTable fdb = new FdbTable(256);
        final SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 20_000; i++) {
            final int vlan = 1 + random.nextInt(3);
            final long mac = random.nextLong(48);
            switch (random.nextInt(8)) {
                case 0 -> fdb.putStatic(vlan, mac, random.nextInt(8));
                case 1 -> fdb.remove(vlan, mac);
                case 2 -> fdb.age(i, 500, 1 + random.nextInt(fdb.slotCount()));
                case 3 -> {
                    if (random.nextInt(50) == 0) {
                        fdb.flushDynamic(random.nextInt(9) - 1);
                    } else if (random.nextInt(50) == 0) {
                        fdb.flushVlan(vlan, random.nextInt(9) - 1);
                    }
                }
                default -> fdb.learn(vlan, mac, random.nextInt(8), i);
            }
            final int[] dynamic = {0};
            fdb.forEach((v, m, port, isStatic) -> dynamic[0] += isStatic ? 0 : 1);
            assertThat(fdb.dynamicSize()).as("learned entries after step %d", i).isEqualTo(dynamic[0]);
        }
    }

    @Test
    void shouldAgreeWithHashMapUnderRandomLearnRemoveAndAging() {
        final FdbTable fdb = new FdbTable(512);
        final Map<Long, Integer> reference = new HashMap<>();
        final SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 20_000; i++) {
            final int vlan = 1 + random.nextInt(3);
            final long mac = random.nextLong(64);
            final long key = FdbTable.key(vlan, mac);
            if (random.nextInt(4) == 0) {
                fdb.remove(vlan, mac);
                reference.remove(key);
            } else if (reference.size() < 512 || reference.containsKey(key)) {
                final int port = random.nextInt(8);
                fdb.learn(vlan, mac, port, i);
                reference.put(key, port);
            }
            final long probe = random.nextLong(64);
            final int pv = 1 + random.nextInt(3);
            assertThat(fdb.lookup(pv, probe))
                    .isEqualTo(reference.getOrDefault(FdbTable.key(pv, probe), FdbTable.MISSING));
        }
        assertThat(fdb.size()).isEqualTo(reference.size());
    }

    @Test
    void shouldKeepIpv4AndIpv6ApartAndStaticEntriesAgainstLearningWhenAddressesShareBits() {
        final NeighborTable n = new NeighborTable(8);
        n.put(0, 0x0a000002L, false, 0x11L, 1, true);
        n.put(0, 0x0a000002L, true, 0x22L, 2, false);
        assertThat(n.mac(n.find(0, 0x0a000002L, false))).isEqualTo(0x11L);
        assertThat(n.mac(n.find(0, 0x0a000002L, true))).isEqualTo(0x22L);
        assertThat(n.put(0, 0x0a000002L, false, 0x33L, 1, false))
                .as("learning never overrides static")
                .isFalse();
        assertThat(n.remove(0, 0x0a000002L, true)).isTrue();
        assertThat(n.find(0, 0x0a000002L, true)).isEqualTo(NeighborTable.MISSING);
        assertThat(n.find(0, 0x0a000002L, false)).isNotEqualTo(NeighborTable.MISSING);
    }
}
