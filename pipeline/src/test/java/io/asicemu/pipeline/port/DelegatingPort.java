package io.asicemu.pipeline.port;

import java.lang.foreign.MemorySegment;

/** An in-memory port that a test subclasses to change one behaviour (readiness, losses) and keep the rest. */
public class DelegatingPort implements Port {
    public final InMemoryPort port;

    public DelegatingPort(final String name) {
        port = new InMemoryPort(name);
    }

    @Override
    public String name() {
        return port.name();
    }

    @Override
    public int receive(final RxBatch batch, final long nowNs) {
        return port.receive(batch, nowNs);
    }

    @Override
    public void release(final RxBatch batch) {
        port.release(batch);
    }

    @Override
    public boolean transmit(final MemorySegment source, final long offset, final int length, final long atNs) {
        return port.transmit(source, offset, length, atNs);
    }

    @Override
    public void flush() {
        port.flush();
    }

    @Override
    public boolean linkUp() {
        return port.linkUp();
    }

    @Override
    public int mtu() {
        return port.mtu();
    }

    @Override
    public long speedMbps() {
        return port.speedMbps();
    }

    @Override
    public int pollFd() {
        return port.pollFd();
    }

    @Override
    public void close() {
        port.close();
    }
}
