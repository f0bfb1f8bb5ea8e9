package io.asicemu.scenario;

import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A switch port at one end of a modeled cable: it receives what the far end sent once it has arrived, and hands
 * what the switch transmits to the far end, arriving {@code cableNs} after its last bit left.
 */
final class LinkPort implements Port {
    /** The far end of the cable. */
    interface FarEnd {
        void arrive(MemorySegment frame, long offset, int length, long arrivalNs);
    }

    private final String name;
    private final int mtu;
    private final long speedMbps;
    private long cableNs = -1;
    private final FrameFifo rx;
    private FarEnd farEnd;
    private int lent;
    private long txFrames;
    private long txBytes;

    LinkPort(Arena arena, String name, int mtu, long speedMbps) {
        this.name = name;
        this.mtu = mtu;
        this.speedMbps = speedMbps;
        this.rx = new FrameFifo(arena, 1 << 20, 4096);
    }

    /** Plugs the cable in; a port takes one cable. */
    void connect(FarEnd farEnd, long cableNs, String owner) {
        if (this.farEnd != null) {
            throw new ScenarioException(owner + ": " + name + " already has a cable");
        }
        if (cableNs < 1) {
            throw new ScenarioException(owner + ": cableNs must be at least 1 ns, got " + cableNs);
        }
        this.farEnd = farEnd;
        this.cableNs = cableNs;
    }

    /** The far end sent a frame that reaches this port at {@code arrivalNs}. */
    void arrive(MemorySegment frame, long offset, int length, long arrivalNs) {
        rx.add(frame, offset, length, arrivalNs);
    }

    long nextArrivalNs() {
        return lent > 0 ? Long.MAX_VALUE : rx.headArrivalNs();
    }

    long cableNs() {
        return cableNs;
    }

    long lostOnCable() {
        return rx.overflows();
    }

    long txFrames() {
        return txFrames;
    }

    long txBytes() {
        return txBytes;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int receive(RxBatch batch, long nowNs) {
        int n = 0;
        while (lent + n < rx.size() && batch.remaining() > 0 && rx.arrival(lent + n) <= nowNs) {
            int i = lent + n;
            batch.add(rx.ring(), rx.offset(i), rx.length(i), rx.arrival(i), 0);
            n++;
        }
        lent += n;
        return n;
    }

    @Override
    public void release(RxBatch batch) {
        rx.removeHead(lent);
        lent = 0;
        batch.clear();
    }

    @Override
    public boolean transmit(MemorySegment source, long offset, int length, long timestampNs) {
        txFrames++;
        txBytes += length;
        if (farEnd != null) {
            farEnd.arrive(source, offset, length, timestampNs + cableNs);
        }
        return true;
    }

    @Override
    public void flush() {}

    @Override
    public boolean linkUp() {
        return farEnd != null;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public long speedMbps() {
        return speedMbps;
    }

    @Override
    public int pollFd() {
        return -1;
    }

    @Override
    public void close() {}
}
