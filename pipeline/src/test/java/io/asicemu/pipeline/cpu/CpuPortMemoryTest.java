package io.asicemu.pipeline.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.port.AnonymousMemory;
import io.asicemu.pipeline.table.PipelineSizing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The punt ring is sized for the default 1,024 largest frames (9.5 MiB) but costs resident memory only for the slots
 * punts have reached: it was zero-filled (and so resident) at every start.
 */
@EnabledOnOs(OS.LINUX)
class CpuPortMemoryTest {
    @Test
    void shouldBecomeResidentOnlyWhereFramesWerePunted() {
        final PipelineSizing sizing = PipelineSizing.defaults();
        try (CpuPort cpu = new CpuPort(sizing.cpuQueueSlots(), sizing.maxFrameBytes(), sizing.maxPorts());
                Arena arena = Arena.ofConfined()) {
            final MemorySegment arp = arena.allocate(60);
            arp.fill((byte) 0x5a);
            final AtomicReference<MemorySegment> ring = new AtomicReference<>();
            assertThat(cpu.punt(arp, 0, 60, 3, 0, 1L)).isTrue();
            assertThat(cpu.poll(
                            (segment, offset, length, port, reason, ns) -> {
                                ring.set(segment);
                                assertThat(segment.get(ValueLayout.JAVA_BYTE, offset + 59))
                                        .isEqualTo((byte) 0x5a);
                            },
                            1))
                    .isOne();
            assertThat(ring.get().byteSize())
                    .as("the ring covers the configured slots")
                    .isEqualTo((long) sizing.cpuQueueSlots() * sizing.maxFrameBytes());
            assertThat(AnonymousMemory.residentBytes(ring.get()))
                    .as("resident bytes of a 9.5 MiB punt ring after one 60 B punt: its first page")
                    .isEqualTo(4096);
            for (int i = 0; i < 99; i++) {
                assertThat(cpu.punt(arp, 0, 60, 3, 0, 2L + i)).isTrue();
            }
            assertThat(AnonymousMemory.residentBytes(ring.get()))
                    .as("after 100 ARP-sized punts: at most a page a slot, not 100 x 9.5 KiB")
                    .isLessThanOrEqualTo(100 * 4096L);
        }
    }
}
