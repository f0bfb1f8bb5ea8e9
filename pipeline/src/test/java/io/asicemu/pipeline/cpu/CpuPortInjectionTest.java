package io.asicemu.pipeline.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The PacketOut injection queue is bounded in frames and in bytes, and every refusal is handed over per port. */
class CpuPortInjectionTest {
    @Test
    void shouldRefuseBeyondTheFrameBoundAndHandOverRefusalsPerPort() {
        try (CpuPort cpu = new CpuPort(16, 256, 8)) {
            for (int i = 0; i < CpuPort.INJECTION_FRAMES; i++) {
                assertThat(cpu.packetOut(new byte[64], 2)).isTrue();
            }
            assertThat(cpu.packetOut(new byte[64], 2)).isFalse();
            assertThat(cpu.packetOutThroughIngress(new byte[64], 5)).isFalse();
            assertThat(cpu.packetOut(new byte[64], 5)).isFalse();
            final Map<Integer, Long> refused = new HashMap<>();
            cpu.drainRefusals((port, frames) -> refused.merge(port, frames, Long::sum));
            assertThat(refused).containsExactlyInAnyOrderEntriesOf(Map.of(2, 1L, 5, 2L));
            refused.clear();
            cpu.drainRefusals((port, frames) -> refused.merge(port, frames, Long::sum));
            assertThat(refused).as("handed over once").isEmpty();

            assertThat(cpu.pollInjected()).isNotNull();
            assertThat(cpu.packetOut(new byte[64], 2))
                    .as("room again after one left")
                    .isTrue();
        }
    }

    @Test
    void shouldRefuseBeyondTheByteBoundAndFreeBytesWhenDrained() {
        try (CpuPort cpu = new CpuPort(16, 256, 8)) {
            final int jumbo = (int) (CpuPort.INJECTION_BYTES / 4);
            for (int i = 0; i < 4; i++) {
                assertThat(cpu.packetOut(new byte[jumbo], 1)).isTrue();
            }
            assertThat(cpu.packetOut(new byte[1], 1))
                    .as("the byte budget is used up")
                    .isFalse();
            for (int i = 0; i < 4; i++) {
                assertThat(cpu.pollInjected()).isNotNull();
            }
            assertThat(cpu.pollInjected()).isNull();
            for (int i = 0; i < 4; i++) {
                assertThat(cpu.packetOut(new byte[jumbo], 1))
                        .as("the bytes came back when drained")
                        .isTrue();
            }
        }
    }
}
