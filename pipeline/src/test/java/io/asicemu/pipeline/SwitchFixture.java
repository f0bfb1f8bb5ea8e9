package io.asicemu.pipeline;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole switch on the test thread: in-memory ports named Ethernet0, Ethernet4, … , a manual clock, and a
 * stepping loop bounded in cycles. Frames are injected at the current time.
 */
public final class SwitchFixture implements AutoCloseable {
    public final ManualClock clock = new ManualClock(1_000_000_000L);
    public final Pipeline pipeline;
    public final Map<String, InMemoryPort> ports = new LinkedHashMap<>();

    public SwitchFixture(final String configJson, final PipelineSizing sizing) {
        pipeline = Pipeline.create(clock, sizing, Map.of());
        final ConfigDb db = ConfigDb.parse(configJson);
        for (final String name : db.table("PORT").keySet()) {
            final InMemoryPort port = new InMemoryPort(name);
            ports.put(name, port);
            pipeline.control().attachPort(name, port);
        }
        SwitchConfig.of(pipeline.control()).applyConfig(db);
        pipeline.agent().doWork();
    }

    public SwitchFixture(final String configJson) {
        this(configJson, PipelineSizing.defaults());
    }

    public InMemoryPort port(final String name) {
        return ports.get(name);
    }

    /** Injects a frame on a port at the current time. */
    public void send(final String port, final byte[] frame) {
        if (!ports.get(port).inject(frame, clock.nowNs())) {
            throw new IllegalStateException("RX ring full on " + port);
        }
    }

    /** Steps the agent, jumping to each deadline, until nothing is pending (at most 10 000 cycles). */
    public void run() {
        final DataPlaneAgent agent = pipeline.agent();
        for (int i = 0; i < 10_000; i++) {
            agent.doWork();
            boolean pending = agent.hasQueuedPackets();
            for (final InMemoryPort p : ports.values()) {
                pending |= p.pendingRx() > 0;
            }
            if (!pending) {
                return;
            }
            final long next = agent.nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
        }
        throw new IllegalStateException("switch did not go idle");
    }

    /** Frames a port transmitted since the last call (and forgets them). */
    public List<byte[]> take(final String port) {
        final InMemoryPort p = ports.get(port);
        final List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < p.transmittedCount(); i++) {
            frames.add(p.transmitted(i));
        }
        p.clearTransmitted();
        return frames;
    }

    public long counter(final String port, final String name) {
        return pipeline.control().counters().port(port, name);
    }

    @Override
    public void close() {
        pipeline.close();
        ports.values().forEach(InMemoryPort::close);
    }
}
