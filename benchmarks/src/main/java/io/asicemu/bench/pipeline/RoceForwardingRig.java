package io.asicemu.bench.pipeline;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.port.InMemoryPort;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * The switch the pipeline benchmarks drive: 64-byte RoCEv2 frames (256 flows by UDP source port, BTH destination QP
 * and destination address in 172.16/12) enter Ethernet0 and are routed over a 4-way ECMP group to Ethernet4..16, all
 * 400G in-memory ports on a manual clock. Benchmarks add their tables through {@link #pipeline}, then call
 * {@link #warmUp} and measure {@link #forwardRoceBatch}.
 */
final class RoceForwardingRig implements AutoCloseable {
    static final int BATCH = 32;
    private static final int FLOWS = 256;
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "400000", "admin_status": "up"},
                  "Ethernet4": {"speed": "400000", "admin_status": "up"},
                  "Ethernet8": {"speed": "400000", "admin_status": "up"},
                  "Ethernet12": {"speed": "400000", "admin_status": "up"},
                  "Ethernet16": {"speed": "400000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {},
                       "Ethernet8": {}, "Ethernet8|10.0.3.1/24": {}, "Ethernet12": {}, "Ethernet12|10.0.4.1/24": {},
                       "Ethernet16": {}, "Ethernet16|10.0.5.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"},
                   "Ethernet8|10.0.3.2": {"neigh": "02:00:00:00:03:02"},
                   "Ethernet12|10.0.4.2": {"neigh": "02:00:00:00:04:02"},
                   "Ethernet16|10.0.5.2": {"neigh": "02:00:00:00:05:02"}},
         "STATIC_ROUTE": {"172.16.0.0/12": {"nexthop": "10.0.2.2,10.0.3.2,10.0.4.2,10.0.5.2"}},
         "SWITCH_HASH": {"GLOBAL": {"ecmp_hash_algorithm": "CRC"}}}
        """;

    final ManualClock clock = new ManualClock(1_000_000_000L);
    final Pipeline pipeline = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
    private final InMemoryPort in = new InMemoryPort("Ethernet0", 256, 2048, 9100, 400_000);
    private final InMemoryPort[] outs = new InMemoryPort[4];
    private final MemorySegment frames = Arena.ofAuto().allocate(FLOWS * 64L, 64);
    private final int frameLength;
    private int next;

    RoceForwardingRig() {
        pipeline.control().attachPort("Ethernet0", in);
        for (int i = 0; i < 4; i++) {
            outs[i] = new InMemoryPort("Ethernet" + (4 + 4 * i), 256, 2048, 9100, 400_000);
            pipeline.control().attachPort("Ethernet" + (4 + 4 * i), outs[i]);
        }
        SwitchConfig.of(pipeline.control()).applyConfig(ConfigDb.parse(CONFIG));
        pipeline.agent().doWork();
        final FrameBuilder b = new FrameBuilder().reset();
        int length = 0;
        for (int f = 0; f < FLOWS; f++) {
            length = b.macs(0x02aa_bbcc_ddeeL, 0x0200_0000_0102L)
                    .ipv4(0x0a00_0102, 0xac10_0000 | (f * 37 & 0xffff))
                    .udpPorts(49152 + f, 4791)
                    .bth(4, 0x100 + f, f)
                    .buildRoce(frames, f * 64L, 0);
        }
        frameLength = length;
    }

    /** Forwards 64 batches and checks that every frame leaves (the benchmarked path is the forwarding one). */
    void warmUp() {
        for (int warm = 0; warm < 64; warm++) {
            if (forwardRoceBatch() != BATCH) {
                throw new IllegalStateException("the benchmarked path does not forward every frame");
            }
        }
    }

    /** @return frames transmitted after injecting one 32-frame batch and running the duty cycles that forward it. */
    long forwardRoceBatch() {
        injectBatch();
        pipeline.agent().doWork();
        clock.advanceNs(1_000);
        pipeline.agent().doWork();
        return collectTransmitted();
    }

    /** Step 1 of {@link #forwardRoceBatch}: copies the next 32 frames into the RX ring (as a NIC would). */
    void injectBatch() {
        for (int i = 0; i < BATCH; i++) {
            in.inject(frames, next * 64L, frameLength, clock.nowNs());
            next = (next + 1) & (FLOWS - 1);
        }
    }

    /** Last step of {@link #forwardRoceBatch}: @return frames the TX rings hold, which are then emptied. */
    long collectTransmitted() {
        long sent = 0;
        for (final InMemoryPort out : outs) {
            sent += out.transmittedCount();
            out.clearTransmitted();
        }
        return sent;
    }

    @Override
    public void close() {
        pipeline.close();
        in.close();
        for (final InMemoryPort out : outs) {
            out.close();
        }
    }
}
