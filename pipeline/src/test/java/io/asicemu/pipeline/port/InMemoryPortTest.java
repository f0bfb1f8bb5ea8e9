package io.asicemu.pipeline.port;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InMemoryPortTest extends PortContractTest {
    @Override
    Port newPort() {
        final InMemoryPort p = new InMemoryPort("Ethernet0", 4, 128, 100, 10_000);
        final byte[][] frames = frames();
        for (int i = 0; i < frames.length; i++) {
            assertThat(p.inject(frames[i], TIMES_NS[i])).isTrue();
        }
        return p;
    }

    @Override
    byte[][] transmitted() {
        final InMemoryPort p = (InMemoryPort) port;
        final byte[][] out = new byte[p.transmittedCount()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = p.transmitted(i);
        }
        return out;
    }

    @Test
    void shouldRefuseInjectWhenRxRingIsFull() {
        final InMemoryPort p = (InMemoryPort) port;
        assertThat(p.inject(new byte[60], 400)).isTrue();
        assertThat(p.inject(new byte[60], 500)).isFalse();
        assertThat(p.inject(new byte[129], 500)).isFalse();
    }

    @Test
    void shouldRefuseTransmitWhenLinkIsDown() {
        final InMemoryPort p = (InMemoryPort) port;
        p.linkUp(false);
        assertThat(p.transmit(java.lang.foreign.MemorySegment.ofArray(new byte[60]), 0, 60, 1))
                .isFalse();
    }
}
