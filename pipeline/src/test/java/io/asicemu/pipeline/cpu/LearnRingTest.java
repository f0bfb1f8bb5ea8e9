package io.asicemu.pipeline.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LearnRingTest {
    @Test
    void shouldRoundCapacityUpToAPowerOfTwoAndCountDropsWhenFull() {
        final LearnRing ring = new LearnRing(5);
        assertThat(ring.capacity()).isEqualTo(8);
        for (int i = 0; i < 10; i++) {
            assertThat(ring.offer(10, i, 3, 100 + i)).isEqualTo(i < 8);
        }
        assertThat(ring.pending()).isEqualTo(8);
        assertThat(ring.dropped()).isEqualTo(2);
        final List<long[]> out = new ArrayList<>();
        assertThat(ring.poll((vlan, mac, port, ns) -> out.add(new long[] {vlan, mac, port, ns}), 3))
                .isEqualTo(3);
        assertThat(out.get(0)).containsExactly(10, 0, 3, 100);
        assertThat(out.get(2)).containsExactly(10, 2, 3, 102);
        assertThat(ring.offer(11, 42, 4, 200)).as("room again").isTrue();
        out.clear();
        assertThat(ring.poll((vlan, mac, port, ns) -> out.add(new long[] {vlan, mac, port, ns}), 100))
                .isEqualTo(6);
        assertThat(out.get(5)).containsExactly(11, 42, 4, 200);
        assertThat(ring.pending()).isZero();
    }

    @Test
    void shouldDeliverEveryAcceptedEventOnceInOrderWhenProducerAndConsumerRunOnTwoThreads() throws Exception {
        final LearnRing ring = new LearnRing(64);
        final int events = 1_000_000;
        final long[] refused = new long[1];
        final Thread producer = Thread.ofPlatform().start(() -> {
            long n = 0;
            for (int i = 0; i < events; i++) {
                while (!ring.offer(i & 0xfff, i, i & 0xff, i)) { // retried here only to test the hand-off
                    n++;
                    Thread.onSpinWait();
                }
            }
            refused[0] = n;
        });
        final long[] received = new long[1];
        final long[] last = {-1};
        final boolean[] consistent = {true};
        final LearnRing.Handler check = (vlan, mac, port, ns) -> {
            consistent[0] &= mac > last[0] && vlan == (mac & 0xfff) && port == (mac & 0xff) && ns == mac;
            last[0] = mac;
            received[0]++;
        };
        while (producer.isAlive()) {
            ring.poll(check, 16);
        }
        producer.join();
        ring.poll(check, Integer.MAX_VALUE);
        assertThat(consistent[0]).as("in order, fields of one record together").isTrue();
        assertThat(received[0]).isEqualTo(events);
        assertThat(ring.dropped()).as("every refusal counted").isEqualTo(refused[0]);
        System.out.printf(
                "learn ring, 2 threads: %d delivered in order, %d offers refused while full (ring of %d)%n",
                received[0], ring.dropped(), ring.capacity());
    }
}
