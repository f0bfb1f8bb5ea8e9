/** The pipeline's control API shared by config, CLI and P4Runtime: {@link io.asicemu.pipeline.control.PipelineControl}
 * (config, ports, counters, CPU port) and {@link io.asicemu.pipeline.control.TableBatch} (atomic table edits). */
package io.asicemu.pipeline.control;
