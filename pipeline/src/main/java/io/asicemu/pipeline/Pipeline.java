package io.asicemu.pipeline;

import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.counter.Counters;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.Clock;
import java.util.Map;

/**
 * The composition root of one switch pipeline: wires the data-plane agent, its counters and CPU port, and the control
 * API. It runs nothing itself: step {@link #agent()} or hand it to an {@code AgentRunner}.
 * <pre>
 *   Pipeline p = Pipeline.create(clock, PipelineSizing.defaults(), Map.of());
 *   p.control().attachPort("Ethernet0", port0);
 *   SwitchConfig.of(p.control()).applyConfig(ConfigDb.load(path));
 *   while (...) p.agent().doWork();
 * </pre>
 * Not thread safe to build; afterwards see {@link DataPlaneAgent} and {@link PipelineControl} for threading.
 *
 * @param agent the data-plane agent.
 * @param control the control API.
 */
public record Pipeline(DataPlaneAgent agent, PipelineControl control) implements AutoCloseable {

    /**
     * @param clock the time source.
     * @param sizing table sizes.
     * @param linuxOverrides SONiC → Linux port names overriding the sonic-vs default.
     * @return a pipeline with no configuration.
     */
    public static Pipeline create(
            final Clock clock, final PipelineSizing sizing, final Map<String, String> linuxOverrides) {
        final Counters counters = new Counters(sizing.maxPorts(), sizing.aclRules());
        final CpuPort cpu = new CpuPort(sizing.cpuQueueSlots(), sizing.maxFrameBytes(), sizing.maxPorts());
        final DataPlaneAgent agent = new DataPlaneAgent(clock, sizing, counters, cpu);
        return new Pipeline(agent, new PipelineControl(agent, clock, sizing, linuxOverrides));
    }

    /** Releases native memory; call after the agent stopped. */
    @Override
    public void close() {
        agent.onClose();
        agent.cpuPort().close();
    }
}
