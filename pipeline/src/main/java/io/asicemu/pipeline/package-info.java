/** The switch pipeline: {@link io.asicemu.pipeline.Pipeline} wires the {@link io.asicemu.pipeline.dataplane.DataPlaneAgent}
 * (the single-writer data plane) and the control API ({@link io.asicemu.pipeline.control.PipelineControl}). */
package io.asicemu.pipeline;
