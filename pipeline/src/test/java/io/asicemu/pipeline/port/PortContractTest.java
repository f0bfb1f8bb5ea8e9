package io.asicemu.pipeline.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The contract every port keeps; subclasses make a port that will receive {@link #frames()} at their times. */
abstract class PortContractTest {
    protected Port port;

    /** @return frames the port under test receives, at times 100, 200, 300 ns. */
    static byte[][] frames() {
        final byte[][] frames = new byte[3][];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = new byte[60 + i];
            for (int b = 0; b < frames[i].length; b++) {
                frames[i][b] = (byte) (b + i);
            }
        }
        return frames;
    }

    static final long[] TIMES_NS = {100, 200, 300};

    abstract Port newPort() throws Exception;

    /** @return what the port transmitted (empty if the port cannot tell). */
    abstract byte[][] transmitted() throws Exception;

    @BeforeEach
    void open() throws Exception {
        port = newPort();
    }

    @AfterEach
    void close() {
        port.close();
    }

    @Test
    void shouldLendOnlyFramesDueWhenReceiving() {
        final RxBatch batch = new RxBatch(8);
        assertThat(port.receive(batch, 99)).isZero();
        assertThat(port.receive(batch, 200)).isEqualTo(2);
        final byte[][] expected = frames();
        for (int i = 0; i < 2; i++) {
            assertThat(batch.length(i)).isEqualTo(expected[i].length);
            assertThat(batch.timestampNs(i)).isEqualTo(TIMES_NS[i]);
            final byte[] got =
                    batch.segment(i).asSlice(batch.offset(i), batch.length(i)).toArray(ValueLayout.JAVA_BYTE);
            assertThat(got).isEqualTo(expected[i]);
        }
        port.release(batch);
        assertThat(batch.count()).isZero();
        assertThat(port.receive(batch, 1_000)).isEqualTo(1);
        port.release(batch);
    }

    @Test
    void shouldStopAtBatchCapacityWhenMoreFramesAreDue() {
        final RxBatch batch = new RxBatch(2);
        assertThat(port.receive(batch, 1_000)).isEqualTo(2);
        port.release(batch);
        assertThat(port.receive(batch, 1_000)).isEqualTo(1);
        port.release(batch);
    }

    @Test
    void shouldCopyOnTransmitSoCallerMemoryIsFreeAfterwards() throws Exception {
        final byte[] frame = frames()[0].clone();
        final MemorySegment source = MemorySegment.ofArray(frame);
        assertThat(port.transmit(source, 0, frame.length, 5_000)).isTrue();
        frame[0] = 42;
        port.flush();
        final byte[][] sent = transmitted();
        if (sent.length > 0) {
            assertThat(sent[0]).isEqualTo(frames()[0]);
        }
        assertThat(port.pollFd()).isEqualTo(-1);
        assertThat(port.linkUp()).isTrue();
    }
}
