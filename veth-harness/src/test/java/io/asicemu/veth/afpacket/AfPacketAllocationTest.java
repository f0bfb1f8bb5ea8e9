package io.asicemu.veth.afpacket;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.ffm.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** transmit → flush → receive → release over a veth pair allocates nothing per packet (ThreadMXBean). */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AfPacketAllocationTest {
    private static final int ROUND = 2_048;
    private static final int WARMUP_ROUNDS = 300;
    private static final int MEASURED_ROUNDS = 50;
    private static final int MEASURED = ROUND * MEASURED_ROUNDS;
    private static final int BURST = 32;

    @Test
    void shouldNotAllocateWhenTransmittingAndReceivingFrames() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            final long[] result = new long[3];
            final Throwable[] failure = new Throwable[1];
            final Thread thread = new Thread(
                    () -> {
                        // the switch-side socket is made here, then the thread moves into h1 for the host-side socket:
                        // one
                        // thread drives both ends, so the per-thread allocation counter sees the whole path
                        try (AfPacketPort switchSide = AfPacketPort.open(portName, AfPacketConfig.throughput())) {
                            Libc.enterNetworkNamespace(h1.name());
                            try (AfPacketPort hostSide = AfPacketPort.open("eth1", AfPacketConfig.throughput());
                                    Arena arena = Arena.ofConfined()) {
                                final MemorySegment frame = arena.allocate(60, 64);
                                frame.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 12, (short) 0xb588);
                                final RxBatch batch = new RxBatch();
                                // many short calls, so the JIT compiles pump() itself (not just an OSR loop) before
                                // measuring
                                for (int i = 0; i < WARMUP_ROUNDS; i++) {
                                    pump(hostSide, switchSide, frame, batch, ROUND);
                                }
                                final var threads =
                                        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                                final long before = threads.getCurrentThreadAllocatedBytes();
                                long received = 0;
                                for (int i = 0; i < MEASURED_ROUNDS; i++) {
                                    received += pump(hostSide, switchSide, frame, batch, ROUND);
                                }
                                result[0] = threads.getCurrentThreadAllocatedBytes() - before;
                                result[1] = received;
                                result[2] = switchSide.kernelDropCount();
                            }
                        } catch (final Throwable t) {
                            failure[0] = t;
                        }
                    },
                    "alloc-test");
            thread.start();
            thread.join();
            assertThat(failure[0]).isNull();
            System.out.printf(
                    "%d frames through transmit/flush/receive/release: %d bytes allocated%n", result[1], result[0]);
            assertThat(result[1]).isEqualTo(MEASURED);
            assertThat(result[0]).as("bytes allocated for %d frames", MEASURED).isLessThan(1024);
        }
    }

    private static long pump(
            final AfPacketPort tx,
            final AfPacketPort rx,
            final MemorySegment frame,
            final RxBatch batch,
            final int frames) {
        long received = 0;
        for (int sent = 0; sent < frames; sent += BURST) {
            for (int i = 0; i < BURST; i++) {
                frame.set(java.lang.foreign.ValueLayout.JAVA_INT, 20, sent + i);
                while (!tx.transmit(frame, 0, 60, 0)) {
                    tx.flush();
                }
            }
            tx.flush();
            final long target = (long) sent + BURST;
            for (int spins = 0; received < target && spins < 1_000_000; spins++) {
                final int n = rx.receive(batch, 0);
                if (n > 0) {
                    received += n;
                    rx.release(batch);
                }
            }
        }
        return received;
    }
}
