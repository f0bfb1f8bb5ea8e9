package io.asicemu.tm.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.buffer.QueueStore;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The scheduler's closed-form path for a lone eligible queue must pick exactly what the plain round-robin walk picks,
 * and leave the same deficits behind: random queue types, weights, quanta (down to 1 byte per weight, where the walk
 * needs many rounds), frame sizes, pauses and arrivals, compared selection by selection against the walk alone.
 */
class PortSchedulerDifferentialTest {
    private static final int PORTS = 2;

    /** The round robin as a plain walk over the queues (the algorithm without its shortcut), kept as the oracle. */
    static final class Walk {
        private static final int MAX_VISITS = 4096;
        private final QueueStore queues;
        private final int[] type = new int[PORTS * 8];
        private final long[] quantum = new long[PORTS * 8];
        private final long[] deficit = new long[PORTS * 8];
        private final boolean[] granted = new boolean[PORTS * 8];
        private final int[] strictMask = new int[PORTS];
        private final int[] cursor = new int[PORTS];

        Walk(final QueueStore queues) {
            this.queues = queues;
            java.util.Arrays.fill(type, PortScheduler.WRR);
            java.util.Arrays.fill(quantum, 1);
        }

        void configure(final int port, final int q, final int schedulerType, final int weight, final long perWeight) {
            final int i = port * 8 + q;
            type[i] = schedulerType;
            quantum[i] = schedulerType == PortScheduler.DWRR ? weight * perWeight : weight;
            strictMask[port] =
                    schedulerType == PortScheduler.STRICT ? strictMask[port] | 1 << q : strictMask[port] & ~(1 << q);
        }

        int select(final int port, final int eligibleMask) {
            final int strict = eligibleMask & strictMask[port];
            if (strict != 0) {
                return 31 - Integer.numberOfLeadingZeros(strict);
            }
            final int rr = eligibleMask & ~strictMask[port];
            if (rr == 0) {
                return -1;
            }
            int q = cursor[port];
            for (int visit = 0; visit < MAX_VISITS; visit++) {
                final int i = port * 8 + q;
                if ((rr & (1 << q)) != 0) {
                    final long cost = type[i] == PortScheduler.DWRR ? queues.headBytes(i) : 1;
                    if (deficit[i] >= cost) {
                        cursor[port] = q;
                        return q;
                    }
                    if (!granted[i]) {
                        deficit[i] += quantum[i];
                        granted[i] = true;
                        continue;
                    }
                } else {
                    deficit[i] = 0;
                }
                granted[i] = false;
                q = (q + 1) & 7;
            }
            cursor[port] = q;
            return 31 - Integer.numberOfLeadingZeros(rr);
        }

        long stateOf(final int i) {
            return deficit[i] * 2 + (granted[i] ? 1 : 0);
        }

        void onServed(final int port, final int q, final int bytes) {
            final int i = port * 8 + q;
            if (type[i] == PortScheduler.DWRR) {
                deficit[i] = Math.max(0, deficit[i] - bytes);
            } else if (type[i] == PortScheduler.WRR) {
                deficit[i] = Math.max(0, deficit[i] - 1);
            }
        }
    }

    @Property(tries = 300)
    void shouldSelectExactlyAsTheRoundRobinWalkWhateverTheQueuesHold(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final QueueStore queues = new QueueStore(PORTS, 64);
        final PortScheduler fast = new PortScheduler(PORTS, queues);
        final Walk walk = new Walk(queues);
        final long perWeight = random.nextInt(4) == 0 ? 1 + random.nextInt(4) : 1024;
        for (int port = 0; port < PORTS; port++) {
            for (int q = 0; q < 8; q++) {
                final int roll = random.nextInt(10);
                if (roll < 7 || q == 0) {
                    final int type =
                            roll == 0 ? PortScheduler.STRICT : roll < 5 ? PortScheduler.DWRR : PortScheduler.WRR;
                    final int weight = 1 + random.nextInt(100);
                    fast.configure(port, q, type, weight, perWeight);
                    walk.configure(port, q, type, weight, perWeight);
                }
            }
        }
        final int arrivalOdds = 1 + random.nextInt(3); // 1: queues fill up and compete; 3: mostly one at a time
        int selections = 0;
        for (int step = 0; step < 3_000; step++) {
            final int port = random.nextInt(PORTS);
            if (random.nextInt(arrivalOdds) == 0) {
                // Arrivals: mostly to one favourite queue, so the lone-queue path is exercised often.
                final int q = random.nextInt(4) == 0 ? random.nextInt(8) : 3;
                final int qi = port * 8 + q;
                if (!queues.isFull(qi)) {
                    final int bytes = 60 + random.nextInt(random.nextBoolean() ? 200 : 9_000);
                    queues.push(qi, step, bytes, bytes, 0);
                }
            }
            final int paused = random.nextInt(5) == 0 ? random.nextInt(256) : 0;
            final int eligible = queues.nonEmptyMask(port) & ~paused;
            final int expected = walk.select(port, eligible);
            assertThat(fast.select(port, eligible))
                    .as("step %d, port %d, eligible %s", step, port, Integer.toBinaryString(eligible))
                    .isEqualTo(expected);
            if (expected >= 0) {
                final int qi = port * 8 + expected;
                final int bytes = queues.headBytes(qi);
                fast.onServed(port, expected, bytes);
                walk.onServed(port, expected, bytes);
                queues.pop(qi);
                selections++;
            }
            for (int i = 0; i < PORTS * 8; i++) {
                assertThat(fast.stateOf(i))
                        .as("step %d: deficit and grant of queue %d", step, i)
                        .isEqualTo(walk.stateOf(i));
            }
        }
        assertThat(selections).isPositive();
    }
}
