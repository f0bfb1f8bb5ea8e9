package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The data path allocates nothing: admit, dequeue (WRED/ECN), PFC XOFF/XON/refresh, PFC reception, polls. */
class AllocationGuardTest {
    private static final int[] QUANTA = {0, 0, 0, 200, 0, 0, 0, 0};

    private long t;
    private int handle;
    private long dequeued;

    private void step(final TrafficManager tm, final long gapNs) {
        t += gapNs;
        final int in = handle & 1;
        tm.admit(t, in, 3, 2, 3, 1086, 2, handle++);
        while (tm.nextTransmitNs(t, 2) <= t) {
            if (tm.dequeue(t, 2) == TrafficManager.NO_PACKET) {
                break;
            }
            dequeued++;
        }
        if (tm.nextDeadlineNs() <= t) {
            tm.poll(t);
        }
        if ((handle & 1023) == 0) {
            tm.onPfcReceived(t, 2, 1 << 3, QUANTA);
        }
    }

    private void run(final TrafficManager tm, final int packets) {
        for (int i = 0; i < packets; i++) {
            step(tm, (i / 4000 & 1) == 0 ? 40 : 200);
        }
    }

    static TrafficManager workload() {
        final Db db = Db.ports(3)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "dynamic", "size", "4000000")
                .put(
                        "BUFFER_PROFILE",
                        "lossless",
                        "pool",
                        "ing",
                        "size",
                        "1248",
                        "dynamic_th",
                        "-2",
                        "xoff",
                        "100352",
                        "xon",
                        "2288",
                        "xon_offset",
                        "2288")
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "green_min_threshold",
                        "50000",
                        "green_max_threshold",
                        "300000",
                        "green_drop_probability",
                        "20",
                        "ecn",
                        "ecn_all")
                .put("SCHEDULER", "s0", "type", "DWRR", "weight", "14")
                .put("SCHEDULER", "s1", "type", "DWRR", "weight", "15");
        for (int p = 0; p < 3; p++) {
            db.put("PORT_QOS_MAP", Db.port(p), "pfc_enable", "3,4")
                    .put("BUFFER_PG", Db.port(p) + "|3-4", "profile", "lossless")
                    .put("QUEUE", Db.port(p) + "|3-4", "scheduler", "s1", "wred_profile", "W")
                    .put("QUEUE", Db.port(p) + "|0-2", "scheduler", "s0");
        }
        return new TrafficManager(db.parse(), TmOptions.defaults(), (n, p, v, q) -> {}, (n, h, p, q, r) -> {}, 0);
    }

    @Test
    @Timeout(120)
    void shouldAllocateNothingPerPacketWhenWarmedUp() {
        final TrafficManager tm = workload();
        final com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        run(tm, 400_000);
        final long before = mx.getCurrentThreadAllocatedBytes();
        run(tm, 1_000_000);
        final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(dequeued).isGreaterThan(500_000);
        assertThat(allocated).as("bytes allocated over 10^6 packets").isLessThan(1024);
        final io.asicemu.tm.counter.TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(t, s);
        assertThat(s.queue(2, 3, io.asicemu.tm.counter.QueueStat.WRED_ECN_MARKED_PACKETS))
                .isPositive();
        assertThat(s.pfc(0, 3, io.asicemu.tm.counter.PfcStat.TX_PKTS)).isGreaterThan(2);
        assertThat(s.pfc(2, 3, io.asicemu.tm.counter.PfcStat.RX_PKTS)).isPositive();
    }
}
