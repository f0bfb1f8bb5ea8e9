package io.asicemu.tm;

import io.asicemu.tm.pfc.PfcFrameSink;
import java.util.ArrayList;
import java.util.List;

/** Records PFC frames and post-admission drops. */
public final class RecordingSinks implements PfcFrameSink, DropSink {
    public record Frame(long nowNs, int port, int vector, int[] quanta) {}

    public record Drop(long nowNs, int handle, int port, int queue, int reason) {}

    public final List<Frame> frames = new ArrayList<>();
    public final List<Drop> drops = new ArrayList<>();

    @Override
    public void onPfcFrame(final long nowNs, final int port, final int classEnableVector, final int[] quanta) {
        frames.add(new Frame(nowNs, port, classEnableVector, quanta.clone()));
    }

    @Override
    public void onDropped(final long nowNs, final int handle, final int port, final int queue, final int reason) {
        drops.add(new Drop(nowNs, handle, port, queue, reason));
    }

    public List<Frame> framesOn(final int port) {
        final List<Frame> out = new ArrayList<>();
        for (final Frame f : frames) {
            if (f.port == port) {
                out.add(f);
            }
        }
        return out;
    }
}
