package io.asicemu.bench.tm;

import io.asicemu.tm.buffer.QueueStore;
import io.asicemu.tm.scheduler.PortScheduler;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One egress port's queue choice and its accounting per packet: {@code busyQueues} round-robin queues stay backlogged
 * with 64-byte frames (each served frame is put back), WRR weight 1 (a port without SCHEDULER config) or DWRR 14/15
 * (SONiC's defaults, 1024 B per weight). One busy queue takes the scheduler's lone-queue path; two or more take its
 * round-robin walk.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class SchedulerBenchmark {
    @Param({"1", "2", "4"})
    int busyQueues;

    @Param({"WRR", "DWRR"})
    String type;

    private QueueStore queues;
    private PortScheduler scheduler;

    /** Builds one port with its busy queues backlogged. */
    @Setup
    public void setUp() {
        queues = new QueueStore(1, 8 * 32); // descriptors shared by the 8 queues: room for 32 frames in each
        scheduler = new PortScheduler(1, queues);
        for (int q = 0; q < 8; q++) {
            if (type.equals("DWRR")) {
                scheduler.configure(0, q, PortScheduler.DWRR, q == 3 || q == 4 ? 15 : 14, 1024);
            } else {
                scheduler.configure(0, q, PortScheduler.WRR, 1, 1024);
            }
        }
        for (int b = 0; b < busyQueues; b++) {
            for (int i = 0; i < 32; i++) {
                queues.push(b * 2 + 1, i, 64, 64, 0);
            }
        }
    }

    /** @return the queue served (consumed by JMH). */
    @Benchmark
    public int selectAndServe() {
        final int q = scheduler.select(0, queues.nonEmptyMask(0));
        scheduler.onServed(0, q, 64);
        final int slot = queues.headSlot(q);
        final int handle = queues.handle(slot);
        queues.pop(q);
        queues.push(q, handle, 64, 64, 0);
        return q;
    }
}
