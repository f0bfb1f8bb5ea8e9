/**
 * The data plane: {@link io.asicemu.pipeline.dataplane.DataPlaneAgent} runs the stages over the ports, one thread, and
 * applies the control model's {@link io.asicemu.pipeline.dataplane.DataPlaneCommand}s between packet batches. It names
 * nothing of the control model or the config side (PackageDependencyTest).
 */
package io.asicemu.pipeline.dataplane;
