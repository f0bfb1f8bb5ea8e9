package io.asicemu.pipeline.cpu;

import java.lang.foreign.MemorySegment;

/** Receives packets punted to the CPU port (P4Runtime PacketIn, the replay's CPU capture, a test). */
@FunctionalInterface
public interface PacketInHandler {
    /**
     * Called on the consumer's thread during {@link CpuPort#poll}; the frame is valid only during the call.
     *
     * @param segment memory holding the frame.
     * @param offset its offset.
     * @param length its length.
     * @param ingressPort the port index it arrived on.
     * @param reason the {@link io.asicemu.pipeline.counter.PuntReason} index.
     * @param timestampNs when it was punted (emulated ns).
     */
    void onPacket(MemorySegment segment, long offset, int length, int ingressPort, int reason, long timestampNs);
}
