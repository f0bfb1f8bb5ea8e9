package io.asicemu.veth;

import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.afpacket.AfPacketPort;
import io.asicemu.veth.harness.Netns;
import io.asicemu.veth.harness.NetnsLab;
import io.asicemu.veth.harness.Offloads;
import io.asicemu.veth.testing.NetnsLabExtension;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real-time loop over 32 idle AF_PACKET ports, blocking in epoll with a 100 ms timer deadline (10 Hz housekeeping;
 * -Didle.periodMs=N to change it), must use under 1% of a core, measured from /proc/self/stat (whole JVM) over 10 s:
 * 1% is then 10 clock ticks, so tick-sampling noise stays small.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IdlePortsCpuTest {
    private static final int PORTS = 32;
    private static final long TIMER_PERIOD_NS = Long.getLong("idle.periodMs", 100) * 1_000_000L;
    private static final int WARMUP_CYCLES = 30_000;
    private static final long WINDOW_MS = 10_000;

    @Test
    void shouldUseUnderOnePercentOfACoreWhenThirtyTwoPortsAreIdle() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns hosts = lab.namespace("hosts");
            hosts.disableIpv6();
            final List<Port> ports = new ArrayList<>();
            try {
                for (int i = 1; i <= PORTS; i++) {
                    final String name = lab.switchLink("p" + i, hosts, "eth" + i, Offloads.KERNEL_DEFAULT, 1500);
                    ports.add(AfPacketPort.open(name, new AfPacketConfig(64, 64, false, true, 100_000)));
                }
                final AtomicLong cycles = new AtomicLong();
                final AtomicLong loopCpuNs = new AtomicLong();
                final long[] window = new long[1];
                final Thread loop = new Thread(() -> runLoop(ports, cycles, loopCpuNs), "idle-loop");
                loop.start();
                Thread.sleep(2_000);
                final java.util.Map<String, Long> tasksBefore = taskTicks();
                final long loopBefore = ManagementFactory.getThreadMXBean().getThreadCpuTime(loop.threadId());
                final long ticksBefore = processTicks();
                final long cyclesBefore = cycles.get();
                final long start = System.nanoTime();
                Thread.sleep(WINDOW_MS);
                final long ticksAfter = processTicks();
                final long loopWindowNs = ManagementFactory.getThreadMXBean().getThreadCpuTime(loop.threadId())
                    - loopBefore;
                final java.util.Map<String, Long> tasksAfter = taskTicks();
                tasksAfter.forEach((task, ticks) -> {
                    final long delta = ticks - tasksBefore.getOrDefault(task, 0L);
                    if (delta > 0) {
                        System.out.println("  thread " + task + ": " + delta + " ticks");
                    }
                });
                window[0] = System.nanoTime() - start;
                final long cyclesInWindow = cycles.get() - cyclesBefore;
                loop.interrupt();
                loop.join(5_000);

                final double processCpuPercent = 100.0 * (ticksAfter - ticksBefore) * 10_000_000L / window[0];
                final double loopCpuPercent = 100.0 * loopWindowNs / window[0];
                System.out.printf("idle %d ports: process CPU %.2f%% of a core over %.1f s, loop thread %.3f%%,"
                    + " %d cycles%n", PORTS, processCpuPercent, window[0] / 1e9, loopCpuPercent, cyclesInWindow);
                // two cycles per timer period: one fires the timer (work), the next finds nothing and blocks
                final long periods = WINDOW_MS * 1_000_000L / TIMER_PERIOD_NS;
                assertThat(cyclesInWindow).as("the loop woke for its timer").isBetween(periods * 8 / 5, periods * 21 / 10);
                assertThat(processCpuPercent).isLessThan(1.0);
            } finally {
                ports.forEach(Port::close);
            }
        }
    }

    private static void runLoop(final List<Port> ports, final AtomicLong cycles, final AtomicLong loopCpuNs) {
        final RxBatch batch = new RxBatch();
        final var threads = ManagementFactory.getThreadMXBean();
        final long cpuStart = threads.getCurrentThreadCpuTime();
        try (PortPoller poller = new PortPoller(ports.size())) {
            ports.forEach(poller::add);
            // warm-up: the JIT compiles the loop (as it would after minutes of a real switch idling)
            for (int i = 0; i < WARMUP_CYCLES; i++) {
                for (int p = 0; p < ports.size(); p++) {
                    final Port port = ports.get(p);
                    if (port.receive(batch, System.nanoTime()) > 0) {
                        port.release(batch);
                    }
                    port.flush();
                }
                poller.check();
            }
            long deadlineNs = System.nanoTime() + TIMER_PERIOD_NS;
            while (!Thread.currentThread().isInterrupted()) {
                final long nowNs = System.nanoTime();
                int work = 0;
                for (int i = 0; i < ports.size(); i++) {
                    final Port port = ports.get(i);
                    final int n = port.receive(batch, nowNs);
                    if (n > 0) {
                        port.release(batch);
                    }
                    work += n;
                    port.flush();
                }
                if (nowNs - deadlineNs >= 0) {
                    deadlineNs += TIMER_PERIOD_NS;
                    work++;
                }
                cycles.incrementAndGet();
                if (work == 0) {
                    poller.idle(nowNs, deadlineNs);
                }
            }
        }
        loopCpuNs.set(threads.getCurrentThreadCpuTime() - cpuStart);
    }

    private static java.util.Map<String, Long> taskTicks() throws IOException {
        final java.util.Map<String, Long> ticks = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (final Path task : tasks.toList()) {
                try {
                    final String stat = Files.readString(task.resolve("stat"));
                    final String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks.put(task.getFileName() + " " + name, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                } catch (final IOException e) {
                    // thread ended
                }
            }
        }
        return ticks;
    }

    /** utime + stime of this process in clock ticks (USER_HZ = 100), fields 14 and 15 of /proc/self/stat. */
    private static long processTicks() throws IOException {
        final String stat = Files.readString(Path.of("/proc/self/stat"));
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
